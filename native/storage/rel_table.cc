#include "storage/rel_table.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "storage/stamp_codec.h"

namespace graphdb::storage {

namespace {

const char* DirectionName(Direction dir) { return dir == Direction::kForward ? "fwd" : "bwd"; }

bool IsSerial(const Column& c) { return c.type().id() == LogicalTypeId::kSerial; }

// Bytes of an adjacency entry stored as {u32 neighbour, u32 rel} (format version 2).
constexpr uint8_t kNarrowEntryBytes = 8;

}  // namespace

void RelTable::Adjacency::AddDelta(uint64_t vertex, AdjEntry e) {
  if (vertex >= delta_slot.size()) delta_slot.resize(vertex + 1, 0);
  uint32_t slot = delta_slot[vertex];
  if (slot == 0) {
    owned_lists.push_back(std::make_unique<DeltaList>());
    delta_lists.push_back(owned_lists.back().get());
    slot = static_cast<uint32_t>(delta_lists.size());
    delta_slot.Set(vertex, slot);
  }
  delta_lists[slot - 1]->push_back(e);
  delta_entries.fetch_add(1, std::memory_order_relaxed);
}

bool RelTable::Adjacency::RemoveLastDelta(uint64_t vertex, AdjEntry e) {
  if (vertex >= delta_slot.size() || delta_slot[vertex] == 0) return false;
  DeltaList& list = *delta_lists[delta_slot[vertex] - 1];
  if (list.empty() || !(list.back() == e)) return false;
  list.pop_back();
  delta_entries.fetch_sub(1, std::memory_order_relaxed);
  // Forget vertices past the end that no longer have entries, so the adjacency does not claim
  // vertices that an undone node insert removed.
  auto unused = [&](uint32_t slot) { return slot == 0 || delta_lists[slot - 1]->empty(); };
  while (delta_slot.size() > CsrVertices() && unused(delta_slot.back())) delta_slot.pop_back();
  return true;
}

void RelTable::Adjacency::SetCsr(BulkVector<uint64_t> new_offsets,
                                 BulkVector<AdjEntry> new_entries) {
  uint64_t largest_neighbor = 0;
  uint64_t largest_rel = 0;
  bool rel_is_position = true;
  for (size_t i = 0; i < new_entries.size(); ++i) {
    largest_neighbor = std::max(largest_neighbor, new_entries[i].neighbor);
    largest_rel = std::max(largest_rel, new_entries[i].rel);
    rel_is_position = rel_is_position && new_entries[i].rel == i;
  }
  PackedWidths w;
  w.neighbor_bytes = BytesFor(largest_neighbor);
  w.rel_bytes = rel_is_position ? 0 : BytesFor(largest_rel);
  w.offset_bytes = BytesFor(new_entries.size());
  offsets_region.reset();
  entries_region.reset();
  SetWidths(w);
  num_offsets = new_offsets.size();
  own_offsets.assign(new_offsets.size() * w.offset_bytes + kPackedTail, 0);
  for (size_t v = 0; v < new_offsets.size(); ++v) {
    StorePacked(own_offsets.data() + v * w.offset_bytes, new_offsets[v]);
  }
  new_offsets = {};
  const uint32_t stride = w.entry_bytes();
  own_entries.assign(new_entries.size() * stride + kPackedTail, 0);
  uint8_t* e = own_entries.data();
  for (size_t i = 0; i < new_entries.size(); ++i, e += stride) {
    StorePacked(e, new_entries[i].neighbor);
    if (w.rel_bytes != 0) StorePacked(e + w.neighbor_bytes, new_entries[i].rel);
  }
  num_entries = new_entries.size();
  offsets = own_offsets.data();
  entries = own_entries.data();
  neighbor_bound = UINT64_MAX;
}

void RelTable::Adjacency::ClearDeltas() {
  delta_slot.clear();
  delta_lists.clear();
  owned_lists.clear();
  owned_lists.shrink_to_fit();
  delta_entries.store(0, std::memory_order_relaxed);
}

bool RelTable::UndoInsert(uint64_t rel, uint64_t src, uint64_t dst) {
  changed_.Mark();
  std::lock_guard<std::mutex> lock(write_mu_);
  if (rel >= NumRels()) return false;
  // Below the rels the files hold, the row may lose its adjacency entries, which a segment does
  // not express.
  if (rel < file_changes_.persisted_rows()) file_changes_.RequireRewrite();
  // Stays as a row seen by no snapshot: create stamp never visible, deleted at 0.
  auto keep_unseen = [&] {
    WithdrawCsrStamps();
    if (!IsDeleted(rel)) num_deleted_.fetch_add(1, std::memory_order_relaxed);
    create_ts_.Set(rel, kNotDeleted);
    delete_ts_.Set(rel, 0);
    return false;
  };
  if (rel + 1 != NumRels() || IsDeleted(rel)) return keep_unseen();
  Adjacency& fwd = adj_[0];
  Adjacency& bwd = adj_[1];
  const AdjEntry f{dst, rel}, b{src, rel};
  auto last_is = [](const Adjacency& a, uint64_t v, const AdjEntry& e) {
    if (v >= a.delta_slot.size() || a.delta_slot[v] == 0) return false;
    const DeltaList& list = *a.delta_lists[a.delta_slot[v] - 1];
    return !list.empty() && list.back() == e;
  };
  if (!last_is(fwd, src, f) || !last_is(bwd, dst, b)) return keep_unseen();
  fwd.RemoveLastDelta(src, f);
  bwd.RemoveLastDelta(dst, b);
  create_ts_.pop_back();
  delete_ts_.pop_back();
  for (auto& column : columns_) column->Truncate(rel);
  return true;
}

RelTable::RelTable(const catalog::RelTableSchema& schema, const catalog::RelTablePair& pair)
    : table_id_(pair.id), name_(schema.name), src_table_(pair.src_table),
      dst_table_(pair.dst_table), multiplicity_(schema.multiplicity) {
  for (const auto& p : schema.properties) {
    columns_.push_back(std::make_unique<Column>(p.type));
    columns_.back()->MarkShared();
  }
}

Status RelTable::Set(size_t column, uint64_t rel, const Value& value) {
  changed_.Mark();
  if (column >= columns_.size() || rel >= NumRels()) {
    return Status(ErrorCode::kInvalidRequest, "no such cell in rel table " + name_);
  }
  file_changes_.Touch(rel);
  return columns_[column]->Set(rel, value);
}

Status RelTable::MultiplicityError(const char* prefix, uint64_t vertex, Direction dir) const {
  return Status(ErrorCode::kConstraintViolation,
                std::string(prefix) + "Node(nodeOffset: " + std::to_string(vertex) +
                    ") has more than one neighbour in table " + name_ + " in the " +
                    DirectionName(dir) +
                    " direction, which violates the rel multiplicity constraint.");
}

Status RelTable::CheckMultiplicity(uint64_t src, uint64_t dst) const {
  if (catalog::IsSingleForward(multiplicity_) && LiveDegree(src, Direction::kForward) > 0) {
    return MultiplicityError("Runtime exception: ", src, Direction::kForward);
  }
  if (catalog::IsSingleBackward(multiplicity_) && LiveDegree(dst, Direction::kBackward) > 0) {
    return MultiplicityError("Runtime exception: ", dst, Direction::kBackward);
  }
  return Status::OK();
}

Result<uint64_t> RelTable::InsertEdge(uint64_t src, uint64_t dst, const std::vector<Value>& props,
                                      uint64_t ts) {
  changed_.Mark();
  if (props.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest, "insert into " + name_ + " expects " +
                                                  std::to_string(columns_.size()) +
                                                  " values, got " + std::to_string(props.size()));
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  if (Status s = CheckMultiplicity(src, dst); !s.ok()) return s;
  uint64_t rel = NumRels();
  for (size_t i = 0; i < columns_.size(); ++i) {
    Status s;
    if (IsSerial(*columns_[i]) && props[i].is_null()) {
      columns_[i]->AppendFixed<int64_t>(static_cast<int64_t>(rel));  // the rel's own number
    } else {
      s = columns_[i]->Append(props[i]);
    }
    if (!s.ok()) {
      for (size_t k = 0; k < i; ++k) columns_[k]->Truncate(rel);
      return s;
    }
  }
  // The stamps first (NumRels() covers the rel once create_ts has it), then the adjacency:
  // a reader that finds the entry finds its stamps, which it does not see until the commit.
  delete_ts_.push_back(kNotDeleted);
  create_ts_.push_back(ts);
  adj_[0].AddDelta(src, AdjEntry{dst, rel});
  adj_[1].AddDelta(dst, AdjEntry{src, rel});
  return rel;
}

Status RelTable::DeleteEdge(uint64_t rel, uint64_t ts) {
  changed_.Mark();
  if (rel >= NumRels()) {
    return Status(ErrorCode::kInvalidRequest,
                  "rel " + std::to_string(rel) + " does not exist in table " + name_);
  }
  if (IsDeleted(rel)) {
    return Status(ErrorCode::kInvalidRequest,
                  "rel " + std::to_string(rel) + " of table " + name_ + " is already deleted");
  }
  file_changes_.Touch(rel);
  WithdrawCsrStamps();
  delete_ts_.Set(rel, ts);
  num_deleted_.fetch_add(1, std::memory_order_relaxed);
  return Status::OK();
}

Status RelTable::UndoDelete(uint64_t rel) {
  changed_.Mark();
  if (rel >= NumRels() || !IsDeleted(rel)) {
    return Status(ErrorCode::kInvalidRequest,
                  "rel " + std::to_string(rel) + " of table " + name_ + " is not deleted");
  }
  file_changes_.Touch(rel);
  delete_ts_.Set(rel, kNotDeleted);
  num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  return Status::OK();
}

Status RelTable::FillTombstone(uint64_t rel, uint64_t src, uint64_t dst,
                               const std::vector<Value>& props, uint64_t ts) {
  changed_.Mark();
  std::lock_guard<std::mutex> lock(write_mu_);
  if (rel >= NumRels() || !IsTombstone(rel) || props.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest,
                  "rel " + std::to_string(rel) + " of table " + name_ + " is not a tombstone");
  }
  if (Status s = CheckMultiplicity(src, dst); !s.ok()) return s;
  // A tombstone the files hold gains adjacency entries below the rels a segment appends.
  if (rel < file_changes_.persisted_rows()) file_changes_.RequireRewrite();
  for (size_t i = 0; i < columns_.size(); ++i) {
    Status s = columns_[i]->Set(rel, props[i]);
    if (!s.ok()) return s;
  }
  create_ts_.Set(rel, ts);
  delete_ts_.Set(rel, kNotDeleted);
  num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  adj_[0].AddDelta(src, AdjEntry{dst, rel});
  adj_[1].AddDelta(dst, AdjEntry{src, rel});
  return Status::OK();
}

