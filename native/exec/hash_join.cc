#include "exec/hash_join.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "common/cache_line.h"
#include "common/open_index.h"
#include "common/status.h"
#include "cypher/planner/logical_plan.h"
#include "cypher/planner/planner.h"
#include "exec/column_filter.h"
#include "exec/comparison.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"
#include "exec/parallel_pipeline.h"
#include "function/value_ops.h"
#include "storage/bulk_vector.h"

namespace graphdb::exec {

namespace {

using binder::BoundExpression;
using binder::ExprKind;
using binder::SlotId;
using Id = LogicalTypeId;
// The build side's arrays, per row or per group: from a MiB on, whole huge pages kept between
// runs (storage/bulk_vector.h), so that a build of a million rows does not fault in ~40 MB of
// 4 KiB pages again at every run (docs/execution.md, "Memory between statements").
template <typename T>
using BigVector = storage::BulkVector<T>;

// What the memory limit counts per build row beyond its values: its codes, group and order.
constexpr size_t kJoinEntryBytes = 32;
// What it counts per distinct key and per dictionary entry beyond the bytes they hold.
constexpr size_t kGroupBytes = 24;
constexpr size_t kDictionaryEntryBytes = 32;
// The code of a probe string or value the build side's dictionary lacks: equal to none.
constexpr uint64_t kAbsent = UINT64_MAX;

// How the values of a key or a typed residual are coded.
enum class Kind : uint8_t {
  kInt,      // signed integers (any width), or one temporal type: the value
  kString,   // a code of the build side's strings
  kGeneric,  // a code of the build side's values (function::ValuesEqual)
};

Kind KindOf(const LogicalType& a, const LogicalType& b) {
  if (IsSignedInteger(a.id()) && IsSignedInteger(b.id())) return Kind::kInt;
  if (IsTemporal(a.id()) && a.id() == b.id()) return Kind::kInt;
  if (a.id() == Id::kString && b.id() == Id::kString) return Kind::kString;
  return Kind::kGeneric;
}

// Per-thread state written per row (Cursor, BuildPart's scratch, Probe) and small tables read
// per row (Table's ranges, Compiled::typed) live on cache lines of their own
// (common/cache_line.h: alignas(kCacheLine), LineVector): the build and probe of a self-join
// on 2 threads spent 10-15% more CPU than on 1 without.

// One side of a key or residual.
struct Operand {
  const BoundExpression* expr = nullptr;
  // A node variable's property of a typed kind: read from its column.
  const BoundExpression* property = nullptr;
  SlotId node_slot = 0;
  Kind kind = Kind::kGeneric;
};

Operand MakeOperand(const BoundExpression* e, Kind kind) {
  Operand o;
  o.expr = e;
  o.kind = kind;
  if (kind != Kind::kGeneric && e->kind == ExprKind::kProperty && e->children.size() == 1 &&
      e->children[0]->kind == ExprKind::kVariable && e->children[0]->type.id() == Id::kNode) {
    o.property = e;
    o.node_slot = e->children[0]->slot;
  }
  return o;
}

// A value read: an integer, a string, or (kGeneric) a value.
struct Datum {
  int64_t i = 0;
  std::string_view s;
  const Value* v = nullptr;
  // Read from row `offset` of this column of a table of `rows` rows (no versions owed).
  const storage::Column* column = nullptr;
  uint64_t offset = 0, rows = 0;
};

// One thread's reading of one operand: the column of the node table read last.
struct alignas(kCacheLine) Cursor {
  uint64_t table = UINT64_MAX;
  const storage::Column* column = nullptr;
  const storage::VersionStore* versions = nullptr;
  bool typed = false;
  bool wide = false;  // an INT64-wide column
  uint64_t rows = 0;  // the table's rows
  char inline_bytes[storage::Column::kInlineStringBytes];
  Value held;  // a value evaluated (the string of `Datum::s` lives here)
};

// Points `c` at the column `o` reads in node table `table_id`.
void Resolve(const Operand& o, Cursor& c, ExecContext& ctx, uint64_t table_id) {
  c.table = table_id;
  const std::vector<int32_t>& columns = o.property->property_columns;
  const int32_t index = table_id < columns.size() ? columns[table_id] : -1;
  const storage::NodeTable& table = ctx.store->node_table(table_id);
  c.column = index >= 0 && static_cast<size_t>(index) < table.NumColumns()
                 ? &table.column(static_cast<size_t>(index))
                 : nullptr;
  c.versions = &table.versions();
  c.rows = table.NumRows();
  const Id have = c.column ? c.column->type().id() : Id::kAny;
  c.typed = c.column != nullptr &&
            (o.kind == Kind::kString
                 ? have == Id::kString
                 : have == o.property->type.id() && (IsSignedInteger(have) || IsTemporal(have)));
  c.wide = c.typed && c.column->kind() == storage::PhysicalKind::kInt64;
}

// The node whose property `o` reads, when the frame holds its id (else the generic read).
bool NodeOf(const Operand& o, ExecContext& ctx, InternalId* id) {
  if (o.property == nullptr || ctx.store == nullptr) return false;
  const Value& node = ctx.frame[o.node_slot];
  if (node.is_null() || node.type_id() != Id::kInternalId) return false;
  *id = node.GetId();
  return true;
}

// Reads `o` over ctx.frame into `d`; false for NULL.
bool Read(const Operand& o, Cursor& c, ExecContext& ctx, Datum& d) {
  InternalId id;
  if (NodeOf(o, ctx, &id)) {
    if (id.table != c.table) Resolve(o, c, ctx, id.table);
    if (c.typed) {
      // The cell first, then the versions: when they may owe this statement an older value,
      // the generic read below decides.
      const bool null = c.column->IsNull(id.offset);
      if (!null) {
        if (o.kind == Kind::kString) {
          d.s = c.column->ReadString(id.offset, c.inline_bytes);
        } else {
          d.i = c.wide ? c.column->GetFixed<int64_t>(id.offset) : c.column->GetInt64(id.offset);
        }
      }
      if (c.versions->empty()) {
        d.column = c.column;
        d.offset = id.offset;
        d.rows = c.rows;
        return !null;
      }
    }
  }
  c.held = Evaluate(*o.expr, ctx);
  if (c.held.is_null()) return false;
  switch (o.kind) {
    case Kind::kInt: d.i = c.held.GetInt(); break;
    case Kind::kString: d.s = c.held.GetString(); break;
    case Kind::kGeneric: d.v = &c.held; break;
  }
  return true;
}

uint64_t Mix(uint64_t h, uint64_t x) {
  h = (h ^ x) * 0xFF51AFD7ED558CCDULL;
  return h ^ (h >> 32);
}

// The bytes [p, p + n) of a string, n < 8, as a word: overlapping loads, no call to memcpy
// of a variable size (a string's length is hashed beside them, so the packing need only be a
// function of the bytes).
inline uint64_t LoadTail(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    return lo | (static_cast<uint64_t>(hi) << 32);
  }
  if (n == 0) return 0;
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return b[0] | (static_cast<uint64_t>(b[n >> 1]) << 8) | (static_cast<uint64_t>(b[n - 1]) << 16);
}

inline uint64_t LoadWord(const char* p) {
  uint64_t w;
  std::memcpy(&w, p, 8);
  return w;
}

// A string as its length and first 16 bytes packed in two words (LoadTail past the end): for
// strings of at most 16 bytes, equal heads mean equal strings.
struct StringHead {
  uint64_t w0 = 0, w1 = 0;
  size_t size = 0;

  explicit StringHead(std::string_view s) : size(s.size()) {
    const char* p = s.data();
    const size_t n = s.size();
    if (n >= 16) {
      w0 = LoadWord(p);
      w1 = LoadWord(p + 8);
    } else if (n >= 8) {
      w0 = LoadWord(p);
      w1 = LoadTail(p + 8, n - 8);
    } else {
      w0 = LoadTail(p, n);
    }
  }
  bool operator==(const StringHead& o) const = default;
};

// The two halves of a * b folded: every bit of each operand reaches the low bits.
inline uint64_t Fold(uint64_t a, uint64_t b) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(p) ^ static_cast<uint64_t>(p >> 64);
}

// A string's hash from its head (one multiplication: the short strings of most keys are
// interned per build row), then the rest 8 bytes at a time.
uint64_t HashBytes(std::string_view s, const StringHead& head) {
  uint64_t h = Fold(head.w0 ^ 0x9E3779B97F4A7C15ULL,
                    head.w1 ^ 0xC2B2AE3D27D4EB4FULL ^ (static_cast<uint64_t>(s.size()) << 56));
  if (s.size() <= 16) return h;
  size_t i = 16;
  for (; i + 8 <= s.size(); i += 8) h = Mix(h, LoadWord(s.data() + i));
  return Mix(h, LoadTail(s.data() + i, s.size() - i));
}

