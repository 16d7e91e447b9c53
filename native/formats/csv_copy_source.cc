#include "formats/csv_copy_source.h"

namespace graphdb::formats {

Result<std::vector<storage::Column>> CsvCopySource::Read(const std::vector<LogicalType>& types) {
  reader_.emplace(fs_, types, options_);
  return reader_->ReadFiles(files_);
}

void CsvCopySource::Skip(uint64_t row, std::string message) {
  if (options_.warnings == nullptr) return;
  CsvWarning warning;
  if (reader_ && row < reader_->row_sources().size()) warning = reader_->row_sources()[row];
  warning.message = std::move(message);
  options_.warnings->push_back(std::move(warning));
}

}  // namespace graphdb::formats