void RelTable::AppendTombstones(uint64_t count) {
  changed_.Mark();
  for (auto& column : columns_) column->AppendNulls(count);
  delete_ts_.resize(delete_ts_.size() + count, 0);
  create_ts_.resize(create_ts_.size() + count, 0);
  num_deleted_.fetch_add(count, std::memory_order_relaxed);
}

void RelTable::SetDeleteTs(uint64_t rel, uint64_t ts) {
  changed_.Mark();
  file_changes_.Touch(rel);
  if (ts != kNotDeleted) WithdrawCsrStamps();
  bool was = IsDeleted(rel);
  delete_ts_.Set(rel, ts);
  bool is = IsDeleted(rel);
  if (was && !is) num_deleted_.fetch_sub(1, std::memory_order_relaxed);
  if (!was && is) num_deleted_.fetch_add(1, std::memory_order_relaxed);
}

AdjRange RelTable::CsrEdges(uint64_t vertex, Direction dir) const {
  const Adjacency& a = adj_[static_cast<int>(dir)];
  if (vertex + 1 >= a.num_offsets) return {};
  const uint64_t begin = a.Offset(vertex);
  return a.Range(begin, a.CsrEnd(vertex, begin) - begin);
}

Status RelTable::CorruptAdjacencyStatus() const {
  return Status(ErrorCode::kCorruption,
                "rel table " + name_ +
                    " is corrupt: an adjacency entry is out of range (CALL verify_storage() "
                    "names the damaged file)");
}