// Whether a and b hold the same bytes (compared as words, the last one overlapping).
bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n < 8) return LoadTail(a.data(), n) == LoadTail(b.data(), n);
  for (size_t i = 0; i + 8 < n; i += 8) {
    if (LoadWord(a.data() + i) != LoadWord(b.data() + i)) return false;
  }
  return LoadWord(a.data() + n - 8) == LoadWord(b.data() + n - 8);
}

// The build side's strings of one key or residual: string -> code (its order of arrival).
// The open-addressing index holds each string's head (length and first 16 bytes) beside its
// code, so that finding a string of at most 16 bytes (most keys) is one load and a compare.
class StringDictionary {
 public:
  // The code of `s`, added when new (`added` then holds the bytes it took).
  uint64_t Intern(std::string_view s, size_t* added) {
    const StringHead head(s);
    const uint64_t h = HashBytes(s, head);
    Slot& slot = slots_[Find(s, head, h)];
    if (slot.code != 0) return slot.code - 1;
    const auto code = static_cast<uint32_t>(hashes_.size());
    hashes_.push_back(h);
    starts_.push_back(bytes_.size());
    bytes_.append(s);
    slot = Slot{head.w0, head.w1, static_cast<uint32_t>(head.size), code + 1};
    *added = s.size() + kDictionaryEntryBytes;
    if (hashes_.size() * 2 > slots_.size()) Grow();
    return code;
  }
  size_t size() const { return hashes_.size(); }
  std::string_view At(uint32_t code) const {
    const size_t end = code + 1 < starts_.size() ? starts_[code + 1] : bytes_.size();
    return std::string_view(bytes_).substr(starts_[code], end - starts_[code]);
  }
  uint64_t Lookup(std::string_view s) const {
    if (hashes_.empty()) return kAbsent;
    const StringHead head(s);
    const uint32_t at = slots_[Find(s, head, HashBytes(s, head))].code;
    return at == 0 ? kAbsent : at - 1;
  }

 private:
  struct Slot {
    uint64_t w0 = 0, w1 = 0;
    uint32_t size = 0;  // (truncated past 2^32: longer strings are compared in full anyway)
    uint32_t code = 0;  // code + 1; 0: empty
  };
  size_t Find(std::string_view s, const StringHead& head, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& slot = slots_[i];
      if (slot.code == 0) return i;
      if (slot.w0 == head.w0 && slot.w1 == head.w1 &&
          slot.size == static_cast<uint32_t>(head.size) &&
          (s.size() <= 16 || SameBytes(At(slot.code - 1), s))) {
        return i;
      }
    }
  }
  void Grow() {
    std::vector<Slot> previous = std::move(slots_);
    slots_.assign(previous.size() * 2, Slot{});
    const size_t mask = slots_.size() - 1;
    for (const Slot& slot : previous) {
      if (slot.code == 0) continue;
      size_t i = hashes_[slot.code - 1] & mask;
      while (slots_[i].code != 0) i = (i + 1) & mask;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_ = std::vector<Slot>(16);
  std::vector<uint64_t> hashes_;  // per code
  std::vector<size_t> starts_;
  std::string bytes_;
};

// Per string operand of the build side: the code of each row it read from its column (code
// + 2; 0: not read), so that a probe reading the same column (a self-join) takes a
// row's code without reading or looking up its string.
struct RowCodes {
  const storage::Column* column = nullptr;
  BigVector<uint32_t> codes;

  // The code of the row `o` reads noted by the build; false when not known.
  bool Known(const Operand& o, Cursor& c, ExecContext& ctx, uint64_t* code) const {
    InternalId id;
    if (column == nullptr || !NodeOf(o, ctx, &id)) return false;
    if (id.table != c.table) Resolve(o, c, ctx, id.table);
    if (c.column != column || id.offset >= codes.size() || !c.versions->empty()) return false;
    const uint32_t known = codes[id.offset];
    if (known == 0) return false;
    *code = known - 2;
    return true;
  }
};

// The build side's values of one key: value -> code, under `=`.
class ValueDictionary {
 public:
  uint64_t Intern(const Value& v, size_t* added) {
    auto [it, fresh] = codes_.emplace(v, codes_.size());
    if (fresh) {
      *added = ApproxBytes(v) + kDictionaryEntryBytes;
      values_.push_back(v);
    }
    return it->second;
  }
  // The values by code.
  const std::vector<Value>& values() const { return values_; }
  uint64_t Lookup(const Value& v) const {
    auto it = codes_.find(v);
    return it == codes_.end() ? kAbsent : it->second;
  }

 private:
  struct Hash {
    size_t operator()(const Value& v) const { return function::HashValue(v); }
  };
  struct Equal {
    bool operator()(const Value& a, const Value& b) const { return function::ValuesEqual(a, b); }
  };
  std::unordered_map<Value, uint64_t, Hash, Equal> codes_;
  std::vector<Value> values_;
};

// Whether `v` can equal anything under `=`: not NaN (NULL is never read as a value).
bool Matchable(const Value& v) {
  if (v.type_id() == Id::kDouble || v.type_id() == Id::kFloat) return !std::isnan(v.GetDouble());
  return true;
}

}  // namespace

// A residual conjunct: typed (the build operand's value kept per row, compared with the
// probe operand's as `build cmp probe`) or evaluated with the build row in the frame.
struct JoinResidual {
  const BoundExpression* expr = nullptr;
  bool typed = false;
  Comparison cmp = Comparison::kEq;
  Operand probe, build;
};

struct HashJoinOp::Compiled {
  std::vector<Operand> probe_keys, build_keys;
  std::vector<JoinResidual> residuals;
  LineVector<size_t> typed;  // the typed residuals' indexes
  bool generic_residuals = false;
  // Whether matched build rows write their slots (row mode, or residuals evaluated on them).
  bool keeps_rows = false;
  // Count mode with one typed `<>`: counted from per-key histograms.
  bool histogram = false;

  explicit Compiled(const HashJoinSpec& spec) {
    for (size_t i = 0; i < spec.probe_keys.size(); ++i) {
      const Kind kind = KindOf(spec.probe_keys[i]->type, spec.build_keys[i]->type);
      probe_keys.push_back(MakeOperand(spec.probe_keys[i], kind));
      build_keys.push_back(MakeOperand(spec.build_keys[i], kind));
    }
    const std::set<SlotId> build_slots(spec.build_slots.begin(), spec.build_slots.end());
    for (const BoundExpression* e : spec.residuals) {
      JoinResidual r = Compile(*e, build_slots);
      r.expr = e;
      generic_residuals = generic_residuals || !r.typed;
      if (r.typed) typed.push_back(residuals.size());
      residuals.push_back(r);
    }
    keeps_rows = !spec.counts || generic_residuals;
    histogram = spec.counts && residuals.size() == 1 && residuals[0].typed &&
                residuals[0].cmp == Comparison::kNe;
  }

  static JoinResidual Compile(const BoundExpression& e, const std::set<SlotId>& build_slots) {
    JoinResidual r;
    if (e.kind != ExprKind::kScalarFunction || e.children.size() != 2) return r;
    Comparison named;
    if (!ComparisonNamed(e.name, &named)) return r;
    // Which child reads the build side alone, and which the probe side alone.
    auto side = [&build_slots](const BoundExpression& x) {
      std::set<SlotId> slots;
      planner::CollectExpressionSlots(x, slots);
      if (slots.empty()) return 0;
      const size_t built = static_cast<size_t>(std::count_if(
          slots.begin(), slots.end(), [&](SlotId s) { return build_slots.count(s) > 0; }));
      return built == slots.size() ? 1 : built == 0 ? 2 : 0;  // 1: build, 2: probe
    };
    const BoundExpression& left = *e.children[0];
    const BoundExpression& right = *e.children[1];
    const int l = side(left), rs = side(right);
    if (l == 0 || rs == 0 || l == rs) return r;
    const Kind kind = KindOf(left.type, right.type);
    if (kind == Kind::kGeneric) return r;
    r.cmp = l == 1 ? named : Mirrored(named);
    if (kind == Kind::kString && r.cmp != Comparison::kEq && r.cmp != Comparison::kNe) return r;
    r.build = MakeOperand(l == 1 ? &left : &right, kind);
    r.probe = MakeOperand(l == 1 ? &right : &left, kind);
    r.typed = true;
    return r;
  }
};

