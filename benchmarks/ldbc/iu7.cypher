// IU7 Add a comment: its author, country, the message it replies to and its tags.
// The stream gives -1 for the kind of parent a comment does not have, which matches nothing.
MATCH (author:Person {id: $authorPersonId}), (country:Place {id: $countryId})
CREATE (m:Comment {
  id: $commentId,
  creationDate: timestamp($creationDate),
  locationIP: $locationIP,
  browserUsed: $browserUsed,
  content: $content,
  length: $length
})-[:Comment_hasCreator_Person]->(author),
  (m)-[:Comment_isLocatedIn_Place]->(country);

MATCH (m:Comment {id: $commentId}), (parent:Post {id: $replyToPostId})
CREATE (m)-[:Comment_replyOf_Post]->(parent);

MATCH (m:Comment {id: $commentId}), (parent:Comment {id: $replyToCommentId})
CREATE (m)-[:Comment_replyOf_Comment]->(parent);

MATCH (m:Comment {id: $commentId})
UNWIND $tagIds AS tagId
MATCH (t:Tag {id: tagId})
CREATE (m)-[:Comment_hasTag_Tag]->(t);