std::span<const AdjEntry> RelTable::DeltaEdges(uint64_t vertex, Direction dir) const {
  const Adjacency& a = adj_[static_cast<int>(dir)];
  if (vertex >= a.delta_slot.size() || a.delta_slot[vertex] == 0) return {};
  return a.delta_lists[a.delta_slot[vertex] - 1]->span();
}

uint64_t RelTable::Degree(uint64_t vertex, Direction dir) const {
  return CsrEdges(vertex, dir).size() + DeltaEdges(vertex, dir).size();
}

uint64_t RelTable::LiveDegree(uint64_t vertex, Direction dir) const {
  uint64_t n = 0;
  ForEachLiveEdge(vertex, dir, [&n](uint64_t, uint64_t) { ++n; });
  return n;
}

std::optional<uint64_t> RelTable::FindEdge(uint64_t src, uint64_t dst) const {
  std::optional<uint64_t> found;
  ForEachLiveEdge(src, Direction::kForward, [&](uint64_t nbr, uint64_t rel) {
    if (nbr != dst) return true;
    found = rel;
    return false;
  });
  return found;
}

void RelTable::Rebuild(Direction dir, std::span<const uint64_t> extra_vertex,
                       std::span<const uint64_t> extra_neighbor, uint64_t extra_base_rel,
                       bool drop_deleted, uint64_t deleted_up_to) {
  Adjacency& a = adj_[static_cast<int>(dir)];
  uint64_t nv = a.NumVertices();
  for (uint64_t v : extra_vertex) nv = std::max(nv, v + 1);
  auto keep = [&](const AdjEntry& e) { return !drop_deleted || delete_ts_[e.rel] > deleted_up_to; };
  // A mapped CSR's entries are checked as they are read: a damaged one is not carried into the
  // rebuilt CSR (which is trusted), and the table stays flagged (bad_entry()).
  const bool mapped = a.neighbor_bound != UINT64_MAX;
  const uint64_t neighbor_bound = a.neighbor_bound;
  const uint64_t rel_bound = a.csr_rel_bound;
  auto csr_keep = [&](const AdjEntry& e) {
    if (e.neighbor >= neighbor_bound || e.rel >= rel_bound) [[unlikely]] {
      bad_entry_.store(true, std::memory_order_relaxed);
      return false;
    }
    return keep(e);
  };

  BulkVector<uint64_t> offsets(nv + 1, 0);
  for (uint64_t v = 0; v < nv; ++v) {
    uint64_t n = 0;
    if (drop_deleted || mapped) {
      for (const AdjEntry& e : CsrEdges(v, dir)) n += csr_keep(e);
      for (const AdjEntry& e : DeltaEdges(v, dir)) n += keep(e);
    } else {
      n = Degree(v, dir);
    }
    offsets[v + 1] = n;
  }
  for (uint64_t v : extra_vertex) ++offsets[v + 1];
  for (uint64_t v = 0; v < nv; ++v) offsets[v + 1] += offsets[v];

  BulkVector<AdjEntry> entries(offsets[nv]);
  BulkVector<uint64_t> cursor(offsets.begin(), offsets.end() - 1);
  for (uint64_t v = 0; v < nv; ++v) {
    uint64_t& pos = cursor[v];
    for (const AdjEntry& e : CsrEdges(v, dir)) {
      if (csr_keep(e)) entries[pos++] = e;
    }
    for (const AdjEntry& e : DeltaEdges(v, dir)) {
      if (keep(e)) entries[pos++] = e;
    }
  }
  for (size_t i = 0; i < extra_vertex.size(); ++i) {
    entries[cursor[extra_vertex[i]]++] = AdjEntry{extra_neighbor[i], extra_base_rel + i};
  }
  a.SetCsr(std::move(offsets), std::move(entries));
  a.ClearDeltas();
  RecordCsrStamps(a);
}

void RelTable::RecordCsrStamps(Adjacency& a) {
  uint64_t newest = 0;
  a.csr_rel_bound = 0;
  const AdjRange entries = a.Entries();
  for (const AdjEntry& e : entries) a.csr_rel_bound = std::max(a.csr_rel_bound, e.rel + 1);
  for (const AdjEntry& e : entries) {
    if (delete_ts_[e.rel] != kNotDeleted || create_ts_[e.rel] >= kUncommittedBase) {
      newest = kCsrNotClean;
      break;
    }
    newest = std::max(newest, create_ts_[e.rel]);
  }
  a.csr_created_upto.store(newest, std::memory_order_release);
}

void RelTable::WithdrawCsrStamps() {
  for (Adjacency& a : adj_) a.csr_created_upto.store(kCsrNotClean, std::memory_order_release);
}

void RelTable::Compact(uint64_t deleted_up_to) {
  // Nothing to fold and nothing to drop: the CSR stays as it is, and so does the table's file
  // (a compaction pass over every table must not make a checkpoint rewrite the untouched ones).
  if (adj_[0].delta_entries.load(std::memory_order_relaxed) == 0 &&
      adj_[1].delta_entries.load(std::memory_order_relaxed) == 0 &&
      num_deleted_.load(std::memory_order_relaxed) == 0) {
    return;
  }
  changed_.Mark();
  file_changes_.RequireRewrite();
  Rebuild(Direction::kForward, {}, {}, 0, /*drop_deleted=*/true, deleted_up_to);
  Rebuild(Direction::kBackward, {}, {}, 0, /*drop_deleted=*/true, deleted_up_to);
}