namespace {

// Counts per (group, value code), in an open-addressing table.
class PairCounts {
 public:
  // One more row of group g with value `code`; the bytes a new pair took.
  size_t Add(uint32_t g, int64_t code) {
    const size_t i = Slot(g, code);
    if (index_[i] != 0) {
      ++counts_[index_[i] - 1];
      return 0;
    }
    groups_.push_back(g);
    codes_.push_back(code);
    counts_.push_back(1);
    index_[i] = static_cast<uint32_t>(counts_.size());
    if (counts_.size() * 2 > index_.size()) {
      index_.assign(index_.size() * 2, 0);
      for (uint32_t k = 0; k < counts_.size(); ++k) index_[Slot(groups_[k], codes_[k])] = k + 1;
    }
    return 24;
  }
  uint32_t Count(uint32_t g, int64_t code) const {
    const uint32_t at = index_[Slot(g, code)];
    return at == 0 ? 0 : counts_[at - 1];
  }

 private:
  size_t Slot(uint32_t g, int64_t code) const {
    const size_t mask = index_.size() - 1;
    for (size_t i = Mix(Mix(0x9E3779B97F4A7C15ULL, g), static_cast<uint64_t>(code)) & mask;;
         i = (i + 1) & mask) {
      const uint32_t at = index_[i];
      if (at == 0 || (groups_[at - 1] == g && codes_[at - 1] == code)) return i;
    }
  }

  BigVector<uint32_t> groups_;
  BigVector<int64_t> codes_;
  BigVector<uint32_t> counts_;
  BigVector<uint32_t> index_ = BigVector<uint32_t>(16, 0);  // pair + 1; 0: empty
};

}  // namespace

namespace {

// One partition of a built table: the groups (distinct keys) whose hash selects it, found by
// an open-addressing index (group + 1; 0: empty), and their rows. In a direct table the
// groups are a range of key slots instead (no index; a group may be empty).
struct JoinPartition {
  size_t num_keys = 0;
  size_t num_groups = 0;
  BigVector<uint64_t> codes;   // num_keys per group
  BigVector<uint64_t> hashes;  // per group
  BigVector<uint32_t> index = BigVector<uint32_t>(16, 0);
  // The rows of group g are [begin[g], begin[g + 1]), in build order.
  BigVector<uint32_t> begin;
  BigVector<Value> values;      // num_slots per row (when the rows are kept)
  BigVector<int64_t> residual;  // num_typed per row: the build operand's code
  BigVector<uint8_t> residual_null;
  // Histogram mode: per group, its rows with a non-NULL residual value, and per (group,
  // value) the rows with that value.
  BigVector<uint32_t> non_null;
  PairCounts histogram;
  // Or, for a string residual of few values: per group, the non-NULL count, then the count
  // of each code; 8- or 16-bit counts when no group has more rows than they hold (the probe's
  // one random read then misses the cache less).
  size_t dense_stride = 0;
  BigVector<uint8_t> dense8;
  BigVector<uint16_t> dense16;
  BigVector<uint32_t> dense32;

  // The rows of group g with a non-NULL residual value other than `code`.
  uint64_t Others(uint32_t g, int64_t code) const {
    const size_t at = g * dense_stride;
    const bool valid = code >= 0 && static_cast<size_t>(code) + 1 < dense_stride;
    if (!dense8.empty()) {
      const uint8_t* row = dense8.data() + at;
      return row[0] - (valid ? row[code + 1] : 0u);
    }
    if (!dense16.empty()) {
      const uint16_t* row = dense16.data() + at;
      return row[0] - (valid ? row[code + 1] : 0u);
    }
    const uint32_t* row = dense32.data() + at;
    return row[0] - (valid ? row[code + 1] : 0u);
  }
  void PrefetchDense(uint32_t g) const {
    const size_t at = g * dense_stride;
    if (!dense8.empty()) {
      __builtin_prefetch(dense8.data() + at);
    } else if (!dense16.empty()) {
      __builtin_prefetch(dense16.data() + at);
    } else {
      __builtin_prefetch(dense32.data() + at);
    }
  }

  size_t FindSlot(const uint64_t* key, uint64_t h) const {
    const size_t mask = index.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint32_t g = index[i];
      if (g == 0) return i;
      if (hashes[g - 1] != h) continue;
      const uint64_t* have = codes.data() + (g - 1) * num_keys;
      size_t k = 0;
      while (k < num_keys && have[k] == key[k]) ++k;
      if (k == num_keys) return i;
    }
  }
  // The group of `key`, or UINT32_MAX.
  uint32_t Find(const uint64_t* key, uint64_t h) const {
    const uint32_t g = index[FindSlot(key, h)];
    return g == 0 ? UINT32_MAX : g - 1;
  }
  uint32_t FindOrAdd(const uint64_t* key, uint64_t h, bool* added) {
    const size_t i = FindSlot(key, h);
    if (index[i] != 0) return index[i] - 1;
    const auto g = static_cast<uint32_t>(hashes.size());
    for (size_t k = 0; k < num_keys; ++k) codes.push_back(key[k]);
    hashes.push_back(h);
    index[i] = g + 1;
    *added = true;
    if (hashes.size() * 2 > index.size()) RegrowIndex(index, hashes);
    return g;
  }
};

}  // namespace

struct HashJoinOp::Table {
  size_t num_keys = 0;
  std::vector<StringDictionary> key_strings;       // per key (kString keys)
  std::vector<ValueDictionary> key_values;         // per key (kGeneric keys)
  std::vector<StringDictionary> residual_strings;  // per residual (typed string ones)
  std::vector<RowCodes> key_rows, residual_rows;   // per key, per residual (string ones)
  size_t rows = 0;
  size_t num_slots = 0;
  size_t num_typed = 0;  // typed residuals
  // The groups by the top `partition_bits` bits of their keys' hash (0: one partition).
  unsigned partition_bits = 0;
  std::vector<JoinPartition> partitions;
  // Direct: the keys' codes span few values (few distinct strings, a narrow integer range),
  // so a key's slot, sum((code - low) * stride), is its group: partition slot >> slot_bits,
  // group slot & (2^slot_bits - 1). No hashing, no index.
  bool direct = false;
  LineVector<int64_t> low, high;  // per key: its codes' range
  LineVector<uint64_t> stride;    // per key
  unsigned slot_bits = 0;

  const JoinPartition& PartitionOf(uint64_t h) const {
    return partitions[partition_bits == 0 ? 0 : h >> (64 - partition_bits)];
  }
  // The slot of `key` in a direct table; false when a code lies outside its key's range.
  bool SlotOf(const uint64_t* key, uint64_t* slot) const {
    uint64_t at = 0;
    for (size_t k = 0; k < num_keys; ++k) {
      const auto v = static_cast<int64_t>(key[k]);
      if (v < low[k] || v > high[k]) return false;
      at += static_cast<uint64_t>(v - low[k]) * stride[k];
    }
    *slot = at;
    return true;
  }
};

namespace {

uint64_t HashCodes(const uint64_t* key, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (size_t i = 0; i < n; ++i) h = Mix(h, key[i]);
  return h;
}

}  // namespace

HashJoinSpec HashJoinSpec::Of(const planner::LogicalOperator& op) {
  HashJoinSpec spec;
  spec.probe_keys = op.probe_keys;
  spec.build_keys = op.build_keys;
  spec.build_slots = op.slots;
  // The predicates hold the key conjuncts, then the residuals.
  for (size_t i = op.probe_keys.size(); i < op.predicates.size(); ++i) {
    spec.residuals.push_back(op.predicates[i]);
  }
  spec.counts = op.weighted;
  spec.weight_slot = op.weight_slot;
  return spec;
}

namespace {

// The build side's rows as one thread read them, coded by its own dictionaries (merged into
// the table's afterwards).
struct alignas(kCacheLine) BuildPart {
  std::vector<StringDictionary> key_strings, residual_strings;
  std::vector<ValueDictionary> key_values;
  std::vector<Cursor> key_cursors, residual_cursors;
  LineVector<uint64_t> key;          // scratch
  LineVector<int64_t> low, high;     // per integer key: the least and greatest value read
  BigVector<uint64_t> keys;          // per row: its key codes
  BigVector<int64_t> residual;       // per row: its typed residuals' codes
  BigVector<uint8_t> residual_null;  // per row and typed residual: NULL
  BigVector<Value> values;           // per row: the build slots' values (kept rows)
  // Per string operand (string keys, then typed string residuals): the column its rows were
  // read from, with the table's row count; per row, the offset read (UINT32_MAX: none).
  std::vector<const storage::Column*> columns;
  BigVector<uint64_t> column_rows;
  BigVector<uint32_t> offsets;
  size_t rows = 0;
  // Parallel builds: the runs of rows of one morsel (the position of its first row, the
  // index of its first row here), in the order this thread read them.
  std::vector<std::pair<uint64_t, size_t>> morsels;
  MemoryCharge memory;
  // Merging: per row, the hash of its key codes (the table's) or its direct slot; in a
  // partitioned table, the rows of each partition instead, ascending, their data copied
  // together so that each partition's build reads them in sequence.
  BigVector<uint64_t> hashes;
  struct Bucket {
    BigVector<uint32_t> rows;
    BigVector<uint64_t> hashes;
    BigVector<uint64_t> keys;  // hashed tables only
    BigVector<int64_t> residual;
    BigVector<uint8_t> residual_null;
    // Or, in a direct table's string histograms (packed): slot << 32 | (code + 1, 0 for NULL).
    BigVector<uint64_t> packed;
  };
  std::vector<Bucket> buckets;
  // Or, when the merge tallies (a direct table's dense histograms), this part's count of
  // each (slot, residual code) pair, laid out as the histograms are.
  std::unique_ptr<uint32_t[]> tally;
  MemoryCharge bucket_memory;
};

// Which operands are string ones (their index among them, or -1): keys, then residuals.
struct StringOperands {
  std::vector<int> keys, residuals;
  size_t count = 0;
};

}  // namespace

