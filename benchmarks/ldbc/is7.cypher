// IS7 Direct replies to a message, their authors, and whether each reply's author knows the
// author of the message.
MATCH (m:Post {id: $messageId})<-[:Comment_replyOf_Post]-(c:Comment)-[:Comment_hasCreator_Person]->(replyAuthor:Person)
MATCH (m)-[:Post_hasCreator_Person]->(author:Person)
OPTIONAL MATCH (author)-[k:Person_knows_Person]-(replyAuthor)
RETURN
  c.id AS commentId,
  c.content AS commentContent,
  c.creationDate AS commentCreationDate,
  replyAuthor.id AS replyAuthorId,
  replyAuthor.firstName AS replyAuthorFirstName,
  replyAuthor.lastName AS replyAuthorLastName,
  k IS NOT NULL AS replyAuthorKnowsOriginalMessageAuthor
ORDER BY commentCreationDate DESC, replyAuthorId ASC
UNION ALL
MATCH (m:Comment {id: $messageId})<-[:Comment_replyOf_Comment]-(c:Comment)-[:Comment_hasCreator_Person]->(replyAuthor:Person)
MATCH (m)-[:Comment_hasCreator_Person]->(author:Person)
OPTIONAL MATCH (author)-[k:Person_knows_Person]-(replyAuthor)
RETURN
  c.id AS commentId,
  c.content AS commentContent,
  c.creationDate AS commentCreationDate,
  replyAuthor.id AS replyAuthorId,
  replyAuthor.firstName AS replyAuthorFirstName,
  replyAuthor.lastName AS replyAuthorLastName,
  k IS NOT NULL AS replyAuthorKnowsOriginalMessageAuthor
ORDER BY commentCreationDate DESC, replyAuthorId ASC