Status RelTable::BulkLoadOffsets(std::span<const uint64_t> src, std::span<const uint64_t> dst,
                                 std::vector<Column> props, uint64_t ts) {
  changed_.Mark();
  file_changes_.RequireRewrite();
  const uint64_t n = src.size();
  if (dst.size() != n) {
    return Status(ErrorCode::kInvalidRequest,
                  "bulk load into " + name_ + ": endpoint lengths differ");
  }
  if (props.size() != columns_.size()) {
    return Status(ErrorCode::kInvalidRequest,
                  "bulk load into " + name_ + " expects " + std::to_string(columns_.size()) +
                      " property columns, got " + std::to_string(props.size()));
  }
  for (size_t i = 0; i < props.size(); ++i) {
    const bool serial_fill = IsSerial(props[i]) && props[i].size() == 0;
    if (props[i].type() != columns_[i]->type() || (props[i].size() != n && !serial_fill)) {
      return Status(ErrorCode::kInvalidRequest, "bulk load into " + name_ + ": property column " +
                                                    std::to_string(i) +
                                                    " has the wrong type or length");
    }
  }
  // Multiplicity, counting existing live edges.
  auto check = [&](std::span<const uint64_t> vertices, Direction dir) -> Status {
    std::vector<uint8_t> seen;
    for (uint64_t v : vertices) {
      if (v >= seen.size()) seen.resize(std::max<uint64_t>(v + 1, seen.size() * 2), 0);
      if (seen[v] || LiveDegree(v, dir) > 0) return MultiplicityError("Copy exception: ", v, dir);
      seen[v] = 1;
    }
    return Status::OK();
  };
  if (catalog::IsSingleForward(multiplicity_)) {
    Status s = check(src, Direction::kForward);
    if (!s.ok()) return s;
  }
  if (catalog::IsSingleBackward(multiplicity_)) {
    Status s = check(dst, Direction::kBackward);
    if (!s.ok()) return s;
  }
  const uint64_t base = NumRels();
  // A SERIAL column left empty, or its NULLs, take the rels' offsets.
  for (Column& c : props) {
    if (!IsSerial(c)) continue;
    if (c.size() == 0) {
      c.Reserve(n);
      for (uint64_t r = 0; r < n; ++r) c.AppendFixed<int64_t>(static_cast<int64_t>(base + r));
      continue;
    }
    for (uint64_t r = 0; r < n; ++r) {
      if (c.IsNull(r)) c.SetFixed<int64_t>(r, static_cast<int64_t>(base + r));
    }
  }
  if (base == 0) {
    for (size_t i = 0; i < props.size(); ++i) *columns_[i] = std::move(props[i]);
  } else {
    for (size_t i = 0; i < props.size(); ++i) {
      Status s = columns_[i]->AppendColumn(props[i]);
      GRAPHDB_ASSERT(s.ok());
    }
  }
  create_ts_.resize(base + n, ts);
  delete_ts_.resize(base + n, kNotDeleted);
  Rebuild(Direction::kForward, src, dst, base, /*drop_deleted=*/false, 0);
  Rebuild(Direction::kBackward, dst, src, base, /*drop_deleted=*/false, 0);
  return Status::OK();
}

Status RelTable::BulkLoad(const Column& src_keys, const Column& dst_keys, std::vector<Column> props,
                          const NodeTable& src, const NodeTable& dst, uint64_t ts) {
  changed_.Mark();
  if (src.table_id() != src_table_ || dst.table_id() != dst_table_) {
    return Status(ErrorCode::kInvalidRequest, "bulk load into " + name_ + ": wrong node tables");
  }
  if (src_keys.size() != dst_keys.size()) {
    return Status(ErrorCode::kInvalidRequest, "bulk load into " + name_ + ": key lengths differ");
  }
  auto resolve = [&](const Column& keys, const NodeTable& table,
                     BulkVector<uint64_t>* out) -> Status {
    const Column& pk = table.column(table.primary_key_column());
    if (keys.kind() != pk.kind()) {
      return Status(ErrorCode::kInvalidRequest, "bulk load into " + name_ + ": keys of type " +
                                                    keys.type().ToString() +
                                                    " cannot address table " + table.name() +
                                                    " (key type " + pk.type().ToString() + ")");
    }
    out->resize(keys.size());
    const PrimaryKeyIndex& index = table.index();
    // Probes of millions of keys wait on memory: the slot of the key kSlotAhead rows on and
    // the key-column cell of the key kCellAhead rows on are already being loaded.
    constexpr uint64_t kSlotAhead = 16;
    constexpr uint64_t kCellAhead = 8;
    for (uint64_t i = 0; i < keys.size(); ++i) {
      if (i + kSlotAhead < keys.size()) index.PrefetchSlotOf(keys, i + kSlotAhead);
      if (i + kCellAhead < keys.size()) index.PrefetchCandidateOf(keys, i + kCellAhead);
      auto offset = index.FindKeyOf(keys, i);
      if (!offset) {
        std::string key = keys.IsNull(i) ? "NULL" : keys.Get(i).ToString();
        return Status(ErrorCode::kQueryRuntime,
                      "Copy exception: Unable to find primary key value " + key + ".");
      }
      (*out)[i] = *offset;
    }
    return Status::OK();
  };
  BulkVector<uint64_t> src_offsets;
  BulkVector<uint64_t> dst_offsets;
  Status s = resolve(src_keys, src, &src_offsets);
  if (s.ok()) s = resolve(dst_keys, dst, &dst_offsets);
  if (!s.ok()) return s;
  return BulkLoadOffsets(std::span<const uint64_t>(src_offsets),
                         std::span<const uint64_t>(dst_offsets), std::move(props), ts);
}

