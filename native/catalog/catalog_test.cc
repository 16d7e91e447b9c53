#include "catalog/catalog.h"

#include <gtest/gtest.h>

#include <cstring>

#include "env/crc32c.h"

namespace graphdb::catalog {
namespace {

LogicalType T(std::string_view text) {
  std::string error;
  auto t = ParseLogicalType(text, &error);
  EXPECT_TRUE(t.has_value()) << text << ": " << error;
  return t ? *t : LogicalType::Any();
}

PropertyDefinition P(std::string name, std::string_view type,
                     std::optional<std::string> default_expr = std::nullopt) {
  return PropertyDefinition{std::move(name), T(type), std::move(default_expr), 0};
}

NodeTableDefinition Node(std::string name, std::vector<PropertyDefinition> props, std::string pk) {
  return NodeTableDefinition{std::move(name), std::move(props), std::move(pk), false};
}

RelTableDefinition Rel(std::string name, std::vector<std::pair<std::string, std::string>> pairs,
                       std::vector<PropertyDefinition> props = {},
                       RelMultiplicity m = RelMultiplicity::kManyMany) {
  RelTableDefinition def;
  def.name = std::move(name);
  def.from_to = std::move(pairs);
  def.properties = std::move(props);
  def.multiplicity = m;
  return def;
}

// The tinysnb schema, enough of it to check ids.
Catalog TinySnb() {
  Catalog c;
  EXPECT_TRUE(
      c.CreateNodeTable(Node("person", {P("ID", "INT64"), P("fName", "STRING")}, "ID")).ok());
  EXPECT_TRUE(
      c.CreateNodeTable(Node("organisation", {P("ID", "INT64"), P("name", "STRING")}, "ID")).ok());
  EXPECT_TRUE(c.CreateNodeTable(Node("movies", {P("name", "STRING")}, "name")).ok());
  EXPECT_TRUE(c.CreateRelTable(Rel("knows", {{"person", "person"}}, {P("date", "DATE")})).ok());
  EXPECT_TRUE(c.CreateRelTable(Rel("studyAt", {{"person", "organisation"}}, {P("year", "INT64")},
                                   RelMultiplicity::kManyOne))
                  .ok());
  EXPECT_TRUE(
      c.CreateRelTable(Rel("workAt", {{"person", "organisation"}}, {}, RelMultiplicity::kManyOne))
          .ok());
  EXPECT_TRUE(
      c.CreateRelTable(Rel("meets", {{"person", "person"}}, {}, RelMultiplicity::kManyOne)).ok());
  EXPECT_TRUE(
      c.CreateRelTable(Rel("marries", {{"person", "person"}}, {}, RelMultiplicity::kOneOne)).ok());
  return c;
}

TEST(CatalogTest, KuzuTableIdNumbering) {
  Catalog c = TinySnb();
  EXPECT_EQ(*c.FindId("person"), 0u);
  EXPECT_EQ(*c.FindId("organisation"), 1u);
  EXPECT_EQ(*c.FindId("movies"), 2u);
  EXPECT_EQ(*c.FindId("knows"), 3u);
  EXPECT_EQ(*c.FindId("studyAt"), 5u);
  EXPECT_EQ(*c.FindId("workAt"), 7u);
  EXPECT_EQ(*c.FindId("meets"), 9u);
  EXPECT_EQ(*c.FindId("marries"), 11u);
  EXPECT_EQ(c.next_table_id(), 13u);
  const RelTableSchema* knows = c.GetRelTable("KNOWS");
  ASSERT_NE(knows, nullptr);
  ASSERT_EQ(knows->pairs.size(), 1u);
  EXPECT_EQ(knows->pairs[0].id, 3u);  // a single pair stores its edges under the table id
  EXPECT_EQ(c.GetRelTableByPairId(3), knows);
  // Demo-db: User 0, City 1, Follows 2, LivesIn 4, then a new node table gets 6.
  Catalog d;
  ASSERT_TRUE(d.CreateNodeTable(Node("User", {P("name", "STRING")}, "name")).ok());
  ASSERT_TRUE(d.CreateNodeTable(Node("City", {P("name", "STRING")}, "name")).ok());
  ASSERT_TRUE(d.CreateRelTable(Rel("Follows", {{"User", "User"}})).ok());
  ASSERT_TRUE(d.CreateRelTable(Rel("LivesIn", {{"User", "City"}})).ok());
  EXPECT_EQ(d.CreateNodeTable(Node("User2", {P("name", "STRING")}, "name"))->table_id, 6u);
}

TEST(CatalogTest, MultiPairRelTableIds) {
  // tck: Single 0, A 1, B 2, C 3, REL(3 pairs) with pairs 4, 5, 6 and the table 7, then LOOP 8.
  Catalog c;
  for (const char* name : {"Single", "A", "B", "C"}) {
    ASSERT_TRUE(c.CreateNodeTable(Node(name, {P("ID", "SERIAL")}, "ID")).ok());
  }
  auto rel = c.CreateRelTable(Rel("REL", {{"Single", "A"}, {"Single", "B"}, {"A", "C"}}));
  ASSERT_TRUE(rel.ok());
  EXPECT_EQ(rel->table_id, 7u);
  const RelTableSchema* schema = c.GetRelTable("rel");
  ASSERT_EQ(schema->pairs.size(), 3u);
  EXPECT_EQ(schema->pairs[0].id, 4u);
  EXPECT_EQ(schema->pairs[2].id, 6u);
  EXPECT_EQ(schema->pairs[2].src_table, 1u);
  EXPECT_EQ(schema->pairs[2].dst_table, 3u);
  EXPECT_EQ(c.GetRelTableByPairId(5), schema);
  EXPECT_EQ(c.GetRelTableByPairId(7), nullptr);  // the table id is not a pair
  EXPECT_EQ(c.CreateRelTable(Rel("LOOP", {{"B", "B"}}))->table_id, 8u);
}

TEST(CatalogTest, IdsAreNotReusedAfterDrop) {
  Catalog c = TinySnb();
  ASSERT_TRUE(c.DropTable("marries").ok());
  ASSERT_TRUE(c.DropTable("movies").ok());
  EXPECT_FALSE(c.Contains("movies"));
  EXPECT_EQ(c.CreateNodeTable(Node("movies", {P("name", "STRING")}, "name"))->table_id, 13u);
  EXPECT_EQ(c.CreateRelTable(Rel("marries", {{"person", "person"}}))->table_id, 14u);
  EXPECT_EQ(c.next_table_id(), 16u);
}

TEST(CatalogTest, CaseInsensitiveNamesKeepSpelling) {
  Catalog c = TinySnb();
  const NodeTableSchema* person = c.GetNodeTable("PERSON");
  ASSERT_NE(person, nullptr);
  EXPECT_EQ(person->name, "person");
  EXPECT_EQ(*person->PropertyIndex("fname"), 1u);
  EXPECT_EQ(person->properties[1].name, "fName");
  EXPECT_EQ(c.GetRelTable("person"), nullptr);  // wrong kind
  EXPECT_EQ(c.GetNodeTable("knows"), nullptr);
  EXPECT_EQ(*c.KindOf(3), TableKind::kRel);
  EXPECT_EQ(c.TableName(5), "studyAt");
}

TEST(CatalogTest, KuzuErrorMessages) {
  Catalog c = TinySnb();
  auto r = c.CreateRelTable(Rel("knows", {{"person", "person"}, {"person", "organisation"}}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kQueryBinding);
  EXPECT_EQ(r.status().message(), "Binder exception: knows already exists in catalog.");
  r = c.CreateRelTable(Rel("test2", {{"person", "person"}, {"person", "person"}}));
  EXPECT_EQ(r.status().message(), "Binder exception: Found duplicate FROM-TO person-person pairs.");
  r = c.CreateNodeTable(
      Node("Wrong", {P("id", "INT64"), P("NAME", "STRING"), P("name", "INT64")}, "id"));
  EXPECT_EQ(r.status().message(),
            "Binder exception: Duplicated column name: name, column name must be unique.");
  r = c.DropTable("organisation");
  EXPECT_EQ(r.status().message(),
            "Binder exception: Cannot delete node table organisation because it is referenced "
            "by relationship table studyAt.");
  r = c.DropTable("nothing");
  EXPECT_EQ(r.status().message(), "Binder exception: Table nothing does not exist.");
  EXPECT_TRUE(c.DropTable("nothing", /*if_exists=*/true).ok());
  r = c.CreateNodeTable(Node("Bad", {P("id", "INT64[]")}, "id"));
  EXPECT_EQ(r.status().message(),
            "Binder exception: Invalid primary key column type INT64[]. Primary keys must be "
            "either STRING or a numeric type.");
  r = c.CreateRelTable(Rel("r", {{"person", "person1"}}));
  EXPECT_EQ(r.status().message(), "Binder exception: Table person1 does not exist.");
  r = c.AddProperty("person", P("FNAME", "STRING"));
  EXPECT_EQ(r.status().code(), ErrorCode::kQueryRuntime);
  EXPECT_EQ(r.status().message(), "Runtime exception: person table already has property FNAME.");
  EXPECT_FALSE(c.AddProperty("person", P("fname", "INT64"), /*if_not_exists=*/true)->changed);
  // A SERIAL property numbers a rel table's rels; one nested in another type is refused.
  r = c.CreateRelTable(Rel("serialListRel", {{"person", "person"}}, {P("s", "SERIAL[]")}));
  EXPECT_EQ(r.status().message(),
            "Binder exception: Serial property in rel table is not supported.");
  r = c.CreateRelTable(Rel("serialRel", {{"person", "person"}}, {P("s", "SERIAL")}));
  EXPECT_TRUE(r.ok()) << r.status().message();
  // IF NOT EXISTS is a no-op that still names the table.
  NodeTableDefinition again = Node("person", {P("x", "INT64")}, "x");
  again.if_not_exists = true;
  auto outcome = c.CreateNodeTable(again);
  ASSERT_TRUE(outcome.ok());
  EXPECT_FALSE(outcome->changed);
  EXPECT_EQ(outcome->table_id, 0u);
}

TEST(CatalogTest, DdlMessages) {
  Catalog c = TinySnb();
  auto r = c.CreateNodeTable(Node("university", {P("ID", "INT64")}, "ID"));
  EXPECT_EQ(r->message, "Table university has been created.");
  EXPECT_EQ(c.CreateRelTable(Rel("nearTo", {{"university", "university"}}))->message,
            "Table nearTo has been created.");
  EXPECT_EQ(c.DropTable("nearTo")->message, "Table nearTo has been dropped.");
  EXPECT_EQ(c.DropTable("university")->message, "Table university has been dropped.");
  EXPECT_EQ(c.DropProperty("person", "fName")->message,
            "Property fName has been dropped from table person.");
  EXPECT_TRUE(c.DropProperty("person", "fName", /*if_exists=*/true).ok());
  EXPECT_EQ(c.DropProperty("knows", "date")->message,
            "Property date has been dropped from table knows.");
  EXPECT_EQ(c.DropProperty("organisation", "NAME")->message,
            "Property NAME has been dropped from table organisation.");
}

// Versions identify a schema state within the process: copies (snapshots) share the version
// of their content; any change, in any catalog, takes a version never seen before.
TEST(CatalogTest, VersionsNeverRepeat) {
  Catalog a;
  Catalog b;
  EXPECT_NE(a.version(), b.version());
  Catalog copy = a;
  EXPECT_EQ(copy.version(), a.version());
  ASSERT_TRUE(a.CreateNodeTable(Node("t", {P("id", "INT64")}, "id")).ok());
  ASSERT_TRUE(copy.CreateNodeTable(Node("t", {P("id", "INT64")}, "id")).ok());
  EXPECT_NE(a.version(), copy.version());
  EXPECT_EQ(a, copy);
  uint64_t before = a.version();
  EXPECT_FALSE(a.DropTable("missing").ok());  // a failed change keeps the version
  EXPECT_EQ(a.version(), before);
  auto restored = Catalog::Deserialize(a.Serialize());
  ASSERT_TRUE(restored.ok());
  EXPECT_NE(restored->version(), a.version());
}

TEST(CatalogTest, AlterProperties) {
  Catalog c = TinySnb();
  uint64_t v = c.version();
  auto r = c.AddProperty("person", P("age", "INT64", "5 + 5"));
  ASSERT_TRUE(r.ok());
  EXPECT_GT(c.version(), v);
  const NodeTableSchema* person = c.GetNodeTable("person");
  ASSERT_EQ(person->properties.size(), 3u);
  EXPECT_EQ(person->properties[2].id, 2u);
  EXPECT_EQ(*person->properties[2].default_expr, "5 + 5");
  // Dropping a property before the primary key keeps the key index right.
  ASSERT_TRUE(
      c.CreateNodeTable(Node("T", {P("a", "INT64"), P("b", "INT64"), P("k", "STRING")}, "k")).ok());
  ASSERT_TRUE(c.DropProperty("t", "A").ok());
  const NodeTableSchema* t = c.GetNodeTable("T");
  EXPECT_EQ(t->primary_key_property().name, "k");
  EXPECT_FALSE(c.DropProperty("T", "k").ok());
  ASSERT_TRUE(c.AddProperty("T", P("c", "STRING")).ok());
  EXPECT_EQ(t->properties.back().id, 3u);  // ids are not reused
  ASSERT_TRUE(c.RenameProperty("T", "c", "d").ok());
  EXPECT_EQ(t->properties.back().name, "d");
  EXPECT_EQ(c.RenameProperty("T", "d", "K").status().message(),
            "Binder exception: T table already has property K.");
  EXPECT_EQ(c.RenameProperty("T", "zz", "y").status().message(),
            "Binder exception: T table does not have property zz.");
  // Rel properties count from 1 (0 is Kùzu's implicit _ID).
  EXPECT_EQ(c.GetRelTable("studyAt")->properties[0].id, 1u);
}

TEST(CatalogTest, RenameTable) {
  Catalog c = TinySnb();
  ASSERT_TRUE(c.RenameTable("person", "Human").ok());
  EXPECT_EQ(c.FindId("person"), std::nullopt);
  EXPECT_EQ(*c.FindId("human"), 0u);
  EXPECT_EQ(c.GetNodeTable(0)->name, "Human");
  EXPECT_FALSE(c.RenameTable("Human", "knows").ok());
  EXPECT_TRUE(c.RenameTable("Human", "HUMAN").ok());  // same table, new spelling
  EXPECT_EQ(c.GetNodeTable(0)->name, "HUMAN");
}

TEST(CatalogTest, RelGroupAlter) {
  Catalog c = TinySnb();
  auto r = c.AddRelPair("KNOWS", "person", "organisation");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->message, "person->organisation added to table knows.");
  EXPECT_EQ(r->table_id, 13u);
  EXPECT_EQ(c.GetRelTableByPairId(13)->name, "knows");
  EXPECT_EQ(c.AddRelPair("KNOWS", "person", "person1").status().message(),
            "Binder exception: Table person1 does not exist.");
  EXPECT_EQ(c.AddRelPair("KNOWS", "person", "organisation").status().message(),
            "Binder exception: person->organisation already exists in knows table.");
  auto again = c.AddRelPair("KNOWS", "person", "organisation", /*if_not_exists=*/true);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->message, "person->organisation already exists in knows table.");
  EXPECT_EQ(again->table_id, c.GetRelTable("knows")->id);  // no pair made: the rel table's
  // Both statements resolve the rel table and the pair's ends alike.
  for (bool add : {true, false}) {
    auto alter = [&](std::string_view rel, std::string_view from, std::string_view to) {
      return (add ? c.AddRelPair(rel, from, to) : c.DropRelPair(rel, from, to)).status().message();
    };
    EXPECT_EQ(alter("likes", "person", "person"), "Binder exception: Table likes does not exist.");
    EXPECT_EQ(alter("person", "person", "person"), "Binder exception: person is not a rel table.");
    EXPECT_EQ(alter("KNOWS", "studyAt", "person"),
              "Binder exception: studyAt is not a node table.");
    EXPECT_EQ(alter("KNOWS", "person", "workAt"), "Binder exception: workAt is not a node table.");
  }
  ASSERT_TRUE(c.DropTable("studyAt").ok());
  ASSERT_TRUE(c.DropTable("workAt").ok());
  EXPECT_EQ(c.DropTable("organisation").status().message(),
            "Binder exception: Cannot delete node table organisation because it is referenced "
            "by relationship table knows.");
  EXPECT_EQ(c.DropRelPair("KNOWS", "person", "X").status().message(),
            "Binder exception: Table X does not exist.");
  EXPECT_EQ(c.DropRelPair("KNOWS", "person", "organisation")->message,
            "person->organisation has been dropped from table knows.");
  EXPECT_EQ(c.GetRelTableByPairId(13), nullptr);
  EXPECT_EQ(c.DropRelPair("KNOWS", "person", "person")->message,
            "person->person has been dropped from table knows.");
  EXPECT_EQ(c.DropRelPair("KNOWS", "person", "person").status().message(),
            "Binder exception: person->person does not exist in knows table.");
  EXPECT_TRUE(c.DropRelPair("KNOWS", "person", "person", /*if_exists=*/true).ok());
  EXPECT_TRUE(c.GetRelTable("knows")->pairs.empty());
  EXPECT_TRUE(c.DropTable("organisation").ok());
}

TEST(CatalogTest, SerializeRoundTrip) {
  Catalog c = TinySnb();
  ASSERT_TRUE(c.CreateNodeTable(
                   Node("nested",
                        {P("k", "UUID"), P("s", "STRUCT(a INT64, b STRING[])"),
                         P("m", "MAP(STRING, INT64[3])"), P("u", "UNION(x DATE, y STRING)", "'x'")},
                        "k"))
                  .ok());
  ASSERT_TRUE(c.CreateRelTable(Rel("multi", {{"person", "person"}, {"person", "nested"}},
                                   {P("w", "DOUBLE")}, RelMultiplicity::kOneMany))
                  .ok());
  ASSERT_TRUE(c.SetComment("person", "people").ok());
  ASSERT_TRUE(c.DropTable("meets").ok());
  std::string bytes = c.Serialize();
  auto back = Catalog::Deserialize(bytes);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
  EXPECT_EQ(back->next_table_id(), c.next_table_id());
  const NodeTableSchema* nested = back->GetNodeTable("NESTED");
  ASSERT_NE(nested, nullptr);
  EXPECT_EQ(nested->properties[2].type, T("MAP(STRING, INT64[3])"));
  EXPECT_EQ(*nested->properties[3].default_expr, "'x'");
  EXPECT_EQ(back->GetRelTable("multi")->multiplicity, RelMultiplicity::kOneMany);
  EXPECT_EQ(back->GetRelTableByPairId(back->GetRelTable("multi")->pairs[1].id)->name, "multi");
  EXPECT_EQ(back->GetNodeTable("person")->comment, "people");
}

TEST(CatalogTest, DeserializeRejectsDamage) {
  std::string bytes = TinySnb().Serialize();
  for (size_t i = 0; i < bytes.size(); i += 7) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    auto r = Catalog::Deserialize(damaged);
    ASSERT_FALSE(r.ok()) << i;
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruption);
  }
  for (size_t len : {size_t{0}, size_t{5}, bytes.size() / 2, bytes.size() - 1}) {
    auto r = Catalog::Deserialize(std::string_view(bytes).substr(0, len));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::kCorruption);
  }
}

