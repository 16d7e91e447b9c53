#include "storage/node_table.h"

#include <algorithm>

#include "storage/stamp_codec.h"
#include "storage/value_codec.h"

namespace graphdb::storage {

namespace {

std::vector<std::unique_ptr<Column>> MakeColumns(const catalog::NodeTableSchema& schema) {
  std::vector<std::unique_ptr<Column>> columns;
  columns.reserve(schema.properties.size());
  for (const auto& p : schema.properties) {
    columns.push_back(std::make_unique<Column>(p.type));
    columns.back()->MarkShared();
  }
  return columns;
}

constexpr char kNullKeyMessage[] =
    "Found NULL, which violates the non-null constraint of the primary key column.";

Status NullKey(const char* prefix) {
  return Status(ErrorCode::kConstraintViolation, std::string(prefix) + kNullKeyMessage);
}

bool IsSerial(const Column& c) { return c.type().id() == LogicalTypeId::kSerial; }

}  // namespace

NodeTable::NodeTable(const catalog::NodeTableSchema& schema)
    : table_id_(schema.id), name_(schema.name), columns_(MakeColumns(schema)),
      pk_column_(schema.primary_key), index_(columns_[pk_column_].get()),
      next_serial_(schema.properties.size(), 0) {}

std::vector<LogicalType> NodeTable::ColumnTypes() const {
  std::vector<LogicalType> types;
  for (const auto& c : columns_) types.push_back(c->type());
  return types;
}

Status NodeTable::DuplicateKey(uint64_t offset, const char* prefix) const {
  return Status(ErrorCode::kConstraintViolation,
                std::string(prefix) + "Found duplicated primary key value " +
                    columns_[pk_column_]->Get(offset).ToString() +
                    ", which violates the uniqueness constraint of the primary key column.");
}

Status NodeTable::KeyTaken(uint64_t offset, uint64_t ts, const char* prefix) const {
  std::optional<uint64_t> holder = index_.Find(columns_[pk_column_]->Get(offset));
  if (holder && *holder != offset) {
    const uint64_t stamp = create_ts_[*holder];
    if (stamp >= kUncommittedBase && stamp != kNotDeleted && stamp != ts) {
      return Status(ErrorCode::kTxConflict,
                    std::string(prefix) + "primary key value " +
                        columns_[pk_column_]->Get(offset).ToString() + " of table " + name_ +
                        " is being inserted by a concurrent transaction that has not committed "
                        "yet; retry once it has ended.");
    }
  }
  return DuplicateKey(offset, prefix);
}

void NodeTable::TruncateColumns(uint64_t rows) {
  for (auto& c : columns_) c->Truncate(rows);
}

Result<uint64_t> NodeTable::Insert(const std::vector<Value>& values, uint64_t ts) {
  changed_.Mark();
  if (values.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest, "insert into " + name_ + " expects " +
                                                  std::to_string(columns_.size()) +
                                                  " values, got " + std::to_string(values.size()));
  }
  if (values[pk_column_].is_null() && !IsSerial(*columns_[pk_column_])) {
    return NullKey("Runtime exception: ");
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  const uint64_t row = NumRows();
  std::vector<int64_t> serial_before = next_serial_;
  for (size_t i = 0; i < columns_.size(); ++i) {
    Column& c = *columns_[i];
    Status s;
    if (IsSerial(c) && values[i].is_null()) {
      c.AppendFixed<int64_t>(next_serial_[i]++);
    } else {
      s = c.Append(values[i]);
      if (s.ok() && IsSerial(c)) next_serial_[i] = std::max(next_serial_[i], c.GetInt64(row) + 1);
    }
    if (!s.ok()) {
      for (size_t k = 0; k < i; ++k) columns_[k]->Truncate(row);
      next_serial_ = serial_before;
      return s;
    }
  }
  // The stamps publish the row to scans (NumRows); readers see the writer's stamp and skip
  // it. Only then the key goes into the index, so an index hit is always below NumRows().
  WithdrawBlocks(row, row + 1);
  delete_ts_.push_back(kNotDeleted);
  create_ts_.push_back(ts);
  if (!index_.Insert(row)) {
    Status dup = KeyTaken(row, ts, "Runtime exception: ");
    create_ts_.pop_back();
    delete_ts_.pop_back();
    PublishBlocks(row, row + 1);
    TruncateColumns(row);
    next_serial_ = serial_before;
    return dup;
  }
  TallyStamps(row, ts, kNotDeleted, 1);
  PublishBlocks(row, row + 1);
  return row;
}

std::optional<uint64_t> NodeTable::LookupInt64(int64_t key) const {
  if (!index_.integer_keys()) return std::nullopt;
  PhysicalKind kind = columns_[pk_column_]->kind();
  if (kind == PhysicalKind::kFloat || kind == PhysicalKind::kDouble) {
    return index_.Find(Value::Int64(key));
  }
  return index_.FindInteger(static_cast<uint64_t>(key));
}

Status NodeTable::Delete(uint64_t offset, uint64_t ts) {
  changed_.Mark();
  if (offset >= NumRows()) {
    return Status(ErrorCode::kInvalidRequest,
                  "row " + std::to_string(offset) + " does not exist in table " + name_);
  }
  if (IsDeleted(offset)) {
    return Status(ErrorCode::kInvalidRequest,
                  "row " + std::to_string(offset) + " of table " + name_ + " is already deleted");
  }
  file_changes_.Touch(offset);
  Restamp(offset, [&] { delete_ts_.Set(offset, ts); });
  num_deleted_.fetch_add(1, std::memory_order_relaxed);
  // Before the key leaves the index: a reader that misses the key then knows to look at the
  // rows if it does not see this delete.
  key_erase_stamp_.store(std::max(key_erase_stamp_.load(std::memory_order_relaxed), ts),
                         std::memory_order_seq_cst);
  index_.Erase(offset);
  return Status::OK();
}

Status NodeTable::UndoDelete(uint64_t offset) {
  changed_.Mark();
  if (offset >= NumRows() || !IsDeleted(offset)) {
    return Status(ErrorCode::kInvalidRequest,
                  "row " + std::to_string(offset) + " of table " + name_ + " is not deleted");
  }
  if (!index_.Insert(offset)) return DuplicateKey(offset, "Runtime exception: ");
  file_changes_.Touch(offset);
  Restamp(offset, [&] { delete_ts_.Set(offset, kNotDeleted); });
  num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  return Status::OK();
}

void NodeTable::RestoreKeyEraseStamp() {
  key_erase_stamp_.store(key_erase_committed_, std::memory_order_seq_cst);
}

void NodeTable::CommitKeyErase(uint64_t stamp, uint64_t commit_ts) {
  if (key_erase_stamp_.load(std::memory_order_relaxed) == stamp) {
    key_erase_stamp_.store(commit_ts, std::memory_order_seq_cst);
  }
  key_erase_committed_ = std::max(key_erase_committed_, commit_ts);
}

void NodeTable::SetDeleteTs(uint64_t offset, uint64_t ts) {
  changed_.Mark();
  file_changes_.Touch(offset);
  bool was = IsDeleted(offset);
  Restamp(offset, [&] { delete_ts_.Set(offset, ts); });
  bool is = IsDeleted(offset);
  if (was && !is) num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  if (!was && is) num_deleted_.fetch_add(1, std::memory_order_relaxed);
}

void NodeTable::UndoInsert(uint64_t offset) {
  changed_.Mark();
  std::lock_guard<std::mutex> lock(write_mu_);
  if (offset >= NumRows() || IsPlaceholder(offset)) return;
  // Below the rows the files hold, the row is dropped or turned into a placeholder: neither is
  // a row a segment appends.
  if (offset < file_changes_.persisted_rows()) file_changes_.RequireRewrite();
  if (IsDeleted(offset)) {
    num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  } else {
    index_.Erase(offset);
  }
  if (offset + 1 == NumRows()) {
    // Readers that loaded the larger NumRows() may still look at this row: the memory stays,
    // and the stamps they read are this writer's, which they do not see.
    WithdrawBlocks(offset, offset + 1);
    TallyRow(offset, -1);
    create_ts_.pop_back();
    delete_ts_.pop_back();
    PublishBlocks(offset, offset + 1);
    TruncateColumns(offset);
    return;
  }
  // Another writer appended after it: the row keeps its offset as a placeholder. Its stamps
  // change from this writer's (invisible) to a create stamp no snapshot sees.
  Restamp(offset, [&] {
    create_ts_.Set(offset, kNotDeleted);
    delete_ts_.Set(offset, 0);
  });
  num_deleted_.fetch_add(1, std::memory_order_relaxed);
}

void NodeTable::AppendPlaceholders(uint64_t count) {
  changed_.Mark();
  std::lock_guard<std::mutex> lock(write_mu_);
  for (auto& column : columns_) column->AppendNulls(count);
  const uint64_t first = NumRows();
  WithdrawBlocks(first, first + count);
  delete_ts_.resize(delete_ts_.size() + count, 0);
  create_ts_.resize(create_ts_.size() + count, kNotDeleted);
  TallyAppended(first, first + count, kNotDeleted, 0);
  num_deleted_.fetch_add(count, std::memory_order_relaxed);
}

Status NodeTable::FillPlaceholder(uint64_t offset, const std::vector<Value>& values, uint64_t ts) {
  changed_.Mark();
  std::lock_guard<std::mutex> lock(write_mu_);
  if (offset >= NumRows() || !IsPlaceholder(offset) || values.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest,
                  "row " + std::to_string(offset) + " of table " + name_ + " is not a placeholder");
  }
  file_changes_.Touch(offset);
  if (values[pk_column_].is_null()) return NullKey("Runtime exception: ");
  for (size_t i = 0; i < columns_.size(); ++i) {
    Status s = columns_[i]->Set(offset, values[i]);
    if (!s.ok()) {
      for (size_t k = 0; k < i; ++k)
        (void)columns_[k]->Set(offset, Value::Null(columns_[k]->type()));
      return s;
    }
  }
  if (!index_.Insert(offset)) {
    Status dup = DuplicateKey(offset, "Runtime exception: ");
    for (auto& column : columns_) (void)column->Set(offset, Value::Null(column->type()));
    return dup;
  }
  for (size_t i = 0; i < columns_.size(); ++i) {
    if (IsSerial(*columns_[i]) && !values[i].is_null()) {
      next_serial_[i] = std::max(next_serial_[i], columns_[i]->GetInt64(offset) + 1);
    }
  }
  Restamp(offset, [&] {
    create_ts_.Set(offset, ts);
    delete_ts_.Set(offset, kNotDeleted);
  });
  num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  return Status::OK();
}

