// CsvCopySource: the rows of a COPY FROM of CSV files, for StorageManager::CopyNodeTable and
// CopyRelTable (storage reads no file format itself). Read parses the files with a CsvReader;
// with IGNORE_ERRORS a row the table refuses (a NULL or taken key, a key naming no node) is
// listed in CsvOptions::warnings with the file, line and record it came from.
//
// Thread-safety: used by one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "env/file_system.h"
#include "formats/csv_reader.h"
#include "storage/storage_manager.h"

namespace graphdb::formats {

class CsvCopySource final : public storage::StorageManager::CopySource {
 public:
  // `fs` must outlive the source; `files` are read in order.
  CsvCopySource(env::FileSystem* fs, std::vector<std::string> files, CsvOptions options = {})
      : fs_(fs), files_(std::move(files)), options_(std::move(options)) {}

  Result<std::vector<storage::Column>> Read(const std::vector<LogicalType>& types) override;
  bool ignore_errors() const override { return options_.ignore_errors; }
  uint64_t rows_read() const override { return reader_ ? reader_->rows_read() : 0; }
  void Skip(uint64_t row, std::string message) override;

 private:
  env::FileSystem* fs_;
  std::vector<std::string> files_;
  CsvOptions options_;
  std::optional<CsvReader> reader_;  // the reader of the last Read
};

}  // namespace graphdb::formats