namespace {

void InitPart(const HashJoinOp::Compiled& c, BuildPart& part, size_t string_operands);
// Reads the build row in ctx.frame into `part`; false (nothing kept) when a key is NULL or NaN.
// *bytes: what it took.
bool ReadBuildRow(const HashJoinOp::Compiled& c, const HashJoinSpec& spec,
                  const StringOperands& strings, bool keeps_values, bool counts, BuildPart& part,
                  ExecContext& ctx, size_t* bytes);

}  // namespace

struct HashJoinOp::Builder {
  static std::shared_ptr<const Table> Merge(const Compiled& c, const HashJoinSpec& spec,
                                            const StringOperands& strings,
                                            std::vector<BuildPart>& parts, ExecContext& ctx,
                                            MemoryCharge& memory);
};

namespace {

void InitPart(const HashJoinOp::Compiled& c, BuildPart& part, size_t string_operands) {
  const size_t nk = c.build_keys.size();
  part.key_strings.resize(nk);
  part.key_values.resize(nk);
  part.key_cursors.resize(nk);
  part.low.assign(nk, INT64_MAX);
  part.high.assign(nk, INT64_MIN);
  part.key.resize(nk);
  part.residual_strings.resize(c.residuals.size());
  part.residual_cursors.resize(c.residuals.size());
  part.columns.assign(string_operands, nullptr);
  part.column_rows.assign(string_operands, 0);
}

bool ReadBuildRow(const HashJoinOp::Compiled& c, const HashJoinSpec& spec,
                  const StringOperands& strings, bool keeps_values, bool counts, BuildPart& part,
                  ExecContext& ctx, size_t* bytes) {
  const size_t nk = c.build_keys.size();
  const size_t first_offset = part.offsets.size();
  part.offsets.resize(first_offset + strings.count, UINT32_MAX);
  auto note = [&](int operand, const Datum& d) {
    if (operand < 0 || d.column == nullptr) return;
    const auto i = static_cast<size_t>(operand);
    if (part.columns[i] == nullptr) {
      part.columns[i] = d.column;
      part.column_rows[i] = d.rows;
    }
    // Rows past 2^32 - 1 are not noted (row codes are an aid, not needed).
    if (part.columns[i] == d.column && d.offset < UINT32_MAX) {
      part.offsets[first_offset + i] = static_cast<uint32_t>(d.offset);
    }
  };
  for (size_t k = 0; k < nk; ++k) {
    Datum d;
    const Operand& o = c.build_keys[k];
    size_t added = 0;
    if (!Read(o, part.key_cursors[k], ctx, d)) {
      part.offsets.resize(first_offset);
      return false;
    }
    switch (o.kind) {
      case Kind::kInt:
        part.key[k] = static_cast<uint64_t>(d.i);
        part.low[k] = std::min(part.low[k], d.i);
        part.high[k] = std::max(part.high[k], d.i);
        break;
      case Kind::kString:
        part.key[k] = part.key_strings[k].Intern(d.s, &added);
        note(strings.keys[k], d);
        break;
      case Kind::kGeneric:
        if (!Matchable(*d.v)) {
          part.offsets.resize(first_offset);
          return false;
        }
        part.key[k] = part.key_values[k].Intern(*d.v, &added);
        break;
    }
    *bytes += added;
  }
  for (size_t k = 0; k < nk; ++k) part.keys.push_back(part.key[k]);
  for (size_t i : c.typed) {
    const JoinResidual& r = c.residuals[i];
    Datum d;
    int64_t code = 0;
    const bool present = Read(r.build, part.residual_cursors[i], ctx, d);
    if (present) {
      size_t added = 0;
      code = r.build.kind == Kind::kInt
                 ? d.i
                 : static_cast<int64_t>(part.residual_strings[i].Intern(d.s, &added));
      *bytes += added;
    }
    if (present) note(strings.residuals[i], d);
    part.residual.push_back(code);
    part.residual_null.push_back(present ? 0 : 1);
  }
  if (keeps_values) {
    for (SlotId s : spec.build_slots) {
      part.values.push_back(ctx.frame[s]);
      if (counts) *bytes += ApproxBytes(part.values.back());
    }
  }
  *bytes += kJoinEntryBytes + nk * sizeof(uint64_t) + c.typed.size() * 9 +
            strings.count * sizeof(uint32_t);
  ++part.rows;
  return true;
}

}  // namespace

