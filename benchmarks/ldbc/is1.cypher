// IS1 Profile of a person: name, birthday, IP, browser, city and creation date.
MATCH (n:Person {id: $personId})-[:Person_isLocatedIn_Place]->(city:Place)
RETURN
  n.firstName AS firstName,
  n.lastName AS lastName,
  n.birthday AS birthday,
  n.locationIP AS locationIP,
  n.browserUsed AS browserUsed,
  city.id AS cityId,
  n.gender AS gender,
  n.creationDate AS creationDate