SequenceDefinition Seq(std::string name, int64_t start, int64_t increment, int64_t min, int64_t max,
                       bool cycle = false) {
  SequenceDefinition d;
  d.name = std::move(name);
  d.start_value = start;
  d.increment = increment;
  d.min_value = min;
  d.max_value = max;
  d.cycle = cycle;
  return d;
}

std::string Next(const Catalog& c, const char* name) {
  auto v = c.GetSequence(name)->NextValue();
  return v.ok() ? std::to_string(*v) : v.status().message();
}

TEST(CatalogTest, Sequences) {
  Catalog c = TinySnb();
  // Sequences have names of their own: one may be called like a table.
  EXPECT_EQ(c.CreateSequence(Seq("person", 1, 1, 1, INT64_MAX))->message,
            "Sequence person has been created.");
  EXPECT_EQ(c.CreateSequence(Seq("PERSON", 1, 1, 1, 10)).status().message(),
            "Binder exception: PERSON already exists in catalog.");
  SequenceDefinition again = Seq("Person", 5, 1, 1, 10);
  again.if_not_exists = true;
  EXPECT_FALSE(c.CreateSequence(again)->changed);
  EXPECT_EQ(c.CreateSequence(Seq("bad", 1, 1, 10, -10)).status().message(),
            "Binder exception: SEQUENCE MAXVALUE should be greater than or equal to MINVALUE.");
  EXPECT_EQ(c.CreateSequence(Seq("bad", -1, 1, 1, 10)).status().message(),
            "Binder exception: SEQUENCE START value should be between MINVALUE and MAXVALUE.");
  EXPECT_FALSE(c.CreateSequence(Seq("bad", 1, 0, 1, 10)).ok());
  EXPECT_EQ(c.GetSequence("bad"), nullptr);

  // currval before nextval, then steps, the bound and CYCLE.
  EXPECT_EQ(c.GetSequence("person")->CurrentValue().status().message(),
            "Catalog exception: currval: sequence \"person\" is not yet defined. To define the "
            "sequence, call nextval first.");
  EXPECT_EQ(Next(c, "person"), "1");
  EXPECT_EQ(Next(c, "person"), "2");
  EXPECT_EQ(c.GetSequence("person")->CurrentValue().value(), 2);
  ASSERT_TRUE(c.CreateSequence(Seq("edge", 9, 1, 1, 10)).ok());
  EXPECT_EQ(Next(c, "edge"), "9");
  EXPECT_EQ(Next(c, "edge"), "10");
  EXPECT_EQ(Next(c, "edge"),
            "Catalog exception: nextval: reached maximum value of sequence "
            "\"edge\" 10");
  ASSERT_TRUE(c.CreateSequence(Seq("down", INT64_MIN, -1, INT64_MIN, -1)).ok());
  EXPECT_EQ(Next(c, "down"), std::to_string(INT64_MIN));
  EXPECT_EQ(Next(c, "down"),
            "Catalog exception: nextval: reached minimum value of sequence "
            "\"down\" -9223372036854775808");
  ASSERT_TRUE(c.CreateSequence(Seq("wrap", INT64_MAX, 5, 1, INT64_MAX, true)).ok());
  EXPECT_EQ(Next(c, "wrap"), std::to_string(INT64_MAX));
  EXPECT_EQ(Next(c, "wrap"), "1");  // the overflow wraps to MINVALUE
  EXPECT_EQ(Next(c, "wrap"), "6");

  // Copies of the catalog share the counters; the byte form keeps options and counters.
  Catalog copy = c;
  EXPECT_EQ(Next(copy, "person"), "3");
  EXPECT_EQ(c.GetSequence("person")->CurrentValue().value(), 3);
  auto back = Catalog::Deserialize(c.Serialize());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
  EXPECT_EQ(Next(*back, "person"), "4");
  EXPECT_EQ(Next(*back, "edge"), Next(c, "edge"));
  EXPECT_FALSE(back->GetSequence("wrap")->options.cycle == false);
  EXPECT_EQ(c.GetSequence("person")->CurrentValue().value(), 3);  // the loaded copy is independent

  std::vector<std::string> names;
  for (const auto* s : c.Sequences()) names.push_back(s->options.name);
  EXPECT_EQ(names, (std::vector<std::string>{"down", "edge", "person", "wrap"}));
  EXPECT_EQ(c.DropSequence("EDGE")->message, "Sequence edge has been dropped.");
  EXPECT_EQ(c.DropSequence("edge", /*if_exists=*/true)->message, "Sequence edge does not exist.");
  EXPECT_EQ(c.DropSequence("edge").status().message(),
            "Binder exception: Sequence edge does not exist.");
  EXPECT_TRUE(c.GetNodeTable("person"));  // the table of the same name is untouched
}

