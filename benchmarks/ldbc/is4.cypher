// IS4 Content of a message (a post shows its image file when it has no text).
MATCH (m:Post {id: $messageId})
RETURN m.creationDate AS messageCreationDate, coalesce(m.content, m.imageFile) AS messageContent
UNION ALL
MATCH (m:Comment {id: $messageId})
RETURN m.creationDate AS messageCreationDate, m.content AS messageContent
