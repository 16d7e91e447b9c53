// CsvReader: parses CSV files for COPY FROM into typed Columns (one per target column).
//
// Dialect (Kùzu's defaults): delimiter ',', quote '"', escape '\' (inside quoted fields only;
// a doubled quote also stands for one quote), records end at "\n" or "\r\n", blank lines are
// skipped (except over a single column, where they are an empty field), a UTF-8 byte-order mark is
// skipped. Field text is converted with ParseIntoColumn (see value_parser.h for the literal syntax
// of every type, nested ones included). An empty unquoted field is NULL; a quoted empty field is ""
// for STRING/BLOB and NULL otherwise. An unquoted field of a nested column that starts with '[' or
// '{' may contain the delimiter inside its brackets (`[Carmen,Fred]`). Header: `true` skips the
// first record of each file, `false` reads it as data, `auto` skips it when it has the right number
// of fields and none of its non-empty fields of non-string columns converts to the column's type
// ("id,name" over INT64, STRING).
//
// Errors name the file and the 1-based line, and show the record up to the error, in Kùzu's
// words: "Copy exception: Error in file x.csv on line 3: Conversion exception: Cast failed.
// Could not convert \"abc\" to INT64. Line/record containing the error: '1,abc...'"
// (kQueryRuntime; the Status also carries line and column). Inside quotes the escape must be
// followed by the quote or the escape. With IGNORE_ERRORS=true such records are skipped
// instead (CsvOptions::warnings lists them), except a STRING field that is not valid UTF-8
// ("Invalid UTF8-encoded string."), which always fails the read. A file that cannot be opened gives
// kInvalidRequest.
//
// Files are read in 4 MiB blocks; unquoted fields are parsed in place without allocation.
//
// Thread-safety: a CsvReader is used by one thread; separate readers are independent.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "env/file_system.h"
#include "storage/column.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::formats {

// A record that COPY or LOAD FROM skipped (IGNORE_ERRORS=true): why, where, and its text up
// to the error ("..." when more followed), as Kùzu's show_warnings() lists them.
struct CsvWarning {
  std::string message;
  std::string file_path;
  uint64_t line = 0;
  std::string record;
};

struct CsvOptions {
  enum class Header : uint8_t { kFalse, kTrue, kAuto };
  Header header = Header::kAuto;
  char delimiter = ',';
  char quote = '"';
  char escape = '\\';
  // Which of the three were given as options; AUTO_DETECT (on by default) sniffs the others
  // from the first SAMPLE_SIZE records of the first file (DetectCsvDialect).
  bool delimiter_set = false;
  bool quote_set = false;
  bool escape_set = false;
  bool auto_detect = true;
  uint64_t sample_size = 256;
  // Records skipped at the start of each file (after the header).
  uint64_t skip = 0;
  // IGNORE_ERRORS=true: a record that does not parse or convert is skipped rather than failing
  // the read, and appended to `warnings` when set.
  bool ignore_errors = false;
  std::vector<CsvWarning>* warnings = nullptr;
  // PARALLEL=TRUE (Kùzu's default): a quoted field may not hold a line break (Kùzu splits files
  // at line breaks to read them in parallel); PARALLEL=FALSE reads quoted line breaks.
  bool parallel = true;
  // LIST_UNBRACED=TRUE: lists are written "a;b;c", brackets optional (ParseIntoColumn).
  bool list_unbraced = false;
  // Rows between progress callbacks.
  uint64_t progress_interval = 1 << 16;
  // Stop after this many records of a file (0: read them all): LOAD FROM's sniffing probe reads
  // the first SAMPLE_SIZE records, not the whole file, before the scan starts.
  uint64_t max_records = 0;

  // Applies one COPY option by Kùzu's name, case-insensitively: HEADER (bool), DELIM /
  // DELIMITER, QUOTE, ESCAPE (one-character strings; "\t" allowed), SKIP (integer);
  // AUTO_DETECT (bool), SAMPLE_SIZE (positive integer), IGNORE_ERRORS (bool), PARALLEL
  // (bool; records are read in order by one thread either way), LIST_UNBRACED (bool).
  // BOOL options also take 1 and 0 (CsvBoolOption). kQueryBinding for unknown options or bad
  // values.
  Status Set(std::string_view name, const Value& value);
};

// The value of a BOOL option: TRUE/FALSE, or 1/0 as Kùzu also takes ("(HEADER 1)"); nullopt
// for anything else.
std::optional<bool> CsvBoolOption(const Value& value);

