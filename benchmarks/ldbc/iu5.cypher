// IU5 Add a forum membership.
MATCH (f:Forum {id: $forumId}), (p:Person {id: $personId})
CREATE (f)-[:Forum_hasMember_Person {joinDate: timestamp($joinDate)}]->(p);
