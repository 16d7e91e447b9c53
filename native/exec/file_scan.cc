#include "exec/file_scan.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "env/file_system.h"
#include "storage/csv_reader.h"
#include "storage/user_files.h"
#include "storage/value_parser.h"

namespace graphdb::exec {

namespace {

// The files must exist (storage/user_files.h) and be CSV files. Returns the paths to open
// (confined to a service's import folder: common/file_access.h).
std::vector<std::string> CheckPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> opened;
  for (const auto& path : paths) {
    Result<std::string> checked =
        storage::CheckUserFileToRead(env::FileSystem::Default(), path, "LOAD FROM");
    if (!checked.ok()) throw GraphDBException(checked.status());
    opened.push_back(std::move(*checked));
    std::string lower = path;
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.size() < 4 || lower.substr(lower.size() - 4) != ".csv") {
      ThrowNotSupported("LOAD FROM supports CSV files only: " + path);
    }
  }
  return opened;
}

storage::CsvOptions ToCsvOptions(const std::vector<std::pair<std::string, Value>>& options,
                                 storage::CsvOptions::Header header) {
  storage::CsvOptions csv;
  for (const auto& [name, value] : options) {
    Status status = csv.Set(name, value);
    if (!status.ok()) throw GraphDBException(status);
  }
  csv.header = header;
  return csv;
}

// The value of a BOOL option, if given.
std::optional<bool> BoolOption(const std::vector<std::pair<std::string, Value>>& options,
                               std::string_view option) {
  for (const auto& [name, value] : options) {
    std::string key = name;
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == option && value.type_id() == LogicalTypeId::kBool && !value.is_null()) {
      return value.GetBool();
    }
  }
  return std::nullopt;
}

std::vector<storage::Column> ReadAll(const std::vector<std::string>& paths,
                                     const std::vector<LogicalType>& types,
                                     const storage::CsvOptions& options) {
  storage::CsvReader reader(env::FileSystem::Default(), types, options);
  auto columns = reader.ReadFiles(paths, "LOAD FROM");
  if (!columns.ok()) throw GraphDBException(columns.status());
  return std::move(columns).value();
}

// Whether the CSV reader will read `text` as a `type`: sniffing asks the very parser that
// reads the file (not Cypher's CAST, which also takes `1` and `0` as booleans), so a sniffed
// type never fails the read that follows.
bool Converts(const Value& text, const LogicalType& type) {
  if (type.id() == LogicalTypeId::kString) return true;
  std::string error;
  return storage::ParseValueText(text.GetString(), type, &error).has_value();
}

// The first candidate every non-NULL value converts to.
LogicalType SniffType(const storage::Column& column, uint64_t first_row) {
  static const LogicalTypeId kCandidates[] = {LogicalTypeId::kBool,      LogicalTypeId::kInt64,
                                              LogicalTypeId::kDouble,    LogicalTypeId::kDate,
                                              LogicalTypeId::kTimestamp, LogicalTypeId::kInterval};
  bool any_value = false;
  for (LogicalTypeId candidate : kCandidates) {
    LogicalType type(candidate);
    bool ok = true;
    for (uint64_t row = first_row; ok && row < column.size(); ++row) {
      Value v = column.Get(row);
      if (v.is_null()) continue;
      any_value = true;
      ok = Converts(v, type);
    }
    if (!any_value) break;
    if (ok) return type;
  }
  return LogicalType::String();
}

// The number of fields of the first record of `text`.
size_t CountFields(std::string_view text, const storage::CsvOptions& csv) {
  size_t fields = 1;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == csv.escape && csv.escape != csv.quote && i + 1 < text.size()) {
        ++i;
      } else if (c == csv.quote) {
        quoted = false;
      }
    } else if (c == csv.quote) {
      quoted = true;
    } else if (c == csv.delimiter) {
      ++fields;
    } else if (c == '\n') {
      break;
    }
  }
  return fields;
}

