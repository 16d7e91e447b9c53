#include "main/statements/port_database.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <system_error>

#include "common/progress.h"
#include "cypher/parser/parser.h"
#include "env/file_system.h"
#include "exec/secondary_index.h"
#include "formats/user_files.h"
#include "main/statements/statement_util.h"
#include "main/statements/statements.h"

namespace graphdb {

namespace {

constexpr const char* kSchemaFile = "schema.cypher";
constexpr const char* kMacroFile = "macro.cypher";  // written by older Kùzu versions
constexpr const char* kCopyFile = "copy.cypher";
constexpr const char* kIndexFile = "index.cypher";

using parser::QuoteName;
using parser::QuoteString;

std::string Upper(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// `name type [DEFAULT expr]` for each property, as CREATE TABLE lists them.
std::string PropertyDefinitions(const std::vector<catalog::PropertyDefinition>& properties) {
  std::string out;
  for (const auto& property : properties) {
    if (!out.empty()) out += ", ";
    out += QuoteName(property.name) + " " + property.type.ToString();
    if (property.default_expr) out += " DEFAULT " + *property.default_expr;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// EXPORT's options
// ---------------------------------------------------------------------------------------------

struct ExportOptions {
  bool parquet = false;
  bool schema_only = false;
  // The CSV options as given (name, value): passed to COPY TO and to copy.cypher's COPY FROM.
  bool header = false;
  std::string delimiter = ",";
  std::string quote = "\"";
  std::string escape = "\"";  // COPY TO's default: a quote inside a field is doubled
};

std::string SingleCharacter(const Value& value, const std::string& option) {
  if (value.is_null() || value.type_id() != LogicalTypeId::kString ||
      value.GetString().size() != 1) {
    ThrowBinding("Binder exception: The " + option +
                 " option of EXPORT DATABASE must be a single character string.");
  }
  return std::string(value.GetString());
}

// Kùzu's rules and messages: FORMAT is 'csv' (default) or 'parquet'; only CSV takes options
// (HEADER, DELIM/DELIMITER, QUOTE, ESCAPE); SCHEMA_ONLY=true takes none.
ExportOptions BindExportOptions(Database& db, const parser::ParsedPortDatabase& s,
                                const std::unordered_map<std::string, Value>& params) {
  ExportOptions options;
  std::vector<std::pair<std::string, Value>> given;
  for (const auto& option : s.options) {
    given.emplace_back(catalog::FoldName(option.name), OptionValue(db, option, params));
  }
  for (const auto& [name, v] : given) {
    if (name == "schema_only") {
      if (v.is_null() || v.type_id() != LogicalTypeId::kBool) {
        ThrowBinding("Binder exception: The 'SCHEMA_ONLY' option must have a BOOL value.");
      }
      options.schema_only = v.GetBool();
    } else if (name == "format") {
      if (v.is_null() || v.type_id() != LogicalTypeId::kString) {
        ThrowBinding("Binder exception: The type of format option must be a string.");
      }
      const std::string format = Upper(v.GetString());
      if (format != "CSV" && format != "PARQUET") {
        ThrowBinding(
            "Binder exception: Export database currently only supports csv and parquet "
            "files.");
      }
      options.parquet = format == "PARQUET";
    }
  }
  if (options.schema_only && given.size() > 1) {
    ThrowBinding(
        "Binder exception: When 'SCHEMA_ONLY' option is set to true in export database, "
        "no other options are allowed.");
  }
  size_t csv_options = 0;
  for (const auto& entry : given) {
    csv_options += entry.first != "format" && entry.first != "schema_only";
  }
  if (options.parquet && csv_options > 0) {
    ThrowBinding("Binder exception: Only export to csv can have options.");
  }
  for (const auto& [name, v] : given) {
    if (name == "format" || name == "schema_only") continue;
    if (name == "header") {
      if (v.is_null() || v.type_id() != LogicalTypeId::kBool) {
        ThrowBinding("Binder exception: The HEADER option of EXPORT DATABASE must be a BOOL.");
      }
      options.header = v.GetBool();
    } else if (name == "delim" || name == "delimiter") {
      options.delimiter = SingleCharacter(v, "DELIM");
    } else if (name == "quote") {
      options.quote = SingleCharacter(v, "QUOTE");
    } else if (name == "escape") {
      options.escape = SingleCharacter(v, "ESCAPE");
    } else {
      ThrowBinding("Binder exception: Unrecognized csv option for EXPORT DATABASE: " + name + ".");
    }
  }
  return options;
}

// The CSV options, as COPY TO and COPY FROM take them: "(header=true, delim=',', ...)".
std::string CsvOptionList(const ExportOptions& options, bool for_copy_from) {
  std::string out = std::string("(header=") + (options.header ? "true" : "false") +
                    ", delim=" + QuoteString(options.delimiter) +
                    ", quote=" + QuoteString(options.quote) +
                    ", escape=" + QuoteString(options.escape);
  // The reader must not guess what the writer said, and must read quoted line breaks.
  if (for_copy_from) out += ", auto_detect=false, parallel=false";
  return out + ")";
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

void WriteTextFile(const std::string& path, const std::string& text) {
  env::FileSystem* fs = env::FileSystem::Default();
  auto file = fs->OpenForWrite(path);
  if (!file.ok()) {
    throw GraphDBException(
        formats::UserFileOpenError(file.status(), path, "write", "EXPORT DATABASE"));
  }
  Status written = (*file)->Append(text);
  if (written.ok()) written = (*file)->Sync();
  Status closed = (*file)->Close();
  Check(written.ok() ? closed : written);
}

// The contents of the import script `shown` (the path as the statement named it), or nullopt
// when there is no such file. Confined like any file a statement names: a link out of the
// import folder is refused, whatever it points to.
std::optional<std::string> ReadTextFile(const std::string& shown) {
  env::FileSystem* fs = env::FileSystem::Default();
  const std::string path = Check(formats::ConfineUserPath(shown, "IMPORT DATABASE"));
  if (Check(fs->GetPathKind(path)) != env::PathKind::kFile) return std::nullopt;
  auto file = fs->OpenForRead(path);
  if (!file.ok()) {
    throw GraphDBException(
        formats::UserFileOpenError(file.status(), shown, "read", "IMPORT DATABASE"));
  }
  const uint64_t size = Check((*file)->Size());
  std::string text(size, '\0');
  size_t done = 0;
  while (done < size) {
    size_t n = Check((*file)->Read(done, size - done, text.data() + done));
    if (n == 0) break;
    done += n;
  }
  text.resize(done);
  return text;
}

// A data file's name for a table (or a pair, "R_A_B"): its characters that are safe in a file
// name, others as '_', and a number after it when another table already took the name.
std::string DataFileName(const std::string& base, const char* extension,
                         std::set<std::string>* taken) {
  std::string name;
  for (char c : base) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ||
                      (static_cast<unsigned char>(c) >= 0x80);
    name += safe ? c : '_';
  }
  if (name.empty() || name[0] == '.') name.insert(0, "_");
  std::string candidate = name;
  for (int i = 2; !taken->insert(catalog::FoldName(candidate)).second; ++i) {
    candidate = name + "_" + std::to_string(i);
  }
  return candidate + extension;
}

// Runs `COPY (query) TO 'path' options` through the COPY TO path.
void CopyTo(Database& db, const std::string& query, const std::string& path,
            const std::string& options) {
  std::string text = "COPY (" + query + ") TO " + QuoteString(path);
  if (!options.empty()) text += " " + options;
  auto statements = parser::ParseStatements(text);
  GRAPHDB_ASSERT(statements.size() == 1 && statements[0]->kind == parser::StatementKind::kCopyTo);
  try {
    RunCopyTo(db, statements[0]->As<parser::ParsedCopyTo>(), {});
  } catch (const GraphDBException& e) {
    if (e.status().code() != ErrorCode::kNotSupported) throw;
    // A format COPY TO cannot write (yet): say which statement needed it.
    ThrowNotSupported("EXPORT DATABASE writes its data files with COPY TO, and " +
                      e.status().message());
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// schema.cypher
// ---------------------------------------------------------------------------------------------

std::string SchemaCypher(const catalog::Catalog& cat) {
  std::string out;
  for (const auto& [name, type] : cat.UserTypes()) {
    out += "CREATE TYPE " + QuoteName(name) + " AS " + type.ToString() + ";\n";
  }
  // Sequences before the tables: a DEFAULT may call nextval().
  for (const catalog::SequenceSchema* sequence : cat.Sequences()) {
    const catalog::SequenceDefinition& o = sequence->options;
    const catalog::SequenceCounter::State state = sequence->counter->Get();
    out += "CREATE SEQUENCE " + QuoteName(o.name) + " START " +
           std::to_string(state.used ? state.current : o.start_value) + " INCREMENT " +
           std::to_string(o.increment) + " MINVALUE " + std::to_string(o.min_value) + " MAXVALUE " +
           std::to_string(o.max_value) + (o.cycle ? " CYCLE" : " NO CYCLE") + ";\n";
    // Hands out the current value again, so that currval() gives it and nextval() goes on.
    if (state.used) out += "RETURN nextval(" + QuoteString(o.name) + ");\n";
  }
  for (const catalog::NodeTableSchema* table : cat.NodeTables()) {
    out += "CREATE NODE TABLE " + QuoteName(table->name) + " (" +
           PropertyDefinitions(table->properties) + ", PRIMARY KEY (" +
           QuoteName(table->primary_key_property().name) + "));\n";
  }
  for (const catalog::RelTableSchema* table : cat.RelTables()) {
    std::string body;
    for (const auto& pair : table->pairs) {
      if (!body.empty()) body += ", ";
      body += "FROM " + QuoteName(cat.TableName(pair.src_table)) + " TO " +
              QuoteName(cat.TableName(pair.dst_table));
    }
    if (!table->properties.empty()) body += ", " + PropertyDefinitions(table->properties);
    if (table->multiplicity != catalog::RelMultiplicity::kManyMany) {
      body += std::string(", ") + catalog::RelMultiplicityName(table->multiplicity);
    }
    out += "CREATE REL TABLE " + QuoteName(table->name) + " (" + body + ")";
    switch (table->storage_direction) {
      case catalog::RelStorageDirection::kBoth: break;
      case catalog::RelStorageDirection::kFwd: out += " WITH (storage_direction = 'fwd')"; break;
      case catalog::RelStorageDirection::kBwd: out += " WITH (storage_direction = 'bwd')"; break;
    }
    out += ";\n";
  }
  for (const catalog::MacroDefinition* macro : cat.Macros()) {
    std::string parameters;
    for (const auto& name : macro->parameters) {
      parameters += (parameters.empty() ? "" : ", ") + QuoteName(name);
    }
    for (const auto& [name, value] : macro->defaults) {
      parameters += (parameters.empty() ? "" : ", ") + QuoteName(name) + " := " + value;
    }
    out +=
        "CREATE MACRO " + QuoteName(macro->name) + "(" + parameters + ") AS " + macro->body + ";\n";
  }
  auto comment = [&](const std::string& table, const std::string& text) {
    if (!text.empty())
      out += "COMMENT ON TABLE " + QuoteName(table) + " IS " + QuoteString(text) + ";\n";
  };
  for (const auto* table : cat.NodeTables()) comment(table->name, table->comment);
  for (const auto* table : cat.RelTables()) comment(table->name, table->comment);
  return out;
}

// ---------------------------------------------------------------------------------------------
// EXPORT DATABASE
// ---------------------------------------------------------------------------------------------

namespace {

bool HoldsUnion(const LogicalType& type) {
  if (type.id() == LogicalTypeId::kUnion) return true;
  switch (type.id()) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kArray: return HoldsUnion(type.child());
    case LogicalTypeId::kStruct:
    case LogicalTypeId::kMap:
      for (const auto& field : type.fields()) {
        if (HoldsUnion(*field.type)) return true;
      }
      return false;
    default: return false;
  }
}

// Parquet has no union: COPY TO writes a UNION as Kùzu's struct of a tag and the members, which
// COPY FROM does not turn back into the union. An export that could not be imported as it was
// is refused before it writes anything.
void CheckParquetExportable(const catalog::Catalog& cat) {
  auto check = [](const std::string& table,
                  const std::vector<catalog::PropertyDefinition>& properties) {
    for (const auto& property : properties) {
      if (HoldsUnion(property.type)) {
        throw GraphDBException(Status(
            ErrorCode::kNotSupported,
            "EXPORT DATABASE (format='parquet'): column " + table + "." + property.name +
                " holds a UNION, which a Parquet file stores as a struct that IMPORT DATABASE "
                "cannot turn back into the union; export this database as CSV"));
      }
    }
  };
  for (const auto* table : cat.NodeTables()) check(table->name, table->properties);
  for (const auto* table : cat.RelTables()) check(table->name, table->properties);
}

}  // namespace

exec::QueryResult RunExportDatabase(Database& db, const parser::ParsedPortDatabase& s,
                                    const std::unordered_map<std::string, Value>& params) {
  const ExportOptions options = BindExportOptions(db, s, params);
  if (options.parquet) CheckParquetExportable(db.catalog());
  Check(formats::CheckUserPath(s.path, "EXPORT DATABASE"));
  const std::string dir = Check(formats::ConfineUserPath(s.path, "EXPORT DATABASE"));
  namespace fs = std::filesystem;
  std::error_code error;
  if (Check(env::FileSystem::Default()->GetPathKind(dir)) != env::PathKind::kMissing) {
    ThrowRuntime("Runtime exception: Directory " + s.path + " already exists.");
  }
  // The outermost folder this export creates: removed again when the export fails.
  fs::path created = fs::absolute(fs::path(dir), error).lexically_normal();
  while (created.has_parent_path() && created.parent_path() != created &&
         !fs::exists(created.parent_path(), error)) {
    created = created.parent_path();
  }
  if (!fs::create_directories(dir, error) || error) {
    throw GraphDBException(
        Status(ErrorCode::kInvalidRequest,
               "EXPORT DATABASE: cannot create the folder '" + s.path + "': " + error.message()));
  }
  try {
    const catalog::Catalog& cat = db.catalog();
    WriteTextFile(dir + "/" + kSchemaFile, SchemaCypher(cat));
    if (options.schema_only) return MessageResult("Exported database successfully.");
    const char* extension = options.parquet ? ".parquet" : ".csv";
    const std::string copy_to_options = options.parquet ? "" : CsvOptionList(options, false);
    const std::string copy_from_options = options.parquet ? "" : CsvOptionList(options, true);
    std::set<std::string> taken;
    std::string copies;
    StatementProgress* progress = CurrentProgress();  // one step per file written
    if (progress) {
      uint64_t files = cat.NodeTables().size();
      for (const catalog::RelTableSchema* table : cat.RelTables()) files += table->pairs.size();
      progress->steps_total.store(files, std::memory_order_relaxed);
    }
    for (const catalog::NodeTableSchema* table : cat.NodeTables()) {
      std::string returns;
      std::string columns;
      bool serial = false;
      for (const auto& property : table->properties) {
        if (!returns.empty()) returns += ", ";
        returns += "n." + QuoteName(property.name) + " AS " + QuoteName(property.name);
        columns += (columns.empty() ? "" : ", ") + QuoteName(property.name);
        serial = serial || property.type.id() == LogicalTypeId::kSerial;
      }
      const std::string file = DataFileName(table->name, extension, &taken);
      CopyTo(db, "MATCH (n:" + QuoteName(table->name) + ") RETURN " + returns, dir + "/" + file,
             copy_to_options);
      if (progress) progress->steps_done.fetch_add(1, std::memory_order_relaxed);
      // SERIAL values are copied as they are (a plain COPY would draw new ones).
      copies += "COPY " + QuoteName(table->name) + (serial ? " (" + columns + ")" : "") + " FROM " +
                QuoteString(file) + (copy_from_options.empty() ? "" : " " + copy_from_options) +
                ";\n";
    }
    for (const catalog::RelTableSchema* table : cat.RelTables()) {
      for (const auto& pair : table->pairs) {
        const catalog::NodeTableSchema* from = cat.GetNodeTable(pair.src_table);
        const catalog::NodeTableSchema* to = cat.GetNodeTable(pair.dst_table);
        std::string returns = "a." + QuoteName(from->primary_key_property().name) +
                              " AS `from`, b." + QuoteName(to->primary_key_property().name) +
                              " AS `to`";
        for (const auto& property : table->properties) {
          returns += ", r." + QuoteName(property.name) + " AS " + QuoteName(property.name);
        }
        const std::string file =
            DataFileName(table->name + "_" + from->name + "_" + to->name, extension, &taken);
        CopyTo(db,
               "MATCH (a:" + QuoteName(from->name) + ")-[r:" + QuoteName(table->name) +
                   "]->(b:" + QuoteName(to->name) + ") RETURN " + returns,
               dir + "/" + file, copy_to_options);
        if (progress) progress->steps_done.fetch_add(1, std::memory_order_relaxed);
        std::string copy_options = copy_from_options;
        if (table->pairs.size() > 1) {
          const std::string pair_options =
              "from=" + QuoteString(from->name) + ", to=" + QuoteString(to->name);
          copy_options = copy_options.empty() ? "(" + pair_options + ")"
                                              : "(" + pair_options + ", " + copy_options.substr(1);
        }
        copies += "COPY " + QuoteName(table->name) + " FROM " + QuoteString(file) +
                  (copy_options.empty() ? "" : " " + copy_options) + ";\n";
      }
    }
    WriteTextFile(dir + "/" + kCopyFile, copies);
    // The indexes, as the CALLs that create them (built after the import's rows are in).
    std::string indexes;
    for (const catalog::IndexDefinition* def : cat.Indexes()) {
      if (const exec::IndexKind* kind = exec::FindIndexKind(def->kind)) {
        indexes += kind->DefinitionText(*def, cat) + "\n";
      }
    }
    WriteTextFile(dir + "/" + kIndexFile, indexes);
  } catch (...) {
    fs::remove_all(created, error);
    throw;
  }
  return MessageResult("Exported database successfully.");
}

// ---------------------------------------------------------------------------------------------
// IMPORT DATABASE
// ---------------------------------------------------------------------------------------------

ParsedStatements ReadImportScripts(const parser::ParsedPortDatabase& s) {
  Check(formats::CheckUserPath(s.path, "IMPORT DATABASE"));
  const std::string dir = Check(formats::ConfineUserPath(s.path, "IMPORT DATABASE"));
  env::FileSystem* fs = env::FileSystem::Default();
  if (Check(fs->GetPathKind(dir)) != env::PathKind::kDirectory) {
    ThrowBinding("Binder exception: Directory " + s.path + " does not exist.");
  }
  ParsedStatements statements;
  // The messages name the file and the statement, never what the file holds: the scripts are
  // files of the server's.
  auto fail = [&](const std::string& file, const std::string& why) -> void {
    ThrowRuntime("Runtime exception: Import database failed: " + file + ": " + why);
  };
  for (const char* name : {kSchemaFile, kMacroFile, kCopyFile, kIndexFile}) {
    std::optional<std::string> text = ReadTextFile(s.path + "/" + name);
    if (!text) {
      if (name == kSchemaFile) {
        ThrowBinding("Binder exception: File " + s.path + "/" + name + " does not exist.");
      }
      continue;
    }
    ParsedStatements parsed;
    try {
      parsed = parser::ParseStatements(*text);
    } catch (const GraphDBException&) {
      fail(name, "the file is not a Cypher script (it does not parse)");
    }
    size_t number = 0;
    for (auto& statement : parsed) {
      const std::string which = "statement " + std::to_string(++number);
      switch (statement->kind) {
        case parser::StatementKind::kTransaction:
        case parser::StatementKind::kCheckpoint:
        case parser::StatementKind::kExportDatabase:
        case parser::StatementKind::kImportDatabase:
        case parser::StatementKind::kCopyTo:
        case parser::StatementKind::kStandaloneCall:
        case parser::StatementKind::kExtension:
          fail(name, which +
                         " is one an import cannot run (transaction control, CHECKPOINT, "
                         "EXPORT, IMPORT, COPY TO, CALL or an extension statement)");
        default: break;
      }
      if (name == kCopyFile) {
        if (statement->kind != parser::StatementKind::kCopyFrom ||
            statement->As<parser::ParsedCopyFrom>().source.kind != parser::ScanSourceKind::kFiles) {
          fail(name, which + " is not a COPY ... FROM a file");
        }
        // The data files are the folder's: a relative path starts there.
        for (std::string& path : statement->As<parser::ParsedCopyFrom>().source.file_paths) {
          if (path.empty() || path[0] != '/') path = dir + "/" + path;
        }
      }
      statements.push_back(std::move(statement));
    }
  }
  return statements;
}

std::string DatabaseContents(const catalog::Catalog& cat) {
  auto names = [](const auto& list) {
    std::string out;
    for (const auto* item : list) {
      if (out.size() > 60) return out + ", ...";
      out += (out.empty() ? "" : ", ") + item->name;
    }
    return out;
  };
  if (!cat.NodeTables().empty() || !cat.RelTables().empty()) {
    std::string tables = names(cat.NodeTables());
    std::string rels = names(cat.RelTables());
    return "tables " + tables + (tables.empty() || rels.empty() ? "" : ", ") + rels;
  }
  if (!cat.Sequences().empty()) return "sequence " + cat.Sequences()[0]->options.name;
  if (!cat.UserTypes().empty()) return "types (CREATE TYPE) " + cat.UserTypes()[0].first;
  if (!cat.Macros().empty()) return "macro " + cat.Macros()[0]->name;
  return "";
}

}  // namespace graphdb
