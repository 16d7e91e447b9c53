// IS6 Forum of a message (a comment's forum is the one holding its original post), and the
// forum's moderator.
MATCH (:Post {id: $messageId})<-[:Forum_containerOf_Post]-(f:Forum)-[:Forum_hasModerator_Person]->(mod:Person)
RETURN
  f.id AS forumId,
  f.title AS forumTitle,
  mod.id AS moderatorId,
  mod.firstName AS moderatorFirstName,
  mod.lastName AS moderatorLastName
UNION ALL
MATCH (:Comment {id: $messageId})-[:Comment_replyOf_Comment*0..30]->(:Comment)-[:Comment_replyOf_Post]->(post:Post)
MATCH (post)<-[:Forum_containerOf_Post]-(f:Forum)-[:Forum_hasModerator_Person]->(mod:Person)
RETURN
  f.id AS forumId,
  f.title AS forumTitle,
  mod.id AS moderatorId,
  mod.firstName AS moderatorFirstName,
  mod.lastName AS moderatorLastName
