// IU2 Add a like to a post.
MATCH (p:Person {id: $personId}), (m:Post {id: $postId})
CREATE (p)-[:Person_likes_Post {creationDate: timestamp($creationDate)}]->(m);
