// IU1 Add a person, with city, interests, universities and companies.
// Statements run in order; one whose list parameter is empty is skipped.
MATCH (city:Place {id: $cityId})
CREATE (p:Person {
  id: $personId,
  firstName: $personFirstName,
  lastName: $personLastName,
  gender: $gender,
  birthday: date($birthday),
  creationDate: timestamp($creationDate),
  locationIP: $locationIP,
  browserUsed: $browserUsed,
  language: $languages,
  email: $emails
})-[:Person_isLocatedIn_Place]->(city);

MATCH (p:Person {id: $personId})
UNWIND $tagIds AS tagId
MATCH (t:Tag {id: tagId})
CREATE (p)-[:Person_hasInterest_Tag]->(t);

MATCH (p:Person {id: $personId})
UNWIND $studyAt AS s
MATCH (o:Organisation {id: s.organisationId})
CREATE (p)-[:Person_studyAt_Organisation {classYear: s.year}]->(o);

MATCH (p:Person {id: $personId})
UNWIND $workAt AS w
MATCH (o:Organisation {id: w.organisationId})
CREATE (p)-[:Person_workAt_Organisation {workFrom: w.year}]->(o);