Status RelTable::AddColumn(const LogicalType& type, const Value& fill) {
  changed_.Mark();
  file_changes_.RequireRewrite();
  const uint64_t n = NumRels();
  if (type.id() == LogicalTypeId::kSerial && fill.is_null()) {
    // A SERIAL column numbers the rels there are.
    auto serial = std::make_unique<Column>(type);
    serial->Reserve(n);
    for (uint64_t r = 0; r < n; ++r) serial->AppendFixed<int64_t>(static_cast<int64_t>(r));
    columns_.push_back(std::move(serial));
    columns_.back()->MarkShared();
    return Status::OK();
  }
  auto column = MakeFilledColumn(type, fill, n);
  if (!column.ok()) return column.status();
  columns_.push_back(std::make_unique<Column>(std::move(*column)));
  columns_.back()->MarkShared();
  return Status::OK();
}

Status RelTable::DropColumn(size_t column) {
  changed_.Mark();
  file_changes_.RequireRewrite();
  if (column >= columns_.size()) {
    return Status(ErrorCode::kInvalidRequest, "no such column in rel table " + name_);
  }
  versions_.Clear();  // keyed by column index, which shifts
  columns_.erase(columns_.begin() + static_cast<ptrdiff_t>(column));
  return Status::OK();
}

size_t RelTable::MemoryUsage() const {
  size_t total = create_ts_.MemoryUsage() + delete_ts_.MemoryUsage();
  for (const auto& c : columns_) total += c->MemoryUsage();
  for (const Adjacency& a : adj_) {
    total += a.own_offsets.capacity() + a.own_entries.capacity() + a.delta_slot.MemoryUsage() +
             a.delta_lists.MemoryUsage() +
             a.owned_lists.capacity() * sizeof(std::unique_ptr<DeltaList>);
    for (const auto& list : a.owned_lists) total += sizeof(DeltaList) + list->MemoryUsage();
  }
  return total;
}

void RelTable::FreeRetired() {
  for (auto& c : columns_) c->FreeRetired();
  create_ts_.FreeRetired();
  delete_ts_.FreeRetired();
  for (Adjacency& a : adj_) {
    a.delta_slot.FreeRetired();
    a.delta_lists.FreeRetired();
    for (auto& list : a.owned_lists) list->FreeRetired();
  }
}

// Layout: varint table id, src table, dst table | u8 multiplicity | varint rels | varint
// #columns, per column type text + data | create_ts, delete_ts stamps | per direction: varint
// vertices, varint entries, a varint degree per vertex, then the entries as raw 16-byte pairs.
void RelTable::Serialize(catalog::BinaryWriter& out) const {
  out.PutVarint(table_id_);
  out.PutVarint(src_table_);
  out.PutVarint(dst_table_);
  out.PutU8(static_cast<uint8_t>(multiplicity_));
  out.PutVarint(NumRels());
  out.PutVarint(columns_.size());
  for (const auto& c : columns_) {
    out.PutString(c->type().ToString());
    c->Serialize(out);
  }
  WriteStamps(out, create_ts_);
  // Every rel costs at least 8 bytes in the file (so a reader can bound the row count): live
  // rels sit in the adjacency, and when all rels are deleted (and maybe compacted away) the
  // delete stamps are written raw.
  WriteStamps(out, delete_ts_, /*force_raw=*/NumRels() > 0 && NumLiveRels() == 0);
  for (int d = 0; d < 2; ++d) {
    auto dir = static_cast<Direction>(d);
    const Adjacency& a = adj_[d];
    uint64_t nv = a.NumVertices();
    out.PutVarint(nv);
    out.PutVarint(a.num_entries + a.delta_entries.load(std::memory_order_relaxed));
    // Half the bytes when every offset fits 32 bits (any graph below 4G nodes and rels).
    const OffsetBounds bounds = Bounds(dir);
    const bool narrow = std::max(bounds.largest_neighbor, bounds.largest_rel) <= UINT32_MAX;
    out.PutU8(narrow ? kNarrowEntryBytes : sizeof(AdjEntry));
    for (uint64_t v = 0; v < nv; ++v) out.PutVarint(Degree(v, dir));
    const uint8_t half = narrow ? 4 : 8;
    ForEachFoldedRun(dir, PackedWidths{half, half, 8},
                     [&](const void* data, size_t bytes) { out.PutRaw(data, bytes); });
  }
}

RelTable::OffsetBounds RelTable::Bounds(Direction dir) const {
  const Adjacency& a = adj_[static_cast<int>(dir)];
  OffsetBounds b;
  uint64_t position = 0;  // in the folded order: each vertex's CSR range, then its deltas
  auto add = [&b, &position](const AdjEntry& e) {
    b.largest_neighbor = std::max(b.largest_neighbor, e.neighbor);
    b.largest_rel = std::max(b.largest_rel, e.rel);
    b.rel_bound = std::max(b.rel_bound, e.rel + 1);
    b.rel_is_position = b.rel_is_position && e.rel == position;
    ++position;
  };
  for (uint64_t v = 0, nv = a.NumVertices(); v < nv; ++v) {
    for (const AdjEntry& e : CsrEdges(v, dir)) add(e);
    for (const AdjEntry& e : DeltaEdges(v, dir)) add(e);
  }
  return b;
}

PackedWidths RelTable::FoldedWidths(Direction dir, const OffsetBounds& bounds) const {
  const Adjacency& a = adj_[static_cast<int>(dir)];
  PackedWidths w;
  w.neighbor_bytes = BytesFor(bounds.largest_neighbor);
  w.rel_bytes = bounds.rel_is_position ? 0 : BytesFor(bounds.largest_rel);
  w.offset_bytes = BytesFor(a.num_entries + a.delta_entries.load(std::memory_order_relaxed));
  return w;
}

