// COPY (<query>) TO and COPY <table> TO a CSV, Parquet or JSON file (RunCopyTo).

#include <charconv>
#include <cstdint>

#include "catalog/catalog.h"
#include "common/interrupt.h"
#include "common/status.h"
#include "cypher/parser/parser.h"
#include "env/file_system.h"
#include "exec/json_scan.h"
#include "formats/csv_reader.h"
#include "formats/parquet_writer.h"
#include "formats/user_files.h"
#include "main/query_pipeline.h"
#include "main/statements/statement_util.h"
#include "main/statements/statements.h"

namespace graphdb {

namespace {

// A value's text in a file COPY TO writes: its printed form (Kùzu's), except that a FLOAT or
// DOUBLE (also inside lists, structs and maps) whose six-decimal print would read back as
// another number takes the shortest text that reads back exactly (0.30000000000000004, 1e-300),
// so that COPY FROM (and IMPORT DATABASE) gets every value back.
std::string FileText(const Value& v) {
  if (v.is_null()) return "";
  switch (v.type_id()) {
    case LogicalTypeId::kFloat:
    case LogicalTypeId::kDouble: {
      const bool single = v.type_id() == LogicalTypeId::kFloat;
      const double d = v.GetDouble();
      std::string printed = v.ToString();
      double back = 0;
      auto parsed = std::from_chars(printed.data(), printed.data() + printed.size(), back);
      const bool exact = parsed.ec == std::errc() &&
                         (single ? static_cast<float>(back) == static_cast<float>(d) : back == d);
      if (exact) return printed;
      char buf[64];
      auto written = single ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(d))
                            : std::to_chars(buf, buf + sizeof buf, d);
      return std::string(buf, written.ptr);
    }
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ',';
        out += FileText(v.children()[i]);
      }
      return out + "]";
    }
    case LogicalTypeId::kMap: {
      std::string out = "{";
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ", ";
        const auto& entry = v.children()[i].children();
        out += FileText(entry[0]) + "=" + FileText(entry[1]);
      }
      return out + "}";
    }
    case LogicalTypeId::kStruct: {
      std::string out = "{";
      const LogicalType type = v.type();
      const auto& fields = type.fields();
      for (size_t i = 0; i < v.children().size(); ++i) {
        if (i) out += ", ";
        out += fields[i].name + ": " + FileText(v.children()[i]);
      }
      return out + "}";
    }
    case LogicalTypeId::kUnion: return FileText(v.children()[0]);
    case LogicalTypeId::kNode:
    case LogicalTypeId::kRel: {
      // As Kùzu's CSV writer: a struct of the internal fields, then every property (a NULL one
      // empty): {_SRC: 0:0, _DST: 0:1, _LABEL: knows, _ID: 3:0, date: ...} for a rel.
      const ValueHeap& heap = *v.heap();
      const auto id_text = [](InternalId id) {
        return std::to_string(id.table) + ":" + std::to_string(id.offset);
      };
      std::string out = "{";
      if (v.type_id() == LogicalTypeId::kRel) {
        out += "_SRC: " + id_text(heap.src) + ", _DST: " + id_text(heap.dst) +
               ", _LABEL: " + heap.str + ", _ID: " + id_text(v.GetId());
      } else {
        out += "_ID: " + id_text(v.GetId()) + ", _LABEL: " + heap.str;
      }
      for (size_t i = 0; i < heap.children.size(); ++i) {
        out += ", " + heap.names[i] + ": " + FileText(heap.children[i]);
      }
      return out + "}";
    }
    case LogicalTypeId::kRecursiveRel:
      return "{_NODES: " + FileText(v.children()[0]) + ", _RELS: " + FileText(v.children()[1]) +
             "}";
    default: return v.ToString();
  }
}

// Text of a value in a CSV file: quoted when it holds the delimiter, the quote, the escape or a
// line break, or is an empty STRING or BLOB (an empty unquoted field reads back as NULL);
// inside the quotes a quote (and the escape) is preceded by the escape.
std::string CsvField(const Value& v, const formats::CsvOptions& csv) {
  std::string text = FileText(v);
  const std::string special{csv.delimiter, csv.quote, csv.escape, '\n', '\r'};
  const bool empty_text =
      text.empty() && !v.is_null() &&
      (v.type_id() == LogicalTypeId::kString || v.type_id() == LogicalTypeId::kBlob);
  if (!empty_text && text.find_first_of(special) == std::string::npos) return text;
  std::string out(1, csv.quote);
  for (char c : text) {
    if (c == csv.quote || c == csv.escape) out += csv.escape;
    out += c;
  }
  return out + csv.quote;
}