// Dialect sniffing: the delimiter (',', '|', ';', tab) and quote ('"', '\'') not given in
// `options` are chosen from the records of `sample` (the start of a file; at most
// options->sample_size records), as the pair that parses them without error into the same
// number of fields on every record (`expected_columns` of them, when not 0) and, for the quote
// '\'', that quotes some field; among those, the one giving the most fields, then one whose
// quote some field starts with. Without such a pair the defaults (',' and '"') stay. A record
// ending with a delimiter may count one field less. `whole_file`: the sample is the whole
// file (else its last record may be cut). The escape not given stays '\\' unless the sample
// only parses without it (a backslash before a character other than the quote): then only
// a doubled quote escapes, and backslashes are text.
void DetectCsvDialect(std::string_view sample, size_t expected_columns, bool whole_file,
                      CsvOptions* options);

// Whether `path` names a gzip-compressed CSV file (.gz or .gzip), which COPY FROM and LOAD
// FROM decompress (formats/gzip.h) before reading.
bool IsCompressedCsvPath(std::string_view path);

// The text of the CSV file `opened` (named `name`), decompressed when IsCompressedCsvPath.
Result<std::string> ReadCsvText(env::FileSystem* fs, const std::string& opened,
                                std::string_view name);

struct CsvProgress {
  uint64_t rows = 0;         // data rows parsed so far, all files
  uint64_t bytes = 0;        // bytes consumed so far, all files
  uint64_t total_bytes = 0;  // sum of the file sizes
  size_t file_index = 0;     // file being read
};

using CsvProgressCallback = std::function<void(const CsvProgress&)>;

class CsvReader {
 public:
  CsvReader(env::FileSystem* fs, std::vector<LogicalType> column_types, CsvOptions options = {});

  void set_progress_callback(CsvProgressCallback callback) { progress_ = std::move(callback); }

  // Reads the files in order into one column per type. The paths are a client's
  // (formats/user_files.h): a mistake about one is INVALID_REQUEST naming `statement`.
  Result<std::vector<storage::Column>> ReadFiles(const std::vector<std::string>& paths,
                                                 std::string_view statement = "COPY FROM");
  // Parses an in-memory text, named `source_name` in errors.
  Result<std::vector<storage::Column>> ReadString(std::string_view text,
                                                  std::string_view source_name = "<string>");

  // Data rows read by the last ReadFiles, all files (also when it reads no column).
  uint64_t rows_read() const { return progress_state_.rows; }
  // Records skipped for errors (IGNORE_ERRORS=true), all files.
  uint64_t skipped_records() const { return skipped_records_; }
  // With IGNORE_ERRORS=true, where each row read came from (its message empty), so that a
  // later check of the row (a duplicate key, a missing node) can report it as a warning.
  const std::vector<CsvWarning>& row_sources() const { return row_sources_; }

  // The header fields of the last file read, if it had a header.
  const std::vector<std::string>& header() const { return header_; }

 private:
  struct Field {
    std::string_view text;
    bool quoted;
    int32_t scratch;  // >= 0: the text is unescaped_[scratch]
    size_t end;       // offset in the record's buffer just past the field
  };
  enum class RecordResult { kRecord, kNeedMore, kEnd, kError };

  class Source;
  Status ReadSource(Source& source, std::vector<storage::Column>& columns);
  // Parses one record at buf[*pos, end); `eof` says no more bytes follow.
  RecordResult ParseRecord(const char* buf, size_t end, bool eof, size_t* pos, Status* error);
  Status AppendRecord(std::vector<storage::Column>& columns);
  bool LooksLikeHeader();
  // A record's error in Kùzu's words: "Copy exception: Error in file F on line N: <detail>
  // Line/record containing the error: '<the record up to snippet_end>'" ("..." after it when
  // `more`); also kept in last_error_.
  Status Error(std::string detail, size_t column, size_t snippet_end, bool more);
  // Counts the record of last_error_ as skipped (IGNORE_ERRORS) and reports it.
  void Skip();
  void ReportProgress();

  env::FileSystem* fs_;
  std::vector<LogicalType> types_;
  CsvOptions options_;
  CsvProgressCallback progress_;
  std::vector<std::string> header_;
  bool dialect_detected_ = false;  // DetectCsvDialect ran on the first file

  // Per-record scratch, reused.
  std::vector<Field> fields_;
  std::vector<std::string> unescaped_;
  std::string error_;

  // Position for messages and progress.
  std::string source_name_;
  uint64_t line_ = 0;                 // 1-based line where the current record starts
  uint64_t next_line_ = 1;            // 1-based line at the parse position
  const char* record_buf_ = nullptr;  // the buffer of the current record
  size_t record_start_ = 0;           // its offset there
  size_t record_end_ = 0;             // and the end of its last field
  CsvWarning last_error_;
  uint64_t skipped_records_ = 0;
  bool invalid_utf8_ = false;  // the last error was a STRING field that is not UTF-8
  std::vector<CsvWarning> row_sources_;
  CsvProgress progress_state_;
  uint64_t next_progress_rows_ = 0;
};

}  // namespace graphdb::formats