// The bytes of `c` (with no sequences, types, macros or indexes) as format `version` wrote
// them.
std::string SerializeAsVersion(const Catalog& c, uint32_t version) {
  std::string bytes = c.Serialize();
  std::string body = bytes.substr(0, bytes.size() - 4);
  // Version 4 added the index count, 3 the type and macro counts, 2 the sequence count.
  for (uint32_t v = 4; v > version; --v) {
    EXPECT_EQ(body.back(), '\0');
    body.pop_back();
    if (v == 3) {
      EXPECT_EQ(body.back(), '\0');
      body.pop_back();
    }
  }
  std::memcpy(body.data() + 8, &version, sizeof version);
  uint32_t crc = env::crc32c::Value(body);
  body.append(reinterpret_cast<const char*>(&crc), sizeof crc);
  return body;
}

TEST(CatalogTest, ReadsVersionTwoWithoutTypesAndMacros) {
  Catalog c = TinySnb();
  auto back = Catalog::Deserialize(SerializeAsVersion(c, 2));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
}

TEST(CatalogTest, TypesAndMacrosRoundTrip) {
  Catalog c = TinySnb();
  ASSERT_TRUE(c.CreateType("Height", LogicalType::Struct({{"m", LogicalType::Double()}})).ok());
  EXPECT_EQ(c.CreateType("HEIGHT", LogicalType::Int64()).status().message(),
            "Binder exception: Duplicated type name: HEIGHT.");
  ASSERT_TRUE(c.CreateMacro({"add", {"a"}, {{"b", "3"}}, "a + b"}).ok());
  EXPECT_EQ(c.CreateMacro({"Add", {}, {}, "1"}).status().message(),
            "Binder exception: Macro ADD already exists.");
  auto back = Catalog::Deserialize(c.Serialize());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
  ASSERT_TRUE(back->GetUserType("height"));
  EXPECT_EQ(back->GetUserType("height")->ToString(), "STRUCT(m DOUBLE)");
  const MacroDefinition* macro = back->GetMacro("ADD");
  ASSERT_TRUE(macro);
  EXPECT_EQ(macro->name, "ADD");
  EXPECT_EQ(macro->defaults.size(), 1u);
  EXPECT_EQ(macro->body, "a + b");
  std::string error;
  auto parsed = back->ParseType("height[]", &error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->ToString(), "STRUCT(m DOUBLE)[]");
}

