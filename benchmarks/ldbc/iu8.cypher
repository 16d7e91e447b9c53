// IU8 Add a friendship between two persons.
MATCH (p1:Person {id: $person1Id}), (p2:Person {id: $person2Id})
CREATE (p1)-[:Person_knows_Person {creationDate: timestamp($creationDate)}]->(p2);
