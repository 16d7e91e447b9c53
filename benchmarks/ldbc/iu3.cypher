// IU3 Add a like to a comment.
MATCH (p:Person {id: $personId}), (m:Comment {id: $commentId})
CREATE (p)-[:Person_likes_Comment {creationDate: timestamp($creationDate)}]->(m);