std::shared_ptr<const HashJoinOp::Table> HashJoinOp::Builder::Merge(
    const Compiled& c, const HashJoinSpec& spec, const StringOperands& strings,
    std::vector<BuildPart>& parts, ExecContext& ctx, MemoryCharge& memory) {
  auto t = std::make_shared<Table>();
  const size_t nk = c.build_keys.size();
  const size_t nt = c.typed.size();
  t->num_keys = nk;
  t->key_strings.resize(nk);
  t->key_values.resize(nk);
  t->residual_strings.resize(c.residuals.size());
  t->key_rows.resize(nk);
  t->residual_rows.resize(c.residuals.size());
  t->num_slots = c.keeps_rows ? spec.build_slots.size() : 0;
  t->num_typed = nt;
  const bool counts = ctx.CountsMemory();
  size_t bytes = 0;
  // Each part's codes in the table's dictionaries (only the distinct values: serial).
  std::vector<std::vector<std::vector<uint64_t>>> key_codes(parts.size()),
      residual_codes(parts.size());
  for (size_t p = 0; p < parts.size(); ++p) {
    BuildPart& part = parts[p];
    key_codes[p].resize(nk);
    residual_codes[p].resize(c.residuals.size());
    for (size_t k = 0; k < nk; ++k) {
      size_t added = 0;
      if (c.build_keys[k].kind == Kind::kString) {
        for (size_t code = 0; code < part.key_strings[k].size(); ++code) {
          key_codes[p][k].push_back(t->key_strings[k].Intern(part.key_strings[k].At(code), &added));
        }
      } else if (c.build_keys[k].kind == Kind::kGeneric) {
        for (const Value& v : part.key_values[k].values()) {
          key_codes[p][k].push_back(t->key_values[k].Intern(v, &added));
        }
      }
      bytes += added;
    }
    for (size_t i : c.typed) {
      size_t added = 0;
      for (size_t code = 0; code < part.residual_strings[i].size(); ++code) {
        residual_codes[p][i].push_back(
            t->residual_strings[i].Intern(part.residual_strings[i].At(code), &added));
      }
      bytes += added;
    }
    if (counts) memory.Absorb(part.memory);
  }
  // The runs of rows in the serial order: by morsel (a serial build is one run).
  struct Run {
    uint64_t position;
    size_t part, begin, end;
  };
  std::vector<Run> runs;
  size_t total = 0;
  for (size_t p = 0; p < parts.size(); ++p) {
    total += parts[p].rows;
    const auto& morsels = parts[p].morsels;
    if (morsels.empty()) {
      if (parts[p].rows > 0) runs.push_back({0, p, 0, parts[p].rows});
      continue;
    }
    for (size_t m = 0; m < morsels.size(); ++m) {
      const size_t end = m + 1 < morsels.size() ? morsels[m + 1].second : parts[p].rows;
      if (end > morsels[m].second) runs.push_back({morsels[m].first, p, morsels[m].second, end});
    }
  }
  std::sort(runs.begin(), runs.end(),
            [](const Run& a, const Run& b) { return a.position < b.position; });
  if (total >= UINT32_MAX - 1) {
    Throw(ErrorCode::kResourceLimit, "a hash join's build side has more than 2^32 rows");
  }
  t->rows = total;
  // Per string operand, the table's row codes of its column, and per part where it notes
  // them (null: the part read another column).
  auto row_codes = [&](size_t operand) -> RowCodes& {
    for (size_t k = 0; k < nk; ++k) {
      if (strings.keys[k] == static_cast<int>(operand)) return t->key_rows[k];
    }
    for (size_t i = 0; i < c.residuals.size(); ++i) {
      if (strings.residuals[i] == static_cast<int>(operand)) return t->residual_rows[i];
    }
    return t->key_rows[0];  // not reached: every operand is a key's or a residual's
  };
  std::vector<std::vector<uint32_t*>> notes(parts.size(),
                                            std::vector<uint32_t*>(strings.count, nullptr));
  std::vector<std::vector<size_t>> note_sizes(parts.size(), std::vector<size_t>(strings.count));
  for (size_t p = 0; p < parts.size(); ++p) {
    for (size_t o = 0; o < strings.count; ++o) {
      if (parts[p].columns[o] == nullptr) continue;
      RowCodes& codes = row_codes(o);
      if (codes.column == nullptr) {
        codes.column = parts[p].columns[o];
        codes.codes.assign(parts[p].column_rows[o], 0);
        bytes += codes.codes.size() * sizeof(uint32_t);
      }
      if (codes.column == parts[p].columns[o]) {
        notes[p][o] = codes.codes.data();
        note_sizes[p][o] = codes.codes.size();
      }
    }
  }
  if (counts) memory.Add(ctx, bytes);
  // Parts read on several threads are merged on them too: first each part's rows recoded in
  // the table's codes and hashed (each thread its parts), then the table's partitions built
  // (each thread its partitions, by the runs in the serial order: rows of one key keep their
  // build order). A serial build is one part and one partition.
  const bool parallel = parts.size() > 1;
  t->partition_bits = parallel ? 4 : 0;
  const size_t np = size_t{1} << t->partition_bits;
  t->partitions.resize(np);
  // Direct when the keys' codes span at most about twice as many slots as there are rows.
  const uint64_t max_slots = 2 * static_cast<uint64_t>(total) + 1024;
  uint64_t slots = 1;
  t->direct = total > 0;
  t->low.assign(nk, 0);
  t->high.assign(nk, -1);
  t->stride.assign(nk, 0);
  for (size_t k = 0; k < nk && t->direct; ++k) {
    int64_t low = 0, high = -1;
    switch (c.build_keys[k].kind) {
      case Kind::kInt:
        low = INT64_MAX;
        high = INT64_MIN;
        for (const BuildPart& part : parts) {
          low = std::min(low, part.low[k]);
          high = std::max(high, part.high[k]);
        }
        break;
      case Kind::kString: high = static_cast<int64_t>(t->key_strings[k].size()) - 1; break;
      case Kind::kGeneric: high = static_cast<int64_t>(t->key_values[k].values().size()) - 1;
    }
    const uint64_t span = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
    if (high < low || span >= max_slots || slots * (span + 1) > max_slots) {
      t->direct = false;
      break;
    }
    t->low[k] = low;
    t->high[k] = high;
    t->stride[k] = slots;
    slots *= span + 1;
  }
  if (t->direct) {
    while ((uint64_t{1} << t->slot_bits) * np < slots) ++t->slot_bits;
    for (size_t q = 0; q < np; ++q) {
      const uint64_t first = static_cast<uint64_t>(q) << t->slot_bits;
      t->partitions[q].num_groups =
          first >= slots ? 0 : std::min(uint64_t{1} << t->slot_bits, slots - first);
    }
    if (counts) memory.Add(ctx, slots * 2 * sizeof(uint32_t));
  }
  std::vector<MemoryCharge> charges(np);
  // Count mode with one typed <> over few string codes: dense histograms, one row per key
  // (its non-NULL count, then a count per code), when they are not too large.
  const size_t histogram_strings = c.histogram && c.residuals[0].build.kind == Kind::kString
                                       ? t->residual_strings[0].size()
                                       : SIZE_MAX;
  const size_t stride = histogram_strings + 1;
  // A direct table whose histograms hold at most one count per build row is tallied: each part
  // counts its rows into its own copy of the histograms as it is recoded, and each partition
  // sums the parts' copies of its slots. No row's slot is kept, no row goes into a bucket.
  const bool tallied = t->direct && histogram_strings != SIZE_MAX && slots <= total / stride;
  const size_t cells = tallied ? static_cast<size_t>(slots) * stride : 0;
  // Else in a parallel build, its rows' slots and codes go into the buckets packed in a word
  // each (histograms are counted in any order: no row index, no runs).
  const bool packed = parallel && !tallied && t->direct && histogram_strings != SIZE_MAX &&
                      slots <= UINT32_MAX && histogram_strings < UINT32_MAX;
  // Work charged on the statement's thread alone (a serial build); on several threads the
  // statement's interrupts are polled (no work budget runs in parallel).
  auto charge = [&](size_t units) {
    if (parallel) {
      ctx.CheckInterrupt();
    } else {
      ctx.ChargeWork(units);
    }
  };
  std::vector<int> key_operand(nk), residual_operand(nt);
  for (size_t k = 0; k < nk; ++k) key_operand[k] = strings.keys[k];
  for (size_t j = 0; j < nt; ++j) residual_operand[j] = strings.residuals[c.typed[j]];
  auto recode = [&](size_t p) {
    BuildPart& part = parts[p];
    std::vector<const uint64_t*> key_remap(nk), residual_remap(nt);
    for (size_t k = 0; k < nk; ++k) {
      key_remap[k] = c.build_keys[k].kind == Kind::kInt ? nullptr : key_codes[p][k].data();
    }
    for (size_t j = 0; j < nt; ++j) {
      const size_t i = c.typed[j];
      residual_remap[j] =
          c.residuals[i].build.kind == Kind::kString ? residual_codes[p][i].data() : nullptr;
    }
    // Two parts may note one row (a build side producing a node twice): the same code, stored
    // atomically.
    auto note = [&](int operand, size_t r, uint64_t code) {
      if (operand < 0) return;
      const auto o = static_cast<size_t>(operand);
      const uint32_t offset = part.offsets[r * strings.count + o];
      if (notes[p][o] != nullptr && offset != UINT32_MAX && offset < note_sizes[p][o] &&
          code < UINT32_MAX - 2) {
        std::atomic_ref<uint32_t>(notes[p][o][offset])
            .store(static_cast<uint32_t>(code) + 2, std::memory_order_relaxed);
      }
    };
    uint32_t* tally = part.tally.get();
    if (tallied) {
      std::fill(tally, tally + cells, 0u);
    } else if (!parallel) {
      part.hashes.resize(part.rows);
    }
    // Tallied rows are counted kPending at a time, their counts fetched into the cache as the
    // rows are recoded (the tallies outgrow the core's cache at a million rows).
    constexpr size_t kPending = 64;
    uint32_t* pending_keys[kPending];   // a row's key's non-NULL count
    uint32_t* pending_codes[kPending];  // and its count of the row's code
    size_t pending = 0;
    auto count_pending = [&]() {
      for (size_t i = 0; i < pending; ++i) {
        ++*pending_keys[i];
        ++*pending_codes[i];
      }
      pending = 0;
    };
    constexpr size_t kStep = 4096;
    for (size_t from = 0; from < part.rows; from += kStep) {
      const size_t to = std::min(part.rows, from + kStep);
      if (parallel) ctx.CheckInterrupt();  // serial: charged as the partition is built
      for (size_t r = from; r < to; ++r) {
        uint64_t* keys = part.keys.data() + r * nk;
        for (size_t k = 0; k < nk; ++k) {
          if (key_remap[k] != nullptr) keys[k] = key_remap[k][keys[k]];
          note(key_operand[k], r, keys[k]);
        }
        // The key's hash, or in a direct table its slot.
        uint64_t h = 0;
        size_t q = 0;
        if (t->direct) {
          t->SlotOf(keys, &h);
          q = h >> t->slot_bits;
        } else {
          h = HashCodes(keys, nk);
          q = parallel ? h >> (64 - t->partition_bits) : 0;
        }
        for (size_t j = 0; j < nt; ++j) {
          int64_t& code = part.residual[r * nt + j];
          if (part.residual_null[r * nt + j] != 0 || residual_remap[j] == nullptr) continue;
          code = static_cast<int64_t>(residual_remap[j][static_cast<size_t>(code)]);
          note(residual_operand[j], r, static_cast<uint64_t>(code));
        }
        if (tallied) {  // one typed residual, a string's code
          if (part.residual_null[r] == 0) {
            uint32_t* row = tally + h * stride;
            pending_keys[pending] = row;
            pending_codes[pending] = row + part.residual[r] + 1;
            __builtin_prefetch(row, 1);
            __builtin_prefetch(pending_codes[pending], 1);
            if (++pending == kPending) count_pending();
          }
          continue;
        }
        if (!parallel) {
          part.hashes[r] = h;
          continue;
        }
        BuildPart::Bucket& bucket = part.buckets[q];
        if (packed) {
          bucket.packed.push_back(
              h << 32 |
              (part.residual_null[r] != 0 ? 0 : static_cast<uint64_t>(part.residual[r]) + 1));
          continue;
        }
        bucket.rows.push_back(static_cast<uint32_t>(r));
        bucket.hashes.push_back(h);
        if (!t->direct) {
          for (size_t k = 0; k < nk; ++k) bucket.keys.push_back(keys[k]);
        }
        for (size_t j = 0; j < nt; ++j) {
          bucket.residual.push_back(part.residual[r * nt + j]);
          bucket.residual_null.push_back(part.residual_null[r * nt + j]);
        }
      }
    }
    count_pending();
  };
  const size_t ns = t->num_slots;
  auto build_partition = [&](size_t q) {
    JoinPartition& to = t->partitions[q];
    MemoryCharge& charge_q = charges[q];
    to.num_keys = nk;
    BigVector<uint32_t> group_of;  // per row
    BigVector<uint32_t> sizes;     // per group
    BigVector<int64_t> residual;
    BigVector<uint8_t> residual_null;
    BigVector<Value> values;
    // The dense histograms of `ng` groups in counts of the width the largest count needs (a
    // key's non-NULL count, the first of its row, is its largest), zeroed, then fill(dense).
    auto with_width = [&](size_t ng, uint32_t largest, auto&& fill) {
      to.dense_stride = stride;
      auto zeroed = [&](auto& dense) {
        dense.assign(ng * stride, 0);
        if (counts) charge_q.Add(ctx, dense.size() * sizeof(dense[0]));
        fill(dense);
      };
      if (largest <= UINT8_MAX) {
        zeroed(to.dense8);
      } else if (largest <= UINT16_MAX) {
        zeroed(to.dense16);
      } else {
        zeroed(to.dense32);
      }
    };
    if (tallied) {  // the sums of the parts' tallies of this partition's slots
      const size_t ng = to.num_groups;
      const size_t first = (q << t->slot_bits) * stride;
      charge(ng * parts.size());
      uint32_t largest = 0;
      for (size_t g = 0; g < ng; ++g) {
        uint32_t non_null = 0;
        for (const BuildPart& part : parts) non_null += part.tally[first + g * stride];
        largest = std::max(largest, non_null);
      }
      with_width(ng, largest, [&](auto& dense) {
        for (const BuildPart& part : parts) {
          const uint32_t* from = part.tally.get() + first;
          for (size_t i = 0; i < dense.size(); ++i) {
            dense[i] += static_cast<std::remove_reference_t<decltype(dense[0])>>(from[i]);
          }
        }
      });
      return;
    }
    size_t expected = 0;
    for (const BuildPart& part : parts) {
      expected += !parallel ? part.rows
                  : packed  ? part.buckets[q].packed.size()
                            : part.buckets[q].rows.size();
    }
    auto dense_fits = [&](size_t groups, size_t rows) {
      return histogram_strings != SIZE_MAX &&
             groups * (histogram_strings + 1) <= 16 * rows + (size_t{1} << 20) / np;
    };
    // Filled with counts by `each_row`.
    auto fill_dense = [&](const BigVector<uint32_t>& sizes, auto&& each_row) {
      const uint32_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
      with_width(sizes.size(), largest, [&](auto& dense) {
        each_row([&](size_t g, int64_t code, uint8_t null) {
          if (null) return;
          auto* row = dense.data() + g * stride;
          ++row[0];
          ++row[code + 1];
        });
      });
    };
    // Histograms of the rows `each_row` gives (the groups' row counts in `sizes`): dense when
    // they fit, else a table of the (group, code) pairs present.
    auto count_histograms = [&](const BigVector<uint32_t>& sizes, size_t n, auto&& each_row) {
      if (dense_fits(sizes.size(), n)) {
        fill_dense(sizes, each_row);
        return;
      }
      to.non_null.assign(sizes.size(), 0);
      charge(n);
      each_row([&](size_t g, int64_t code, uint8_t null) {
        if (null) return;
        ++to.non_null[g];
        const size_t added = to.histogram.Add(static_cast<uint32_t>(g), code);
        if (counts && added) charge_q.Add(ctx, added);
      });
    };
    if (packed) {
      const uint64_t first = static_cast<uint64_t>(q) << t->slot_bits;
      auto each_row = [&](auto&& fn) {
        for (const BuildPart& part : parts) {
          for (const uint64_t e : part.buckets[q].packed) {
            const auto code = static_cast<uint32_t>(e);
            fn((e >> 32) - first, static_cast<int64_t>(code) - 1, code == 0 ? 1 : 0);
          }
        }
      };
      charge(expected);
      BigVector<uint32_t> sizes(to.num_groups, 0);
      each_row([&](size_t g, int64_t, uint8_t) { ++sizes[g]; });
      count_histograms(sizes, expected, each_row);
      return;
    }
    if (t->direct && dense_fits(to.num_groups, expected)) {
      // The groups are slots: counted straight from the rows, in any order (counts only).
      const uint64_t first = static_cast<uint64_t>(q) << t->slot_bits;
      auto each_row = [&](auto&& fn) {
        for (BuildPart& part : parts) {
          if (parallel) {
            const BuildPart::Bucket& bucket = part.buckets[q];
            for (size_t i = 0; i < bucket.rows.size(); ++i) {
              fn(bucket.hashes[i] - first, bucket.residual[i], bucket.residual_null[i]);
            }
          } else {
            for (size_t r = 0; r < part.rows; ++r) {
              fn(part.hashes[r] - first, part.residual[r], part.residual_null[r]);
            }
          }
        }
      };
      charge(expected);
      BigVector<uint32_t> sizes(to.num_groups, 0);
      each_row([&](size_t g, int64_t, uint8_t) { ++sizes[g]; });
      fill_dense(sizes, each_row);
      return;
    }
    group_of.reserve(expected);
    residual.reserve(expected * nt);
    residual_null.reserve(expected * nt);
    values.reserve(expected * ns);
    size_t held = 0;  // bytes not charged yet
    // The keys of up to kBatchRows rows, whose groups are found together: the table's slots
    // and groups fetched ahead of the comparisons.
    constexpr size_t kBatchRows = 64;
    const uint64_t* batch_keys[kBatchRows];
    uint64_t batch_hashes[kBatchRows];
    size_t batched = 0;
    auto group_batch = [&]() {
      for (size_t i = 0; i < batched; ++i) {
        __builtin_prefetch(to.index.data() + (batch_hashes[i] & (to.index.size() - 1)));
      }
      for (size_t i = 0; i < batched; ++i) {
        const uint32_t at = to.index[batch_hashes[i] & (to.index.size() - 1)];
        if (at != 0) {
          __builtin_prefetch(to.hashes.data() + at - 1);
          __builtin_prefetch(to.codes.data() + (at - 1) * nk);
        }
      }
      for (size_t i = 0; i < batched; ++i) {
        bool added_group = false;
        const uint32_t g = to.FindOrAdd(batch_keys[i], batch_hashes[i], &added_group);
        if (added_group) {
          sizes.push_back(0);
          held += kGroupBytes + nk * sizeof(uint64_t);
        }
        ++sizes[g];
        group_of.push_back(g);
      }
      batched = 0;
    };
    const uint64_t first_slot = static_cast<uint64_t>(q) << t->slot_bits;
    if (t->direct) sizes.assign(to.num_groups, 0);
    // One row: its key codes, hash or slot, typed residuals' codes and NULLs, kept values.
    auto add_row = [&](const uint64_t* keys, uint64_t h, const int64_t* codes, const uint8_t* nulls,
                       Value* kept) {
      if (t->direct) {
        const auto g = static_cast<uint32_t>(h - first_slot);
        ++sizes[g];
        group_of.push_back(g);
      } else {
        batch_keys[batched] = keys;
        batch_hashes[batched] = h;
        if (++batched == kBatchRows) group_batch();
      }
      for (size_t j = 0; j < nt; ++j) {
        residual.push_back(codes[j]);
        residual_null.push_back(nulls[j]);
      }
      for (size_t s = 0; s < ns; ++s) values.push_back(std::move(kept[s]));
    };
    for (const Run& run : runs) {
      BuildPart& part = parts[run.part];
      if (parallel) {
        BuildPart::Bucket& bucket = part.buckets[q];
        const auto begin = static_cast<size_t>(
            std::lower_bound(bucket.rows.begin(), bucket.rows.end(), run.begin) -
            bucket.rows.begin());
        const auto end = static_cast<size_t>(
            std::lower_bound(bucket.rows.begin() + begin, bucket.rows.end(), run.end) -
            bucket.rows.begin());
        charge(end - begin);
        for (size_t i = begin; i < end; ++i) {
          add_row(t->direct ? nullptr : bucket.keys.data() + i * nk, bucket.hashes[i],
                  bucket.residual.data() + i * nt, bucket.residual_null.data() + i * nt,
                  part.values.data() + size_t{bucket.rows[i]} * ns);
        }
      } else {
        charge(run.end - run.begin);
        for (size_t r = run.begin; r < run.end; ++r) {
          add_row(part.keys.data() + r * nk, part.hashes[r], part.residual.data() + r * nt,
                  part.residual_null.data() + r * nt, part.values.data() + r * ns);
        }
      }
      if (counts && held > 0) {
        charge_q.Add(ctx, held);
        held = 0;
      }
    }
    group_batch();
    if (counts && held > 0) charge_q.Add(ctx, held);
    if (!t->direct) to.num_groups = to.hashes.size();
    const size_t ng = to.num_groups;
    const size_t n = group_of.size();
    if (c.histogram) {
      count_histograms(sizes, n, [&](auto&& fn) {
        for (size_t r = 0; r < n; ++r) fn(group_of[r], residual[r], residual_null[r]);
      });
      return;
    }
    // The rows grouped by key (a counting sort: each group's rows keep their build order).
    to.begin.assign(ng + 1, 0);
    for (size_t g = 0; g < ng; ++g) to.begin[g + 1] = to.begin[g] + sizes[g];
    BigVector<uint32_t> at(to.begin.begin(), to.begin.end() - 1);
    BigVector<uint32_t> order(n);
    for (size_t r = 0; r < n; ++r) order[at[group_of[r]]++] = static_cast<uint32_t>(r);
    to.residual.resize(residual.size());
    to.residual_null.resize(residual_null.size());
    to.values.resize(values.size());
    for (size_t i = 0; i < n; ++i) {
      const size_t r = order[i];
      for (size_t j = 0; j < nt; ++j) {
        to.residual[i * nt + j] = residual[r * nt + j];
        to.residual_null[i * nt + j] = residual_null[r * nt + j];
      }
      for (size_t j = 0; j < ns; ++j) to.values[i * ns + j] = std::move(values[r * ns + j]);
    }
  };
  try {
    // The tallies and buckets are allocated here, on the statement's thread, as the parts are:
    // what a pool thread allocates comes from its own malloc arena, which gave it back to the
    // system when freed, so that each statement faulted its pages in again (~600 faults a run
    // of a 100k-row self-join on 2 threads, none on 1).
    if (tallied) {
      for (BuildPart& part : parts) {
        if (counts) part.bucket_memory.Add(ctx, cells * sizeof(uint32_t));
        part.tally.reset(new uint32_t[cells]);  // zeroed by its recode, on its worker
      }
    }
    if (parallel && !tallied) {
      for (BuildPart& part : parts) {
        part.buckets.assign(np, {});
        const size_t expected = part.rows / np + part.rows / (4 * np) + 16;
        for (BuildPart::Bucket& bucket : part.buckets) {
          if (packed) {
            bucket.packed.reserve(expected);
            continue;
          }
          bucket.rows.reserve(expected);
          bucket.hashes.reserve(expected);
          if (!t->direct) bucket.keys.reserve(expected * nk);
          bucket.residual.reserve(expected * nt);
          bucket.residual_null.reserve(expected * nt);
        }
        if (counts) {
          const size_t row_bytes = packed ? 8 : 12 + (t->direct ? 0 : nk * 8) + nt * 9;
          part.bucket_memory.Add(ctx, part.rows * row_bytes);
        }
      }
    }
    if (parallel) {
      ParallelPipeline::ForEach(ctx, parts.size(), [&](unsigned, uint64_t begin, uint64_t end) {
        for (uint64_t p = begin; p < end; ++p) recode(p);
      });
      ParallelPipeline::ForEach(ctx, np, [&](unsigned, uint64_t begin, uint64_t end) {
        for (uint64_t q = begin; q < end; ++q) build_partition(q);
      });
    } else {
      recode(0);
      build_partition(0);
    }
  } catch (...) {
    for (MemoryCharge& charge_q : charges) memory.Absorb(charge_q);
    for (BuildPart& part : parts) part.bucket_memory.Release(ctx);
    throw;
  }
  for (MemoryCharge& charge_q : charges) memory.Absorb(charge_q);
  for (BuildPart& part : parts) part.bucket_memory.Release(ctx);  // freed just below
  parts.clear();
  return t;
}

