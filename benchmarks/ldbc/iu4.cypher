// IU4 Add a forum with its moderator and tags.
MATCH (mod:Person {id: $moderatorPersonId})
CREATE (f:Forum {id: $forumId, title: $forumTitle, creationDate: timestamp($creationDate)})
  -[:Forum_hasModerator_Person]->(mod);

MATCH (f:Forum {id: $forumId})
UNWIND $tagIds AS tagId
MATCH (t:Tag {id: tagId})
CREATE (f)-[:Forum_hasTag_Tag]->(t);
