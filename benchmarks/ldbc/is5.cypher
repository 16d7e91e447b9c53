// IS5 Creator of a message.
MATCH (:Post {id: $messageId})-[:Post_hasCreator_Person]->(p:Person)
RETURN p.id AS personId, p.firstName AS firstName, p.lastName AS lastName
UNION ALL
MATCH (:Comment {id: $messageId})-[:Comment_hasCreator_Person]->(p:Person)
RETURN p.id AS personId, p.firstName AS firstName, p.lastName AS lastName
