// RelTable: the edges of one FROM/TO pair of a rel table (a rel table with several pairs has
// one RelTable per pair, each with its own table id, rel offsets, columns and adjacency).
//
// Each edge has a dense rel offset (0, 1, 2 ... in insertion order, never reused or renumbered)
// that indexes its property columns and its MVCC stamps (`create_ts`, `delete_ts`, as in
// NodeTable). Adjacency is kept in both directions (forward: src -> dst, backward: dst -> src):
//   - a CSR built by bulk load: `offsets` (one per vertex + 1) and entries {neighbour offset,
//     rel offset}, each packed in the fewest bytes its direction's values need (PackedWidths);
//   - per-vertex growable delta lists for edges inserted afterwards: inserting is O(1)
//     amortised, and expanding a vertex reads its CSR range plus its own delta list only.
// Expansion yields every physical entry, deleted edges included; callers filter by stamps
// (ForEachLiveEdge skips edges whose delete_ts is set, ignoring snapshots). CountEdges counts
// a vertex's CSR range from its offsets alone while the CSR is "clean" for the reader: each
// (re)build of a direction's CSR records the newest create stamp among its entries, and any
// delete stamp set afterwards (even one that is later undone) withdraws that until the next
// rebuild, so a snapshot at or after the recorded stamp sees every CSR entry.
// Compact() folds the delta lists into the CSR and drops deleted edges from the adjacency.
// Rel offsets, property values and stamps do not move; the rows of dropped edges simply stay
// unreachable. REQUIRES for Compact: no reader may still need to see the dropped edges.
//
// Memory: per edge and direction the CSR takes neighbour bytes + rel bytes (3 + 0 forward and
// 3 + 3 backward for 1M nodes and 10M edges loaded in source order), plus 16 bytes of stamps
// per edge and offset bytes per vertex and direction, plus property columns. A mapped CSR's
// entries are range-checked as they are read (bad_entry()).
//
// Multiplicity (MANY_ONE: one outgoing edge per source; ONE_MANY: one incoming edge per
// destination; ONE_ONE: both) is enforced on insert and bulk load against live (not deleted)
// edges, with Kùzu's message "Node(nodeOffset: 0) has more than one neighbour in table
// LivesIn in the fwd direction, which violates the rel multiplicity constraint."
// (kConstraintViolation).
//
// Thread-safety (storage/shared_array.h): ONE writer thread may insert, delete, set, undo and
// restamp while any number of threads expand and read (ForEachEdge, stamps, Get). An edge's
// stamps are published before its adjacency entries, so a reader that finds an entry finds its
// stamps (the writer's, invisible to it until the commit). The CSR part changes only under
// exclusive access (bulk load, Compact); delta lists grow as shared arrays. CsrEdges,
// DeltaEdges, Degree, FindEdge and LiveDegree read without the atomic protocol and are for the
// writer thread or exclusive access; so are bulk load, ALTER, FreeRetired and Serialize.
// Concurrent inserts (MvccInsertTransaction, docs/concurrency.md): InsertEdge, UndoInsert and
// SetCreateTs take the table's own write mutex, so several insert-only writers may call them
// at once; the rest still needs the one writer.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "catalog/catalog.h"
#include "common/result.h"
#include "storage/bulk_vector.h"
#include "storage/change_flag.h"
#include "storage/column.h"
#include "storage/file_changes.h"
#include "storage/node_table.h"
#include "storage/shared_array.h"
#include "storage/stamp_codec.h"
#include "storage/table_file.h"
#include "storage/version_store.h"

