#include "fts/fts_functions.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "catalog/catalog.h"
#include "common/status.h"
#include "common/task_pool.h"
#include "common/text.h"
#include "cypher/binder/table_functions.h"
#include "exec/secondary_index.h"
#include "exec/table_functions.h"
#include "formats/user_files.h"
#include "fts/analyzer.h"
#include "fts/inverted_index.h"
#include "function/cast.h"

namespace graphdb::fts {
namespace {

constexpr std::string_view kKind = "FTS";

// ---- Index options (catalog::IndexDefinition::options) ----

constexpr const char* kOptStemmer = "stemmer";
constexpr const char* kOptStopwords = "stopwords";           // as given: 'default', a table, a file
constexpr const char* kOptStopwordList = "stopword_list";    // the words, one a line (not default)
constexpr const char* kOptIgnorePattern = "ignore_pattern";  // when given
constexpr const char* kOptTokenizer = "tokenizer";           // when given

const std::string* Option(const catalog::IndexDefinition& def, std::string_view name) {
  for (const auto& [k, v] : def.options) {
    if (k == name) return &v;
  }
  return nullptr;
}

Result<std::shared_ptr<const Analyzer>> AnalyzerFor(const catalog::IndexDefinition& def) {
  AnalyzerOptions o;
  if (const std::string* s = Option(def, kOptStemmer)) {
    if (!ParseStemmer(*s, &o.stemmer)) {
      return Status(ErrorCode::kQueryBinding, "Binder exception: " + UnknownStemmerMessage(*s));
    }
  }
  if (const std::string* t = Option(def, kOptTokenizer)) {
    o.tokenizer = *t == "jieba" ? TokenizerKind::kJieba : TokenizerKind::kSimple;
  }
  if (const std::string* p = Option(def, kOptIgnorePattern)) o.ignore_pattern = *p;
  if (const std::string* list = Option(def, kOptStopwordList)) {
    auto words = std::make_shared<StopwordSet>();
    std::string_view rest = *list;
    while (!rest.empty()) {
      size_t nl = rest.find('\n');
      std::string_view w = rest.substr(0, nl);
      if (!w.empty()) words->emplace(w);
      rest = nl == std::string_view::npos ? std::string_view() : rest.substr(nl + 1);
    }
    o.stopwords = std::move(words);
  }
  return Analyzer::Make(std::move(o));
}

std::string Quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "'";
}

// ---- Contents ----

class FtsContents final : public exec::IndexContents {
 public:
  explicit FtsContents(std::shared_ptr<const Analyzer> analyzer) : analyzer_(std::move(analyzer)) {}

  const Analyzer& analyzer() const { return *analyzer_; }
  const InvertedIndex& index() const { return index_; }

  void Terms(const std::vector<Value>& values, std::vector<std::string>* terms,
             std::string* scratch) const {
    for (const Value& v : values) {
      if (v.is_null() || v.type_id() != LogicalTypeId::kString) continue;
      analyzer_->DocumentTerms(v.GetString(), terms, scratch);
    }
  }

  void Put(uint64_t offset, const std::vector<Value>& values, uint64_t ts) override {
    std::vector<std::string> terms;
    std::string scratch;
    Terms(values, &terms, &scratch);
    index_.Put(offset, terms, ts);
  }
  void Remove(uint64_t offset, uint64_t ts) override { index_.Remove(offset, ts); }

  void Build(const std::vector<uint64_t>& rows, std::vector<std::vector<Value>> values,
             const std::vector<uint64_t>& begin_ts, exec::ExecContext& ctx) override {
    std::vector<DocTerms> docs(rows.size());
    constexpr uint64_t kMorsel = 2048;
    auto body = [&](unsigned, uint64_t begin, uint64_t end) {
      std::string scratch;
      for (uint64_t i = begin; i < end; ++i) {
        if ((i & 255) == 0) CheckInterrupt();
        docs[i].offset = rows[i];
        docs[i].begin_ts = begin_ts[i];
        Terms(values[i], &docs[i].terms, &scratch);
        std::vector<Value>().swap(values[i]);
      }
    };
    if (ctx.tasks != nullptr && rows.size() > kMorsel) {
      ctx.tasks->ParallelFor(rows.size(), kMorsel, ctx.parallelism, body);
    } else {
      body(0, 0, rows.size());
    }
    CheckInterrupt();
    index_.Build(std::move(docs));
  }

