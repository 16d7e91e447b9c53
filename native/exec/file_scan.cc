#include "exec/file_scan.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "common/file_access.h"
#include "common/status.h"
#include "env/file_system.h"
#include "exec/json_scan.h"
#include "formats/csv_reader.h"
#include "formats/csv_sniffer.h"
#include "formats/npy_reader.h"
#include "formats/parquet_reader.h"
#include "formats/user_files.h"
#include "formats/value_parser.h"
#include "function/cast.h"

namespace graphdb::exec {

namespace {

bool HasSuffix(const std::string& path, std::string_view suffix) {
  std::string lower = path;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.size() >= suffix.size() && lower.substr(lower.size() - suffix.size()) == suffix;
}

// Whether the scan reads JSON files: by their name, or the option file_format = 'json'.
bool IsJsonScan(const binder::BoundFileScan& scan) {
  if (!scan.paths.empty() && IsJsonPath(scan.paths[0])) return true;
  for (const auto& [name, value] : scan.options) {
    std::string key = name;
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key == "file_format" && value.type_id() == LogicalTypeId::kString) {
      std::string format(value.GetString());
      for (auto& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return format == "json";
    }
  }
  return false;
}

// Whether the scan reads .npy files: by their name, or the option file_format = 'npy' (which
// is taken out of the options; 'csv' is too).
bool TakeNpyFormat(binder::BoundFileScan* scan) {
  bool npy = !scan->paths.empty() && HasSuffix(scan->paths[0], ".npy");
  auto& options = scan->options;
  for (auto it = options.begin(); it != options.end();) {
    std::string key = it->first;
    for (auto& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (key != "file_format") {
      ++it;
      continue;
    }
    if (it->second.type_id() != LogicalTypeId::kString) {
      ThrowBinding("Binder exception: The type of format option must be a string.");
    }
    std::string format(it->second.GetString());
    for (auto& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (format != "npy" && format != "csv") {
      ThrowNotSupported("LOAD FROM reads CSV and NPY files only, not " + format);
    }
    npy = format == "npy";
    it = options.erase(it);
  }
  return npy;
}

// The files must exist (formats/user_files.h) and be CSV files (or NPY, with `npy`). Returns
// the paths to open (confined to a service's import folder: common/file_access.h).
std::vector<std::string> CheckPaths(const std::vector<std::string>& paths, bool npy = false) {
  std::vector<std::string> opened;
  for (const auto& path : paths) {
    Result<std::string> checked =
        formats::CheckUserFileToRead(env::FileSystem::Default(), path, "LOAD FROM");
    if (!checked.ok()) throw GraphDBException(checked.status());
    opened.push_back(std::move(*checked));
    if (!npy && formats::IsParquetFile(env::FileSystem::Default(), opened.back())) continue;
    if (formats::IsCompressedCsvPath(path) && !npy) {
      std::string inner = path.substr(0, path.rfind('.'));
      if (!HasSuffix(inner, ".csv") && !HasSuffix(inner, ".tsv")) {
        throw GraphDBException(Status(
            ErrorCode::kNotSupported,
            "IO exception: Kuzu currently only supports reading from compressed csv files."));
      }
    } else if (!npy && !HasSuffix(path, ".csv") && !HasSuffix(path, ".tsv")) {
      ThrowNotSupported("LOAD FROM supports CSV, Parquet, NPY and JSON files only: " + path);
    }
  }
  return opened;
}

formats::CsvOptions ToCsvOptions(const std::vector<std::pair<std::string, Value>>& options,
                                 formats::CsvOptions::Header header) {
  formats::CsvOptions csv;
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
    if (key == option) return formats::CsvBoolOption(value);
  }
  return std::nullopt;
}

std::vector<storage::Column> ReadAll(const std::vector<std::string>& paths,
                                     const std::vector<LogicalType>& types,
                                     const formats::CsvOptions& options) {
  formats::CsvReader reader(env::FileSystem::Default(), types, options);
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
  return formats::ParseValueText(text.GetString(), type, &error).has_value();
}

// The type sniffed from the texts of rows [first_row, first_row + sample) (storage/
// csv_sniffer.h); ANY when they are all NULL.
LogicalType SniffType(const storage::Column& column, uint64_t first_row, uint64_t sample) {
  const uint64_t end = std::min<uint64_t>(column.size(), first_row + sample);
  LogicalType type = LogicalType::Any();
  for (uint64_t row = first_row; row < end && type.id() != LogicalTypeId::kString; ++row) {
    Value v = column.Get(row);
    if (!v.is_null()) {
      type = formats::CombineSniffedTypes(type, formats::InferCsvFieldType(v.GetString()));
    }
  }
  return type;
}

// The number of fields of the first record of `text`.
size_t CountFields(std::string_view text, const formats::CsvOptions& csv) {
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

// The fields of the first record of the file at `path` (at most its first 64 KiB), unquoted,
// in the dialect sniffed from that sample for `columns` columns (DetectCsvDialect); empty when
// the file cannot be read.
std::vector<std::string> FirstRecordFields(const std::string& path, formats::CsvOptions csv,
                                           size_t columns) {
  auto file = env::FileSystem::Default()->OpenForRead(path);
  if (!file.ok()) return {};
  std::string text(64 * 1024, '\0');
  auto got = (*file)->Read(0, text.size(), text.data());
  if (!got.ok()) return {};
  const bool whole_file = *got < text.size();
  text.resize(*got);
  formats::DetectCsvDialect(text, columns, whole_file, &csv);
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

// LOAD WITH HEADERS (columns) FROM a file, without a header option and with sniffing on: the
// first record is a header when a column that is not a STRING holds a plain string in it that
// does not convert to the column's type (a name, where a number, a date, a list ... belongs),
// as Kùzu's sniffer decides.
bool SniffHeader(const std::string& path, const formats::CsvOptions& csv,
                 const std::vector<std::pair<std::string, LogicalType>>& given) {
  const std::vector<std::string> fields = FirstRecordFields(path, csv, given.size());
  for (size_t c = 0; c < fields.size() && c < given.size(); ++c) {
    const LogicalType& type = given[c].second;
    if (type.id() != LogicalTypeId::kString && formats::IsPlainCsvString(fields[c]) &&
        !Converts(Value::String(fields[c]), type)) {
      return true;
    }
  }
  return false;
}

}  // namespace

void ResolveFileScan(binder::BoundFileScan* scan,
                     const std::vector<std::pair<std::string, LogicalType>>& given) {
  // A relative path is looked for in the folders of file_search_path first, as COPY FROM's.
  auto expanded =
      formats::ExpandUserGlobs(env::FileSystem::Default(),
                               formats::SearchFilePath(env::FileSystem::Default(), scan->paths,
                                                       CurrentFileSearchPath(), "LOAD FROM"),
                               "LOAD FROM");
  if (!expanded.ok()) throw GraphDBException(expanded.status());
  scan->paths = std::move(expanded).value();
  if (IsJsonScan(*scan)) {
    ResolveJsonScan(scan, given);
    return;
  }
  scan->npy = TakeNpyFormat(scan);
  const auto& paths = scan->paths;
  const std::vector<std::pair<std::string, Value>> options = scan->options;
  const std::vector<std::string> opened = CheckPaths(paths, scan->npy);
  if (scan->npy) {
    // One column: the rows of the array (its first file's), a list per row past one dimension.
    if (paths.size() != 1) ThrowNotSupported("LOAD FROM reads one .npy file at a time");
    if (!options.empty()) {
      ThrowBinding("Binder exception: LOAD FROM a .npy file takes no options.");
    }
    auto array = formats::ReadNpyHeader(env::FileSystem::Default(), opened[0], paths[0]);
    if (!array.ok()) throw GraphDBException(array.status());
    scan->column_names = {given.empty() ? "column0" : given[0].first};
    scan->column_types = {given.empty() ? array->RowType() : given[0].second};
    return;
  }
  std::optional<bool> header = BoolOption(options, "header");
  // auto_detect = false: no sniffing; every column is a STRING and a header only when asked.
  const bool sniff = BoolOption(options, "auto_detect").value_or(true);
  if (formats::IsParquetFile(env::FileSystem::Default(), opened[0])) {
    // A Parquet file names and types its columns (LOAD WITH HEADERS converts them).
    auto schema = formats::ParquetFileSchema(env::FileSystem::Default(), opened[0], paths[0]);
    if (!schema.ok()) throw GraphDBException(schema.status());
    if (!given.empty() && given.size() != schema->size()) {
      throw GraphDBException(Status(ErrorCode::kQueryBinding,
                                    "Binder exception: LOAD WITH HEADERS names " +
                                        std::to_string(given.size()) + " columns but " + paths[0] +
                                        " has " + std::to_string(schema->size()) + "."));
    }
    for (size_t c = 0; c < schema->size(); ++c) {
      scan->column_names.push_back(given.empty() ? (*schema)[c].name : given[c].first);
      scan->column_types.push_back(given.empty() ? (*schema)[c].type : given[c].second);
    }
    scan->has_header = false;
    return;
  }
  if (!given.empty()) {
    for (const auto& [name, type] : given) {
      scan->column_names.push_back(name);
      scan->column_types.push_back(type);
    }
    scan->has_header =
        header ? *header
               : sniff &&
                     SniffHeader(opened[0],
                                 ToCsvOptions(options, formats::CsvOptions::Header::kFalse), given);
    return;
  }
  // Read everything as text once to learn the dialect, the number of columns, the header and
  // the types.
  formats::CsvOptions probe = ToCsvOptions(options, formats::CsvOptions::Header::kFalse);
  // The header is the file's first record; SKIP counts the records after it, so the probe
  // reads from the start.
  probe.skip = 0;
  env::FileSystem* fs = env::FileSystem::Default();
  auto file = fs->OpenForRead(opened[0]);
  if (!file.ok()) {
    throw GraphDBException(
        formats::UserFileOpenError(file.status(), paths[0], "read", "LOAD FROM"));
  }
  // The dialect and the width come from the first SAMPLE_SIZE records: an uncompressed file is
  // read up to kProbeBytes for them (binding stays quick, and within the statement's time
  // limit, however large the file); a compressed one is decompressed whole.
  constexpr size_t kProbeBytes = 1 << 20;
  Result<std::string> text = std::string();
  bool whole_file = true;
  if (formats::IsCompressedCsvPath(paths[0])) {
    text = formats::ReadCsvText(fs, opened[0], paths[0]);
  } else {
    text->resize(kProbeBytes);
    auto read = (*file)->Read(0, kProbeBytes, text->data());
    if (!read.ok()) throw GraphDBException(read.status());
    text->resize(*read);
    whole_file = *read < kProbeBytes;
    // A first record longer than the probe: the whole file, so that it is counted whole.
    if (!whole_file && text->find('\n') == std::string::npos) {
      text = formats::ReadCsvText(fs, opened[0], paths[0]);
      whole_file = true;
    }
  }
  if (!text.ok()) throw GraphDBException(text.status());
  formats::DetectCsvDialect(*text, 0, whole_file, &probe);
  // The scan reads with the dialect found here.
  if (!probe.delimiter_set) {
    scan->options.emplace_back("delim", Value::String(std::string(1, probe.delimiter)));
  }
  if (!probe.quote_set) {
    scan->options.emplace_back("quote", Value::String(std::string(1, probe.quote)));
  }
  if (!probe.escape_set) {
    scan->options.emplace_back("escape", Value::String(std::string(1, probe.escape)));
  }
  size_t width = CountFields(*text, probe);
  // The header and the types come from the first file's first SAMPLE_SIZE records (and the
  // header's): the probe stops there, so binding a LOAD FROM of a large file reads little.
  probe.max_records = probe.sample_size + 1;
  std::vector<storage::Column> columns =
      ReadAll({paths[0]}, std::vector<LogicalType>(width, LogicalType::String()), probe);
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  // As Kùzu decides: without a header option, the first record is a header when one of its
  // fields is a plain string where the records after it hold another type.
  bool first_is_header = header.value_or(false);
  if (!header && sniff && rows > 1) {
    for (size_t c = 0; c < width && !first_is_header; ++c) {
      const Value v = columns[c].Get(0);
      first_is_header = !v.is_null() && formats::IsPlainCsvString(v.GetString()) &&
                        SniffType(columns[c], 1, probe.sample_size).id() != LogicalTypeId::kString;
    }
  }
  scan->has_header = first_is_header;
  std::vector<LogicalType> types(width, LogicalType::String());
  if (sniff) {
    for (size_t c = 0; c < width; ++c) {
      types[c] = function::ResolveAnyType(
          SniffType(columns[c], first_is_header ? 1 : 0, probe.sample_size), LogicalType::String());
    }
  }
  std::set<std::string> taken;
  for (size_t c = 0; c < width; ++c) {
    Value name = rows > 0 && first_is_header ? columns[c].Get(0) : Value::Null();
    std::string column_name =
        name.is_null() ? "column" + std::to_string(c) : std::string(name.GetString());
    // A typed header, "age:UINT64", names the column and gives its type.
    size_t colon = column_name.rfind(':');
    if (first_is_header && colon != std::string::npos && colon > 0) {
      std::string error;
      if (auto typed = ParseLogicalType(column_name.substr(colon + 1), &error)) {
        types[c] = *typed;
        column_name.resize(colon);
      }
    }
    // A repeated name gets the first free suffix: a, a_1, a_2 (and a_1 again is a_1_1).
    if (taken.count(column_name) > 0) {
      std::string base = column_name;
      for (size_t k = 1; taken.count(column_name) > 0; ++k) {
        column_name = base + "_" + std::to_string(k);
      }
    }
    taken.insert(column_name);
    scan->column_names.push_back(std::move(column_name));
  }
  scan->column_types = std::move(types);
}

std::vector<std::vector<Value>> ScanRows(const binder::BoundFileScan& scan, ExecContext& ctx) {
  if (scan.json) return ScanJsonRows(scan);
  if (scan.npy) {
    const std::vector<std::string> opened = CheckPaths(scan.paths, true);
    auto column = formats::ReadNpyColumn(env::FileSystem::Default(), opened[0], scan.paths[0],
                                         scan.column_types[0]);
    if (!column.ok()) throw GraphDBException(column.status());
    std::vector<std::vector<Value>> out(column->size());
    for (uint64_t r = 0; r < column->size(); ++r) out[r].push_back(column->Get(r));
    return out;
  }
  formats::CsvOptions csv =
      ToCsvOptions(scan.options, scan.has_header ? formats::CsvOptions::Header::kTrue
                                                 : formats::CsvOptions::Header::kFalse);
  std::vector<formats::CsvWarning> skipped;
  csv.warnings = &skipped;
  std::vector<storage::Column> columns = ReadAll(scan.paths, scan.column_types, csv);
  if (ctx.warnings) {
    for (auto& w : skipped) {
      ctx.warnings->Add(Warning{ctx.query_id, std::move(w.message), std::move(w.file_path), w.line,
                                std::move(w.record)},
                        WarningLimit(ctx.settings));
    }
  }
  uint64_t rows = columns.empty() ? 0 : columns[0].size();
  std::vector<std::vector<Value>> out(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    out[r].reserve(columns.size());
    for (const auto& column : columns) out[r].push_back(column.Get(r));
  }
  return out;
}

}  // namespace graphdb::exec