Status NodeTable::Set(size_t column, uint64_t offset, const Value& value) {
  changed_.Mark();
  if (column >= columns_.size() || offset >= NumRows()) {
    return Status(ErrorCode::kInvalidRequest, "no such cell in table " + name_);
  }
  if (column == pk_column_) {
    return Status(ErrorCode::kInvalidRequest,
                  "the primary key of table " + name_ + " cannot be updated");
  }
  file_changes_.Touch(offset);
  Status s = columns_[column]->Set(offset, value);
  if (s.ok() && IsSerial(*columns_[column]) && !value.is_null()) {
    next_serial_[column] = std::max(next_serial_[column], columns_[column]->GetInt64(offset) + 1);
  }
  return s;
}

std::vector<Value> NodeTable::GetRow(uint64_t offset) const {
  std::vector<Value> row;
  row.reserve(columns_.size());
  for (const auto& c : columns_) row.push_back(c->Get(offset));
  return row;
}

Status NodeTable::BulkAppend(std::vector<Column> columns, uint64_t ts) {
  changed_.Mark();
  if (columns.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest,
                  "bulk append into " + name_ + " expects " + std::to_string(columns_.size()) +
                      " columns, got " + std::to_string(columns.size()));
  }
  uint64_t n = 0;
  for (const auto& c : columns) n = std::max(n, c.size());
  for (size_t i = 0; i < columns.size(); ++i) {
    if (columns[i].type() != columns_[i]->type()) {
      return Status(ErrorCode::kInvalidRequest, "bulk append into " + name_ + ": column " +
                                                    std::to_string(i) + " has type " +
                                                    columns[i].type().ToString() + ", expected " +
                                                    columns_[i]->type().ToString());
    }
    bool serial_fill = IsSerial(columns[i]) && columns[i].size() == 0;
    if (columns[i].size() != n && !serial_fill) {
      return Status(ErrorCode::kInvalidRequest,
                    "bulk append into " + name_ + ": columns have different lengths");
    }
  }
  const uint64_t base = NumRows();
  std::vector<int64_t> serial_before = next_serial_;
  // Draw SERIAL values for NULL entries before the columns move into the table.
  for (size_t i = 0; i < columns.size(); ++i) {
    if (!IsSerial(columns[i])) continue;
    Column& c = columns[i];
    if (c.size() == 0) {
      c.Reserve(n);
      for (uint64_t r = 0; r < n; ++r) c.AppendFixed<int64_t>(next_serial_[i]++);
      continue;
    }
    for (uint64_t r = 0; r < n; ++r) {
      if (c.IsNull(r)) {
        c.SetFixed<int64_t>(r, next_serial_[i]++);
      } else {
        next_serial_[i] = std::max(next_serial_[i], c.GetInt64(r) + 1);
      }
    }
  }
  // Check keys for NULLs before touching the table.
  const Column& keys = columns[pk_column_];
  if (!keys.NoNulls()) {
    next_serial_ = serial_before;
    return NullKey("Copy exception: ");
  }
  if (base == 0) {
    for (size_t i = 0; i < columns.size(); ++i) *columns_[i] = std::move(columns[i]);
  } else {
    for (size_t i = 0; i < columns.size(); ++i) {
      Status s = columns_[i]->AppendColumn(columns[i]);
      GRAPHDB_ASSERT(s.ok());  // types were checked above
    }
  }
  index_.Reserve(index_.size() + n);
  for (uint64_t r = base; r < base + n; ++r) {
    if (!index_.Insert(r)) {
      Status dup = DuplicateKey(r, "Copy exception: ");
      for (uint64_t k = base; k < r; ++k) index_.Erase(k);
      TruncateColumns(base);
      next_serial_ = serial_before;
      return dup;
    }
  }
  WithdrawBlocks(base, base + n);
  create_ts_.resize(base + n, ts);
  delete_ts_.resize(base + n, kNotDeleted);
  TallyAppended(base, base + n, ts, kNotDeleted);
  return Status::OK();
}