  void Prune(uint64_t oldest) override { index_.Prune(oldest); }
  uint64_t MemoryBytes() const override { return index_.MemoryBytes(); }
  bool Save(uint64_t snapshot, std::string* out) const override {
    index_.Save(snapshot, out);
    return true;
  }
  bool Load(std::string_view in) override { return index_.Load(in); }

 private:
  std::shared_ptr<const Analyzer> analyzer_;
  InvertedIndex index_;
};

class FtsKind final : public exec::IndexKind {
 public:
  std::unique_ptr<exec::IndexContents> NewContents(const catalog::IndexDefinition& def,
                                                   const catalog::Catalog& catalog) const override {
    auto analyzer = AnalyzerFor(def);
    if (!analyzer.ok()) throw GraphDBException(analyzer.status());
    return std::make_unique<FtsContents>(std::move(analyzer.value()));
  }

  std::string DefinitionText(const catalog::IndexDefinition& def,
                             const catalog::Catalog& catalog) const override {
    const catalog::NodeTableSchema* table = catalog.GetNodeTable(def.table);
    std::string text =
        "CALL CREATE_FTS_INDEX(" + Quote(table ? table->name : "") + ", " + Quote(def.name) + ", [";
    for (size_t i = 0; i < def.properties.size(); ++i) {
      std::string name;
      if (table) {
        for (const auto& p : table->properties) {
          if (p.id == def.properties[i]) name = p.name;
        }
      }
      text += (i ? ", " : "") + Quote(name);
    }
    const std::string* stemmer = Option(def, kOptStemmer);
    const std::string* stopwords = Option(def, kOptStopwords);
    text += "], stemmer := " + Quote(stemmer ? *stemmer : "english") +
            ", stopWords := " + Quote(stopwords ? *stopwords : "default");
    if (const std::string* p = Option(def, kOptIgnorePattern)) {
      text += ", ignore_pattern := " + Quote(*p);
    }
    if (const std::string* t = Option(def, kOptTokenizer)) text += ", tokenizer := " + Quote(*t);
    return text + ");";
  }
};

// ---- Binding ----

std::string TypeList(const std::vector<Value>& args) {
  std::string text = "(";
  for (size_t i = 0; i < args.size(); ++i) text += (i ? "," : "") + args[i].type().ToString();
  return text + ")";
}

void CheckArguments(const binder::BoundTableFunction& fn,
                    const std::vector<LogicalTypeId>& expected) {
  bool ok = fn.args.size() == expected.size();
  for (size_t i = 0; ok && i < expected.size(); ++i) {
    const Value& a = fn.args[i];
    // The query of QUERY_FTS_INDEX may be any value (a non-string finds nothing).
    if (expected[i] == LogicalTypeId::kString && i == 2 && fn.name == "query_fts_index") continue;
    ok = !a.is_null() && a.type_id() == expected[i];
  }
  if (ok) return;
  std::string text = "(";
  for (size_t i = 0; i < expected.size(); ++i) {
    text += (i ? "," : "") + std::string(expected[i] == LogicalTypeId::kList ? "LIST" : "STRING");
  }
  ThrowBinding("Binder exception: Function " + ToUpperAscii(fn.name) +
               " did not receive correct arguments:\nActual:   " + TypeList(fn.args) +
               "\nExpected: " + text + ")\n");
}

const catalog::NodeTableSchema& BindNodeTable(const catalog::Catalog& catalog,
                                              const std::string& name) {
  auto id = catalog.FindId(name);
  if (!id) ThrowBinding("Binder exception: Table " + name + " does not exist.");
  const catalog::NodeTableSchema* table = catalog.GetNodeTable(*id);
  if (!table) ThrowBinding("Binder exception: " + name + " is not of type NODE.");
  return *table;
}

const catalog::IndexDefinition& BindIndex(const catalog::Catalog& catalog,
                                          const catalog::NodeTableSchema& table,
                                          const std::string& index) {
  const catalog::IndexDefinition* def = catalog.GetIndex(table.id, index);
  if (!def || def->kind != kKind) {
    ThrowBinding("Binder exception: Table " + table.name + " doesn't have an index with name " +
                 index + ".");
  }
  return *def;
}

std::string StringOption(const Value& value) {
  if (value.is_null() || value.type_id() != LogicalTypeId::kString) {
    ThrowBinding("Binder exception: " + (value.is_null() ? std::string() : value.ToString()) +
                 " has data type " + (value.is_null() ? "ANY" : value.type().ToString()) +
                 " but STRING was expected.");
  }
  return std::string(value.GetString());
}

std::string LowerAscii(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

void CheckIndexParameters(const catalog::Catalog& catalog, const catalog::NodeTableSchema& table,
                          const binder::BoundTableFunction& fn) {
  // Properties: each a STRING property of the table.
  const Value& props = fn.args[2];
  for (const Value& p : props.children()) {
    std::string name =
        p.is_null()
            ? ""
            : (p.type_id() == LogicalTypeId::kString ? std::string(p.GetString()) : p.ToString());
    auto index = table.PropertyIndex(name);
    if (!index) {
      ThrowBinding("Binder exception: Property: " + name + " does not exist in table " +
                   table.name + ".");
    }
    if (table.properties[*index].type.id() != LogicalTypeId::kString) {
      ThrowBinding(
          "Binder exception: Full text search index can only be built on string properties.");
    }
  }
  for (const auto& [name, value] : fn.named_args) {
    std::string key = LowerAscii(name);
    if (key == "stemmer") {
      std::string s = LowerAscii(StringOption(value));
      StemmerKind kind;
      if (!ParseStemmer(s, &kind)) ThrowBinding("Binder exception: " + UnknownStemmerMessage(s));
    } else if (key == "stopwords") {
      std::string s = StringOption(value);
      if (s == "default") continue;
      if (auto id = catalog.FindId(s)) {
        const catalog::NodeTableSchema* words = catalog.GetNodeTable(*id);
        if (!words) ThrowBinding("Binder exception: The stop words table must be a node table.");
        if (words->properties.size() != 1 ||
            words->primary_key_property().type.id() != LogicalTypeId::kString) {
          ThrowBinding(
              "Binder exception: The stop words table must have exactly one string column.");
        }
        continue;
      }
      std::error_code ec;
      auto path = formats::ConfineUserPath(s, "CREATE_FTS_INDEX");
      if (!path.ok()) throw GraphDBException(path.status());
      if (s.find("://") != std::string::npos ||
          !std::filesystem::is_regular_file(path.value(), ec)) {
        ThrowBinding("Binder exception: Given stopwords: '" + s +
                     "' is not a node table name nor a valid file path.");
      }
    } else if (key == "ignore_pattern") {
      AnalyzerOptions o;
      o.ignore_pattern = LowerAscii(StringOption(value));
      auto a = Analyzer::Make(std::move(o));
      if (!a.ok()) throw GraphDBException(a.status());
    } else if (key == "tokenizer") {
      std::string t = LowerAscii(StringOption(value));
      if (t != "simple" && t != "jieba") {
        ThrowBinding("Binder exception: Unsupported tokenizer: " + t +
                     ".\nSupported tokenizers: 'simple' (default), 'jieba' (advanced Chinese)");
      }
    } else {
      ThrowBinding("Binder exception: Unrecognized optional parameter: " + name);
    }
  }
}

// QUERY_FTS_INDEX's optional parameters, converted and checked.
struct QueryParameters {
  SearchOptions options;
};

QueryParameters BindQueryParameters(const binder::BoundTableFunction& fn) {
  QueryParameters q;
  auto type_error = [](const Value& v, const char* expected) {
    ThrowBinding("Binder exception: Expression " + v.ToString() + " has data type " +
                 v.type().ToString() + " but expected " + expected +
                 ". Implicit cast is not supported.");
  };
  for (const auto& [name, value] : fn.named_args) {
    std::string key = LowerAscii(name);
    if (key != "k" && key != "b" && key != "conjunctive" && key != "top") {
      ThrowBinding("Binder exception: Unknown optional parameter: " + key);
    }
  }
  for (const auto& [name, value] : fn.named_args) {
    std::string key = LowerAscii(name);
    const bool numeric = !value.is_null() && value.type().IsNumeric();
    if (key == "k" || key == "b") {
      if (!numeric) type_error(value, "DOUBLE");
      double d = function::CastValue(value, LogicalType::Double()).GetDouble();
      if (key == "k") {
        if (d < 0) {
          ThrowBinding(
              "Binder exception: BM25 model requires the Term Frequency Saturation(k) value to "
              "be a positive number.");
        }
        q.options.k = d;
      } else {
        if (d < 0 || d > 1) {
          ThrowBinding(
              "Binder exception: BM25 model requires the Document Length Normalization(b) value "
              "to be in the range [0,1].");
        }
        q.options.b = d;
      }
    } else if (key == "conjunctive") {
      if (value.is_null() || value.type_id() != LogicalTypeId::kBool) type_error(value, "BOOL");
      q.options.conjunctive = value.GetBool();
    } else {
      // A NULL (`top := NULL`, `top := NULL + 1`) is no count: Kùzu's error for 0.
      if (!numeric && !value.is_null()) type_error(value, "UINT64");
      uint64_t top =
          value.is_null()
              ? 0
              : function::CastValue(value, LogicalType(LogicalTypeId::kUInt64)).GetUInt();
      if (top == 0) {
        ThrowBinding(
            "Binder exception: QUERY_FTS_INDEX requires a positive non-zero value for the 'top' "
            "parameter.");
      }
      q.options.top = top;
    }
  }
  return q;
}

class FtsBinding final : public binder::TableFunctionBinding {
 public:
  bool Bind(binder::BoundTableFunction* fn, const catalog::Catalog& catalog) const override {
    using Id = LogicalTypeId;
    if (fn->name == "create_fts_index") {
      CheckArguments(*fn, {Id::kString, Id::kString, Id::kList});
      const auto& table = BindNodeTable(catalog, std::string(fn->args[0].GetString()));
      std::string index(fn->args[1].GetString());
      if (catalog.GetIndex(table.id, index)) {
        ThrowBinding("Binder exception: Index " + index + " already exists in table " + table.name +
                     ".");
      }
      CheckIndexParameters(catalog, table, *fn);
      for (const char* suffix : {"_docs", "_terms", "_appears_info", "_appears_in"}) {
        std::string internal = std::to_string(table.id) + "_" + index + suffix;
        if (catalog.Contains(internal)) {
          ThrowBinding("Binder exception: Table: " + internal +
                       " already exists. Please drop or rename the table before creating a full "
                       "text search index.");
        }
      }
      fn->table_id = table.id;
      Result(fn);
      return true;
    }
    if (fn->name == "drop_fts_index") {
      CheckArguments(*fn, {Id::kString, Id::kString});
      const auto& table = BindNodeTable(catalog, std::string(fn->args[0].GetString()));
      BindIndex(catalog, table, std::string(fn->args[1].GetString()));
      fn->table_id = table.id;
      Result(fn);
      return true;
    }
    if (fn->name == "query_fts_index") {
      CheckArguments(*fn, {Id::kString, Id::kString, Id::kString});
      const auto& table = BindNodeTable(catalog, std::string(fn->args[0].GetString()));
      BindIndex(catalog, table, std::string(fn->args[1].GetString()));
      BindQueryParameters(*fn);
      fn->table_id = table.id;
      fn->column_names = {"node", "score"};
      fn->column_types = {LogicalType(LogicalTypeId::kNode), LogicalType::Double()};
      fn->column_tables = {{table.id}, {}};
      return true;
    }
    return false;
  }

 private:
  static void Result(binder::BoundTableFunction* fn) {
    fn->column_names = {"result"};
    fn->column_types = {LogicalType::String()};
    fn->column_tables = {{}};
  }
};

// ---- Running ----

class ScoreRows final : public exec::TableFunctionRowSource {
 public:
  ScoreRows(catalog::TableId table, std::vector<ScoredDoc> docs)
      : table_(table), docs_(std::move(docs)) {}
  bool Next(std::vector<Value>* row) override {
    if (next_ >= docs_.size()) return false;
    const ScoredDoc& d = docs_[next_++];
    row->clear();
    row->push_back(Value::Id(InternalId{table_, d.offset}));
    row->push_back(Value::Double(d.score));
    return true;
  }

 private:
  catalog::TableId table_;
  std::vector<ScoredDoc> docs_;
  size_t next_ = 0;
};

// The words of a stop-word table (its one STRING column) as the statement sees them.
std::vector<std::string> TableStopwords(exec::GraphStore& store, catalog::TableId id) {
  std::vector<std::string> words;
  storage::NodeTable& table = store.node_table(id);
  for (uint64_t row = 0; row < table.NumRows(); ++row) {
    if (!store.NodeRowVisible(table, row)) continue;
    Value v = store.NodeProperty(InternalId{id, row}, 0);
    if (!v.is_null() && v.type_id() == LogicalTypeId::kString) words.emplace_back(v.GetString());
  }
  return words;
}

// A stop-word file: one word a line (a one-column CSV file; quotes removed).
std::vector<std::string> FileStopwords(const std::string& path) {
  auto confined = formats::ConfineUserPath(path, "CREATE_FTS_INDEX");
  if (!confined.ok()) throw GraphDBException(confined.status());
  std::ifstream in(confined.value(), std::ios::binary);
  if (!in) {
    ThrowBinding("Binder exception: Given stopwords: '" + path +
                 "' is not a node table name nor a valid file path.");
  }
  std::vector<std::string> words;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.size() >= 2 && line.front() == '"' && line.back() == '"') {
      line = line.substr(1, line.size() - 2);
    }
    if (!line.empty()) words.push_back(line);
  }
  return words;
}

