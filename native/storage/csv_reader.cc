#include "storage/csv_reader.h"

#include <algorithm>
#include <cstring>

#include "catalog/catalog.h"
#include "common/interrupt.h"
#include "storage/parquet_reader.h"
#include "storage/user_files.h"
#include "storage/value_parser.h"

namespace graphdb::storage {

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
      case 't':
        *out = '\t';
        return true;
      case '\\':
        *out = '\\';
        return true;
      default:
        return false;
    }
  }
  return false;
}

bool IsStringType(const LogicalType& t) {
  return t.id() == LogicalTypeId::kString || t.id() == LogicalTypeId::kBlob;
}

}  // namespace

Status CsvOptions::Set(std::string_view name, const Value& value) {
  std::string key = catalog::FoldName(name);
  if (key == "header") {
    if (value.type_id() != LogicalTypeId::kBool || value.is_null()) {
      return OptionError("The type of csv parsing option HEADER must be BOOL.");
    }
    header = value.GetBool() ? Header::kTrue : Header::kFalse;
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
    } else if (key == "escape") {
      escape = c;
    } else {
      delimiter = c;
    }
    return Status::OK();
  }
  if (key == "skip") {
    if (value.is_null() || !value.type().IsInteger() || value.GetInt() < 0) {
      return OptionError("The type of csv parsing option SKIP must be a non-negative INT64.");
    }
    skip = static_cast<uint64_t>(value.GetInt());
    return Status::OK();
  }
  if (key == "parallel" || key == "auto_detect" || key == "sample_size") return Status::OK();
  if (key == "ignore_errors") {
    if (value.type_id() == LogicalTypeId::kBool && !value.is_null() && !value.GetBool()) {
      return Status::OK();
    }
    return Status(ErrorCode::kNotSupported, "COPY option IGNORE_ERRORS is not supported.");
  }
  return OptionError("Unrecognized csv parsing option: " + std::string(name) + ".");
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

Status CsvReader::Error(std::string detail, size_t column) const {
  std::string message =
      "Copy exception: Error in file " + source_name_ + " on line " + std::to_string(line_);
  if (column > 0) message += ", column " + std::to_string(column);
  message += ": " + detail;
  return Status(ErrorCode::kQueryRuntime, std::move(message), static_cast<int32_t>(line_),
                column > 0 ? static_cast<int32_t>(column) : -1);
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
  // Skip blank lines.
  while (true) {
    if (p == end) {
      if (!eof) return RecordResult::kNeedMore;
      *pos = p;
      next_line_ = line;
      return RecordResult::kEnd;
    }
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
          *error = Error("unterminated quoted field.", fields_.size() + 1);
          return RecordResult::kError;
        }
        char c = buf[p];
        if (c == escape && escape != quote) {
          if (p + 1 == end) {
            if (!eof) return RecordResult::kNeedMore;
            ++p;
            continue;
          }
          unescape = true;
          if (buf[p + 1] == '\n') ++newlines;
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
        if (c == '\n') ++newlines;
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
        fields_.push_back(Field{std::string_view(), true, static_cast<int32_t>(scratch++)});
      } else {
        fields_.push_back(Field{text, true, -1});
      }
      while (p < end && (buf[p] == ' ' || buf[p] == '\t') && buf[p] != delim) ++p;
      if (p == end && !eof) return RecordResult::kNeedMore;
      if (p < end && buf[p] != delim && buf[p] != '\n' && buf[p] != '\r') {
        *error = Error("unexpected character after a closing quote.", fields_.size());
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
      fields_.push_back(Field{std::string_view(buf + start, p - start), false, -1});
    }
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
  // A header when every non-empty field of a non-string column fails to convert: one field
  // that converts means the record is data (and a bad value in it is reported as an error).
  if (fields_.size() != types_.size()) return false;
  bool any_failed = false;
  for (size_t i = 0; i < types_.size(); ++i) {
    if (IsStringType(types_[i])) continue;
    const Field& f = fields_[i];
    std::string_view text = f.scratch >= 0 ? std::string_view(unescaped_[f.scratch]) : f.text;
    if (text.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::string ignored;
    if (ParseValueText(text, types_[i], &ignored)) return false;
    any_failed = true;
  }
  return any_failed;
}

Status CsvReader::AppendRecord(std::vector<Column>& columns) {
  if (fields_.size() != columns.size()) {
    return Error("expected " + std::to_string(columns.size()) + " values per row, but got " +
                     std::to_string(fields_.size()) + ".",
                 0);
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
    if (!ParseIntoColumn(text, column, &error_)) return Error(error_, i + 1);
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
    if (r == RecordResult::kError) return error;
    if (first) {
      first = false;
      bool header = options_.header == CsvOptions::Header::kTrue ||
                    (options_.header == CsvOptions::Header::kAuto && LooksLikeHeader());
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
    if (!s.ok()) return s;
    ++progress_state_.rows;
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
    if (IsParquetFile(fs_, opened[i])) {  // storage/parquet_reader.h
      const uint64_t before = columns.empty() ? 0 : columns[0].size();
      Status s = ReadParquetFile(fs_, opened[i], paths[i], columns);
      if (!s.ok()) return s;
      progress_state_.rows += (columns.empty() ? 0 : columns[0].size()) - before;
      progress_state_.bytes += sizes[i];
      continue;
    }
    auto file = fs_->OpenForRead(opened[i]);
    if (!file.ok()) return UserFileOpenError(file.status(), paths[i], "read", statement);
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

}  // namespace graphdb::storage
