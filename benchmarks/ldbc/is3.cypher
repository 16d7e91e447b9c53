// IS3 Friends of a person, with the date each friendship began.
MATCH (n:Person {id: $personId})-[r:Person_knows_Person]-(friend:Person)
RETURN
  friend.id AS personId,
  friend.firstName AS firstName,
  friend.lastName AS lastName,
  r.creationDate AS friendshipCreationDate
ORDER BY friendshipCreationDate DESC, personId ASC