std::shared_ptr<const HashJoinOp::Table> HashJoinOp::BuildTable(const HashJoinSpec& spec,
                                                                PhysicalOperator& build,
                                                                ExecContext& ctx,
                                                                MemoryCharge& memory,
                                                                ParallelPipeline* parallel) {
  const Compiled c(spec);
  StringOperands strings;
  for (const Operand& o : c.build_keys) {
    strings.keys.push_back(o.kind == Kind::kString ? static_cast<int>(strings.count++) : -1);
  }
  for (const JoinResidual& r : c.residuals) {
    strings.residuals.push_back(
        r.typed && r.build.kind == Kind::kString ? static_cast<int>(strings.count++) : -1);
  }
  const bool counts = ctx.CountsMemory();
  std::vector<BuildPart> parts;
  size_t kept = 0;
  try {
    // On the statement's threads, each into its own part, when the build side is a pipeline
    // of enough rows.
    const bool ran =
        parallel != nullptr &&
        parallel->Run(
            ctx,
            [&](unsigned workers) {
              parts.resize(workers);
              // Room for a worker's share of the rows and some more (up to kReservedRows),
              // allocated here (see the buckets in Merge): a part that outgrows it grows on its
              // worker.
              constexpr uint64_t kReservedRows = uint64_t{1} << 21;
              const uint64_t rows = parallel->rows();
              const auto share = static_cast<size_t>(std::min(
                  {rows, kReservedRows,
                   rows / workers + rows / (4 * workers) + 2 * ParallelPipeline::kMorselRows}));
              for (BuildPart& part : parts) {
                InitPart(c, part, strings.count);
                part.keys.reserve(share * c.build_keys.size());
                part.residual.reserve(share * c.typed.size());
                part.residual_null.reserve(share * c.typed.size());
                part.offsets.reserve(share * strings.count);
                if (c.keeps_rows) part.values.reserve(share * spec.build_slots.size());
              }
            },
            [&](unsigned w, ExecContext& wctx, uint64_t position) {
              BuildPart& part = parts[w];
              if (part.morsels.empty() ||
                  (part.morsels.back().first >> ParallelPipeline::kRankBits) !=
                      (position >> ParallelPipeline::kRankBits)) {
                part.morsels.emplace_back(position, part.rows);
              }
              size_t bytes = 0;
              if (ReadBuildRow(c, spec, strings, c.keeps_rows, counts, part, wctx, &bytes) &&
                  counts) {
                part.memory.Add(wctx, bytes);
              }
            });
    if (!ran) {
      parts.clear();
      parts.resize(1);
      InitPart(c, parts[0], strings.count);
      // The build side writes its slots into the frame: the probe side has not produced a
      // row yet, and its slots are distinct.
      build.Open(ctx);
      while (build.Next(ctx)) {
        ctx.ChargeWork();
        size_t bytes = 0;
        if (ReadBuildRow(c, spec, strings, c.keeps_rows, counts, parts[0], ctx, &bytes) && counts) {
          memory.Add(ctx, bytes);
        }
      }
    }
    for (const BuildPart& part : parts) kept += part.rows;
    return Builder::Merge(c, spec, strings, parts, ctx, memory);
  } catch (const GraphDBException& e) {
    if (e.status().code() != ErrorCode::kResourceLimit) throw;
    for (const BuildPart& part : parts) kept = std::max(kept, part.rows);
    throw GraphDBException(ErrorCode::kResourceLimit,
                           e.status().message() + " (the hash table of a join held " +
                               std::to_string(kept) + " rows of its build side)");
  }
}

