#include "exec/json_scan.h"

#include <algorithm>
#include <cctype>

#include "common/interrupt.h"
#include "common/status.h"
#include "env/file_system.h"
#include "formats/user_files.h"
#include "function/cast.h"
#include "function/json_functions.h"

namespace graphdb::exec {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

enum class Format { kAuto, kArray, kUnstructured };

struct JsonOptions {
  Format format = Format::kAuto;
  uint64_t sample_size = 10000;
  bool ignore_errors = false;
  bool auto_detect = true;
};

JsonOptions ParseOptions(const std::vector<std::pair<std::string, Value>>& options) {
  JsonOptions out;
  for (const auto& [raw_name, value] : options) {
    const std::string name = Lower(raw_name);
    if (name == "format") {
      if (value.type_id() != LogicalTypeId::kString) {
        ThrowBinding("Binder exception: The type of format option must be a string.");
      }
      const std::string format = Lower(value.GetString());
      if (format == "array") {
        out.format = Format::kArray;
      } else if (format == "unstructured" || format == "newline_delimited") {
        out.format = Format::kUnstructured;
      } else if (format == "auto" || format == "json") {
        out.format = Format::kAuto;
      } else {
        ThrowBinding("Binder exception: Unsupported JSON format '" +
                     std::string(value.GetString()) +
                     "': use 'array', 'unstructured' or 'newline_delimited'.");
      }
    } else if (name == "sample_size") {
      if (!value.type().IsInteger() || value.GetInt() < 0) {
        ThrowBinding("Binder exception: SAMPLE_SIZE parameter must be a non-negative integer.");
      }
      out.sample_size = static_cast<uint64_t>(value.GetInt());
    } else if (name == "ignore_errors") {
      if (value.type_id() != LogicalTypeId::kBool) {
        ThrowBinding("Binder exception: IGNORE_ERRORS parameter must be a bool.");
      }
      out.ignore_errors = value.GetBool();
    } else if (name == "auto_detect") {
      if (value.type_id() != LogicalTypeId::kBool) {
        ThrowBinding("Binder exception: AUTO_DETECT parameter must be a bool.");
      }
      out.auto_detect = value.GetBool();
    } else if (name == "file_format") {
      // file_format = 'json' chose this reader.
    } else if (name == "maximum_depth") {
      // How deep Kùzu's sniffer looks into nested values; this reader types them whole (and
      // refuses documents nested deeper than types/json.h's kMaxJsonDepth).
      if (!value.type().IsInteger()) {
        ThrowBinding("Binder exception: MAXIMUM_DEPTH parameter must be an integer.");
      }
    } else {
      ThrowBinding("Binder exception: Unsupported option " + raw_name + " for a JSON file.");
    }
  }
  return out;
}

struct Record {
  JsonNode node;
  uint64_t line = 0;
};

uint64_t LineAt(std::string_view text, size_t pos, size_t* counted_to, uint64_t* line) {
  *line += static_cast<uint64_t>(std::count(text.begin() + static_cast<std::ptrdiff_t>(*counted_to),
                                            text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  *counted_to = pos;
  return *line;
}

[[noreturn]] void Malformed(const std::string& name, std::string_view text, size_t record_start,
                            uint64_t line, const std::string& error) {
  std::string record(text.substr(record_start, 24));
  std::replace(record.begin(), record.end(), '\n', ' ');
  Throw(ErrorCode::kQueryRuntime, "Copy exception: Error in file " + name + " on line " +
                                      std::to_string(line) + ": Malformed JSON: " + error +
                                      ". Line/record containing the error: '" + record + "...'");
}

std::string ReadWholeFile(const std::string& opened, const std::string& name,
                          const char* statement) {
  env::FileSystem* fs = env::FileSystem::Default();
  auto file = fs->OpenForRead(opened);
  if (!file.ok()) {
    throw GraphDBException(formats::UserFileOpenError(file.status(), name, "read", statement));
  }
  auto size = (*file)->Size();
  if (!size.ok()) throw GraphDBException(size.status());
  CheckValueBytes(*size);
  std::string text(*size, '\0');
  size_t done = 0;
  while (done < text.size()) {
    auto read = (*file)->Read(done, text.size() - done, text.data() + done);
    if (!read.ok()) throw GraphDBException(read.status());
    if (*read == 0) break;
    done += *read;
  }
  text.resize(done);
  return text;
}

void SkipSpace(std::string_view text, size_t* pos) {
  while (*pos < text.size() && std::isspace(static_cast<unsigned char>(text[*pos]))) ++*pos;
}

// The records of one file.
std::vector<Record> ReadRecords(const std::string& opened, const std::string& name, Format format,
                                const char* statement) {
  const std::string text = ReadWholeFile(opened, name, statement);
  std::vector<Record> records;
  size_t pos = 0, counted_to = 0;
  uint64_t line = 1;
  SkipSpace(text, &pos);
  if (pos == text.size()) return records;
  const bool array = format == Format::kArray || (format == Format::kAuto && text[pos] == '[');
  if (format == Format::kArray && text[pos] != '[') {
    ThrowRuntime(std::string("Expected top-level JSON array with format='array', but first "
                             "character is '") +
                 text[pos] + "' in file \"" + name + "\".");
  }
  if (array) ++pos;
  for (uint64_t n = 0;; ++n) {
    if ((n & 1023) == 0) CheckInterrupt();
    SkipSpace(text, &pos);
    if (array) {
      if (pos < text.size() && text[pos] == ']' && records.empty()) {
        ++pos;
        break;
      }
    } else if (pos == text.size()) {
      break;
    }
    const size_t start = pos;
    Record record;
    std::string error;
    if (!ParseJsonValueAt(text, &pos, &record.node, &error)) {
      Malformed(name, text, start, LineAt(text, std::min(pos, text.size()), &counted_to, &line),
                error);
    }
    record.line = LineAt(text, start, &counted_to, &line);
    if (record.node.kind != JsonNode::Kind::kObject) {
      Malformed(name, text, start, record.line, "a record is not a JSON object");
    }
    records.push_back(std::move(record));
    if (!array) continue;
    SkipSpace(text, &pos);
    if (pos < text.size() && text[pos] == ',') {
      ++pos;
      continue;
    }
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      break;
    }
    Malformed(name, text, pos, LineAt(text, std::min(pos, text.size()), &counted_to, &line),
              "expected ',' or ']' after a record of the array");
  }
  SkipSpace(text, &pos);
  if (pos != text.size()) {
    Malformed(name, text, pos, LineAt(text, pos, &counted_to, &line),
              "unexpected content after the top-level array");
  }
  return records;
}

struct FileRecords {
  std::string name;
  std::vector<Record> records;
};

std::vector<FileRecords> ReadFiles(const std::vector<std::string>& paths, Format format,
                                   const char* statement) {
  std::vector<FileRecords> files;
  for (const std::string& path : paths) {
    Result<std::string> opened =
        formats::CheckUserFileToRead(env::FileSystem::Default(), path, statement);
    if (!opened.ok()) throw GraphDBException(opened.status());
    files.push_back({path, ReadRecords(*opened, path, format, statement)});
  }
  return files;
}

const JsonNode* Member(const JsonNode& record, const std::string& name) {
  if (const JsonNode* exact = record.Find(name)) return exact;
  const std::string lower = Lower(name);
  for (size_t i = 0; i < record.keys.size(); ++i) {
    if (Lower(record.keys[i]) == lower) return &record.items[i];
  }
  return nullptr;
}

std::vector<std::vector<Value>> Rows(const std::vector<FileRecords>& files,
                                     const std::vector<std::string>& names,
                                     const std::vector<LogicalType>& types, bool ignore_errors) {
  std::vector<std::vector<Value>> rows;
  uint64_t n = 0;
  for (const FileRecords& file : files) {
    for (const Record& record : file.records) {
      if ((++n & 1023) == 0) CheckInterrupt();
      std::vector<Value> row;
      row.reserve(names.size());
      try {
        for (size_t c = 0; c < names.size(); ++c) {
          const JsonNode* member = Member(record.node, names[c]);
          row.push_back(member ? function::JsonToValue(*member, types[c]) : Value::Null(types[c]));
        }
      } catch (const GraphDBException& e) {
        if (ignore_errors) continue;
        Throw(e.status().code(), "Copy exception: Error in file " + file.name + " on line " +
                                     std::to_string(record.line) + ": " + e.status().message());
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

bool IsJsonPath(const std::string& path) {
  const std::string lower = Lower(path);
  for (std::string_view suffix : {".json", ".jsonl", ".ndjson"}) {
    if (lower.size() >= suffix.size() &&
        lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return true;
    }
  }
  return false;
}

void ResolveJsonScan(binder::BoundFileScan* scan,
                     const std::vector<std::pair<std::string, LogicalType>>& given) {
  const JsonOptions options = ParseOptions(scan->options);
  scan->json = true;
  scan->has_header = false;
  if (!given.empty()) {
    for (const auto& [name, type] : given) {
      scan->column_names.push_back(name);
      scan->column_types.push_back(type);
    }
    return;
  }
  if (!options.auto_detect) {
    ThrowBinding(
        "Binder exception: When auto-detect is set to false, Kuzu requires the user to provide "
        "column names and types in the LOAD FROM clause.");
  }
  // The columns: the keys of the first SAMPLE_SIZE records, in order of first appearance.
  const std::vector<FileRecords> files = ReadFiles({scan->paths[0]}, options.format, "LOAD FROM");
  std::vector<std::string> names;
  std::vector<LogicalType> types;
  uint64_t seen = 0;
  for (const Record& record : files[0].records) {
    if (options.sample_size != 0 && seen++ >= options.sample_size) break;
    for (size_t i = 0; i < record.node.keys.size(); ++i) {
      const std::string& key = record.node.keys[i];
      LogicalType shape = function::JsonShape(record.node.items[i]);
      auto it = std::find(names.begin(), names.end(), key);
      if (it == names.end()) {
        names.push_back(key);
        types.push_back(shape);
      } else {
        LogicalType& type = types[static_cast<size_t>(it - names.begin())];
        type = function::CombineJsonShapes(type, shape);
      }
    }
  }
  for (LogicalType& type : types) type = function::ResolveAnyType(type, LogicalType::String());
  scan->column_names = std::move(names);
  scan->column_types = std::move(types);
}

std::vector<std::vector<Value>> ScanJsonRows(const binder::BoundFileScan& scan) {
  const JsonOptions options = ParseOptions(scan.options);
  return Rows(ReadFiles(scan.paths, options.format, "LOAD FROM"), scan.column_names,
              scan.column_types, options.ignore_errors);
}

std::vector<std::vector<Value>> ReadJsonRows(
    const std::vector<std::string>& paths, const std::vector<std::string>& names,
    const std::vector<LogicalType>& types,
    const std::vector<std::pair<std::string, Value>>& options, const char* statement) {
  const JsonOptions parsed = ParseOptions(options);
  return Rows(ReadFiles(paths, parsed.format, statement), names, types, parsed.ignore_errors);
}

void AppendJsonRecord(const std::vector<std::string>& names, const std::vector<Value>& row,
                      std::string* out) {
  JsonNode object = JsonNode::Object();
  for (size_t c = 0; c < names.size() && c < row.size(); ++c) {
    object.Add(names[c], function::ValueToJson(row[c]));
  }
  WriteJson(object, out);
}

}  // namespace graphdb::exec