namespace graphdb::storage {

enum class Direction : uint8_t { kForward = 0, kBackward = 1 };

// One adjacency entry: the vertex at the other end and the edge's rel offset.
struct AdjEntry {
  uint64_t neighbor;
  uint64_t rel;
  bool operator==(const AdjEntry&) const = default;
};
static_assert(sizeof(AdjEntry) == 16);

// How a CSR packs its arrays (format version 4, and memory): each entry is `neighbor_bytes`
// little-endian bytes of neighbour offset followed by `rel_bytes` bytes of rel offset, each the
// fewest bytes that hold the direction's largest value; rel_bytes 0 means every entry's rel
// offset is its own position in the direction's entries (a forward CSR bulk-loaded in source
// order). Offsets take `offset_bytes` bytes each. An array is followed by kPackedTail readable
// bytes, so any field is read with one unaligned 8-byte load and a mask. Format version 3's
// entries are the case 4 + 4 or 8 + 8 with 8-byte offsets.
struct PackedWidths {
  uint8_t neighbor_bytes = 4;
  uint8_t rel_bytes = 4;
  uint8_t offset_bytes = 8;
  uint32_t entry_bytes() const { return neighbor_bytes + rel_bytes; }
  bool operator==(const PackedWidths&) const = default;
};
inline constexpr uint64_t kPackedTail = 8;

// The fewest bytes (at least 1) that hold `largest`.
inline uint8_t BytesFor(uint64_t largest) {
  uint8_t n = 1;
  while (n < 8 && (largest >> (8 * n)) != 0) ++n;
  return n;
}
inline uint64_t ByteMask(uint8_t bytes) { return bytes >= 8 ? ~0ULL : (1ULL << (8 * bytes)) - 1; }
// The `bytes`-byte little-endian number at `p` (followed by readable bytes up to p + 8).
inline uint64_t LoadPacked(const uint8_t* p, uint64_t mask) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x & mask;
}

// Writes `value` (below 2^(8 * bytes) for a field of `bytes` bytes) as 8 bytes at `p`: the
// bytes past the field are zeros, which the next field overwrites; an array being written
// has kPackedTail bytes of room after it.
inline void StorePacked(uint8_t* p, uint64_t value) { std::memcpy(p, &value, 8); }

// A run of packed CSR entries [first, first + size) of a direction, read as AdjEntry values.
class AdjRange {
 public:
  AdjRange() = default;
  AdjRange(const uint8_t* entries, uint64_t first, uint64_t size, PackedWidths widths)
      : entries_(entries), first_(first), size_(size), stride_(widths.entry_bytes()),
        neighbor_bytes_(widths.neighbor_bytes), rel_bytes_(widths.rel_bytes),
        neighbor_mask_(ByteMask(widths.neighbor_bytes)), rel_mask_(ByteMask(widths.rel_bytes)) {}
  uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  AdjEntry operator[](uint64_t i) const {
    const uint64_t at = first_ + i;
    const uint8_t* p = entries_ + at * stride_;
    return AdjEntry{LoadPacked(p, neighbor_mask_),
                    rel_bytes_ == 0 ? at : LoadPacked(p + neighbor_bytes_, rel_mask_)};
  }
  class iterator {
   public:
    iterator(const AdjRange* range, uint64_t i) : range_(range), i_(i) {}
    AdjEntry operator*() const { return (*range_)[i_]; }
    iterator& operator++() {
      ++i_;
      return *this;
    }
    bool operator==(const iterator& other) const { return i_ == other.i_; }

   private:
    const AdjRange* range_;
    uint64_t i_;
  };
  iterator begin() const { return iterator(this, 0); }
  iterator end() const { return iterator(this, size_); }

 private:
  const uint8_t* entries_ = nullptr;
  uint64_t first_ = 0;
  uint64_t size_ = 0;
  uint32_t stride_ = 0;
  uint8_t neighbor_bytes_ = 0;
  uint8_t rel_bytes_ = 0;
  uint64_t neighbor_mask_ = 0;
  uint64_t rel_mask_ = 0;
};

class RelTable {
 public:
  RelTable(const catalog::RelTableSchema& schema, const catalog::RelTablePair& pair);
  RelTable(const RelTable&) = delete;
  RelTable& operator=(const RelTable&) = delete;

  catalog::TableId table_id() const { return table_id_; }
  catalog::TableId src_table() const { return src_table_; }
  catalog::TableId dst_table() const { return dst_table_; }
  // The node table reached when expanding in `dir`.
  catalog::TableId NeighborTable(Direction dir) const {
    return dir == Direction::kForward ? dst_table_ : src_table_;
  }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  catalog::RelMultiplicity multiplicity() const { return multiplicity_; }

  // Versions of updated properties that older snapshots still read (see version_store.h).
  VersionStore& versions() { return versions_; }
  const VersionStore& versions() const { return versions_; }