Status NodeTable::AddColumn(const LogicalType& type, const Value& fill) {
  changed_.Mark();
  file_changes_.RequireRewrite();
  uint64_t n = NumRows();
  int64_t next_serial = 0;
  std::unique_ptr<Column> column;
  if (type.id() == LogicalTypeId::kSerial && fill.is_null()) {
    column = std::make_unique<Column>(type);
    column->Reserve(n);
    for (uint64_t r = 0; r < n; ++r) column->AppendFixed<int64_t>(next_serial++);
  } else {
    auto filled = MakeFilledColumn(type, fill, n);
    if (!filled.ok()) return filled.status();
    column = std::make_unique<Column>(std::move(*filled));
    if (type.id() == LogicalTypeId::kSerial && n > 0) next_serial = column->GetInt64(0) + 1;
  }
  column->MarkShared();
  columns_.push_back(std::move(column));
  next_serial_.push_back(next_serial);
  return Status::OK();
}

Status NodeTable::DropColumn(size_t column) {
  changed_.Mark();
  file_changes_.RequireRewrite();
  if (column >= columns_.size()) {
    return Status(ErrorCode::kInvalidRequest, "no such column in table " + name_);
  }
  versions_.Clear();  // keyed by column index, which shifts
  if (column == pk_column_) {
    return Status(ErrorCode::kInvalidRequest,
                  "the primary key of table " + name_ + " cannot be dropped");
  }
  columns_.erase(columns_.begin() + static_cast<ptrdiff_t>(column));
  next_serial_.erase(next_serial_.begin() + static_cast<ptrdiff_t>(column));
  if (column < pk_column_) --pk_column_;
  return Status::OK();
}

