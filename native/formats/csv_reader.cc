#include "formats/csv_reader.h"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <unordered_set>

#include "catalog/catalog.h"
#include "common/interrupt.h"
#include "common/utf8.h"
#include "formats/csv_sniffer.h"
#include "formats/gzip.h"
#include "formats/parquet_reader.h"
#include "formats/user_files.h"
#include "formats/value_parser.h"

namespace graphdb::formats {

using storage::Column;
using storage::PhysicalKind;

namespace {

constexpr size_t kBlockSize = 4 << 20;
// Records read between two polls of the statement's control (a power of two).
constexpr uint64_t kRecordsPerInterruptPoll = 4096;

Status OptionError(std::string message) {
  return Status(ErrorCode::kQueryBinding, "Binder exception: " + std::move(message));
}

// A one-character option value; "\t" and friends are accepted as escapes.
bool OptionChar(const Value& v, char* out) {
  if (v.is_null() || v.type_id() != LogicalTypeId::kString) return false;
  std::string_view s = v.GetString();
  if (s.size() == 1) {
    *out = s[0];
    return true;
  }
  if (s.size() == 2 && s[0] == '\\') {
    switch (s[1]) {
      case 't': *out = '\t'; return true;
      case '\\': *out = '\\'; return true;
      default: return false;
    }
  }
  return false;
}

bool IsStringType(const LogicalType& t) {
  return t.id() == LogicalTypeId::kString || t.id() == LogicalTypeId::kBlob;
}

}  // namespace

bool IsCompressedCsvPath(std::string_view path) {
  std::string lower(path);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  auto ends = [&lower](std::string_view suffix) {
    return lower.size() >= suffix.size() &&
           lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends(".gz") || ends(".gzip");
}

Result<std::string> ReadCsvText(env::FileSystem* fs, const std::string& opened,
                                std::string_view name) {
  auto bytes = env::ReadFileToString(fs, opened);
  if (!bytes.ok()) return bytes.status();
  if (!IsCompressedCsvPath(name)) return bytes;
  return Gunzip(*bytes, name);
}

std::optional<bool> CsvBoolOption(const Value& value) {
  if (value.is_null()) return std::nullopt;
  if (value.type_id() == LogicalTypeId::kBool) return value.GetBool();
  if (value.type().IsInteger() && (value.GetInt() == 0 || value.GetInt() == 1)) {
    return value.GetInt() == 1;
  }
  return std::nullopt;
}

Status CsvOptions::Set(std::string_view name, const Value& value) {
  std::string key = catalog::FoldName(name);
  if (key == "header") {
    std::optional<bool> on = CsvBoolOption(value);
    if (!on) return OptionError("The type of csv parsing option HEADER must be BOOL.");
    header = *on ? Header::kTrue : Header::kFalse;
    return Status::OK();
  }
  if (key == "delim" || key == "delimiter" || key == "quote" || key == "escape") {
    char c;
    if (!OptionChar(value, &c)) {
      return OptionError(
          "Copy csv option value must be a single character with an optional "
          "escape character.");
    }
    if (key == "quote") {
      quote = c;
      quote_set = true;
    } else if (key == "escape") {
      escape = c;
      escape_set = true;
    } else {
      delimiter = c;
      delimiter_set = true;
    }
    return Status::OK();
  }
  if (key == "sample_size") {
    if (value.is_null() || !value.type().IsInteger() || value.GetInt() <= 0) {
      return OptionError("The type of csv parsing option SAMPLE_SIZE must be a positive INT64.");
    }
    sample_size = static_cast<uint64_t>(value.GetInt());
    return Status::OK();
  }
  if (key == "skip") {
    if (value.is_null() || !value.type().IsInteger() || value.GetInt() < 0) {
      return OptionError("The type of csv parsing option SKIP must be a non-negative INT64.");
    }
    skip = static_cast<uint64_t>(value.GetInt());
    return Status::OK();
  }
  // The BOOL options that set a flag.
  static const struct {
    const char* key;
    const char* name;
    bool CsvOptions::* flag;
  } kFlags[] = {{"auto_detect", "AUTO_DETECT", &CsvOptions::auto_detect},
                {"parallel", "PARALLEL", &CsvOptions::parallel},
                {"ignore_errors", "IGNORE_ERRORS", &CsvOptions::ignore_errors},
                {"list_unbraced", "LIST_UNBRACED", &CsvOptions::list_unbraced}};
  for (const auto& f : kFlags) {
    if (key != f.key) continue;
    std::optional<bool> on = CsvBoolOption(value);
    if (!on) {
      return OptionError("The type of csv parsing option " + std::string(f.name) +
                         " must be BOOL.");
    }
    this->*f.flag = *on;
    return Status::OK();
  }
  return OptionError("Unrecognized csv parsing option: " + std::string(name) + ".");
}

namespace {

// How a sniffed dialect reads a sample: whether every record parsed, the field counts every
// record allows (a record ending with a delimiter allows its count and one less), and whether
// some field starts with the quote.
struct DialectFit {
  bool parsed = true;
  std::vector<size_t> counts;  // allowed by every record so far; empty: inconsistent
  bool any_record = false;
  bool quotes_used = false;
};

DialectFit FitDialect(std::string_view text, char delim, char quote, char escape,
                      uint64_t max_records, bool whole_file) {
  DialectFit fit;
  size_t p = 0;
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") p = 3;
  uint64_t records = 0;
  while (p < text.size() && records < max_records) {
    if (text[p] == '\n' || text[p] == '\r') {  // blank lines are skipped
      ++p;
      continue;
    }
    size_t fields = 0;
    bool last_empty = false;
    while (true) {
      ++fields;
      size_t start = p;
      bool quoted = false;
      if (p < text.size() && text[p] == quote) {
        quoted = true;
        fit.quotes_used = true;
        ++p;
        bool closed = false;
        while (p < text.size()) {
          char c = text[p];
          if (c == escape && escape != quote && p + 1 < text.size()) {
            if (text[p + 1] != quote && text[p + 1] != escape) {
              fit.parsed = false;
              return fit;
            }
            p += 2;
            continue;
          }
          if (c == quote) {
            if (p + 1 < text.size() && text[p + 1] == quote) {
              p += 2;
              continue;
            }
            ++p;
            closed = true;
            break;
          }
          ++p;
        }
        // A sample cut inside a quoted field is judged by the records before it.
        if (!closed) {
          if (whole_file) fit.parsed = false;
          return fit;
        }
        if (p < text.size() && text[p] != delim && text[p] != '\n' && text[p] != '\r') {
          fit.parsed = false;
          return fit;
        }
      } else {
        if (p < text.size() && (text[p] == '[' || text[p] == '{')) {
          int depth = 0;
          while (p < text.size() && text[p] != '\n' && text[p] != '\r') {
            char c = text[p++];
            if (c == '[' || c == '{') ++depth;
            if ((c == ']' || c == '}') && --depth == 0) break;
          }
        }
        while (p < text.size() && text[p] != delim && text[p] != '\n' && text[p] != '\r') ++p;
      }
      last_empty = !quoted && p == start;
      if (p < text.size() && text[p] == delim) {
        ++p;
        continue;
      }
      break;
    }
    if (p >= text.size() && !whole_file && records > 0) break;  // a record cut by the sample
    std::vector<size_t> allowed{fields};
    if (last_empty && fields > 1) allowed.push_back(fields - 1);
    if (!fit.any_record) {
      fit.counts = allowed;
      fit.any_record = true;
    } else {
      std::vector<size_t> kept;
      for (size_t n : fit.counts) {
        if (std::find(allowed.begin(), allowed.end(), n) != allowed.end()) kept.push_back(n);
      }
      fit.counts = std::move(kept);
    }
    ++records;
  }
  return fit;
}

}  // namespace

void DetectCsvDialect(std::string_view sample, size_t expected_columns, bool whole_file,
                      CsvOptions* options) {
  if (!options->auto_detect ||
      (options->delimiter_set && options->quote_set && options->escape_set)) {
    return;
  }
  const std::vector<char> delimiters = options->delimiter_set
                                           ? std::vector<char>{options->delimiter}
                                           : std::vector<char>{',', '|', ';', '\t'};
  const std::vector<char> quotes =
      options->quote_set ? std::vector<char>{options->quote} : std::vector<char>{'"', '\''};
  const char default_quote = quotes[0];
  // A candidate is good when it parses the sample into the same number of fields on every
  // record (the expected number, when known) and, for a quote other than the default, quotes
  // some field; the default dialect stays unless a good candidate ranks higher.
  bool best_good = false;
  std::tuple<size_t, bool> best_rank{0, false};
  char best_delim = delimiters[0];
  char best_quote = default_quote;
  char best_escape = options->escape;
  for (char quote : quotes) {
    // The escape: the given one, else the default, else none (only a doubled quote), for a
    // sample where the default escape precedes other characters.
    std::vector<char> escapes{options->escape};
    if (!options->escape_set) escapes.push_back(quote);
    for (char delim : delimiters) {
      if (delim == quote) continue;
      DialectFit fit;
      char escape = escapes[0];
      for (char e : escapes) {
        escape = e;
        fit = FitDialect(sample, delim, quote, e, options->sample_size, whole_file);
        if (fit.parsed) break;
      }
      if (!fit.parsed || !fit.any_record || fit.counts.empty()) continue;
      if (quote != default_quote && !fit.quotes_used) continue;
      size_t columns = *std::max_element(fit.counts.begin(), fit.counts.end());
      if (expected_columns != 0) {
        if (std::find(fit.counts.begin(), fit.counts.end(), expected_columns) == fit.counts.end()) {
          continue;
        }
        columns = expected_columns;
      }
      std::tuple<size_t, bool> rank{columns, fit.quotes_used};
      if (!best_good || rank > best_rank) {
        best_good = true;
        best_rank = rank;
        best_delim = delim;
        best_quote = quote;
        best_escape = escape;
      }
    }
  }
  options->delimiter = best_delim;
  options->quote = best_quote;
  options->escape = best_escape;
}

// A block buffer over a file, or a whole in-memory text.
class CsvReader::Source {
 public:
  Source(std::string name, std::string_view text)
      : name_(std::move(name)), view_(text), eof_(true) {}
  Source(std::string name, std::unique_ptr<env::RandomAccessFile> file, uint64_t size)
      : name_(std::move(name)), file_(std::move(file)), file_size_(size) {}

  const std::string& name() const { return name_; }
  const char* data() const { return file_ ? buffer_.data() : view_.data(); }
  size_t size() const { return file_ ? filled_ : view_.size(); }
  bool eof() const { return eof_; }
  // File offset of data()[0].
  uint64_t base_offset() const { return base_; }

  // Keeps bytes [keep_from, size()) at the front and reads more behind them; grows the buffer
  // when one record fills it.
  Status Refill(size_t keep_from) {
    if (!file_ || eof_) return Status::OK();
    size_t rest = filled_ - keep_from;
    if (keep_from > 0 && rest > 0) std::memmove(buffer_.data(), buffer_.data() + keep_from, rest);
    base_ += keep_from;
    filled_ = rest;
    if (buffer_.empty()) {
      buffer_.resize(kBlockSize);
    } else if (rest * 2 > buffer_.size()) {
      buffer_.resize(buffer_.size() * 2);
    }
    auto n = file_->Read(base_ + filled_, buffer_.size() - filled_, buffer_.data() + filled_);
    if (!n.ok()) return n.status();
    filled_ += *n;
    if (base_ + filled_ >= file_size_ || *n == 0) eof_ = true;
    return Status::OK();
  }

 private:
  std::string name_;
  std::string_view view_;
  std::unique_ptr<env::RandomAccessFile> file_;
  uint64_t file_size_ = 0;
  std::string buffer_;
  size_t filled_ = 0;
  uint64_t base_ = 0;
  bool eof_ = false;
};

CsvReader::CsvReader(env::FileSystem* fs, std::vector<LogicalType> column_types, CsvOptions options)
    : fs_(fs), types_(std::move(column_types)), options_(options) {}

Status CsvReader::Error(std::string detail, size_t column, size_t snippet_end, bool more) {
  std::string snippet(record_buf_ + record_start_, snippet_end - record_start_);
  while (!snippet.empty() && (snippet.back() == '\n' || snippet.back() == '\r')) snippet.pop_back();
  if (more) snippet += "...";
  std::string message = "Copy exception: Error in file " + source_name_ + " on line " +
                        std::to_string(line_) + ": " + detail +
                        " Line/record containing the error: '" + snippet + "'";
  last_error_ = CsvWarning{std::move(detail), source_name_, line_, std::move(snippet)};
  return Status(ErrorCode::kQueryRuntime, std::move(message), static_cast<int32_t>(line_),
                column > 0 ? static_cast<int32_t>(column) : -1);
}

void CsvReader::Skip() {
  ++skipped_records_;
  if (options_.warnings) options_.warnings->push_back(last_error_);
}

void CsvReader::ReportProgress() {
  if (progress_) progress_(progress_state_);
  next_progress_rows_ = progress_state_.rows + std::max<uint64_t>(options_.progress_interval, 1);
}

CsvReader::RecordResult CsvReader::ParseRecord(const char* buf, size_t end, bool eof, size_t* pos,
                                               Status* error) {
  const char delim = options_.delimiter;
  const char quote = options_.quote;
  const char escape = options_.escape;
  size_t p = *pos;
  uint64_t line = next_line_;
  // Skip blank lines; over a single column a blank line is a record (one empty field).
  while (true) {
    if (p == end) {
      if (!eof) return RecordResult::kNeedMore;
      *pos = p;
      next_line_ = line;
      return RecordResult::kEnd;
    }
    if (types_.size() == 1) break;
    if (buf[p] == '\n') {
      ++p;
      ++line;
      continue;
    }
    if (buf[p] == '\r') {
      if (p + 1 == end && !eof) return RecordResult::kNeedMore;
      ++p;
      if (p < end && buf[p] == '\n') ++p;
      ++line;
      continue;
    }
    break;
  }
  const uint64_t record_line = line;
  line_ = record_line;
  record_buf_ = buf;
  record_start_ = p;
  uint64_t newlines = 0;
  fields_.clear();
  size_t scratch = 0;
  while (true) {
    if (p < end && buf[p] == quote) {
      ++p;
      size_t start = p;
      bool unescape = false;
      while (true) {
        if (p == end) {
          if (!eof) return RecordResult::kNeedMore;
          *error = Error("unterminated quotes.", fields_.size() + 1, end, false);
          return RecordResult::kError;
        }
        char c = buf[p];
        if (c == escape && escape != quote) {
          if (p + 1 == end) {
            if (!eof) return RecordResult::kNeedMore;
            *error = Error("escape at end of file.", fields_.size() + 1, end, false);
            return RecordResult::kError;
          }
          if (buf[p + 1] != quote && buf[p + 1] != escape) {
            *error = Error("neither QUOTE nor ESCAPE is proceeded by ESCAPE.", fields_.size() + 1,
                           p + 2, true);
            return RecordResult::kError;
          }
          unescape = true;
          p += 2;
          continue;
        }
        if (c == quote) {
          if (p + 1 == end && !eof) return RecordResult::kNeedMore;
          if (p + 1 < end && buf[p + 1] == quote) {
            unescape = true;
            p += 2;
            continue;
          }
          break;
        }
        if (c == '\n' || c == '\r') {
          if (options_.parallel) {
            *error = Error(
                "Quoted newlines are not supported in parallel CSV reader. Please specify "
                "PARALLEL=FALSE in the options.",
                fields_.size() + 1, p, false);
            return RecordResult::kError;
          }
          if (c == '\n') ++newlines;
        }
        ++p;
      }
      std::string_view text(buf + start, p - start);
      ++p;  // closing quote
      if (unescape) {
        if (scratch == unescaped_.size()) unescaped_.emplace_back();
        std::string& out = unescaped_[scratch];
        out.clear();
        for (size_t i = 0; i < text.size(); ++i) {
          char c = text[i];
          if ((c == escape && escape != quote && i + 1 < text.size()) ||
              (c == quote && i + 1 < text.size() && text[i + 1] == quote)) {
            ++i;
            c = text[i];
          }
          out.push_back(c);
        }
        fields_.push_back(Field{std::string_view(), true, static_cast<int32_t>(scratch++), p});
      } else {
        fields_.push_back(Field{text, true, -1, p});
      }
      while (p < end && (buf[p] == ' ' || buf[p] == '\t') && buf[p] != delim) ++p;
      if (p == end && !eof) return RecordResult::kNeedMore;
      if (p < end && buf[p] != delim && buf[p] != '\n' && buf[p] != '\r') {
        *error = Error(
            "quote should be followed by end of file, end of value, end of row or another "
            "quote.",
            fields_.size(), p, true);
        return RecordResult::kError;
      }
    } else {
      size_t start = p;
      // An unquoted nested literal may contain the delimiter inside its brackets.
      size_t column = fields_.size();
      if (p < end && (buf[p] == '[' || buf[p] == '{') && column < types_.size() &&
          types_[column].IsNested()) {
        int depth = 0;
        while (p < end) {
          char c = buf[p];
          if (c == '[' || c == '{') {
            ++depth;
          } else if (c == ']' || c == '}') {
            if (--depth == 0) {
              ++p;
              break;
            }
          } else if (c == '\n' || c == '\r') {
            break;
          }
          ++p;
        }
      }
      while (p < end) {
        char c = buf[p];
        if (c == delim || c == '\n' || c == '\r') break;
        ++p;
      }
      if (p == end && !eof) return RecordResult::kNeedMore;
      fields_.push_back(Field{std::string_view(buf + start, p - start), false, -1, p});
    }
    record_end_ = p;
    if (p == end) break;
    char c = buf[p];
    if (c == delim) {
      ++p;
      continue;
    }
    if (c == '\n') {
      ++p;
      break;
    }
    // '\r'
    if (p + 1 == end && !eof) return RecordResult::kNeedMore;
    ++p;
    if (p < end && buf[p] == '\n') ++p;
    break;
  }
  *pos = p;
  next_line_ = record_line + 1 + newlines;
  return RecordResult::kRecord;
}

bool CsvReader::LooksLikeHeader() {
  // Kùzu's sniffer: a header when a column that is not a STRING holds a plain string (a name,
  // where a number, a date, a list ... belongs) that does not convert to the column's type. A
  // field that looks like a value of some type (a list, a number, a date) is data, and a bad
  // value in it is reported as an error.
  if (fields_.size() != types_.size()) return false;
  for (size_t i = 0; i < types_.size(); ++i) {
    if (IsStringType(types_[i])) continue;
    const Field& f = fields_[i];
    std::string_view text = f.scratch >= 0 ? std::string_view(unescaped_[f.scratch]) : f.text;
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    if (!IsPlainCsvString(text)) continue;
    std::string ignored;
    if (!ParseValueText(text, types_[i], &ignored, options_.list_unbraced)) return true;
  }
  return false;
}

namespace {

// Why the MAP value `map` read from a file is refused (a NULL key, a key twice), as Kùzu's CSV
// reader refuses it whatever disable_map_key_check says; empty: it is not.
std::string MapKeyError(const Value& map) {
  if (map.is_null()) return "";
  std::unordered_set<std::string> keys;
  for (const Value& entry : map.children()) {
    const Value& key = entry.children()[0];
    if (key.is_null()) return "Map does not allow null as key.";
    if (!keys.insert(key.ToString()).second) return "Map does not allow duplicate keys.";
  }
  return "";
}

}  // namespace

Status CsvReader::AppendRecord(std::vector<Column>& columns) {
  // A delimiter that ends the record adds no field ("abc," over one column), as in Kùzu.
  if (fields_.size() == columns.size() + 1 && !fields_.back().quoted &&
      fields_.back().scratch < 0 && fields_.back().text.empty()) {
    fields_.pop_back();
  }
  // A table whose only column is SERIAL reads no field: a record of any width adds a row, as in
  // Kùzu.
  if (fields_.size() != columns.size() && !columns.empty()) {
    return Error("expected " + std::to_string(columns.size()) + " values per row, but got " +
                     std::to_string(fields_.size()) + ".",
                 0, record_end_, false);
  }
  for (size_t i = 0; i < columns.size(); ++i) {
    const Field& f = fields_[i];
    std::string_view text = f.scratch >= 0 ? std::string_view(unescaped_[f.scratch]) : f.text;
    Column& column = columns[i];
    if (text.empty()) {
      if (f.quoted && column.kind() == PhysicalKind::kString) {
        column.AppendString("");
      } else {
        column.AppendNull();
      }
      continue;
    }
    if (column.type().id() == LogicalTypeId::kString && !IsValidUtf8(text)) {
      // Not a bad record IGNORE_ERRORS may skip: the file is not UTF-8 text (as in Kùzu).
      for (size_t j = 0; j < i; ++j) columns[j].Truncate(columns[j].size() - 1);
      invalid_utf8_ = true;
      return Error("Invalid UTF8-encoded string.", i + 1, f.end, i + 1 < columns.size());
    }
    if (!ParseIntoColumn(text, column, &error_, options_.list_unbraced)) {
      for (size_t j = 0; j < i; ++j) columns[j].Truncate(columns[j].size() - 1);
      std::string detail = "Conversion exception: ";
      if (error_.rfind("Could not convert", 0) == 0) detail += "Cast failed. ";
      return Error(detail + error_, i + 1, f.end, i + 1 < columns.size());
    }
    if (column.type().id() == LogicalTypeId::kMap) {
      std::string refused = MapKeyError(column.Get(column.size() - 1));
      if (!refused.empty()) {
        for (size_t j = 0; j <= i; ++j) columns[j].Truncate(columns[j].size() - 1);
        return Error("Conversion exception: " + refused, i + 1, f.end, i + 1 < columns.size());
      }
    }
  }
  return Status::OK();
}

Status CsvReader::ReadSource(Source& source, std::vector<Column>& columns) {
  source_name_ = source.name();
  line_ = 0;
  next_line_ = 1;
  header_.clear();
  Status s = source.Refill(0);
  if (!s.ok()) return s;
  if (!dialect_detected_) {
    dialect_detected_ = true;
    DetectCsvDialect(std::string_view(source.data(), source.size()), types_.size(), source.eof(),
                     &options_);
  }
  size_t pos = 0;
  if (source.size() >= 3 && std::memcmp(source.data(), "\xEF\xBB\xBF", 3) == 0) pos = 3;
  bool first = true;
  uint64_t skipped = 0;
  const uint64_t bytes_before = progress_state_.bytes;
  while (true) {
    Status error;
    RecordResult r = ParseRecord(source.data(), source.size(), source.eof(), &pos, &error);
    if (r == RecordResult::kNeedMore) {
      s = source.Refill(pos);
      if (!s.ok()) return s;
      pos = 0;
      continue;
    }
    if (r == RecordResult::kEnd) break;
    if (r == RecordResult::kError) {
      if (!options_.ignore_errors) return error;
      Skip();
      // Resume on the line after the record's first (a record cut by the end of the file ends
      // there).
      bool at_end = last_error_.message == "unterminated quotes." ||
                    last_error_.message == "escape at end of file.";
      size_t from = record_start_;
      while (true) {
        const char* data = source.data();
        const void* nl = at_end ? nullptr : std::memchr(data + from, '\n', source.size() - from);
        if (nl != nullptr) {
          pos = static_cast<size_t>(static_cast<const char*>(nl) - data) + 1;
          break;
        }
        if (source.eof()) {
          pos = source.size();
          break;
        }
        s = source.Refill(from);
        if (!s.ok()) return s;
        from = 0;
      }
      next_line_ = line_ + 1;
      first = false;
      continue;
    }
    if (first) {
      first = false;
      bool header = options_.header == CsvOptions::Header::kTrue ||
                    (options_.header == CsvOptions::Header::kAuto && options_.auto_detect &&
                     LooksLikeHeader());
      if (header) {
        for (const Field& f : fields_) {
          header_.emplace_back(f.scratch >= 0 ? std::string_view(unescaped_[f.scratch]) : f.text);
        }
        continue;
      }
    }
    if (skipped < options_.skip) {
      ++skipped;
      continue;
    }
    s = AppendRecord(columns);
    if (!s.ok()) {
      if (!options_.ignore_errors || s.code() != ErrorCode::kQueryRuntime || invalid_utf8_) {
        return s;
      }
      Skip();
      continue;
    }
    if (options_.ignore_errors) {
      row_sources_.push_back(
          CsvWarning{"", source_name_, line_,
                     std::string(record_buf_ + record_start_, record_end_ - record_start_)});
    }
    ++progress_state_.rows;
    if (options_.max_records != 0 && progress_state_.rows >= options_.max_records) break;
    // A COPY or LOAD FROM that was cancelled or ran past its time limit stops reading here.
    if ((progress_state_.rows & (kRecordsPerInterruptPoll - 1)) == 0) {
      s = PollInterrupt();
      if (!s.ok()) return s;
    }
    if (progress_state_.rows >= next_progress_rows_) {
      progress_state_.bytes = bytes_before + source.base_offset() + pos;
      ReportProgress();
    }
  }
  progress_state_.bytes = bytes_before + source.base_offset() + source.size();
  return Status::OK();
}

Result<std::vector<Column>> CsvReader::ReadFiles(const std::vector<std::string>& paths,
                                                 std::string_view statement) {
  if (options_.delimiter == options_.quote || options_.delimiter == '\n' ||
      options_.delimiter == '\r') {
    return Status(ErrorCode::kInvalidRequest, "Copy exception: invalid CSV delimiter.");
  }
  std::vector<uint64_t> sizes;
  std::vector<std::string> opened;  // the paths to open (confined: common/file_access.h)
  progress_state_ = CsvProgress{};
  for (const auto& path : paths) {
    Result<std::string> checked = CheckUserFileToRead(fs_, path, statement);
    if (!checked.ok()) return checked.status();
    opened.push_back(std::move(*checked));
    auto size = fs_->FileSize(opened.back());
    if (!size.ok()) return UserFileOpenError(size.status(), path, "read", statement);
    sizes.push_back(*size);
    progress_state_.total_bytes += *size;
  }
  std::vector<Column> columns;
  for (const auto& t : types_) columns.emplace_back(t);
  next_progress_rows_ = std::max<uint64_t>(options_.progress_interval, 1);
  for (size_t i = 0; i < paths.size(); ++i) {
    progress_state_.file_index = i;
    if (IsParquetFile(fs_, opened[i])) {  // formats/parquet_reader.h
      const uint64_t before = columns.empty() ? 0 : columns[0].size();
      Status s = ReadParquetFile(fs_, opened[i], paths[i], columns);
      if (!s.ok()) return s;
      progress_state_.rows += (columns.empty() ? 0 : columns[0].size()) - before;
      progress_state_.bytes += sizes[i];
      continue;
    }
    auto file = fs_->OpenForRead(opened[i]);
    if (!file.ok()) return UserFileOpenError(file.status(), paths[i], "read", statement);
    if (IsCompressedCsvPath(paths[i])) {
      // A gzip file is decompressed into memory, then read like a text, serially as in Kùzu
      // (it cannot be split for a parallel read): quoted line breaks are read.
      auto text = ReadCsvText(fs_, opened[i], paths[i]);
      if (!text.ok()) return text.status();
      Source source(paths[i], *text);
      const bool parallel = options_.parallel;
      options_.parallel = false;
      Status s = ReadSource(source, columns);
      options_.parallel = parallel;
      if (!s.ok()) return s;
      continue;
    }
    Source source(paths[i], std::move(*file), sizes[i]);
    Status s = ReadSource(source, columns);
    if (!s.ok()) return s;
  }
  ReportProgress();
  return columns;
}

Result<std::vector<Column>> CsvReader::ReadString(std::string_view text,
                                                  std::string_view source_name) {
  std::vector<Column> columns;
  for (const auto& t : types_) columns.emplace_back(t);
  progress_state_ = CsvProgress{};
  progress_state_.total_bytes = text.size();
  next_progress_rows_ = std::max<uint64_t>(options_.progress_interval, 1);
  Source source(std::string(source_name), text);
  Status s = ReadSource(source, columns);
  if (!s.ok()) return s;
  ReportProgress();
  return columns;
}

}  // namespace graphdb::formats