uint64_t RelTable::FoldedCsrStamp(Direction dir) const {
  uint64_t newest = 0;
  auto add = [&](uint64_t rel) {
    if (rel >= NumRels()) return false;  // a damaged mapped entry (bad_entry())
    const uint64_t created = create_ts_[rel];
    if (delete_ts_[rel] != kNotDeleted || created >= kUncommittedBase) return false;
    newest = std::max(newest, created);
    return true;
  };
  if (num_deleted_.load(std::memory_order_relaxed) == 0) {
    // Every rel is in the adjacency (only deleted rels leave it): a scan in rel order.
    for (uint64_t r = 0, n = NumRels(); r < n; ++r) {
      if (!add(r)) return kCsrNotClean;
    }
    return newest;
  }
  const Adjacency& a = adj_[static_cast<int>(dir)];
  for (const AdjEntry& e : a.Entries()) {
    if (!add(e.rel)) return kCsrNotClean;
  }
  for (uint64_t v = 0, nv = a.delta_slot.size(); v < nv; ++v) {
    for (const AdjEntry& e : DeltaEdges(v, dir)) {
      if (!add(e.rel)) return kCsrNotClean;
    }
  }
  return newest;
}

// Format version 3: varint pair id, src table, dst table | u8 multiplicity | varint rels |
// varint #columns, per column type text + column (mapped form) | create_ts, delete_ts stamps
// (mapped form) | varint deleted rels | varint newest committed stamp | per direction: varint
// vertices, varint entries, version 4: u8 neighbour bytes, u8 rel bytes (0: each rel offset is
// its entry's position), u8 offset bytes (version 3: u8 entry width, 8 or 16, and 8-byte
// offsets), [vertices > 0: varint offsets section], varint entries section, varint newest
// create stamp of the CSR's rels (2^64 - 1: some is deleted), varint rel bound. Each vertex's
// delta list is folded in after its CSR range.
void RelTable::SerializeMapped(TableSink& out) const {
  catalog::BinaryWriter& d = out.descriptor();
  d.PutVarint(table_id_);
  d.PutVarint(src_table_);
  d.PutVarint(dst_table_);
  d.PutU8(static_cast<uint8_t>(multiplicity_));
  d.PutVarint(NumRels());
  d.PutVarint(columns_.size());
  for (const auto& c : columns_) {
    d.PutString(c->type().ToString());
    c->SerializeMapped(out);
  }
  WriteMappedStamps(out, create_ts_);
  WriteMappedStamps(out, delete_ts_);
  d.PutVarint(num_deleted_.load(std::memory_order_relaxed));
  d.PutVarint(NewestCommittedStamp(create_ts_, delete_ts_));
  for (int dd = 0; dd < 2; ++dd) {
    auto dir = static_cast<Direction>(dd);
    const Adjacency& a = adj_[dd];
    const uint64_t nv = a.NumVertices();
    const uint64_t total = a.num_entries + a.delta_entries.load(std::memory_order_relaxed);
    const OffsetBounds bounds = Bounds(dir);
    PackedWidths w = FoldedWidths(dir, bounds);
    d.PutVarint(nv);
    d.PutVarint(total);
    if (out.format_version() >= kFirstPackedFormatVersion) {
      d.PutU8(w.neighbor_bytes);
      d.PutU8(w.rel_bytes);
      d.PutU8(w.offset_bytes);
    } else {
      // Version 3: {u32, u32} or {u64, u64} entries, u64 offsets.
      const uint8_t half =
          std::max(bounds.largest_neighbor, bounds.largest_rel) <= UINT32_MAX ? 4 : 8;
      w = PackedWidths{half, half, 8};
      d.PutU8(w.entry_bytes());
    }
    if (nv > 0) {
      out.BeginSection();
      constexpr size_t kRun = 1 << 16;
      std::vector<uint8_t> piece(kRun * w.offset_bytes + kPackedTail);
      size_t used = 0;
      uint64_t at = 0;
      auto put = [&](uint64_t offset) {
        StorePacked(piece.data() + used, offset);
        used += w.offset_bytes;
        if (used == kRun * w.offset_bytes) {
          out.Append(piece.data(), used);
          used = 0;
        }
      };
      put(0);
      for (uint64_t v = 0; v < nv; ++v) {
        at += Degree(v, dir);
        put(at);
      }
      out.Append(piece.data(), used);
      d.PutVarint(out.EndSection());
    }
    out.BeginSection();
    ForEachFoldedRun(dir, w, [&](const void* data, size_t bytes) { out.Append(data, bytes); });
    d.PutVarint(out.EndSection());
    d.PutVarint(FoldedCsrStamp(dir));
    d.PutVarint(bounds.rel_bound);
  }
}

template <typename ReadColumn>
Result<std::pair<std::unique_ptr<RelTable>, uint64_t>> RelTable::ReadHeaderAndColumns(
    catalog::BinaryReader& in, const catalog::RelTableSchema& schema,
    const catalog::RelTablePair& pair, bool mapped, ReadColumn&& read_column) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "rel table " + schema.name + " is corrupt: " + why);
  };
  uint64_t id;
  uint64_t src;
  uint64_t dst;
  uint8_t multiplicity;
  uint64_t rels;
  uint64_t ncols;
  if (!in.GetVarint(&id) || !in.GetVarint(&src) || !in.GetVarint(&dst) ||
      !in.GetU8(&multiplicity) || !in.GetVarint(&rels) || !in.GetVarint(&ncols)) {
    return corrupt("truncated header");
  }
  if (id != pair.id || src != pair.src_table || dst != pair.dst_table) {
    return corrupt("table ids do not match the catalog");
  }
  if (ncols != schema.properties.size()) return corrupt("column count does not match catalog");
  // Every rel of a stream form costs at least 8 bytes (see Serialize); the sections of the
  // mapped form are checked against the count as they are mapped.
  if (mapped ? rels > (1ULL << 40) : rels > in.remaining() / 8) {
    return corrupt("rel count exceeds the data");
  }
  auto table = std::make_unique<RelTable>(schema, pair);
  for (size_t i = 0; i < ncols; ++i) {
    std::string type_text;
    if (!in.GetString(&type_text)) return corrupt("truncated column header");
    if (type_text != schema.properties[i].type.ToString()) {
      return corrupt("column " + schema.properties[i].name + " has type " + type_text);
    }
    auto column = read_column(in, schema.properties[i].type);
    if (!column.ok()) return corrupt(column.status().message());
    if (column->size() != rels) return corrupt("column length mismatch");
    *table->columns_[i] = std::move(*column);
  }
  return std::make_pair(std::move(table), rels);
}

