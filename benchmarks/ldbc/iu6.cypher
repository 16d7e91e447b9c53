// IU6 Add a post: its author, forum, country and tags.
MATCH (author:Person {id: $authorPersonId}), (f:Forum {id: $forumId}), (country:Place {id: $countryId})
CREATE (f)-[:Forum_containerOf_Post]->(m:Post {
  id: $postId,
  imageFile: $imageFile,
  creationDate: timestamp($creationDate),
  locationIP: $locationIP,
  browserUsed: $browserUsed,
  language: $language,
  content: $content,
  length: $length
})-[:Post_hasCreator_Person]->(author),
  (m)-[:Post_isLocatedIn_Place]->(country);

MATCH (m:Post {id: $postId})
UNWIND $tagIds AS tagId
MATCH (t:Tag {id: tagId})
CREATE (m)-[:Post_hasTag_Tag]->(t);