bool EndsWithFolded(const std::string& path, std::string_view suffix) {
  if (path.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i) {
    const char c = path[path.size() - suffix.size() + i];
    if (std::tolower(static_cast<unsigned char>(c)) != suffix[i]) return false;
  }
  return true;
}

std::string QuotedName(const std::string& name) {
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

// The query COPY <table> TO writes: a node table's properties in order; a rel table's source
// and destination primary keys (as `from` and `to`), then its properties.
std::string TableQueryText(Database& db, const std::string& table) {
  const catalog::Catalog& cat = db.catalog();
  std::string columns;
  auto add = [&](const std::string& expression, const std::string& name) {
    if (!columns.empty()) columns += ", ";
    columns += expression + " AS " + QuotedName(name);
  };
  if (const auto* node = cat.GetNodeTable(table)) {
    for (const auto& p : node->properties) add("n." + QuotedName(p.name), p.name);
    return "MATCH (n:" + QuotedName(node->name) + ") RETURN " + columns;
  }
  const auto* rel = cat.GetRelTable(table);
  if (!rel) ThrowBinding("Binder exception: Table " + table + " does not exist.");
  std::string src_key;
  std::string dst_key;
  for (const auto& pair : rel->pairs) {
    const auto* src = cat.GetNodeTable(pair.src_table);
    const auto* dst = cat.GetNodeTable(pair.dst_table);
    if (!src || !dst) continue;
    const std::string& s_key = src->primary_key_property().name;
    const std::string& d_key = dst->primary_key_property().name;
    if ((!src_key.empty() && s_key != src_key) || (!dst_key.empty() && d_key != dst_key)) {
      ThrowNotSupported("COPY " + rel->name + " TO: its FROM/TO pairs have primary keys of " +
                        "different names; copy a query naming them instead");
    }
    src_key = s_key;
    dst_key = d_key;
  }
  add("a." + QuotedName(src_key), "from");
  add("b." + QuotedName(dst_key), "to");
  for (const auto& p : rel->properties) add("r." + QuotedName(p.name), p.name);
  return "MATCH (a)-[r:" + QuotedName(rel->name) + "]->(b) RETURN " + columns;
}

formats::ParquetWriteOptions ParquetOptions(Database& db, const parser::ParsedCopyTo& s,
                                            const std::unordered_map<std::string, Value>& params) {
  formats::ParquetWriteOptions options;
  for (const auto& option : s.options) {
    std::string upper = option.name;
    for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (upper != "COMPRESSION")
      ThrowRuntime("Runtime exception: Unrecognized parquet option: " + upper + ".");
    const Value v = OptionValue(db, option, params);
    if (v.type_id() != LogicalTypeId::kString || v.is_null()) {
      ThrowRuntime("Runtime exception: Parquet compression option expects a string value, got: " +
                   v.type().ToString() + ".");
    }
    options.codec = Check(formats::ParseParquetCodec(v.GetString()));
  }
  return options;
}

// Rows a COPY TO takes from its query at a time.
constexpr size_t kCopyToBatchRows = 2048;

}  // namespace