// The fields of the first record of the file at `path` (at most its first 64 KiB), unquoted;
// empty when the file cannot be read.
std::vector<std::string> FirstRecordFields(const std::string& path, const storage::CsvOptions& csv) {
  auto file = env::FileSystem::Default()->OpenForRead(path);
  if (!file.ok()) return {};
  std::string text(64 * 1024, '\0');
  auto got = (*file)->Read(0, text.size(), text.data());
  if (!got.ok()) return {};
  text.resize(*got);
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == csv.escape && i + 1 < text.size() && text[i + 1] == csv.quote) {
        fields.back() += text[++i];
      } else if (c == csv.quote) {
        quoted = false;
      } else {
        fields.back() += c;
      }
    } else if (c == csv.quote) {
      quoted = true;
    } else if (c == csv.delimiter) {
      fields.emplace_back();
    } else if (c == '\n' || c == '\r') {
      break;
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

// Whether sniffing takes `text` for a plain string: not empty, and neither a value of a sniffed
// type (BOOL, INT64, DOUBLE, DATE, TIMESTAMP, INTERVAL) nor written as a list, map or struct.
bool PlainString(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  if (text.empty()) return false;
  if ((text.front() == '[' && text.back() == ']') || (text.front() == '{' && text.back() == '}')) {
    return false;
  }
  const Value v = Value::String(std::string(text));
  for (LogicalTypeId id : {LogicalTypeId::kBool, LogicalTypeId::kInt64, LogicalTypeId::kDouble,
                           LogicalTypeId::kDate, LogicalTypeId::kTimestamp,
                           LogicalTypeId::kInterval}) {
    if (Converts(v, LogicalType(id))) return false;
  }
  return true;
}

// LOAD WITH HEADERS (columns) FROM a file, without a header option and with sniffing on: the
// first record is a header when a column that is not a STRING holds a plain string in it that
// does not convert to the column's type (a name, where a number, a date, a list ... belongs),
// as Kùzu's sniffer decides.
bool SniffHeader(const std::string& path, const storage::CsvOptions& csv,
                 const std::vector<std::pair<std::string, LogicalType>>& given) {
  const std::vector<std::string> fields = FirstRecordFields(path, csv);
  for (size_t c = 0; c < fields.size() && c < given.size(); ++c) {
    const LogicalType& type = given[c].second;
    if (type.id() != LogicalTypeId::kString && PlainString(fields[c]) &&
        !Converts(Value::String(fields[c]), type)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void ResolveFileScan(binder::BoundFileScan* scan,
                     const std::vector<std::pair<std::string, LogicalType>>& given) {
  const auto& paths = scan->paths;
  const auto& options = scan->options;
  const std::vector<std::string> opened = CheckPaths(paths);
  std::optional<bool> header = BoolOption(options, "header");
  // auto_detect = false: no sniffing; every column is a STRING and a header only when asked.
  const bool sniff = BoolOption(options, "auto_detect").value_or(true);
  if (!given.empty()) {
    for (const auto& [name, type] : given) {
      scan->column_names.push_back(name);
      scan->column_types.push_back(type);
    }
    scan->has_header =
        header ? *header
               : sniff && SniffHeader(opened[0],
                                      ToCsvOptions(options, storage::CsvOptions::Header::kFalse),
                                      given);
    return;
  }
  // Read everything as text once to learn the number of columns, the header and the types.
  storage::CsvOptions probe = ToCsvOptions(options, storage::CsvOptions::Header::kFalse);
  env::FileSystem* fs = env::FileSystem::Default();
  if (auto file = fs->OpenForRead(opened[0]); !file.ok()) {
    throw GraphDBException(
        storage::UserFileOpenError(file.status(), paths[0], "read", "LOAD FROM"));
  }
  auto text = env::ReadFileToString(fs, opened[0]);
  if (!text.ok()) throw GraphDBException(text.status());
  size_t width = CountFields(*text, probe);
  std::vector<storage::Column> columns =
      ReadAll(paths, std::vector<LogicalType>(width, LogicalType::String()), probe);
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  // Sniff from the records after the first, then decide whether the first is a header.
  std::vector<LogicalType> types(width, LogicalType::String());
  if (sniff) {
    for (size_t c = 0; c < width; ++c) types[c] = SniffType(columns[c], rows > 1 ? 1 : 0);
  }
  bool first_is_header = false;
  if (header || !sniff) {
    first_is_header = header.value_or(false);
  } else if (rows > 1) {
    for (size_t c = 0; c < width; ++c) {
      Value v = columns[c].Get(0);
      if (!v.is_null() && !Converts(v, types[c])) first_is_header = true;
    }
  }
  if (sniff && !first_is_header && rows > 1) {
    // The first record is data: it must fit the types too.
    for (size_t c = 0; c < width; ++c) types[c] = SniffType(columns[c], 0);
  }
  scan->has_header = first_is_header;
  scan->column_types = std::move(types);
  for (size_t c = 0; c < width; ++c) {
    Value name = rows > 0 && first_is_header ? columns[c].Get(0) : Value::Null();
    scan->column_names.push_back(name.is_null() ? "column" + std::to_string(c)
                                                : std::string(name.GetString()));
  }
}

std::vector<std::vector<Value>> ScanRows(const binder::BoundFileScan& scan) {
  storage::CsvOptions csv =
      ToCsvOptions(scan.options, scan.has_header ? storage::CsvOptions::Header::kTrue
                                                 : storage::CsvOptions::Header::kFalse);
  std::vector<storage::Column> columns = ReadAll(scan.paths, scan.column_types, csv);
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  std::vector<std::vector<Value>> out(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    out[r].reserve(columns.size());
    for (const auto& column : columns) out[r].push_back(column.Get(r));
  }
  return out;
}

}  // namespace graphdb::exec
