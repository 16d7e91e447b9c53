// Loads every CSV of the Kùzu conformance datasets (and the LDBC sample) with the types of its
// schema.cypher, through StorageManager's COPY path (CsvCopySource), and checks values against
// the answers in the conformance test files. Skipped when /work/shared is not present.

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "formats/csv_copy_source.h"
#include "storage/storage_manager.h"

namespace graphdb::formats {

using storage::Direction;
using storage::NodeTable;
using storage::RelTable;
using storage::StorageManager;

namespace {

const char kConformanceRoot[] = "/work/shared/conformance/kuzu";
const char kLdbcRoot[] = "/work/shared/datasets/ldbc-snb-interactive-v1-sf0.003/vanilla";

// COPY FROM of CSV files into a node table, or a rel table, as the COPY statement runs it.
Status CopyNode(StorageManager& db, std::string_view table, std::vector<std::string> files,
                const CsvOptions& options = {}) {
  CsvCopySource source(db.file_system(), std::move(files), options);
  return db.CopyNodeTable(table, source);
}

Status CopyRel(StorageManager& db, std::string_view table, std::vector<std::string> files,
               const CsvOptions& options = {}) {
  CsvCopySource source(db.file_system(), std::move(files), options);
  return db.CopyRelTable(table, source);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string TrimText(std::string s) {
  size_t b = s.find_first_not_of(" \t\r\n;");
  size_t e = s.find_last_not_of(" \t\r\n;");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Splits at commas outside parentheses.
std::vector<std::string> SplitItems(const std::string& body) {
  std::vector<std::string> items;
  int depth = 0;
  std::string cur;
  for (char c : body) {
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(TrimText(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!TrimText(cur).empty()) items.push_back(TrimText(cur));
  return items;
}

// A tiny reader for the CREATE NODE/REL TABLE statements of the dataset schemas.
Status ApplySchemaStatement(StorageManager& db, const std::string& statement) {
  std::string s = TrimText(statement);
  if (s.empty()) return Status::OK();
  std::string lower = Lower(s);
  bool node = lower.rfind("create node table", 0) == 0;
  bool rel = lower.rfind("create rel table", 0) == 0;
  if (!node && !rel) return Status(ErrorCode::kNotSupported, "skipped: " + s);
  size_t open = s.find('(');
  size_t close = s.rfind(')');
  std::string name = TrimText(s.substr(node ? 17 : 16, open - (node ? 17 : 16)));
  std::vector<std::string> items = SplitItems(s.substr(open + 1, close - open - 1));
  std::vector<catalog::PropertyDefinition> props;
  std::string pk;
  std::vector<std::pair<std::string, std::string>> pairs;
  catalog::RelMultiplicity multiplicity = catalog::RelMultiplicity::kManyMany;
  for (const std::string& item : items) {
    std::string li = Lower(item);
    if (li.rfind("primary key", 0) == 0) {
      pk = TrimText(item.substr(item.find('(') + 1, item.find(')') - item.find('(') - 1));
      continue;
    }
    if (li.rfind("from ", 0) == 0) {
      std::istringstream words(item);
      std::string from, a, to, b;
      words >> from >> a >> to >> b;
      pairs.emplace_back(a, b);
      continue;
    }
    if (auto m = catalog::ParseRelMultiplicity(item)) {
      multiplicity = *m;
      continue;
    }
    size_t space = item.find(' ');
    std::string prop = item.substr(0, space);
    std::string type_text = TrimText(item.substr(space + 1));
    std::string lt = Lower(type_text);
    if (lt.size() > 12 && lt.substr(lt.size() - 12) == " primary key") {
      type_text = TrimText(type_text.substr(0, type_text.size() - 12));
      pk = prop;
    }
    std::string error;
    auto type = ParseLogicalType(type_text, &error);
    if (!type) return Status(ErrorCode::kQuerySyntax, "bad type " + type_text + ": " + error);
    props.push_back({prop, *type, std::nullopt, 0});
  }
  if (node) {
    auto r = db.CreateNodeTable({name, props, pk, false});
    return r.status();
  }
  catalog::RelTableDefinition def;
  def.name = name;
  def.from_to = pairs;
  def.properties = props;
  def.multiplicity = multiplicity;
  return db.CreateRelTable(def).status();
}

std::vector<std::string> Statements(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    // Some files put several statements on one line, separated by ';'.
    std::string cur;
    for (char c : line) {
      if (c == ';') {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!TrimText(cur).empty()) out.push_back(cur);
  }
  return out;
}

// Loads dataset/<name>: schema.cypher then copy.cypher.
void LoadDataset(StorageManager& db, const std::string& dir) {
  for (const auto& stmt : Statements(ReadText(dir + "/schema.cypher"))) {
    Status s = ApplySchemaStatement(db, stmt);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  for (const auto& stmt : Statements(ReadText(dir + "/copy.cypher"))) {
    std::string s = TrimText(stmt);
    if (s.empty()) continue;
    std::istringstream words(s);
    std::string copy, table, from;
    words >> copy >> table >> from;
    size_t q1 = s.find('"');
    size_t q2 = s.find('"', q1 + 1);
    std::string path = std::string(kConformanceRoot) + "/" + s.substr(q1 + 1, q2 - q1 - 1);
    Status st =
        db.catalog().GetNodeTable(table) ? CopyNode(db, table, {path}) : CopyRel(db, table, {path});
    ASSERT_TRUE(st.ok()) << path << ": " << st.ToString();
  }
}

bool HaveSharedData() {
  return env::FileSystem::Default()->Exists(std::string(kConformanceRoot) + "/dataset");
}

// A node's text as the conformance answers print it (NULL properties omitted).
std::string NodeText(StorageManager& db, const std::string& table, uint64_t offset) {
  const auto* schema = db.catalog().GetNodeTable(table);
  const NodeTable* t = db.GetNodeTable(schema->id);
  std::vector<std::string> names;
  for (const auto& p : schema->properties) names.push_back(p.name);
  return Value::Node({schema->id, offset}, schema->name, names, t->GetRow(offset)).ToString();
}

std::string RelText(StorageManager& db, const std::string& table, uint64_t src, uint64_t rel) {
  const auto* schema = db.catalog().GetRelTable(table);
  RelTable* t = db.GetRelTable(schema->pairs[0].id);
  uint64_t dst = 0;
  bool found = false;
  t->ForEachEdge(src, Direction::kForward, [&](uint64_t n, uint64_t r) {
    if (r == rel) {
      dst = n;
      found = true;
    }
  });
  EXPECT_TRUE(found);
  std::vector<std::string> names;
  std::vector<Value> values;
  for (size_t i = 0; i < schema->properties.size(); ++i) {
    names.push_back(schema->properties[i].name);
    values.push_back(t->Get(i, rel));
  }
  return Value::Rel({t->table_id(), rel}, schema->name, {t->src_table(), src},
                    {t->dst_table(), dst}, names, values)
      .ToString();
}

TEST(DatasetTest, TinySnbLoadsWithKuzuValues) {
  if (!HaveSharedData()) GTEST_SKIP() << "/work/shared/conformance is not available";
  auto db = StorageManager::CreateInMemory();
  LoadDataset(*db, std::string(kConformanceRoot) + "/dataset/tinysnb");
  if (HasFatalFailure()) return;
  const auto& c = db->catalog();
  auto rows = [&](const char* name) { return db->GetNodeTable(*c.FindId(name))->NumRows(); };
  auto rels = [&](const char* name) {
    return db->GetRelTable(c.GetRelTable(name)->pairs[0].id)->NumRels();
  };
  EXPECT_EQ(rows("person"), 8u);
  EXPECT_EQ(rows("organisation"), 3u);
  EXPECT_EQ(rows("movies"), 3u);
  EXPECT_EQ(rels("knows"), 14u);
  EXPECT_EQ(rels("studyAt"), 3u);
  EXPECT_EQ(rels("workAt"), 3u);
  EXPECT_EQ(rels("meets"), 7u);
  EXPECT_EQ(rels("marries"), 3u);
  EXPECT_EQ(*c.FindId("knows"), 3u);
  EXPECT_EQ(*c.FindId("studyAt"), 5u);
  // Rows exactly as in test_files/unwind/unwind.test and projection/multi_label.test.
  EXPECT_EQ(NodeText(*db, "person", 0),
            "{_ID: 0:0, _LABEL: person, ID: 0, fName: Alice, gender: 1, isStudent: True, "
            "isWorker: False, age: 35, eyeSight: 5.000000, birthdate: 1900-01-01, registerTime: "
            "2011-08-20 11:25:30, lastJobDuration: 3 years 2 days 13:02:00, workedHours: [10,5], "
            "usedNames: [Aida], courseScoresPerTerm: [[10,8],[6,7,8]], grades: [96,54,86,92], "
            "height: 1.731000, u: a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}");
  EXPECT_EQ(NodeText(*db, "person", 1),
            "{_ID: 0:1, _LABEL: person, ID: 2, fName: Bob, gender: 2, isStudent: True, "
            "isWorker: False, age: 30, eyeSight: 5.100000, birthdate: 1900-01-01, registerTime: "
            "2008-11-03 15:25:30.000526, lastJobDuration: 10 years 5 months 13:00:00.000024, "
            "workedHours: [12,8], usedNames: [Bobby], courseScoresPerTerm: [[8,9],[9,10]], "
            "grades: [98,42,93,88], height: 0.990000, u: a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12}");
  EXPECT_EQ(NodeText(*db, "person", 6),
            "{_ID: 0:6, _LABEL: person, ID: 9, fName: Greg, gender: 2, isStudent: False, "
            "isWorker: False, age: 40, eyeSight: 4.900000, birthdate: 1980-10-26, registerTime: "
            "1976-12-23 04:41:42, lastJobDuration: 10 years 5 months 13:00:00.000024, "
            "workedHours: [1], usedNames: [Grad], courseScoresPerTerm: [[10]], grades: "
            "[43,83,67,43], height: 1.600000, u: a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a17}");
  EXPECT_EQ(NodeText(*db, "organisation", 0),
            "{_ID: 1:0, _LABEL: organisation, ID: 1, name: ABFsUni, orgCode: 325, mark: "
            "3.700000, score: -2, history: 10 years 5 months 13 hours 24 us, "
            "licenseValidInterval: 3 years 5 days, rating: 1.000000, state: {revenue: 138, "
            "location: ['toronto','montr,eal'], stock: {price: [96,56], volume: 1000}}, info: "
            "3.120000}");
  EXPECT_EQ(NodeText(*db, "organisation", 2).substr(NodeText(*db, "organisation", 2).find("state")),
            "state: {revenue: 558, location: ['very long city name','new york'], stock: {price: "
            "[22], volume: 99}}, info: 2023-12-15}");
  EXPECT_EQ(NodeText(*db, "movies", 0),
            "{_ID: 2:0, _LABEL: movies, name: Sóló cón tu párejâ, length: 126, note:  this is a "
            "very very good movie, description: {rating: 5.300000, stars: 2, views: 152, release: "
            "2011-08-20 11:25:30, release_ns: 2011-08-20 11:25:30.123456, release_ms: 2011-08-20 "
            "11:25:30.123, release_sec: 2011-08-20 11:25:30, release_tz: 2011-08-20 "
            "11:25:30.123456+00, film: 2012-05-11, u8: 220, u16: 20, u32: 1, u64: 180, hugedata: "
            "1844674407370955161811111111}, content: \\xAA\\xABinteresting\\x0B, audience: "
            "{audience1=52, audience53=42}, grade: True}");
  EXPECT_EQ(NodeText(*db, "movies", 2).substr(NodeText(*db, "movies", 2).find("content")),
            "content: pure ascii characters, audience: {}, grade: 254.000000}");
  // Relationships as in test_files/dml_rel/create/create_read_tinysnb.test.
  EXPECT_EQ(
      RelText(*db, "knows", 0, 0),
      "(0:0)-{_LABEL: knows, _ID: 3:0, date: 2021-06-30, meetTime: 1986-10-21 21:08:31.521, "
      "validInterval: 10 years 5 months 13:00:00.000024, comments: [rnme,m8sihsdnf2990nfiwf], "
      "summary: {locations: ['toronto','waterloo'], transfer: {day: 2021-01-02, amount: "
      "[100,200]}}, notes: 1, someMap: {a=b}}->(0:1)");
  EXPECT_EQ(RelText(*db, "knows", 0, 1),
            "(0:0)-{_LABEL: knows, _ID: 3:1, date: 2021-06-30, meetTime: 1946-08-25 19:07:22, "
            "validInterval: 20 years 30 days 48:00:00, comments: "
            "[njnojppo9u0jkmf,fjiojioh9h9h89hph], summary: {locations: , transfer: }, notes: "
            "2020-10-10, someMap: {c=d, e=f, 1=2}}->(0:2)");
  EXPECT_EQ(RelText(*db, "studyAt", 0, 0),
            "(0:0)-{_LABEL: studyAt, _ID: 5:0, year: 2021, places: [wwAewsdndweusd,wek], length: "
            "5, level: 5, code: 9223372036854775808, temperature: 32800, ulength: 33768, ulevel: "
            "250, hugedata: 1844674407370955161811111111}->(1:0)");
  EXPECT_EQ(RelText(*db, "marries", 2, 1).substr(0, 60),
            "(0:2)-{_LABEL: marries, _ID: 11:1, address: [2,5], note: lon");
  RelTable* meets = db->GetRelTable(*c.FindId("meets"));
  EXPECT_EQ(meets->Get(2, 0).ToString(), "\\xAA\\xBB\\xCC\\xDD");
  EXPECT_EQ(meets->Get(2, 2).ToString(), "MIXED \\xAC with ASCII \\x0A");
  // Backward adjacency: who knows Alice (person offset 0)?
  std::vector<uint64_t> knowers;
  db->GetRelTable(3)->ForEachEdge(0, Direction::kBackward,
                                  [&](uint64_t n, uint64_t) { knowers.push_back(n); });
  EXPECT_EQ(knowers, (std::vector<uint64_t>{1, 2, 3}));
}

TEST(DatasetTest, OtherDatasetFilesParse) {
  if (!HaveSharedData()) GTEST_SKIP() << "/work/shared/conformance is not available";
  std::string root = std::string(kConformanceRoot) + "/dataset/";
  {
    auto db = StorageManager::CreateInMemory();
    LoadDataset(*db, root + "tinysnb-serial");
    if (HasFatalFailure()) return;
    const auto* person = db->catalog().GetNodeTable("person");
    EXPECT_EQ(db->GetNodeTable(person->id)->NumRows(), 8u);
    EXPECT_EQ(db->GetNodeTable(person->id)->Get(0, 7).ToString(), "7");
    EXPECT_EQ(db->GetNodeTable(person->id)->Get(1, 7).ToString(),
              "Hubert Blaine Wolfeschlegelsteinhausenbergerdorff");
    EXPECT_EQ(db->GetRelTable(*db->catalog().FindId("knows"))->NumRels(), 14u);
  }
  {
    auto db = StorageManager::CreateInMemory();
    for (const auto& stmt : Statements(ReadText(root + "demo-db/csv/schema.cypher"))) {
      ASSERT_TRUE(ApplySchemaStatement(*db, stmt).ok());
    }
    ASSERT_TRUE(CopyNode(*db, "User", {root + "demo-db/csv/user.csv"}).ok());
    ASSERT_TRUE(CopyNode(*db, "City", {root + "demo-db/csv/city.csv"}).ok());
    ASSERT_TRUE(CopyRel(*db, "Follows", {root + "demo-db/csv/follows.csv"}).ok());
    ASSERT_TRUE(CopyRel(*db, "LivesIn", {root + "demo-db/csv/lives-in.csv"}).ok());
    EXPECT_EQ(*db->catalog().FindId("LivesIn"), 4u);
    EXPECT_EQ(RelText(*db, "LivesIn", 3, 3), "(0:3)-{_LABEL: LivesIn, _ID: 4:3}->(1:2)");
    EXPECT_EQ(NodeText(*db, "City", 1),
              "{_ID: 1:1, _LABEL: City, name: Kitchener, population: 200000}");
  }
  {
    auto db = StorageManager::CreateInMemory();
    LoadDataset(*db, root + "order-by-tests");
    if (HasFatalFailure()) return;
    EXPECT_EQ(db->GetNodeTable(0)->NumRows(), 3000u);
  }
  {
    // The files copy.cypher does not name: the TSV (comma-separated after all) parses as
    // person; the short file fails with a clear message.
    auto db = StorageManager::CreateInMemory();
    for (const auto& stmt : Statements(ReadText(root + "tinysnb/schema.cypher"))) {
      ASSERT_TRUE(ApplySchemaStatement(*db, stmt).ok());
    }
    ASSERT_TRUE(CopyNode(*db, "person", {root + "tinysnb/vPerson.tsv"}).ok());
    EXPECT_EQ(db->GetNodeTable(0)->NumRows(), 5u);
    Status s = CopyNode(*db, "person", {root + "tinysnb/vPerson_less_col.csv"});
    EXPECT_EQ(s.code(), ErrorCode::kQueryRuntime);
    EXPECT_EQ(s.message(),
              "Copy exception: Error in file " + root +
                  "tinysnb/vPerson_less_col.csv on line 1: expected 16 values per "
                  "row, but got 3. Line/record containing the error: 'id,fname,Gender'");
    s = CopyNode(*db, "person", {root + "tinysnb/vPerson.csv"});  // same keys again
    EXPECT_EQ(s.code(), ErrorCode::kConstraintViolation);
    EXPECT_EQ(db->GetNodeTable(0)->NumRows(), 5u);
    ASSERT_TRUE(CopyNode(*db, "person", {root + "tinysnb/vPerson2.csv"}).ok());
    // Both knows files in one COPY.
    Status k = CopyRel(*db, "knows", {root + "tinysnb/eKnows.csv", root + "tinysnb/eKnows_2.csv"});
    ASSERT_TRUE(k.ok()) << k.ToString();
    EXPECT_EQ(db->GetRelTable(3)->NumRels(), 14u);
  }
}

TEST(DatasetTest, LdbcSample) {
  if (!env::FileSystem::Default()->Exists(kLdbcRoot)) {
    GTEST_SKIP() << "/work/shared/datasets is not available";
  }
  auto db = StorageManager::CreateInMemory();
  std::string error;
  auto type = [&](const char* t) { return *ParseLogicalType(t, &error); };
  catalog::NodeTableDefinition person{"Person",
                                      {{"id", type("INT64"), {}, 0},
                                       {"firstName", type("STRING"), {}, 0},
                                       {"lastName", type("STRING"), {}, 0},
                                       {"gender", type("STRING"), {}, 0},
                                       {"birthday", type("INT64"), {}, 0},
                                       {"creationDate", type("INT64"), {}, 0},
                                       {"locationIP", type("STRING"), {}, 0},
                                       {"browserUsed", type("STRING"), {}, 0},
                                       {"language", type("STRING"), {}, 0},
                                       {"email", type("STRING"), {}, 0}},
                                      "id",
                                      false};
  ASSERT_TRUE(db->CreateNodeTable(person).ok());
  catalog::RelTableDefinition knows;
  knows.name = "knows";
  knows.from_to = {{"Person", "Person"}};
  knows.properties = {{"creationDate", type("INT64"), {}, 0}};
  ASSERT_TRUE(db->CreateRelTable(knows).ok());
  CsvOptions options;
  options.delimiter = '|';
  options.header = CsvOptions::Header::kTrue;
  std::string dir = std::string(kLdbcRoot) + "/dynamic/";
  ASSERT_TRUE(CopyNode(*db, "Person", {dir + "person_0_0.csv"}, options).ok());
  Status s = CopyRel(*db, "knows", {dir + "person_knows_person_0_0.csv"}, options);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(db->GetNodeTable(0)->NumRows(), 222u);
  EXPECT_EQ(db->GetRelTable(1)->NumRels(), 825u);
  uint64_t jose = *db->GetNodeTable(0)->LookupInt64(8796093022220);
  EXPECT_EQ(db->GetNodeTable(0)->Get(8, jose).ToString(), "es;en");
}

}  // namespace
}  // namespace graphdb::formats
