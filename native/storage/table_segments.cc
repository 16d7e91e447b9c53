// Append segments of node and rel tables (docs/storage-format.md, "Segments"): the rows a
// table gained or changed since its files, written by a checkpoint instead of the whole table
// and applied on top of the mapped base file at open.
//
// Node table segment (the descriptor of a data file of kind 4, no sections):
//   varint table id | varint first row (rows of the files before it) | varint new rows
//   | varint #columns | per column: string type, zigzag next SERIAL value
//   | varint #changed rows | per changed row (ascending, below the first row): varint gap from
//     the previous one (the first from 0)
//   | per column: column encoding (stream form) of the changed rows, then of the new rows
//   | create_ts, delete_ts stamps (stream form) of the changed rows, then of the new rows
//   | varint deleted rows (of the whole table) | varint newest committed stamp of its rows
// Rel table segment (kind 5): the same with the pair id and rel offsets, without SERIAL
// counters, and before the trailer each direction's new adjacency entries:
//   varint #vertices | per vertex (ascending): varint gap from the previous one, varint count,
//   per entry (in delta-list order): varint neighbour, varint rel
#include <algorithm>

#include "storage/node_table.h"
#include "storage/rel_table.h"
#include "storage/stamp_codec.h"

namespace graphdb::storage {

namespace {

// The rows a segment holds: the changed ones below `first`, then first .. rows - 1.
std::vector<uint64_t> SegmentRowList(const FileChanges& changes, uint64_t rows) {
  std::vector<uint64_t> at = changes.rows();
  for (uint64_t r = changes.persisted_rows(); r < rows; ++r) at.push_back(r);
  return at;
}

void WriteRowList(catalog::BinaryWriter& out, const FileChanges& changes) {
  const std::vector<uint64_t> rows = changes.rows();
  out.PutVarint(rows.size());
  uint64_t previous = 0;
  for (uint64_t r : rows) {
    out.PutVarint(r - previous);
    previous = r;
  }
}

// A column's values at `at[begin, end)`, in the stream column encoding.
void WriteColumnRows(catalog::BinaryWriter& out, const Column& column,
                     const std::vector<uint64_t>& at, size_t begin, size_t end) {
  Column part(column.type());
  part.Reserve(end - begin);
  for (size_t i = begin; i < end; ++i) {
    Status s = part.Append(column.Get(at[i]));
    GRAPHDB_ASSERT(s.ok());  // a value of the column's own type
  }
  part.Serialize(out);
}

void WriteStampRows(catalog::BinaryWriter& out, const StampVector& stamps,
                    const std::vector<uint64_t>& at, size_t begin, size_t end) {
  StampVector part(stamps.bias());
  for (size_t i = begin; i < end; ++i) part.push_back(stamps[at[i]]);
  WriteStamps(out, part);
}

uint64_t NewestCommitted(const StampVector& created, const StampVector& deleted,
                         const std::vector<uint64_t>& at) {
  uint64_t newest = 0;
  for (uint64_t r : at) {
    for (uint64_t ts : {created[r], deleted[r]}) {
      if (ts < kUncommittedBase) newest = std::max(newest, ts);
    }
  }
  return newest;
}

Status Bad(const std::string& why) { return Status(ErrorCode::kCorruption, why); }

constexpr uint64_t kMaxSegmentRows = 1ULL << 40;

// The header both kinds of segment start with (table id, first row, new rows, column count),
// checked against the table it is applied to, which holds `rows` rows (rels: `unit` names
// them in the errors) and `columns` columns. `*added`: the segment's new rows.
Status ReadSegmentHeader(catalog::BinaryReader& in, uint64_t table_id, uint64_t rows,
                         size_t columns, const std::string& unit, uint64_t* added) {
  uint64_t id, first, ncols;
  if (!in.GetVarint(&id) || !in.GetVarint(&first) || !in.GetVarint(added) ||
      !in.GetVarint(&ncols)) {
    return Bad("truncated segment header");
  }
  if (id != table_id) return Bad("segment of table " + std::to_string(id));
  if (first != rows) {
    return Bad("segment starts at " + unit + " " + std::to_string(first) + " of " +
               std::to_string(rows));
  }
  // The segment's bytes were checked whole (its file's CRC): the bound only keeps a bad writer
  // from asking for absurd allocations.
  if (*added > kMaxSegmentRows) return Bad(unit + " count exceeds the segment");
  if (ncols != columns) return Bad("segment column count does not match");
  return Status::OK();
}

// The changed rows of a segment: ascending, below `first`.
Status ReadRowList(catalog::BinaryReader& in, uint64_t first, std::vector<uint64_t>* rows) {
  uint64_t n;
  if (!in.GetVarint(&n) || n > in.remaining() || n > first) return Bad("bad changed-row list");
  rows->reserve(n);
  uint64_t row = 0;
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t gap;
    if (!in.GetVarint(&gap) || (i > 0 && gap == 0) || gap >= first - row) {
      return Bad("bad changed-row list");
    }
    row += gap;
    rows->push_back(row);
  }
  return Status::OK();
}

// The two column parts (changed rows, new rows) of each of `types`.
Status ReadColumnParts(catalog::BinaryReader& in, const std::vector<LogicalType>& types,
                       uint64_t changed, uint64_t added, std::vector<Column>* old_part,
                       std::vector<Column>* new_part) {
  for (const LogicalType& type : types) {
    for (auto [part, rows] : {std::pair{old_part, changed}, std::pair{new_part, added}}) {
      auto column = Column::Deserialize(in, type);
      if (!column.ok()) return Bad(column.status().message());
      if (column->size() != rows) return Bad("column length mismatch");
      part->push_back(std::move(*column));
    }
  }
  return Status::OK();
}

// create_ts and delete_ts of the changed rows, then of the new rows.
bool ReadStampParts(catalog::BinaryReader& in, uint64_t changed, uint64_t added,
                    StampVector (&old_part)[2], StampVector (&new_part)[2]) {
  for (int k = 0; k < 2; ++k) {
    if (!ReadStamps(in, changed, &old_part[k]) || !ReadStamps(in, added, &new_part[k])) {
      return false;
    }
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Node tables

void NodeTable::SerializeSegment(catalog::BinaryWriter& d) const {
  const uint64_t first = file_changes_.persisted_rows();
  const uint64_t rows = NumRows();
  GRAPHDB_ASSERT(rows >= first && !file_changes_.rewrite());
  const std::vector<uint64_t> at = SegmentRowList(file_changes_, rows);
  const size_t changed = file_changes_.changed_count();
  d.PutVarint(table_id_);
  d.PutVarint(first);
  d.PutVarint(rows - first);
  d.PutVarint(columns_.size());
  for (size_t i = 0; i < columns_.size(); ++i) {
    d.PutString(columns_[i]->type().ToString());
    d.PutSignedVarint(next_serial_[i]);
  }
  WriteRowList(d, file_changes_);
  for (const auto& column : columns_) {
    WriteColumnRows(d, *column, at, 0, changed);
    WriteColumnRows(d, *column, at, changed, at.size());
  }
  for (const StampVector* stamps : {&create_ts_, &delete_ts_}) {
    WriteStampRows(d, *stamps, at, 0, changed);
    WriteStampRows(d, *stamps, at, changed, at.size());
  }
  d.PutVarint(num_deleted_.load(std::memory_order_relaxed));
  d.PutVarint(NewestCommitted(create_ts_, delete_ts_, at));
}

Status NodeTable::ApplySegment(catalog::BinaryReader& in) {
  const uint64_t first = NumRows();
  uint64_t added;
  Status header = ReadSegmentHeader(in, table_id_, first, columns_.size(), "row", &added);
  if (!header.ok()) return header;
  const uint64_t ncols = columns_.size();
  std::vector<int64_t> next_serial(ncols);
  for (size_t i = 0; i < ncols; ++i) {
    std::string type;
    if (!in.GetString(&type) || !in.GetSignedVarint(&next_serial[i])) {
      return Bad("truncated segment column header");
    }
    if (type != columns_[i]->type().ToString()) return Bad("segment column has type " + type);
  }
  std::vector<uint64_t> changed;
  if (Status s = ReadRowList(in, first, &changed); !s.ok()) return s;
  std::vector<Column> old_part, new_part;
  if (Status s = ReadColumnParts(in, ColumnTypes(), changed.size(), added, &old_part, &new_part);
      !s.ok()) {
    return s;
  }
  StampVector old_stamps[2] = {StampVector(0), StampVector(kNotDeleted)};
  StampVector new_stamps[2] = {StampVector(0), StampVector(kNotDeleted)};
  uint64_t deleted, newest;
  if (!ReadStampParts(in, changed.size(), added, old_stamps, new_stamps) ||
      !in.GetVarint(&deleted) || !in.GetVarint(&newest)) {
    return Bad("truncated segment stamps");
  }
  if (deleted > first + added) return Bad("more deleted rows than rows");
  const Column& new_keys = new_part[pk_column_];
  for (uint64_t i = 0; i < changed.size(); ++i) {
    if (old_stamps[1][i] == kNotDeleted && old_part[pk_column_].IsNull(i)) {
      return Bad("NULL primary key");
    }
  }
  for (uint64_t i = 0; i < added; ++i) {
    if (new_stamps[1][i] == kNotDeleted && new_keys.IsNull(i)) return Bad("NULL primary key");
  }
  // The changed rows: a row leaving the live ones takes its key out of the index before its
  // key cell changes (only a placeholder's does), one joining them puts it in after.
  for (uint64_t i = 0; i < changed.size(); ++i) {
    const uint64_t row = changed[i];
    const bool was_live = !IsDeleted(row);
    const bool live = old_stamps[1][i] == kNotDeleted;
    if (was_live && !live) index_.Erase(row);
    for (size_t c = 0; c < ncols; ++c) {
      Status s = columns_[c]->Set(row, old_part[c].Get(i));
      if (!s.ok()) return Bad(s.message());
    }
    Restamp(row, [&] {
      create_ts_.Set(row, old_stamps[0][i]);
      delete_ts_.Set(row, old_stamps[1][i]);
    });
    if (live && !was_live && !index_.Insert(row)) return Bad("duplicate primary key");
  }
  // The new rows.
  for (size_t c = 0; c < ncols; ++c) {
    Status s = columns_[c]->AppendColumn(new_part[c]);
    if (!s.ok()) return Bad(s.message());
  }
  WithdrawBlocks(first, first + added);
  for (uint64_t i = 0; i < added; ++i) {
    delete_ts_.push_back(new_stamps[1][i]);
    create_ts_.push_back(new_stamps[0][i]);
    TallyRow(first + i, 1);
  }
  PublishBlocks(first, first + added);
  index_.Reserve(index_.size() + added);
  index_.PrepareInserts(first, added);
  for (uint64_t r = first; r < first + added; ++r) {
    if (delete_ts_[r] == kNotDeleted && !index_.Insert(r)) return Bad("duplicate primary key");
  }
  next_serial_ = std::move(next_serial);
  num_deleted_.store(deleted, std::memory_order_relaxed);
  loaded_max_stamp_ = std::max(loaded_max_stamp_, newest);
  return Status::OK();
}

// ---------------------------------------------------------------------------------------------
// Rel tables

void RelTable::SerializeSegment(catalog::BinaryWriter& d) const {
  const uint64_t first = file_changes_.persisted_rows();
  const uint64_t rels = NumRels();
  GRAPHDB_ASSERT(rels >= first && !file_changes_.rewrite());
  const std::vector<uint64_t> at = SegmentRowList(file_changes_, rels);
  const size_t changed = file_changes_.changed_count();
  d.PutVarint(table_id_);
  d.PutVarint(first);
  d.PutVarint(rels - first);
  d.PutVarint(columns_.size());
  for (const auto& column : columns_) d.PutString(column->type().ToString());
  WriteRowList(d, file_changes_);
  for (const auto& column : columns_) {
    WriteColumnRows(d, *column, at, 0, changed);
    WriteColumnRows(d, *column, at, changed, at.size());
  }
  for (const StampVector* stamps : {&create_ts_, &delete_ts_}) {
    WriteStampRows(d, *stamps, at, 0, changed);
    WriteStampRows(d, *stamps, at, changed, at.size());
  }
  // The new rels' adjacency entries: every entry at or above `first` is in a delta list (a
  // CSR rebuild or an entry for an older rel requires a rewrite instead).
  for (const Adjacency& a : adj_) {
    std::vector<std::pair<uint64_t, std::vector<AdjEntry>>> vertices;
    for (uint64_t v = 0, n = a.delta_slot.size(); v < n; ++v) {
      const uint32_t slot = a.delta_slot[v];
      if (slot == 0) continue;
      const DeltaList& list = *a.delta_lists[slot - 1];
      std::vector<AdjEntry> entries;
      for (size_t i = 0, m = list.size(); i < m; ++i) {
        if (list[i].rel >= first) entries.push_back(list[i]);
      }
      if (!entries.empty()) vertices.emplace_back(v, std::move(entries));
    }
    d.PutVarint(vertices.size());
    uint64_t previous = 0;
    for (const auto& [v, entries] : vertices) {
      d.PutVarint(v - previous);
      previous = v;
      d.PutVarint(entries.size());
      for (const AdjEntry& e : entries) {
        d.PutVarint(e.neighbor);
        d.PutVarint(e.rel);
      }
    }
  }
  d.PutVarint(num_deleted_.load(std::memory_order_relaxed));
  d.PutVarint(NewestCommitted(create_ts_, delete_ts_, at));
}

Status RelTable::ApplySegment(catalog::BinaryReader& in, uint64_t src_rows, uint64_t dst_rows) {
  const uint64_t first = NumRels();
  uint64_t added;
  Status header = ReadSegmentHeader(in, table_id_, first, columns_.size(), "rel", &added);
  if (!header.ok()) return header;
  const uint64_t ncols = columns_.size();
  std::vector<LogicalType> types;
  for (size_t i = 0; i < ncols; ++i) {
    std::string type;
    if (!in.GetString(&type)) return Bad("truncated segment column header");
    if (type != columns_[i]->type().ToString()) return Bad("segment column has type " + type);
    types.push_back(columns_[i]->type());
  }
  std::vector<uint64_t> changed;
  if (Status s = ReadRowList(in, first, &changed); !s.ok()) return s;
  std::vector<Column> old_part, new_part;
  if (Status s = ReadColumnParts(in, types, changed.size(), added, &old_part, &new_part); !s.ok()) {
    return s;
  }
  StampVector old_stamps[2] = {StampVector(0), StampVector(kNotDeleted)};
  StampVector new_stamps[2] = {StampVector(0), StampVector(kNotDeleted)};
  if (!ReadStampParts(in, changed.size(), added, old_stamps, new_stamps)) {
    return Bad("truncated segment stamps");
  }
  // The adjacency entries, checked before anything changes.
  const uint64_t rels = first + added;
  std::vector<std::pair<uint64_t, AdjEntry>> entries[2];
  for (int dir = 0; dir < 2; ++dir) {
    const uint64_t vertex_bound = dir == 0 ? src_rows : dst_rows;
    const uint64_t neighbor_bound = dir == 0 ? dst_rows : src_rows;
    uint64_t n, vertex = 0;
    if (!in.GetVarint(&n) || n > in.remaining()) return Bad("truncated segment adjacency");
    for (uint64_t k = 0; k < n; ++k) {
      uint64_t gap, count;
      if (!in.GetVarint(&gap) || !in.GetVarint(&count) || count > in.remaining() ||
          (k > 0 && gap == 0) || gap >= vertex_bound - vertex) {
        return Bad("bad segment adjacency");
      }
      vertex += gap;
      for (uint64_t i = 0; i < count; ++i) {
        AdjEntry e;
        if (!in.GetVarint(&e.neighbor) || !in.GetVarint(&e.rel) || e.neighbor >= neighbor_bound ||
            e.rel < first || e.rel >= rels) {
          return Bad("bad segment adjacency entry");
        }
        entries[dir].emplace_back(vertex, e);
      }
    }
  }
  uint64_t deleted, newest;
  if (!in.GetVarint(&deleted) || !in.GetVarint(&newest)) return Bad("truncated segment trailer");
  if (deleted > rels) return Bad("more deleted rels than rels");
  for (uint64_t i = 0; i < changed.size(); ++i) {
    const uint64_t rel = changed[i];
    for (size_t c = 0; c < ncols; ++c) {
      Status s = columns_[c]->Set(rel, old_part[c].Get(i));
      if (!s.ok()) return Bad(s.message());
    }
    // A CSR edge stamped deleted, or created later than the CSR's newest, makes the CSR unclean
    // (as SetDeleteTs and SetCreateTs do).
    const uint64_t created = old_stamps[0][i], deleted_at = old_stamps[1][i];
    for (const Adjacency& a : adj_) {
      if (rel < a.csr_rel_bound && (deleted_at != kNotDeleted ||
                                    created > a.csr_created_upto.load(std::memory_order_relaxed))) {
        WithdrawCsrStamps();
      }
    }
    create_ts_.Set(rel, created);
    delete_ts_.Set(rel, deleted_at);
  }
  for (size_t c = 0; c < ncols; ++c) {
    Status s = columns_[c]->AppendColumn(new_part[c]);
    if (!s.ok()) return Bad(s.message());
  }
  for (uint64_t i = 0; i < added; ++i) {
    delete_ts_.push_back(new_stamps[1][i]);
    create_ts_.push_back(new_stamps[0][i]);
  }
  for (int dir = 0; dir < 2; ++dir) {
    for (const auto& [vertex, e] : entries[dir]) adj_[dir].AddDelta(vertex, e);
  }
  num_deleted_.store(deleted, std::memory_order_relaxed);
  loaded_max_stamp_ = std::max(loaded_max_stamp_, newest);
  return Status::OK();
}

}  // namespace graphdb::storage