TEST(CatalogTest, ReadsVersionThreeWithoutIndexes) {
  Catalog c = TinySnb();
  auto back = Catalog::Deserialize(SerializeAsVersion(c, 3));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
}

TEST(CatalogTest, IndexesRoundTripAndGuardTheirTableAndProperties) {
  Catalog c = TinySnb();
  const NodeTableSchema* person = c.GetNodeTable("person");
  ASSERT_TRUE(person);
  IndexDefinition def;
  def.name = "names";
  def.kind = "FTS";
  def.table = person->id;
  def.properties = {person->properties[1].id};
  def.options = {{"stemmer", "porter"}};
  ASSERT_TRUE(c.CreateIndex(def).ok());
  EXPECT_EQ(c.CreateIndex(def).status().message(),
            "Binder exception: Index names already exists in table person.");
  auto back = Catalog::Deserialize(c.Serialize());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
  const IndexDefinition* read = back->GetIndex(person->id, "NAMES");
  ASSERT_TRUE(read);
  EXPECT_EQ(read->kind, "FTS");
  EXPECT_EQ(read->options, def.options);
  EXPECT_EQ(back->IndexesOn(person->id).size(), 1u);
  EXPECT_FALSE(back->DropTable("person").ok());
  EXPECT_FALSE(back->DropProperty("person", person->properties[1].name).ok());
  ASSERT_TRUE(back->DropIndex(person->id, "names").ok());
  EXPECT_TRUE(back->Indexes().empty());
  EXPECT_FALSE(back->DropIndex(person->id, "names").ok());
}

TEST(CatalogTest, ReadsVersionOneWithoutSequences) {
  // Version 1 is version 2 without the trailing sequence count.
  Catalog c = TinySnb();
  std::string body = SerializeAsVersion(c, 1);
  auto back = Catalog::Deserialize(body);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(*back == c);
}

TEST(CatalogTest, Multiplicity) {
  EXPECT_EQ(*ParseRelMultiplicity("MANY_MAnY"), RelMultiplicity::kManyMany);
  EXPECT_EQ(*ParseRelMultiplicity("many_one"), RelMultiplicity::kManyOne);
  EXPECT_FALSE(ParseRelMultiplicity("some").has_value());
  EXPECT_TRUE(IsSingleForward(RelMultiplicity::kManyOne));
  EXPECT_FALSE(IsSingleBackward(RelMultiplicity::kManyOne));
  EXPECT_TRUE(IsSingleBackward(RelMultiplicity::kOneOne));
  EXPECT_STREQ(RelMultiplicityName(RelMultiplicity::kOneMany), "ONE_MANY");
}

}  // namespace
}  // namespace graphdb::catalog