  // Physical edges (deleted included) and live ones.
  uint64_t NumRels() const { return create_ts_.size(); }
  uint64_t NumLiveRels() const { return NumRels() - num_deleted_.load(std::memory_order_relaxed); }
  size_t NumColumns() const { return columns_.size(); }
  const Column& column(size_t i) const { return *columns_[i]; }
  Value Get(size_t column, uint64_t rel) const { return columns_[column]->Get(rel); }
  Status Set(size_t column, uint64_t rel, const Value& value);

  // ---- Edge operations ----
  // Adds an edge src -> dst with one value per property column; returns its rel offset.
  // A NULL for a SERIAL column stores the rel offset (a rel table's SERIAL numbers its rels;
  // a value given is kept). Checks multiplicity against live edges. On error nothing changes.
  Result<uint64_t> InsertEdge(uint64_t src, uint64_t dst, const std::vector<Value>& props,
                              uint64_t ts);
  // Stamps delete_ts (the adjacency entries stay until Compact).
  Status DeleteEdge(uint64_t rel, uint64_t ts);
  Status UndoDelete(uint64_t rel);
  // Undoes InsertEdge(src, dst, ...) of edge `rel` (an aborted writer). The newest edge whose
  // adjacency entries are the newest of both endpoints loses them and its row, so the offset
  // is reused; any other (another writer appended after it, or it was folded into the CSR
  // meanwhile) stays as a row no snapshot sees, its entries skipped by the stamps. Returns
  // whether the row was removed.
  bool UndoInsert(uint64_t rel, uint64_t src, uint64_t dst);
  // Appends `count` rel rows that exist only to keep rel offsets aligned: NULL properties,
  // stamped deleted (delete_ts 0), and not in the adjacency. Write-ahead-log replay uses them
  // for the offsets of edges that were inserted and then rolled back (which stay behind as
  // deleted rows in memory), and for those a later record fills (FillTombstone): concurrent
  // inserts take offsets in another order than they commit.
  void AppendTombstones(uint64_t count);
  // A rel row from AppendTombstones (or an undone insert): delete_ts 0, not yet filled.
  bool IsTombstone(uint64_t rel) const { return delete_ts_[rel] == 0; }
  // Write-ahead-log replay: puts edge src -> dst into tombstone `rel` (from AppendTombstones),
  // as InsertEdge would have. kInvalidRequest when `rel` is not such a tombstone.
  Status FillTombstone(uint64_t rel, uint64_t src, uint64_t dst, const std::vector<Value>& props,
                       uint64_t ts);

  // ---- MVCC stamps ----
  uint64_t create_ts(uint64_t rel) const { return create_ts_[rel]; }
  uint64_t delete_ts(uint64_t rel) const { return delete_ts_[rel]; }
  bool IsDeleted(uint64_t rel) const { return delete_ts_[rel] != kNotDeleted; }
  void SetCreateTs(uint64_t rel, uint64_t ts) {
    changed_.Mark();
    file_changes_.Touch(rel);
    std::lock_guard<std::mutex> lock(write_mu_);
    // A CSR edge's stamp raised above the CSR's newest (commits restamp delta edges, or lower
    // a stamp from an open transaction's, with which the CSR is not clean anyway).
    for (const Adjacency& a : adj_) {
      if (rel < a.csr_rel_bound && ts > a.csr_created_upto.load(std::memory_order_relaxed)) {
        WithdrawCsrStamps();
      }
    }
    create_ts_.Set(rel, ts);
  }
  void SetDeleteTs(uint64_t rel, uint64_t ts);