exec::QueryResult RunCopyTo(Database& db, const parser::ParsedCopyTo& s,
                            const std::unordered_map<std::string, Value>& params,
                            Session* session) {
  env::FileSystem* fs = env::FileSystem::Default();
  Check(formats::CheckUserPath(s.file_path, "COPY TO"));
  const bool parquet = EndsWithFolded(s.file_path, ".parquet");
  const bool json = EndsWithFolded(s.file_path, ".json");
  if (!parquet && !json && !EndsWithFolded(s.file_path, ".csv")) {
    ThrowNotSupported("COPY TO supports CSV, Parquet and JSON files only: " + s.file_path);
  }
  bool header = false;
  formats::CsvOptions csv;
  csv.escape = '"';  // by default a quote in a field is doubled
  formats::ParquetWriteOptions parquet_options;
  if (parquet) {
    parquet_options = ParquetOptions(db, s, params);
  } else if (json) {
    if (!s.options.empty()) {
      ThrowBinding("Binder exception: COPY TO a JSON file takes no options, got " +
                   s.options[0].name + ".");
    }
  } else {
    for (const auto& option : s.options) {
      const Value v = OptionValue(db, option, params);
      std::string name = catalog::FoldName(option.name);
      if (name == "header" && v.type_id() == LogicalTypeId::kBool && !v.is_null()) {
        header = v.GetBool();
      } else if (name == "delim" || name == "delimiter" || name == "quote" || name == "escape") {
        Check(csv.Set(name, v));
      } else {
        ThrowBinding("Binder exception: Unrecognized csv option for COPY TO: " + option.name + ".");
      }
    }
  }
  Result<std::string> target = formats::CheckUserFileToWrite(fs, s.file_path, "COPY TO");
  Check(target.status());
  std::vector<std::unique_ptr<parser::ParsedStatement>> table_query;
  const parser::ParsedRegularQuery* query = &s.query;
  if (!s.table_name.empty()) {
    table_query = parser::ParseStatements(TableQueryText(db, s.table_name));
    query = &table_query.at(0)->As<parser::ParsedQueryStatement>().query;
  }
  // The rows go to a new file beside the target, renamed over it once all are written: a
  // statement that fails (or is cancelled, or times out) removes only that file, and leaves
  // what was at the target as it was. The new file is created exclusively (no file or link of
  // its name may be there) in the confined folder (env/file_system.h).
  const std::string temporary = formats::TemporaryFilePath(*target);
  auto file = fs->CreateForWrite(temporary);
  if (!file.ok()) {
    throw GraphDBException(
        formats::UserFileOpenError(file.status(), s.file_path, "write", "COPY TO"));
  }
  bool done = false;
  struct RemoveUnlessDone {
    env::FileSystem* fs;
    env::WritableFile* file;
    const std::string& path;
    const bool& done;
    ~RemoveUnlessDone() {
      if (done) return;
      (void)file->Close();
      (void)fs->Remove(path);
    }
  } cleanup{fs, file->get(), temporary, done};
  std::unique_ptr<formats::ParquetWriter> writer;
  std::string text;
  auto line = [&](const std::vector<Value>& values) {
    for (size_t i = 0; i < values.size(); ++i) {
      if (i) text += csv.delimiter;
      text += CsvField(values[i], csv);
    }
    text += '\n';
  };
  bool first = true;
  std::vector<std::string> json_names;
  uint64_t json_rows = 0;
  StreamReadOnlyQuery(db, *query, params, session, kCopyToBatchRows,
                      [&](const exec::QueryResult& batch) {
                        if (first) {
                          first = false;
                          if (json) {
                            json_names = batch.column_names;
                            text += "[\n";
                          } else if (parquet) {
                            writer = Check(formats::ParquetWriter::Create(
                                batch.column_names, batch.column_types, parquet_options,
                                [&](std::string_view bytes) { return (*file)->Append(bytes); }));
                          } else if (header) {
                            std::vector<Value> names;
                            for (const auto& name : batch.column_names)
                              names.push_back(Value::String(name));
                            line(names);
                          }
                        }
                        for (const auto& row : batch.rows) {
                          if (json) {
                            if (json_rows++ != 0) text += ",\n";
                            exec::AppendJsonRecord(json_names, row, &text);
                          } else if (parquet) {
                            Check(writer->AddRow(row));
                          } else {
                            line(row);
                          }
                        }
                        if (!text.empty()) {
                          Check((*file)->Append(text));
                          text.clear();
                        }
                        CheckInterrupt();
                      });
  if (writer) Check(writer->Finish());
  if (json) Check((*file)->Append(first ? "[\n]\n" : json_rows == 0 ? "]\n" : "\n]\n"));
  Status written = (*file)->Sync();
  Status closed = (*file)->Close();
  Check(written.ok() ? closed : written);
  Status renamed = fs->Rename(temporary, *target);
  if (!renamed.ok()) {
    throw GraphDBException(formats::UserFileOpenError(renamed, s.file_path, "write", "COPY TO"));
  }
  done = true;
  return MessageResult("");
}

}  // namespace graphdb