std::unique_ptr<exec::TableFunctionRowSource> CreateIndex(const binder::BoundTableFunction& fn,
                                                          exec::GraphStore& store,
                                                          exec::ExecContext& ctx) {
  if (ctx.index_ddl == nullptr) {
    throw GraphDBException(ErrorCode::kInternal, "CREATE_FTS_INDEX ran without index DDL access");
  }
  const catalog::Catalog& catalog = store.catalog();
  const catalog::NodeTableSchema* table = catalog.GetNodeTable(fn.table_id);
  catalog::IndexDefinition def;
  def.name = std::string(fn.args[1].GetString());
  def.kind = std::string(kKind);
  def.table = fn.table_id;
  for (const Value& p : fn.args[2].children()) {
    auto index = table->PropertyIndex(std::string(p.GetString()));
    def.properties.push_back(table->properties[*index].id);
  }
  std::string stemmer = "english", stopwords = "default";
  std::vector<std::pair<std::string, std::string>> extra;
  for (const auto& [name, value] : fn.named_args) {
    std::string key = LowerAscii(name);
    std::string text(value.GetString());
    if (key == "stemmer") {
      stemmer = LowerAscii(text);
    } else if (key == "stopwords") {
      stopwords = text;
    } else if (key == "ignore_pattern") {
      extra.emplace_back(kOptIgnorePattern, LowerAscii(text));
    } else if (key == "tokenizer") {
      extra.emplace_back(kOptTokenizer, LowerAscii(text));
    }
  }
  def.options.emplace_back(kOptStemmer, stemmer);
  def.options.emplace_back(kOptStopwords, stopwords);
  if (stopwords != "default") {
    std::vector<std::string> words;
    if (auto id = catalog.FindId(stopwords)) {
      words = TableStopwords(store, *id);
    } else {
      words = FileStopwords(stopwords);
    }
    std::string list;
    for (const std::string& w : words) list += w + "\n";
    def.options.emplace_back(kOptStopwordList, std::move(list));
  }
  for (auto& e : extra) def.options.push_back(std::move(e));
  std::string name = def.name;
  ctx.index_ddl->create(std::move(def));  // adds it and builds its contents; throws on failure
  std::vector<std::vector<Value>> rows;
  rows.push_back({Value::String("Index " + name + " has been created.")});
  return std::make_unique<exec::MaterializedRows>(std::move(rows));
}