Result<std::unique_ptr<RelTable>> RelTable::DeserializeMapped(
    catalog::BinaryReader& in, const SectionSource& sections, const catalog::RelTableSchema& schema,
    const catalog::RelTablePair& pair, uint64_t src_rows, uint64_t dst_rows) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "rel table " + schema.name + " is corrupt: " + why);
  };
  auto read = ReadHeaderAndColumns(in, schema, pair, /*mapped=*/true,
                                   [&](catalog::BinaryReader& r, const LogicalType& type) {
                                     return Column::DeserializeMapped(r, sections, type);
                                   });
  if (!read.ok()) return read.status();
  auto [table, rels] = std::move(*read);
  const uint64_t capacity = MappedCapacity(rels);
  for (StampVector* stamps : {&table->create_ts_, &table->delete_ts_}) {
    Status s = ReadMappedStamps(in, sections, rels, capacity, stamps);
    if (!s.ok()) return corrupt(s.message());
  }
  uint64_t deleted;
  if (!in.GetVarint(&deleted) || !in.GetVarint(&table->loaded_max_stamp_)) {
    return corrupt("truncated stamps");
  }
  if (deleted > rels) return corrupt("more deleted rels than rels");
  table->num_deleted_.store(deleted, std::memory_order_relaxed);
  for (int d = 0; d < 2; ++d) {
    Adjacency& a = table->adj_[d];
    uint64_t nv;
    uint64_t total;
    if (!in.GetVarint(&nv) || !in.GetVarint(&total)) return corrupt("truncated adjacency");
    PackedWidths w;
    if (sections.format_version() >= kFirstPackedFormatVersion) {
      if (!in.GetU8(&w.neighbor_bytes) || !in.GetU8(&w.rel_bytes) || !in.GetU8(&w.offset_bytes)) {
        return corrupt("truncated adjacency");
      }
      if (w.neighbor_bytes < 1 || w.neighbor_bytes > 8 || w.rel_bytes > 8 || w.offset_bytes < 1 ||
          w.offset_bytes > 8 || BytesFor(total) > w.offset_bytes) {
        return corrupt("bad adjacency widths");
      }
    } else {
      uint8_t width;
      if (!in.GetU8(&width)) return corrupt("truncated adjacency");
      if (width != sizeof(AdjEntry) && width != kNarrowEntryBytes) {
        return corrupt("bad adjacency entry width " + std::to_string(width));
      }
      w = PackedWidths{static_cast<uint8_t>(width / 2), static_cast<uint8_t>(width / 2), 8};
    }
    if (nv > (d == 0 ? src_rows : dst_rows)) return corrupt("adjacency has too many vertices");
    auto section = [&](uint64_t bytes, const char* what) -> Result<uint64_t> {
      uint64_t i;
      if (!in.GetVarint(&i)) return corrupt("truncated adjacency");
      if (i >= sections.num_sections() || sections.section_length(i) != bytes) {
        return corrupt(std::string("adjacency ") + what + " section does not match its counts");
      }
      return i;
    };
    if (total > (1ULL << 40) || nv > (1ULL << 40)) return corrupt("adjacency too large");
    a.SetWidths(w);
    if (nv > 0) {
      const uint64_t bytes = (nv + 1) * w.offset_bytes;
      auto i = section(bytes, "offsets");
      if (!i.ok()) return i.status();
      // The tail: every offset is read with one 8-byte load (zeros past the section).
      auto region = sections.MapSection(*i, bytes + kPackedTail);
      if (!region.ok()) return region.status();
      a.offsets_region = std::move(*region);
      a.offsets = reinterpret_cast<const uint8_t*>(a.offsets_region->data());
      a.num_offsets = nv + 1;
      // The ends (two pages); the rest is checked by Verify, and clamped when read.
      if (a.Offset(0) != 0 || a.Offset(nv) != total) return corrupt("degrees do not add up");
    }
    const uint64_t bytes = total * w.entry_bytes();
    auto i = section(bytes, "entries");
    if (!i.ok()) return i.status();
    auto region = sections.MapSection(*i, bytes + kPackedTail);
    if (!region.ok()) return region.status();
    a.entries_region = std::move(*region);
    a.entries = reinterpret_cast<const uint8_t*>(a.entries_region->data());
    a.num_entries = total;
    // Entries are checked as they are read (ForEachEdge): a neighbour must be a row of the
    // table it names, a rel below the rel bound, which is checked against the rels here.
    a.neighbor_bound = d == 0 ? dst_rows : src_rows;
    uint64_t created_upto;
    if (!in.GetVarint(&created_upto) || !in.GetVarint(&a.csr_rel_bound)) {
      return corrupt("truncated adjacency");
    }
    if (a.csr_rel_bound > rels) return corrupt("adjacency rel bound past the rels");
    if (w.rel_bytes == 0 && a.csr_rel_bound != total) {
      return corrupt("adjacency of implicit rel offsets does not cover its rels");
    }
    a.csr_created_upto.store(created_upto, std::memory_order_release);
  }
  return table;
}