// The probe's state: its operands' cursors, the current probe row's codes and matches.
struct alignas(kCacheLine) HashJoinOp::Probe {
  std::vector<Cursor> key_cursors, residual_cursors;
  LineVector<uint64_t> key;
  LineVector<int64_t> residual;              // per residual: the probe operand's code (typed ones)
  const JoinPartition* partition = nullptr;  // the current probe row's candidates' partition
  uint32_t next = 0, end = 0;                // and their rows in it
  // Count mode: the weights below kCachedWeights as values, copied into the frame (a value
  // built per row is stored narrowly and read back wide: a stall on every probe row).
  static constexpr uint64_t kCachedWeights = 256;
  std::vector<Value> weights;
};

HashJoinOp::HashJoinOp(HashJoinSpec spec, OperatorPtr build)
    : spec_(std::move(spec)), compiled_(std::make_shared<const Compiled>(spec_)),
      build_(std::move(build)), probe_(std::make_unique<Probe>()) {
  probe_->key_cursors.resize(compiled_->probe_keys.size());
  probe_->key.resize(compiled_->probe_keys.size());
  probe_->residual_cursors.resize(compiled_->residuals.size());
  probe_->residual.resize(compiled_->residuals.size());
}

HashJoinOp::HashJoinOp(std::vector<const binder::BoundExpression*> probe_keys,
                       std::vector<const binder::BoundExpression*> build_keys,
                       std::vector<binder::SlotId> build_slots, OperatorPtr build)
    : HashJoinOp(
          HashJoinSpec{
              std::move(probe_keys), std::move(build_keys), std::move(build_slots), {}, false, 0},
          std::move(build)) {}

