// IS2 Recent messages of a person, each with its original post and that post's author.
// Posts and comments are separate tables; with no subqueries to sort a UNION, each branch
// returns its 10 newest messages and the caller keeps the 10 newest of both. Comments are cut
// to 10 before their reply chains are walked. A post is its own original post; it is matched
// a second time as `post` because Kùzu 0.11.3 crashes (SIGSEGV) on this UNION when the first
// branch returns `m.id` twice.
MATCH (p:Person {id: $personId})<-[:Post_hasCreator_Person]-(m:Post)
MATCH (post:Post {id: m.id})
RETURN
  m.id AS messageId,
  coalesce(m.content, m.imageFile) AS messageContent,
  m.creationDate AS messageCreationDate,
  post.id AS originalPostId,
  p.id AS originalPostAuthorId,
  p.firstName AS originalPostAuthorFirstName,
  p.lastName AS originalPostAuthorLastName
ORDER BY messageCreationDate DESC, messageId DESC
LIMIT 10
UNION ALL
MATCH (:Person {id: $personId})<-[:Comment_hasCreator_Person]-(m:Comment)
WITH m
ORDER BY m.creationDate DESC, m.id DESC
LIMIT 10
MATCH (m)-[:Comment_replyOf_Comment*0..30]->(:Comment)-[:Comment_replyOf_Post]->(post:Post)
MATCH (post)-[:Post_hasCreator_Person]->(author:Person)
RETURN
  m.id AS messageId,
  m.content AS messageContent,
  m.creationDate AS messageCreationDate,
  post.id AS originalPostId,
  author.id AS originalPostAuthorId,
  author.firstName AS originalPostAuthorFirstName,
  author.lastName AS originalPostAuthorLastName
ORDER BY messageCreationDate DESC, messageId DESC