std::unique_ptr<exec::TableFunctionRowSource> DropIndex(const binder::BoundTableFunction& fn,
                                                        exec::ExecContext& ctx) {
  if (ctx.index_ddl == nullptr) {
    throw GraphDBException(ErrorCode::kInternal, "DROP_FTS_INDEX ran without index DDL access");
  }
  std::string name(fn.args[1].GetString());
  Status st = ctx.index_ddl->drop(fn.table_id, name);
  if (!st.ok()) throw GraphDBException(st);
  std::vector<std::vector<Value>> rows;
  rows.push_back({Value::String("Index " + name + " has been dropped.")});
  return std::make_unique<exec::MaterializedRows>(std::move(rows));
}

std::unique_ptr<exec::TableFunctionRowSource> QueryIndex(const binder::BoundTableFunction& fn,
                                                         exec::GraphStore& store,
                                                         exec::ExecContext& ctx) {
  const catalog::Catalog& catalog = store.catalog();
  const catalog::NodeTableSchema* table = catalog.GetNodeTable(fn.table_id);
  const catalog::IndexDefinition& def =
      BindIndex(catalog, *table, std::string(fn.args[1].GetString()));
  QueryParameters params = BindQueryParameters(fn);
  const Value& query = fn.args[2];
  if (query.is_null() || query.type_id() != LogicalTypeId::kString) {
    return std::make_unique<ScoreRows>(fn.table_id, std::vector<ScoredDoc>{});
  }
  if (ctx.indexes == nullptr) {
    throw GraphDBException(ErrorCode::kInternal, "QUERY_FTS_INDEX ran without index contents");
  }
  std::shared_ptr<exec::IndexContents> contents = ctx.indexes->Get(def, store, ctx);
  auto* fts = dynamic_cast<FtsContents*>(contents.get());
  if (fts == nullptr) {
    throw GraphDBException(ErrorCode::kInternal, "the index is not a full-text index");
  }
  // The statement's own uncommitted rows: their current values replace the committed ones.
  OwnDocs own;
  own.changed = exec::OwnChangedRows(store, fn.table_id);
  if (!own.changed.empty()) {
    storage::NodeTable& rows = store.node_table(fn.table_id);
    std::string scratch;
    for (uint64_t offset : own.changed) {
      if (offset >= rows.NumRows() || !store.NodeRowVisible(rows, offset)) continue;
      std::vector<Value> values = exec::IndexedValues(def, store, offset);
      OwnDocs::Doc doc{offset, {}};
      fts->Terms(values, &doc.terms, &scratch);
      own.docs.push_back(std::move(doc));
    }
  }
  QueryTerms terms = fts->analyzer().Query(query.GetString(), params.options.conjunctive);
  auto docs = fts->index().Search(terms, store.snapshot().read_ts, own, params.options);
  return std::make_unique<ScoreRows>(fn.table_id, std::move(docs));
}

class FtsExtension final : public exec::TableFunctionExtension {
 public:
  std::unique_ptr<exec::TableFunctionRowSource> Open(const binder::BoundTableFunction& fn,
                                                     exec::GraphStore& store,
                                                     exec::ExecContext& ctx) const override {
    if (fn.name == "query_fts_index") return QueryIndex(fn, store, ctx);
    if (fn.name == "create_fts_index") return CreateIndex(fn, store, ctx);
    if (fn.name == "drop_fts_index") return DropIndex(fn, ctx);
    return nullptr;
  }
};

}  // namespace

void RegisterFullText() {
  static std::once_flag once;
  std::call_once(once, [] {
    static const FtsBinding binding;
    static const FtsExtension extension;
    static const FtsKind kind;
    binder::RegisterTableFunctionBinding(&binding);
    exec::RegisterTableFunctionExtension(&extension);
    exec::RegisterIndexKind(std::string(kKind), &kind);
    exec::RegisterIndexDdlFunction("create_fts_index");
    exec::RegisterIndexDdlFunction("drop_fts_index");
  });
}

}  // namespace graphdb::fts