HashJoinOp::~HashJoinOp() = default;

void HashJoinOp::SetTable(std::shared_ptr<const Table> table) { table_ = std::move(table); }

size_t HashJoinOp::build_rows() const { return table_ ? table_->rows : 0; }

void HashJoinOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  probe_->next = probe_->end = 0;
  // Columns are resolved anew in each run (another snapshot, another store).
  for (Cursor& c : probe_->key_cursors) c.table = UINT64_MAX;
  for (Cursor& c : probe_->residual_cursors) c.table = UINT64_MAX;
  if (build_) {  // builds anew on the first Next
    table_.reset();
    memory_.Release(ctx);
  }
}

bool HashJoinOp::Next(ExecContext& ctx) {
  if (!table_) table_ = BuildTable(spec_, *build_, ctx, memory_);
  const Table& t = *table_;
  const Compiled& c = *compiled_;
  Probe& p = *probe_;
  if (t.rows == 0) return false;  // nothing to match: the probe side is not read
  const size_t nt = t.num_typed, ns = t.num_slots;
  // Whether build row i (in grouped order) passes the residuals, written into the frame when
  // one is evaluated (or `write`).
  auto passes = [&](uint32_t i, bool write) {
    bool written = false;
    size_t typed = 0;
    const JoinPartition& part = *p.partition;
    for (size_t j = 0; j < c.residuals.size(); ++j) {
      const JoinResidual& r = c.residuals[j];
      if (r.typed) {
        if (part.residual_null[i * nt + typed] ||
            !Holds(r.cmp, part.residual[i * nt + typed], p.residual[j])) {
          return false;
        }
        ++typed;
        continue;
      }
      if (!written) {
        for (size_t s = 0; s < ns; ++s) ctx.frame[spec_.build_slots[s]] = part.values[i * ns + s];
        written = true;
      }
      if (!EvaluatePredicate(*r.expr, ctx)) return false;
    }
    if (write && !written) {
      for (size_t s = 0; s < ns; ++s) ctx.frame[spec_.build_slots[s]] = part.values[i * ns + s];
    }
    return true;
  };
  // A direct table's per-key histograms: probe rows come from a scan, node after node, so
  // the histogram of the node kAhead rows on (its key codes read from the columns and the
  // build's row codes, as the probe would) is fetched into the cache while this row is probed.
  constexpr uint64_t kAhead = 12;
  constexpr size_t kAheadKeys = 4;
  const bool ahead = t.direct && c.histogram && c.probe_keys.size() <= kAheadKeys;
  auto fetch_ahead = [&]() {
    uint64_t key[kAheadKeys];
    for (size_t k = 0; k < c.probe_keys.size(); ++k) {
      const Operand& o = c.probe_keys[k];
      const Cursor& cur = p.key_cursors[k];
      InternalId id;
      if (!NodeOf(o, ctx, &id) || id.table != cur.table || !cur.versions->empty()) return;
      const uint64_t row = id.offset + kAhead;
      if (o.kind == Kind::kString) {
        const RowCodes& known = t.key_rows[k];
        if (known.column != cur.column || row >= known.codes.size()) return;
        const uint32_t code = known.codes[row];
        if (code == 0) return;
        key[k] = code - 2;
      } else if (o.kind == Kind::kInt && cur.typed && row < cur.rows) {
        if (cur.column->IsNull(row)) return;
        key[k] = static_cast<uint64_t>(cur.wide ? cur.column->GetFixed<int64_t>(row)
                                                : cur.column->GetInt64(row));
      } else {
        return;
      }
    }
    uint64_t slot;
    if (!t.SlotOf(key, &slot)) return;
    const JoinPartition& part = t.partitions[slot >> t.slot_bits];
    if (part.dense_stride != 0) {
      part.PrefetchDense(static_cast<uint32_t>(slot & ((uint64_t{1} << t.slot_bits) - 1)));
    }
  };
  while (true) {
    while (p.next < p.end) {
      ctx.ChargeWork();
      if (passes(p.next++, true)) return true;
    }
    if (!child->Next(ctx)) return false;
    ctx.ChargeWork();
    if (ahead) fetch_ahead();
    // The probe row's key codes.
    bool found = true;
    for (size_t k = 0; k < c.probe_keys.size() && found; ++k) {
      const Operand& o = c.probe_keys[k];
      if (o.kind == Kind::kString && t.key_rows[k].Known(o, p.key_cursors[k], ctx, &p.key[k])) {
        continue;
      }
      Datum d;
      if (!Read(o, p.key_cursors[k], ctx, d)) {
        found = false;
        break;
      }
      switch (o.kind) {
        case Kind::kInt: p.key[k] = static_cast<uint64_t>(d.i); break;
        case Kind::kString: p.key[k] = t.key_strings[k].Lookup(d.s); break;
        case Kind::kGeneric: p.key[k] = Matchable(*d.v) ? t.key_values[k].Lookup(*d.v) : kAbsent;
      }
      found = o.kind == Kind::kInt || p.key[k] != kAbsent;
    }
    if (!found) continue;
    const JoinPartition* found_in;
    uint32_t g;
    if (t.direct) {
      uint64_t slot;
      if (!t.SlotOf(p.key.data(), &slot)) continue;
      found_in = &t.partitions[slot >> t.slot_bits];
      g = static_cast<uint32_t>(slot & ((uint64_t{1} << t.slot_bits) - 1));
    } else {
      const uint64_t h = HashCodes(p.key.data(), p.key.size());
      found_in = &t.PartitionOf(h);
      g = found_in->Find(p.key.data(), h);
      if (g == UINT32_MAX) continue;
    }
    const JoinPartition& part = *found_in;
    p.partition = &part;
    // The probe sides of the typed residuals: NULL passes none.
    bool null = false;
    for (size_t j : c.typed) {
      const JoinResidual& r = c.residuals[j];
      uint64_t known;
      if (r.probe.kind == Kind::kString &&
          t.residual_rows[j].Known(r.probe, p.residual_cursors[j], ctx, &known)) {
        p.residual[j] = static_cast<int64_t>(known);
        continue;
      }
      Datum d;
      if (!Read(r.probe, p.residual_cursors[j], ctx, d)) {
        null = true;
        break;
      }
      p.residual[j] = r.probe.kind == Kind::kInt
                          ? d.i
                          : static_cast<int64_t>(t.residual_strings[j].Lookup(d.s));
    }
    if (null) continue;
    if (!spec_.counts) {
      p.next = part.begin[g];
      p.end = part.begin[g + 1];
      continue;
    }
    uint64_t weight = 0;
    if (c.histogram) {
      const int64_t code = p.residual[c.typed[0]];
      if (part.dense_stride != 0) {
        weight = part.Others(g, code);
      } else {
        weight = part.non_null[g] - part.histogram.Count(g, code);
      }
    } else if (c.residuals.empty()) {
      weight = part.begin[g + 1] - part.begin[g];
    } else {
      for (uint32_t i = part.begin[g]; i < part.begin[g + 1]; ++i) {
        ctx.ChargeWork();
        if (passes(i, false)) ++weight;
      }
    }
    if (weight == 0) continue;
    if (weight < Probe::kCachedWeights) {
      if (p.weights.empty()) {
        for (uint64_t w = 0; w < Probe::kCachedWeights; ++w) {
          p.weights.push_back(Value::Int64(static_cast<int64_t>(w)));
        }
      }
      ctx.frame[spec_.weight_slot] = p.weights[weight];
    } else {
      ctx.frame[spec_.weight_slot] = Value::Int64(static_cast<int64_t>(weight));
    }
    return true;
  }
}

}  // namespace graphdb::exec