  // ---- Expansion ----
  // Calls f(neighbor_offset, rel_offset) for every adjacency entry of `vertex` in `dir`:
  // CSR entries first, then delta entries in insertion order. If f returns bool, returning
  // false stops the iteration.
  template <typename F>
  void ForEachEdge(uint64_t vertex, Direction dir, F&& f) const {
    if (ForEachCsrEdge(vertex, dir, f)) ForEachDeltaEdge(vertex, dir, f);
  }
  // ForEachEdge's two parts: the CSR entries, the delta entries. Each returns false when f
  // stopped it (returned false).
  template <typename F>
  bool ForEachCsrEdge(uint64_t vertex, Direction dir, F&& f) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    if (vertex + 1 >= a.num_offsets) return true;
    const uint64_t begin = a.Offset(vertex);
    return ForEachCsrEntry(a, begin, a.CsrEnd(vertex, begin), f);
  }
  // The CSR entries of the vertices [first, last) in `dir`: one stretch [*begin, *end) of the
  // CSR (the entries of consecutive vertices follow each other), empty when they have none.
  void CsrRange(uint64_t first, uint64_t last, Direction dir, uint64_t* begin,
                uint64_t* end) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    *begin = *end = 0;
    if (first >= last || first + 1 >= a.num_offsets) return;
    *begin = a.Offset(first);
    *end = a.CsrEnd(std::min(last, a.num_offsets - 1) - 1, *begin);
  }
  // ForEachCsrEdge over a stretch of CsrRange: every entry of several vertices in one loop. f
  // must not stop it.
  template <typename F>
  void ForEachCsrEdgeIn(uint64_t begin, uint64_t end, Direction dir, F&& f) const {
    ForEachCsrEntry(adj_[static_cast<int>(dir)], begin, end, f);
  }
  // Adds each vertex's number of CSR entries in `dir` to out[v - first], v in [first, last)
  // (vertices past the CSR add none): what CountEdges counts for them while the CSR is
  // visible to the reader and they have no delta entries (NoDeltaEdges).
  void AddCsrDegrees(uint64_t first, uint64_t last, Direction dir, uint64_t* out) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    const uint64_t stop = a.num_offsets == 0 ? first : std::min(last, a.num_offsets - 1);
    for (uint64_t v = first, begin = v < stop ? a.Offset(v) : 0; v < stop; ++v) {
      out[v - first] += a.CsrEnd(v, begin) - begin;
      begin = a.Offset(v + 1);
    }
  }
  // Whether none of the vertices [first, last) has delta entries in `dir`.
  bool NoDeltaEdges(uint64_t first, uint64_t last, Direction dir) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    const uint64_t stop = std::min<uint64_t>(last, a.delta_slot.size());
    for (uint64_t v = first; v < stop; ++v) {
      if (a.delta_slot[v] != 0) return false;
    }
    return true;
  }
  template <typename F>
  bool ForEachDeltaEdge(uint64_t vertex, Direction dir, F&& f) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    if (vertex >= a.delta_slot.size()) return true;
    const uint32_t slot = a.delta_slot[vertex];
    if (slot == 0) return true;
    const DeltaList& list = *a.delta_lists[slot - 1];
    for (size_t i = 0, n = list.size(); i < n; ++i) {
      const AdjEntry e = list[i];
      if (!Visit(f, e.neighbor, e.rel)) return false;
    }
    return true;
  }
  // Start loading what ForEachEdge(vertex, dir) reads first, for a caller that knows the
  // vertices it will expand next: PrefetchOffset some vertices ahead, then PrefetchEdges (which
  // reads the offset) for the same vertex a few vertices later. (Always inlined: GCC dropped
  // the call of PrefetchEdges, which has no effect it can see.)
  [[gnu::always_inline]] void PrefetchOffset(uint64_t vertex, Direction dir) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    if (vertex + 1 < a.num_offsets) __builtin_prefetch(a.offsets + vertex * a.widths.offset_bytes);
  }
  [[gnu::always_inline]] void PrefetchEdges(uint64_t vertex, Direction dir) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    if (vertex + 1 < a.num_offsets) {
      const uint64_t begin = a.Offset(vertex);
      if (begin < a.num_entries) __builtin_prefetch(a.entries + begin * a.widths.entry_bytes());
    }
  }
  // ForEachEdge over edges whose delete_ts is kNotDeleted.
  template <typename F>
  void ForEachLiveEdge(uint64_t vertex, Direction dir, F&& f) const {
    ForEachEdge(vertex, dir, [&](uint64_t nbr, uint64_t rel) {
      if (delete_ts_[rel] != kNotDeleted) return true;
      if constexpr (std::is_same_v<std::invoke_result_t<F&, uint64_t, uint64_t>, bool>) {
        return f(nbr, rel);
      } else {
        f(nbr, rel);
        return true;
      }
    });
  }
  // The number of adjacency entries of `vertex` in `dir` whose edge `visible(rel)` accepts, for
  // a reader whose snapshot sees every edge committed at or before `read_ts` and no later one
  // (its own uncommitted edges aside). The CSR range counts whole, from the offsets, when
  // CsrVisibleTo(dir, read_ts); else entry by entry, as the delta list always does. Adds the
  // number of entries it looked at one by one to `*examined` (for work budgets).
  template <typename F>
  uint64_t CountEdges(uint64_t vertex, Direction dir, uint64_t read_ts, F&& visible,
                      uint64_t* examined) const {
    const Adjacency& a = adj_[static_cast<int>(dir)];
    uint64_t n = 0;
    if (vertex + 1 < a.num_offsets) {
      const uint64_t begin = a.Offset(vertex), end = a.CsrEnd(vertex, begin);
      if (CsrVisibleTo(dir, read_ts)) {
        n = end - begin;
      } else {
        for (uint64_t i = begin; i < end; ++i) {
          const uint64_t rel = a.RelAt(i);
          if (rel >= a.csr_rel_bound) [[unlikely]] {
            bad_entry_.store(true, std::memory_order_relaxed);
            continue;
          }
          n += visible(rel) ? 1 : 0;
        }
        *examined += end - begin;
      }
    }
    if (vertex < a.delta_slot.size()) {
      const uint32_t slot = a.delta_slot[vertex];
      if (slot != 0) {
        const DeltaList& list = *a.delta_lists[slot - 1];
        const size_t size = list.size();
        for (size_t i = 0; i < size; ++i) n += visible(list[i].rel) ? 1 : 0;
        *examined += size;
      }
    }
    return n;
  }
  // Whether every CSR entry of `dir` is an edge created at or before `read_ts` on which no
  // delete stamp was set since the CSR was built.
  bool CsrVisibleTo(Direction dir, uint64_t read_ts) const {
    return adj_[static_cast<int>(dir)].csr_created_upto.load(std::memory_order_acquire) <= read_ts;
  }
  // The CSR part and the delta part of a vertex's adjacency (for batch consumers).
  AdjRange CsrEdges(uint64_t vertex, Direction dir) const;
  std::span<const AdjEntry> DeltaEdges(uint64_t vertex, Direction dir) const;
  // Physical entries (deleted included), and live ones.
  uint64_t Degree(uint64_t vertex, Direction dir) const;
  uint64_t LiveDegree(uint64_t vertex, Direction dir) const;
  // The first live edge src -> dst, if any.
  std::optional<uint64_t> FindEdge(uint64_t src, uint64_t dst) const;
  uint64_t NumDeltaEntries() const { return adj_[0].delta_entries.load(std::memory_order_relaxed); }
  // Whether an expansion met a CSR entry out of range (a damaged mapped file) and skipped it:
  // callers report kCorruption (CorruptAdjacencyStatus) rather than a partial answer.
  bool bad_entry() const { return bad_entry_.load(std::memory_order_relaxed); }
  Status CorruptAdjacencyStatus() const;
  // The packed widths of `dir`'s CSR (tests, and the sizes a checkpoint writes).
  PackedWidths csr_widths(Direction dir) const { return adj_[static_cast<int>(dir)].widths; }

  // ---- Bulk load ----
  // Adds edges given by endpoint keys, resolved through the node tables' primary-key indexes
  // (src_keys/dst_keys have the key columns' types), with one column per property. Atomic:
  // an unknown key, a multiplicity violation or a type mismatch leaves the table unchanged.
  Status BulkLoad(const Column& src_keys, const Column& dst_keys, std::vector<Column> props,
                  const NodeTable& src, const NodeTable& dst, uint64_t ts = 0);
  // The same with endpoints already resolved to node offsets. A SERIAL column given empty (or
  // its NULLs) takes the new rels' offsets, as InsertEdge.
  Status BulkLoadOffsets(std::span<const uint64_t> src, std::span<const uint64_t> dst,
                         std::vector<Column> props, uint64_t ts = 0);
  Status BulkLoadOffsets(const std::vector<uint64_t>& src, const std::vector<uint64_t>& dst,
                         std::vector<Column> props, uint64_t ts = 0) {
    return BulkLoadOffsets(std::span<const uint64_t>(src), std::span<const uint64_t>(dst),
                           std::move(props), ts);
  }

  // Folds delta lists into the CSR and drops from the adjacency the edges whose delete_ts is
  // at most `deleted_up_to` (default: every deleted edge). Edges deleted later, or by a
  // transaction that has not committed (stamp kUncommittedBase + ...), stay: a snapshot may
  // still see them.
  void Compact(uint64_t deleted_up_to = kNotDeleted - 1);

  // ---- ALTER ----
  Status AddColumn(const LogicalType& type, const Value& fill);
  Status DropColumn(size_t column);

  // Includes memory retired by growth, which FreeRetired() releases (exclusive access).
  size_t MemoryUsage() const;
  void FreeRetired();

  // ---- Persistence ----
  // Whether the contents changed since the last checkpoint wrote (or a load read) this
  // table's file; the checkpoint clears it once its manifest names the new file.
  const ChangeFlag& change_flag() const { return changed_; }
  ChangeFlag& change_flag() { return changed_; }
  // Writes the adjacency with deltas folded in (deleted edges kept).
  void Serialize(catalog::BinaryWriter& out) const;
  // `src_rows`/`dst_rows` bound the neighbour offsets found in the file; `format_version` is
  // the file's (version 1 has no adjacency entry width).
  static Result<std::unique_ptr<RelTable>> Deserialize(
      catalog::BinaryReader& in, const catalog::RelTableSchema& schema,
      const catalog::RelTablePair& pair, uint64_t src_rows, uint64_t dst_rows,
      uint32_t format_version = kFileFormatVersion);
  // Format version 3: columns, stamps and each direction's CSR (offsets, entries) in sections
  // that loading maps; the CSR's newest create stamp and rel bound are stored, not recomputed.
  void SerializeMapped(TableSink& out) const;
  static Result<std::unique_ptr<RelTable>> DeserializeMapped(catalog::BinaryReader& in,
                                                             const SectionSource& sections,
                                                             const catalog::RelTableSchema& schema,
                                                             const catalog::RelTablePair& pair,
                                                             uint64_t src_rows, uint64_t dst_rows);
  // ---- Append segments (docs/storage-format.md, "Segments"; storage/table_segments.cc) ----
  // What the table's files hold (rel offsets) and which of their rels changed since.
  FileChanges& file_changes() { return file_changes_; }
  const FileChanges& file_changes() const { return file_changes_; }
  // The rels a segment written now holds: the new ones and the changed ones below them.
  uint64_t SegmentRows() const {
    return NumRels() - file_changes_.persisted_rows() + file_changes_.changed_count();
  }
  // Writes the segment that brings the table's files to its current contents: changed and new
  // rels, and the new rels' adjacency entries (from the delta lists). REQUIRES:
  // !file_changes().rewrite(), NumRels() >= file_changes().persisted_rows().
  void SerializeSegment(catalog::BinaryWriter& out) const;
  // Applies a segment to a table loaded from the files before it (the new rels' entries go to
  // the delta lists); `src_rows`/`dst_rows` bound the endpoints. kCorruption when it does not
  // fit. Work is proportional to the segment.
  Status ApplySegment(catalog::BinaryReader& in, uint64_t src_rows, uint64_t dst_rows);
  // The newest committed stamp of the rels a load read from a file (0: not loaded).
  uint64_t loaded_max_stamp() const { return loaded_max_stamp_; }
  // Checks what a mapped load takes on trust (every CSR offset and entry in range):
  // kCorruption naming the first fault. Reads the whole adjacency. REQUIRES: exclusive access.
  Status VerifyAdjacency(uint64_t src_rows, uint64_t dst_rows) const;

 private:
  // f(nbr, rel), and whether to go on: f's answer when it returns bool, else true.
  template <typename F>
  static bool Visit(F& f, uint64_t nbr, uint64_t rel) {
    if constexpr (std::is_same_v<std::invoke_result_t<F&, uint64_t, uint64_t>, bool>) {
      return f(nbr, rel);
    } else {
      f(nbr, rel);
      return true;
    }
  }

  using DeltaList = SharedVector<AdjEntry>;
  struct Adjacency {
    // The CSR: `num_offsets` (0, or vertices + 1) packed offsets into `num_entries` packed
    // entries (PackedWidths). The arrays are the vectors below (built in memory) or regions
    // (a file's sections, mapped), each followed by kPackedTail readable bytes.
    const uint8_t* offsets = nullptr;
    uint64_t num_offsets = 0;
    const uint8_t* entries = nullptr;
    uint64_t num_entries = 0;
    PackedWidths widths;
    uint64_t offset_mask = ~0ULL;
    uint64_t neighbor_mask = 0xFFFFFFFFULL;
    uint64_t rel_mask = 0xFFFFFFFFULL;
    // Neighbour offsets at or above this are damage (a mapped file's node count); in-memory
    // builds are trusted.
    uint64_t neighbor_bound = UINT64_MAX;
    BulkVector<uint8_t> own_offsets;
    BulkVector<uint8_t> own_entries;
    std::unique_ptr<env::MemoryRegion> offsets_region;
    std::unique_ptr<env::MemoryRegion> entries_region;
    SharedVector<uint32_t> delta_slot;                    // per vertex: 0 = no list, else index + 1
    SharedVector<DeltaList*> delta_lists;                 // readers index this ...
    std::vector<std::unique_ptr<DeltaList>> owned_lists;  // ... writer side: owns the lists
    std::atomic<uint64_t> delta_entries{0};
    // The newest create stamp among the CSR entries, or kCsrNotClean when some entry's edge is
    // (or was, since the build) stamped deleted, or was created by an open transaction.
    std::atomic<uint64_t> csr_created_upto{kCsrNotClean};
    uint64_t csr_rel_bound = 0;  // above every rel offset in the CSR

    uint64_t CsrVertices() const { return num_offsets == 0 ? 0 : num_offsets - 1; }
    void SetWidths(PackedWidths w) {
      widths = w;
      offset_mask = ByteMask(w.offset_bytes);
      neighbor_mask = ByteMask(w.neighbor_bytes);
      rel_mask = ByteMask(w.rel_bytes);
    }
    uint64_t Offset(uint64_t vertex) const {
      return LoadPacked(offsets + vertex * widths.offset_bytes, offset_mask);
    }
    // The end of a vertex's CSR range (starting at `begin`), clamped: a mapped file's offsets
    // are not all checked when it opens, and a damaged one must not send a reader past the
    // entries.
    uint64_t CsrEnd(uint64_t vertex, uint64_t begin) const {
      const uint64_t end = Offset(vertex + 1);
      return end < begin ? begin : (end > num_entries ? std::max(begin, num_entries) : end);
    }
    uint64_t RelAt(uint64_t i) const {
      return widths.rel_bytes == 0
                 ? i
                 : LoadPacked(entries + i * widths.entry_bytes() + widths.neighbor_bytes, rel_mask);
    }
    AdjRange Range(uint64_t first, uint64_t size) const {
      return AdjRange(entries, first, size, widths);
    }
    AdjRange Entries() const { return Range(0, num_entries); }
    // Installs CSR arrays built in memory, packed to the fewest bytes their values need.
    void SetCsr(BulkVector<uint64_t> offsets, BulkVector<AdjEntry> entries);
    uint64_t NumVertices() const { return std::max<uint64_t>(CsrVertices(), delta_slot.size()); }
    void AddDelta(uint64_t vertex, AdjEntry e);
    // Removes `e` if it is the last delta entry of `vertex`.
    bool RemoveLastDelta(uint64_t vertex, AdjEntry e);
    // REQUIRES: exclusive access.
    void ClearDeltas();
  };

  // The CSR entries [begin, end) of `a`, each as f(neighbor_offset, rel_offset); false when f
  // stopped it. Two instantiations of one loop, by whether the rel offsets are the entries'
  // positions (a CSR built from rels stored in its order, as COPY makes the forward one): that
  // one reads less and keeps fewer values live beside f's own. The masks and bounds are read
  // once: what f stores (a caller's uint64_t buffer) might otherwise be taken to change them.
  template <typename F>
  bool ForEachCsrEntry(const Adjacency& a, uint64_t begin, uint64_t end, F& f) const {
    const uint64_t neighbor_mask = a.neighbor_mask, neighbor_bound = a.neighbor_bound;
    const uint64_t rel_bound = a.csr_rel_bound, rel_mask = a.rel_mask;
    const uint8_t neighbor_bytes = a.widths.neighbor_bytes;
    auto loop = [&](auto implicit_rels) {
      const uint32_t stride = a.widths.entry_bytes();
      const uint8_t* p = a.entries + begin * stride;
      for (uint64_t i = begin; i < end; ++i, p += stride) {
        const uint64_t nbr = LoadPacked(p, neighbor_mask);
        uint64_t rel = i;
        if constexpr (!implicit_rels) rel = LoadPacked(p + neighbor_bytes, rel_mask);
        // A mapped file's entries are not all checked when it opens: a damaged one is skipped
        // and reported (bad_entry()) instead of sending the caller past a column.
        if (nbr >= neighbor_bound || rel >= rel_bound) [[unlikely]] {
          bad_entry_.store(true, std::memory_order_relaxed);
          continue;
        }
        if (!Visit(f, nbr, rel)) return false;
      }
      return true;
    };
    return a.widths.rel_bytes == 0 ? loop(std::true_type{}) : loop(std::false_type{});
  }

  static constexpr uint64_t kCsrNotClean = UINT64_MAX;
  // Records csr_created_upto of `a` from its CSR entries (after a build).
  void RecordCsrStamps(Adjacency& a);
  // A delete stamp was set (or a create stamp raised): CsrVisibleTo is false until the next build.
  void WithdrawCsrStamps();

  // The largest neighbour or rel offset in `dir` (CSR and deltas), and one past the largest
  // rel offset.
  struct OffsetBounds {
    uint64_t largest_neighbor = 0;
    uint64_t largest_rel = 0;
    uint64_t rel_bound = 0;
    bool rel_is_position = true;  // every folded entry's rel offset is its position
  };
  OffsetBounds Bounds(Direction dir) const;
  // Calls emit(bytes, length) with the entries of `dir`, each vertex's delta list folded in
  // after its CSR range, packed with `widths`, in pieces.
  template <typename Emit>
  void ForEachFoldedRun(Direction dir, PackedWidths widths, Emit&& emit) const;
  // The widths that pack `dir`'s folded adjacency (CSR and deltas).
  PackedWidths FoldedWidths(Direction dir, const OffsetBounds& bounds) const;
  // The newest create stamp among the rels of `dir`'s folded adjacency, or kCsrNotClean.
  uint64_t FoldedCsrStamp(Direction dir) const;

  // The header and the property columns of either file form (`mapped`: format version 3),
  // each column read by read_column(in, type); then the rel count.
  template <typename ReadColumn>
  static Result<std::pair<std::unique_ptr<RelTable>, uint64_t>> ReadHeaderAndColumns(
      catalog::BinaryReader& in, const catalog::RelTableSchema& schema,
      const catalog::RelTablePair& pair, bool mapped, ReadColumn&& read_column);

  Status MultiplicityError(const char* prefix, uint64_t vertex, Direction dir) const;
  // Whether one more live edge src -> dst keeps the multiplicity (Runtime exception if not).
  Status CheckMultiplicity(uint64_t src, uint64_t dst) const;
  // Rebuilds one direction's CSR from its current contents plus extra edges
  // extra_vertex[i] -> extra_neighbor[i] with rel offset extra_base_rel + i, optionally
  // dropping deleted edges; clears the delta lists.
  void Rebuild(Direction dir, std::span<const uint64_t> extra_vertex,
               std::span<const uint64_t> extra_neighbor, uint64_t extra_base_rel, bool drop_deleted,
               uint64_t deleted_up_to);

  catalog::TableId table_id_;
  std::string name_;
  catalog::TableId src_table_;
  catalog::TableId dst_table_;
  catalog::RelMultiplicity multiplicity_;
  // Held by InsertEdge, UndoInsert and SetCreateTs (concurrent inserts; see the top).
  mutable std::mutex write_mu_;
  std::vector<std::unique_ptr<Column>> columns_;
  StampVector create_ts_{0};
  StampVector delete_ts_{kNotDeleted};
  std::atomic<uint64_t> num_deleted_{0};
  uint64_t loaded_max_stamp_ = 0;
  Adjacency adj_[2];
  mutable std::atomic<bool> bad_entry_{false};
  VersionStore versions_;
  ChangeFlag changed_{true};
  FileChanges file_changes_;
};

}  // namespace graphdb::storage