void NodeTable::WithdrawBlocks(uint64_t first, uint64_t end) {
  if (first >= end) return;
  high_water_rows_ = std::max(high_water_rows_, end);
  const uint64_t last = (end - 1) >> kVisibleBlockShift;
  if (last >= block_tally_.size()) [[unlikely]] {
    while (block_tally_.size() <= last) {
      block_visible_from_.push_back(kBlockNotClean);
      block_tally_.emplace_back();
    }
  }
  for (uint64_t b = first >> kVisibleBlockShift; b <= last; ++b) {
    BlockTally& t = block_tally_[b];
    if (t.published != kBlockNotClean) {
      block_visible_from_.Set(b, kBlockNotClean);
      t.published = kBlockNotClean;
    }
  }
}

void NodeTable::TallyRow(uint64_t offset, int sign) {
  TallyStamps(offset, create_ts_[offset], delete_ts_[offset], sign);
}

void NodeTable::TallyStamps(uint64_t offset, uint64_t created, uint64_t deleted, int sign) {
  BlockTally& t = block_tally_[offset >> kVisibleBlockShift];
  if (Unclean(created, deleted)) {
    t.unclean = sign > 0 ? t.unclean + 1 : t.unclean - 1;
  } else if (sign > 0) {
    t.newest = std::max(t.newest, created);
  }
}