Status RelTable::VerifyAdjacency(uint64_t src_rows, uint64_t dst_rows) const {
  for (int d = 0; d < 2; ++d) {
    const Adjacency& a = adj_[d];
    const uint64_t neighbor_bound = d == 0 ? dst_rows : src_rows;
    for (uint64_t v = 0; v + 1 < a.num_offsets; ++v) {
      if (a.Offset(v + 1) < a.Offset(v) || a.Offset(v + 1) > a.num_entries) {
        return Status(
            ErrorCode::kCorruption,
            "rel table " + name_ + " is corrupt: bad CSR offset of vertex " + std::to_string(v));
      }
    }
    for (const AdjEntry& e : a.Entries()) {
      if (e.rel >= NumRels() || e.rel >= a.csr_rel_bound || e.neighbor >= neighbor_bound) {
        return Status(ErrorCode::kCorruption,
                      "rel table " + name_ + " is corrupt: adjacency entry out of range");
      }
    }
  }
  return Status::OK();
}

template <typename Emit>
void RelTable::ForEachFoldedRun(Direction dir, PackedWidths widths, Emit&& emit) const {
  const Adjacency& a = adj_[static_cast<int>(dir)];
  const uint32_t stride = widths.entry_bytes();
  constexpr size_t kRun = 1 << 16;
  std::vector<uint8_t> piece(kRun * stride + kPackedTail);
  size_t used = 0;
  auto flush = [&] {
    if (used > 0) emit(piece.data(), used);
    used = 0;
  };
  auto add = [&](const AdjEntry& e) {
    StorePacked(piece.data() + used, e.neighbor);
    if (widths.rel_bytes != 0) StorePacked(piece.data() + used + widths.neighbor_bytes, e.rel);
    used += stride;
    if (used == kRun * stride) flush();
  };
  for (uint64_t v = 0, nv = a.NumVertices(); v < nv; ++v) {
    for (const AdjEntry& e : CsrEdges(v, dir)) add(e);
    for (const AdjEntry& e : DeltaEdges(v, dir)) add(e);
  }
  flush();
}

Result<std::unique_ptr<RelTable>> RelTable::Deserialize(catalog::BinaryReader& in,
                                                        const catalog::RelTableSchema& schema,
                                                        const catalog::RelTablePair& pair,
                                                        uint64_t src_rows, uint64_t dst_rows,
                                                        uint32_t format_version) {
  auto corrupt = [&schema](const std::string& why) {
    return Status(ErrorCode::kCorruption, "rel table " + schema.name + " is corrupt: " + why);
  };
  auto read = ReadHeaderAndColumns(in, schema, pair, /*mapped=*/false, &Column::Deserialize);
  if (!read.ok()) return read.status();
  auto [table, rels] = std::move(*read);
  if (!ReadStamps(in, rels, &table->create_ts_) || !ReadStamps(in, rels, &table->delete_ts_)) {
    return corrupt("truncated stamps");
  }
  uint64_t deleted = 0;
  for (uint64_t r = 0; r < rels; ++r) deleted += table->IsDeleted(r);
  table->loaded_max_stamp_ = NewestCommittedStamp(table->create_ts_, table->delete_ts_);
  table->num_deleted_.store(deleted, std::memory_order_relaxed);
  for (int d = 0; d < 2; ++d) {
    Adjacency& a = table->adj_[d];
    uint64_t nv;
    uint64_t total;
    if (!in.GetVarint(&nv) || !in.GetVarint(&total)) return corrupt("truncated adjacency");
    uint8_t width = sizeof(AdjEntry);  // version 1: always {u64, u64}
    if (format_version >= 2 && !in.GetU8(&width)) return corrupt("truncated adjacency");
    if (width != sizeof(AdjEntry) && width != kNarrowEntryBytes) {
      return corrupt("bad adjacency entry width " + std::to_string(width));
    }
    if (nv > in.remaining() || total > in.remaining() / width) {
      return corrupt("adjacency larger than the file");
    }
    uint64_t neighbor_bound = d == 0 ? dst_rows : src_rows;
    if (nv > (d == 0 ? src_rows : dst_rows)) return corrupt("adjacency has too many vertices");
    BulkVector<uint64_t> offsets(nv + 1, 0);
    for (uint64_t v = 0; v < nv; ++v) {
      uint64_t degree;
      if (!in.GetVarint(&degree) || degree > total - offsets[v]) {
        return corrupt("bad degree");
      }
      offsets[v + 1] = offsets[v] + degree;
    }
    if (offsets[nv] != total) return corrupt("degrees do not add up");
    BulkVector<AdjEntry> entries(total);
    if (width == sizeof(AdjEntry)) {
      if (total > 0 && !in.GetRaw(entries.data(), total * sizeof(AdjEntry))) {
        return corrupt("truncated adjacency entries");
      }
    } else {
      // {u32 neighbour, u32 rel} pairs, widened a block at a time.
      uint32_t block[2 * 4096];
      for (uint64_t done = 0; done < total;) {
        const uint64_t n = std::min<uint64_t>(total - done, 4096);
        if (!in.GetRaw(block, n * kNarrowEntryBytes)) return corrupt("truncated adjacency entries");
        for (uint64_t i = 0; i < n; ++i)
          entries[done + i] = AdjEntry{block[2 * i], block[2 * i + 1]};
        done += n;
      }
    }
    for (const AdjEntry& e : entries) {
      if (e.rel >= rels || e.neighbor >= neighbor_bound) return corrupt("entry out of range");
    }
    if (nv == 0) offsets.clear();
    a.SetCsr(std::move(offsets), std::move(entries));
    table->RecordCsrStamps(a);
  }
  return table;
}

}  // namespace graphdb::storage