void NodeTable::PublishBlocks(uint64_t first, uint64_t end) {
  if (first >= end) return;
  const uint64_t rows = NumRows();
  for (uint64_t b = first >> kVisibleBlockShift, last = (end - 1) >> kVisibleBlockShift; b <= last;
       ++b) {
    BlockTally& t = block_tally_[b];
    // Dropped rows in [rows, high_water_rows_) that fall in this block.
    const bool dropped = rows < high_water_rows_ && rows < ((b + 1) << kVisibleBlockShift) &&
                         high_water_rows_ > (b << kVisibleBlockShift);
    const uint64_t value = t.unclean == 0 && !dropped ? t.newest : kBlockNotClean;
    if (value != t.published) {
      block_visible_from_.Set(b, value);
      t.published = value;
    }
  }
}

void NodeTable::TallyAppended(uint64_t first, uint64_t end, uint64_t created, uint64_t deleted) {
  const bool unclean = Unclean(created, deleted);
  for (uint64_t row = first; row < end;) {
    const uint64_t b = row >> kVisibleBlockShift;
    const uint64_t stop = std::min(end, (b + 1) << kVisibleBlockShift);
    BlockTally& t = block_tally_[b];
    if (unclean) {
      t.unclean += stop - row;
    } else {
      t.newest = std::max(t.newest, created);
    }
    row = stop;
  }
  PublishBlocks(first, end);
}

void NodeTable::RecountBlocks() {
  const uint64_t rows = NumRows();
  block_visible_from_.clear();
  block_tally_.clear();
  high_water_rows_ = 0;
  WithdrawBlocks(0, rows);
  // The stored words: a clean row's delete word is 0 (kNotDeleted XOR its bias), and its
  // create stamp is its create word.
  const uint64_t* created = create_ts_.words();
  const uint64_t* deleted = delete_ts_.words();
  for (uint64_t row = 0; row < rows; ++row) {
    BlockTally& t = block_tally_[row >> kVisibleBlockShift];
    const uint64_t c = created[row] ^ create_ts_.bias();
    if (Unclean(c, deleted[row] ^ delete_ts_.bias())) {
      ++t.unclean;
    } else {
      t.newest = std::max(t.newest, c);
    }
  }
  PublishBlocks(0, rows);
}

size_t NodeTable::MemoryUsage() const {
  size_t total = index_.MemoryUsage() + create_ts_.MemoryUsage() + delete_ts_.MemoryUsage() +
                 block_visible_from_.MemoryUsage() + block_tally_.capacity() * sizeof(BlockTally);
  for (const auto& c : columns_) total += c->MemoryUsage();
  return total;
}

void NodeTable::FreeRetired() {
  for (auto& c : columns_) c->FreeRetired();
  create_ts_.FreeRetired();
  delete_ts_.FreeRetired();
  block_visible_from_.FreeRetired();
  index_.FreeRetired();
}

// Layout: varint table id | varint rows | varint #columns | per column: type text, zigzag
// next_serial, column data | create_ts stamps | delete_ts stamps.
void NodeTable::Serialize(catalog::BinaryWriter& out) const {
  out.PutVarint(table_id_);
  out.PutVarint(NumRows());
  out.PutVarint(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    out.PutString(columns_[i]->type().ToString());
    out.PutSignedVarint(next_serial_[i]);
    columns_[i]->Serialize(out);
  }
  WriteStamps(out, create_ts_);
  WriteStamps(out, delete_ts_);
}

template <typename ReadColumn>
Result<std::pair<std::unique_ptr<NodeTable>, uint64_t>> NodeTable::ReadHeaderAndColumns(
    catalog::BinaryReader& in, const catalog::NodeTableSchema& schema, bool mapped,
    ReadColumn&& read_column) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "node table " + schema.name + " is corrupt: " + why);
  };
  uint64_t id;
  uint64_t rows;
  uint64_t ncols;
  if (!in.GetVarint(&id) || !in.GetVarint(&rows) || !in.GetVarint(&ncols)) {
    return corrupt("truncated header");
  }
  if (id != schema.id) return corrupt("table id " + std::to_string(id) + " does not match");
  // Stream form: the key column holds a non-NULL value, hence at least one byte, for every
  // row. Mapped form: the sections are checked against the count as they are mapped.
  if (mapped ? rows > (1ULL << 40) : rows > in.remaining()) {
    return corrupt("row count exceeds the data");
  }
  if (ncols != schema.properties.size()) return corrupt("column count does not match catalog");
  auto table = std::make_unique<NodeTable>(schema);
  for (size_t i = 0; i < ncols; ++i) {
    std::string type_text;
    int64_t next_serial;
    if (!in.GetString(&type_text) || !in.GetSignedVarint(&next_serial)) {
      return corrupt("truncated column header");
    }
    if (type_text != schema.properties[i].type.ToString()) {
      return corrupt("column " + schema.properties[i].name + " has type " + type_text);
    }
    auto column = read_column(in, schema.properties[i].type);
    if (!column.ok()) return corrupt(column.status().message());
    if (column->size() != rows) return corrupt("column length mismatch");
    *table->columns_[i] = std::move(*column);
    table->next_serial_[i] = next_serial;
  }
  return std::make_pair(std::move(table), rows);
}

Result<std::unique_ptr<NodeTable>> NodeTable::Deserialize(catalog::BinaryReader& in,
                                                          const catalog::NodeTableSchema& schema) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "node table " + schema.name + " is corrupt: " + why);
  };
  auto read = ReadHeaderAndColumns(in, schema, /*mapped=*/false, &Column::Deserialize);
  if (!read.ok()) return read.status();
  auto [table, rows] = std::move(*read);
  if (!ReadStamps(in, rows, &table->create_ts_) || !ReadStamps(in, rows, &table->delete_ts_)) {
    return corrupt("truncated stamps");
  }
  std::vector<bool> live(rows);
  for (uint64_t r = 0; r < rows; ++r) {
    live[r] = table->delete_ts_[r] == kNotDeleted;
    if (!live[r]) {
      table->num_deleted_.fetch_add(1, std::memory_order_relaxed);
    } else if (table->columns_[table->pk_column_]->IsNull(r)) {
      return corrupt("NULL primary key");
    }
  }
  table->loaded_max_stamp_ = NewestCommittedStamp(table->create_ts_, table->delete_ts_);
  if (!table->index_.Rebuild(rows, live)) return corrupt("duplicate primary key");
  table->RecountBlocks();
  return table;
}

// Format version 3: varint table id | varint rows | varint #columns | per column: type text,
// zigzag next_serial, column (mapped form) | create_ts, delete_ts stamps (mapped form) |
// primary-key index (mapped form) | varint deleted rows | varint newest committed stamp.
void NodeTable::SerializeMapped(TableSink& out) const {
  catalog::BinaryWriter& d = out.descriptor();
  d.PutVarint(table_id_);
  d.PutVarint(NumRows());
  d.PutVarint(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    d.PutString(columns_[i]->type().ToString());
    d.PutSignedVarint(next_serial_[i]);
    columns_[i]->SerializeMapped(out);
  }
  WriteMappedStamps(out, create_ts_);
  WriteMappedStamps(out, delete_ts_);
  index_.SerializeMapped(out);
  d.PutVarint(num_deleted_.load(std::memory_order_relaxed));
  d.PutVarint(NewestCommittedStamp(create_ts_, delete_ts_));
}

Result<std::unique_ptr<NodeTable>> NodeTable::DeserializeMapped(
    catalog::BinaryReader& in, const SectionSource& sections,
    const catalog::NodeTableSchema& schema) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "node table " + schema.name + " is corrupt: " + why);
  };
  auto read = ReadHeaderAndColumns(in, schema, /*mapped=*/true,
                                   [&](catalog::BinaryReader& r, const LogicalType& type) {
                                     return Column::DeserializeMapped(r, sections, type);
                                   });
  if (!read.ok()) return read.status();
  auto [table, rows] = std::move(*read);
  const uint64_t capacity = MappedCapacity(rows);
  std::optional<uint64_t> uniform[2];
  int k = 0;
  for (StampVector* stamps : {&table->create_ts_, &table->delete_ts_}) {
    Status s = ReadMappedStamps(in, sections, rows, capacity, stamps, &uniform[k++]);
    if (!s.ok()) return corrupt(s.message());
  }
  // Uniform stamps (a bulk load's) give the blocks without reading the rows' stamps.
  if (uniform[0] && uniform[1]) {
    table->WithdrawBlocks(0, rows);
    table->TallyAppended(0, rows, *uniform[0], *uniform[1]);
  } else {
    table->RecountBlocks();
  }
  Status s = table->index_.LoadMapped(in, sections);
  if (!s.ok()) return corrupt(s.message());
  uint64_t deleted;
  if (!in.GetVarint(&deleted) || !in.GetVarint(&table->loaded_max_stamp_)) {
    return corrupt("truncated trailer");
  }
  if (deleted > rows) return corrupt("more deleted rows than rows");
  table->num_deleted_.store(deleted, std::memory_order_relaxed);
  return table;
}

}  // namespace graphdb::storage
