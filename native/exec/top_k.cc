#include "exec/top_k.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>

#include "exec/column_filter.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

namespace {

// Whatever happens, the workers' charges (each part's `memory`) end up with the operator's
// (released at its Open).
template <typename Part>
struct AbsorbCharges {
  std::vector<std::unique_ptr<Part>>& parts;
  MemoryCharge& owner;
  ~AbsorbCharges() {
    for (auto& part : parts) owner.Absorb(part->memory);
  }
};

size_t RowBytes(const TopKHeap::Row& row) {
  return sizeof(TopKHeap::Row) + ApproxBytes(row.keys) + ApproxBytes(row.frame);
}

}  // namespace

namespace {
const Value& KeyAt(const std::vector<Value>& keys, size_t i) { return keys[i]; }
const Value& KeyAt(const Value* const* keys, size_t i) { return *keys[i]; }
}  // namespace

template <typename Keys>
bool TopKHeap::Before(const Keys& a_keys, uint64_t a_sequence, const Row& b) const {
  for (size_t i = 0; i < keys_->size(); ++i) {
    int c = CompareForSort(KeyAt(a_keys, i), b.keys[i]);
    if (c != 0) return (*keys_)[i].descending ? c > 0 : c < 0;
  }
  return a_sequence < b.sequence;
}

bool TopKHeap::Admits(const std::vector<Value>& keys, uint64_t sequence) const {
  if (capacity_ == 0) return false;
  return rows_.size() < capacity_ || Before(keys, sequence, rows_.front());
}

bool TopKHeap::Admits(const Value* const* keys, uint64_t sequence) const {
  if (capacity_ == 0) return false;
  return rows_.size() < capacity_ || Before(keys, sequence, rows_.front());
}

void TopKHeap::Push(Row row) {
  auto worse_last = [this](const Row& a, const Row& b) { return Before(a, b); };
  bytes_ += RowBytes(row);
  if (rows_.size() >= capacity_) {
    std::pop_heap(rows_.begin(), rows_.end(), worse_last);
    bytes_ -= RowBytes(rows_.back());
    rows_.pop_back();
  }
  rows_.push_back(std::move(row));
  std::push_heap(rows_.begin(), rows_.end(), worse_last);
}

void TopKHeap::Merge(TopKHeap&& other) {
  for (Row& row : other.rows_) {
    if (Admits(row.keys, row.sequence)) Push(std::move(row));
  }
  other.rows_.clear();
  other.bytes_ = 0;
}

std::vector<TopKHeap::Row> TopKHeap::TakeSorted() {
  std::sort(rows_.begin(), rows_.end(),
            [this](const Row& a, const Row& b) { return Before(a, b); });
  bytes_ = 0;
  return std::move(rows_);
}

// ---- ScanTopK ----

namespace {

using binder::ExprKind;
using planner::LogicalOperator;
using planner::LogicalOpKind;

// How a sort key's column is compared: as signed integers (INT8..INT64, SERIAL, DATE, the
// TIMESTAMP kinds, each compared with its own kind only) or as bytes (STRING).
enum class KeyClass : uint8_t { kInteger, kString };

bool KeyClassOf(LogicalTypeId id, KeyClass* out) {
  if (IsSignedInteger(id) || IsTemporal(id)) {
    *out = KeyClass::kInteger;
    return true;
  }
  if (id != LogicalTypeId::kString) return false;
  *out = KeyClass::kString;
  return true;
}

// The first 8 bytes of `s` as a big-endian number (zeros past its end): strings whose prefixes
// differ compare as these numbers do; equal prefixes need the bytes compared.
uint64_t StringPrefix(std::string_view s) {
  uint64_t word = 0;
  std::memcpy(&word, s.data(), std::min<size_t>(s.size(), 8));
  return __builtin_bswap64(word);
}

// The bytes a collector's arena holds after each string.
constexpr size_t kArenaPad = 8;

// Bytewise comparison of two strings with their prefixes (StringPrefix): -1, 0 or 1. Both are
// followed by kArenaPad readable bytes: past equal prefixes (the first 8 bytes, or all of
// shorter strings) they are compared 8 bytes at a time.
int ArenaStringsCompare(uint64_t a_prefix, std::string_view a, uint64_t b_prefix,
                        std::string_view b) {
  if (a_prefix != b_prefix) return a_prefix < b_prefix ? -1 : 1;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 8; i < n; i += 8) {
    uint64_t x;
    uint64_t y;
    std::memcpy(&x, a.data() + i, 8);
    std::memcpy(&y, b.data() + i, 8);
    x = __builtin_bswap64(x);
    y = __builtin_bswap64(y);
    if (n - i < 8) {  // the bytes past the shorter string's end do not count
      const uint64_t mask = ~(~0ULL >> (8 * (n - i)));
      x &= mask;
      y &= mask;
    }
    if (x != y) return x < y ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// `e` is `slot.property` for a node variable bound in `slot`.
bool IsNodeProperty(const BoundExpression& e, SlotId slot) {
  return e.kind == ExprKind::kProperty && e.children.size() == 1 &&
         e.children[0]->kind == ExprKind::kVariable && e.children[0]->slot == slot &&
         e.children[0]->type.id() == LogicalTypeId::kNode;
}

// Whether evaluating `e` can neither fail nor depend on more than the row: the projections of
// the rows that lose are then never evaluated, with the same outcome.
bool ProjectsSafely(const BoundExpression& e, SlotId scan_slot) {
  switch (e.kind) {
    case ExprKind::kLiteral:
    case ExprKind::kParameter:
    case ExprKind::kVariable: return true;
    case ExprKind::kProperty: return IsNodeProperty(e, scan_slot);
    default: return false;
  }
}

}  // namespace

struct ScanTopK::Key {
  const BoundExpression* property;  // the scanned node's property
  bool descending;
};

// A row kept: its position in the scan (ties) and where it is.
struct ScanTopK::Candidate {
  uint64_t position = 0;
  uint32_t table = 0;  // index into tables_
  uint64_t offset = 0;
};

namespace {

// A sort key's value as a candidate holds it (the class of the key's column decides which
// member): a string's bytes lie in the collector's arena.
struct KeyValue {
  bool null = true;
  int64_t integer = 0;
  uint64_t prefix = 0;  // the string's first 8 bytes, big-endian, zero-padded (StringPrefix)
  size_t at = 0;        // the string's bytes in the arena
  uint32_t size = 0;
};

// The order code of a sort key's value: an unsigned number that orders as the value does (NULL
// the largest, flipped for DESC), as far as it goes. code(a) < code(b) means a sorts before b;
// equal codes need the values compared (strings sharing their first 8 bytes, NULL and the
// largest value, equal values).
constexpr uint64_t kNullCode = ~0ULL;
uint64_t IntegerCode(int64_t v) { return static_cast<uint64_t>(v) ^ (1ULL << 63); }

// The rows a collector gathers by code alone that may share the bound (16 bytes each) before
// it reads their keys: past it, many rows tie on the first key (one name everywhere).
constexpr size_t kMaxTiedRows = size_t{1} << 16;
// The longest string key a record (Collector::Records) holds.
constexpr size_t kRankStringBytes = 24;
// The guessed bound (Collector::Guess): a sample of one row in kSampleSpacing, at most
// kMaxSample and at least kMinSample rows (smaller scans make no guess).
constexpr uint64_t kSampleSpacing = 128;
constexpr uint64_t kMaxSample = 1024;
constexpr uint64_t kMinSample = 64;

}  // namespace

// What the workers of one scan publish of their bounds. A worker's rows are its own (morsels
// split the scan), so besides the lowest code any worker's `capacity` rows reach, the highest of
// the codes that each worker's best ceil(capacity / workers) reach bounds them all.
struct ScanTopK::SharedBound {
  explicit SharedBound(unsigned workers) : shares(workers) {
    for (auto& share : shares) share.store(kNullCode, std::memory_order_relaxed);
  }
  uint64_t Load() const {
    uint64_t highest = 0;
    for (const auto& share : shares)
      highest = std::max(highest, share.load(std::memory_order_relaxed));
    return std::min(highest, lowest.load(std::memory_order_relaxed));
  }
  // Lowers `to` to `code` if it is lower.
  static void Lower(std::atomic<uint64_t>& to, uint64_t code) {
    uint64_t seen = to.load(std::memory_order_relaxed);
    while (code < seen && !to.compare_exchange_weak(seen, code, std::memory_order_relaxed)) {
    }
  }
  std::atomic<uint64_t> lowest{kNullCode};
  std::vector<std::atomic<uint64_t>> shares;  // per worker
};

// The rows one worker gathers. A row's first key is turned into its order code and tested
// against the bound (the capacity-th best code gathered, or a lower one the workers share,
// SharedBound): from the column's cell alone (an INT64, or the head of a string its slot holds)
// for most rows, before the row's stamps or its other keys are read. At first the rows that
// pass are kept by that code alone (OfferCoded: a 16-byte entry, the exact code and the scan
// position; trimmed with nth_element on the codes); when the scan ends their keys are read into
// word records (Records) and the best are ordered (Order). Where records cannot order them, or
// too many rows tie on the bound, they are decoded instead: read as candidates with their keys
// (Consider: strings in an arena, compared key by key), as the rows after them then are.
class ScanTopK::Collector {
 public:
  // `columns[table][key]`: the column of the key in each scanned table (null: none, NULL).
  // `tables` and `starts`: the scanned tables and the scan position of each one's first row.
  // `shared`: what the workers publish of their bounds (null: one worker); `worker`: this
  // collector's index among them.
  Collector(const std::vector<Key>* keys, const std::vector<KeyClass>* classes,
            const std::vector<std::vector<const storage::Column*>>* columns,
            const std::vector<const storage::NodeTable*>* tables,
            const std::vector<uint64_t>* starts, uint64_t capacity, SharedBound* shared,
            unsigned worker)
      : keys_(keys), classes_(classes), columns_(columns), tables_(tables), starts_(starts),
        width_(keys->size()), capacity_(capacity), flip_((*keys)[0].descending ? ~0ULL : 0),
        shared_(shared), worker_(worker) {
    // Room for as many again (at least 256 and at most 64Ki more) before a trim.
    const uint64_t slack = std::clamp<uint64_t>(capacity, 256, 65536);
    for (size_t k = 0; k < width_; ++k) {
      if ((*classes)[k] == KeyClass::kString) string_keys_.push_back(k);
    }
    buffer_limit_ = capacity > std::numeric_limits<size_t>::max() - slack
                        ? std::numeric_limits<size_t>::max()
                        : static_cast<size_t>(capacity + slack);
    tie_limit_ = std::max<size_t>(buffer_limit_, kMaxTiedRows);
  }

  // Offers the rows [begin, end) of table `table` (index into the scanned tables), the first at
  // scan position `position`, that `snapshot` sees. A row whose first key's code is past the
  // bound loses whether or not this snapshot sees it.
  void OfferRange(uint32_t table, const storage::NodeTable& rows, const Snapshot& snapshot,
                  uint64_t begin, uint64_t end, uint64_t position) {
    if (capacity_ == 0) return;
    if (shared_ != nullptr) Tighten(shared_->Load());
    const storage::Column* first = (*columns_)[table][0];
    const bool string_first = first != nullptr && (*classes_)[0] == KeyClass::kString;
    const bool integer_first = first != nullptr && (*classes_)[0] == KeyClass::kInteger;
    const bool int64_cells = integer_first && first->kind() == storage::PhysicalKind::kInt64;
    const bool descending = (*keys_)[0].descending;
    const uint64_t flip = flip_;
    // Every row of the range visible to the snapshot (storage::NodeTable::RowsVisibleTo): no
    // candidate's stamps are read.
    const bool clean = rows.RowsVisibleTo(begin, end, snapshot.read_ts);
    constexpr size_t kBatch = 64;
    uint64_t pending[kBatch];
    size_t n = 0;
    auto flush = [&] {
      if (coded_) {
        OfferCoded(table, rows, clean ? nullptr : &snapshot, pending, n, begin, position);
        n = 0;
        if (tied_.size() > tie_limit_) Decode();
        return;
      }
      // The bytes of long strings are out of the slots: start loading those of every row
      // gathered before reading the first.
      for (size_t k : string_keys_) {
        const storage::Column* col = (*columns_)[table][k];
        if (col == nullptr) continue;
        for (size_t i = 0; i < n; ++i) {
          if (col->StringLength(pending[i]) <= storage::Column::kInlineStringBytes) continue;
          char inline_bytes[storage::Column::kInlineStringBytes];
          __builtin_prefetch(col->ReadString(pending[i], inline_bytes).data());
        }
      }
      for (size_t i = 0; i < n; ++i) {
        Consider(table, rows, clean ? nullptr : &snapshot, pending[i],
                 position + (pending[i] - begin));
      }
      n = 0;
    };
    uint64_t offset = begin;
    while (offset < end) {
      // The cells alone, up to the next row that may get in (bound_ only changes in flush).
      const uint64_t bound = bound_;
      if (string_first) {
        for (; offset < end; ++offset) {
          uint64_t known;
          const uint64_t head = (first->StringHead(offset, &known) ^ flip) & known;
          // A NULL cell holds no value: NULL sorts last, so it loses to a bound that is not
          // NULL's ascending (whose code is the largest) but wins descending: checked for.
          if (head <= (bound & known) || (descending && first->IsNull(offset))) break;
        }
      } else if (int64_cells && descending) {
        // A NULL cell wins descending: its validity bit is tested a word (64 rows) at a time,
        // and a word of valid rows is compared by its cells alone (one loop testing every row's
        // bit took 15-20% longer over 1M rows).
        const uint64_t* validity = first->validity();
        const int64_t* cells = first->Data<int64_t>();
        while (offset < end) {
          const uint64_t word_end = std::min(end, (offset | 63) + 1);
          const uint64_t bits = __atomic_load_n(validity + (offset >> 6), __ATOMIC_RELAXED);
          if (bits == ~0ULL) {
            for (; offset < word_end; ++offset) {
              const int64_t cell = __atomic_load_n(cells + offset, __ATOMIC_RELAXED);
              if ((IntegerCode(cell) ^ flip) <= bound) break;
            }
          } else {
            for (; offset < word_end; ++offset) {
              const int64_t cell = __atomic_load_n(cells + offset, __ATOMIC_RELAXED);
              if ((IntegerCode(cell) ^ flip) <= bound || !((bits >> (offset & 63)) & 1)) break;
            }
          }
          if (offset < word_end) break;
        }
      } else if (int64_cells) {
        for (; offset < end; ++offset) {
          const uint64_t code = IntegerCode(first->GetFixed<int64_t>(offset)) ^ flip;
          if (code <= bound) break;
        }
      } else if (integer_first) {
        for (; offset < end; ++offset) {
          const uint64_t code = IntegerCode(first->GetInt64(offset)) ^ flip;
          if (code <= bound || (descending && first->IsNull(offset))) break;
        }
      }
      if (offset == end) break;
      if (!coded_ || !clean) rows.PrefetchRow(offset);
      pending[n++] = offset++;
      if (n == kBatch) flush();
    }
    flush();
  }

  // A row gathered by its first key's code alone, found by its scan position.
  struct Coded {
    uint64_t code;
    uint64_t position;
  };

  // The rank of the sampled code Guess takes for a scan of `total` rows, or 0 when no guess
  // pays: when the trims would gather few rows past the capacity (about capacity ×
  // log2(total / (2 × capacity)) in all) next to the sample (twice its rows, which are read
  // at random), or the sample is too small to say.
  static uint64_t GuessRank(uint64_t total, uint64_t capacity) {
    const uint64_t sample = SampleSize(total);
    if (sample < kMinSample || capacity >= total / 4) return 0;
    const double c = static_cast<double>(capacity);
    if (c * std::log2(static_cast<double>(total) / (2 * c)) < 2 * static_cast<double>(sample)) {
      return 0;
    }
    // The sampled rows expected below the capacity-th best code, then 3 standard deviations
    // (about Poisson's) and 4 rows more: a guess that is too low is rare (and costs a second
    // scan), one too high only gathers more rows than needed.
    const double expected = c * static_cast<double>(sample) / static_cast<double>(total);
    const auto rank = static_cast<uint64_t>(std::ceil(expected + 3 * std::sqrt(expected) + 4));
    return rank > sample / 4 ? 0 : rank;
  }

  // The rows Guess samples of a scan of `total` rows.
  static uint64_t SampleSize(uint64_t total) {
    return std::min(total / kSampleSpacing, kMaxSample);
  }

  // A guessed bound: the code of rank `rank` (GuessRank, not 0; about twice the capacity's
  // share of the rows) among the first keys of a sample of the rows `snapshot` sees among
  // `total` (one in kSampleSpacing, evenly spread over the scan positions); kNullCode (no
  // guess) when the snapshot sees fewer sampled rows. Unlike the bounds the collectors find,
  // it is not known to hold: a scan that starts from it (Start) must check at the end that at
  // least `capacity` rows passed it (Gathered), else run again without.
  uint64_t Guess(uint64_t total, uint64_t rank, const Snapshot& snapshot) const {
    const uint64_t sample = SampleSize(total);
    std::vector<uint64_t> codes;
    codes.reserve(sample);
    const uint64_t step = total / sample;  // the sampled positions: step / 2, then every step
    // Cells a few rows ahead start loading (then the bytes of long strings) while one is read.
    constexpr uint64_t kAhead = 16;
    for (uint64_t i = 0; i < sample; ++i) {
      if (i + kAhead < sample) {
        uint64_t ahead;
        const uint32_t t = Locate((i + kAhead) * step + step / 2, &ahead);
        if (const storage::Column* col = (*columns_)[t][0]) col->Prefetch(ahead);
      }
      if (i + kAhead / 2 < sample && (*classes_)[0] == KeyClass::kString) {
        uint64_t ahead;
        const uint32_t t = Locate((i + kAhead / 2) * step + step / 2, &ahead);
        const storage::Column* col = (*columns_)[t][0];
        if (col != nullptr && col->StringLength(ahead) > storage::Column::kInlineStringBytes) {
          char inline_bytes[storage::Column::kInlineStringBytes];
          __builtin_prefetch(col->ReadString(ahead, inline_bytes).data());
        }
      }
      uint64_t offset;
      const uint32_t t = Locate(i * step + step / 2, &offset);
      const storage::NodeTable& rows = *(*tables_)[t];
      // The stamps are read only where a block holds rows the snapshot may not see.
      if (rows.BlockVisibleFrom(offset >> storage::NodeTable::kVisibleBlockShift) >
              snapshot.read_ts &&
          !snapshot.RowVisible(rows.create_ts(offset), rows.delete_ts(offset))) {
        continue;
      }
      codes.push_back(FirstCode((*columns_)[t][0], offset));
    }
    if (codes.size() < rank) return kNullCode;
    const auto kth = codes.begin() + static_cast<ptrdiff_t>(rank - 1);
    std::nth_element(codes.begin(), kth, codes.end());
    return *kth;
  }

  // Starts from the bound `guess` (Guess; kNullCode: none): rows whose first key's code is past
  // it are dropped as past a bound found. Before any row is offered.
  void Start(uint64_t guess) {
    guess_ = guess;
    bound_ = guess;
  }

  // Whether a bound this collector found or was given (not the guess) is below the guess: the
  // rows the guess dropped then lose in any case.
  bool PastGuess() const { return bound_ < guess_; }

  // The rows gathered whose first key's code is at most the guess (Start).
  uint64_t Gathered() const {
    uint64_t n = tied_.size() + entries_.size();
    for (const Coded& e : below_) n += e.code <= guess_ ? 1 : 0;
    return n;
  }

  // Lowers the bound to `bound` (a code at least `capacity` rows this snapshot sees reach) if
  // it is lower.
  void Tighten(uint64_t bound) {
    if (bound >= bound_) return;
    bound_ = bound;
    tied_.clear();  // their code was the old bound
  }

  bool coded() const { return coded_; }

  // Once this collector's rows are offered: the bound lowered to the code of the capacity-th
  // best row gathered by code, when more are held (as a guess may leave them), and this
  // worker's share published (SharedBound), so that Records reads fewer rows.
  void Settle() {
    if (!coded_) return;
    if (below_.size() > capacity_) {
      TrimCoded();
      return;
    }
    const size_t workers = shared_ == nullptr ? 1 : shared_->shares.size();
    const uint64_t share = (capacity_ + workers - 1) / workers;
    if (workers == 1 || below_.size() < share) return;
    const auto at = below_.begin() + static_cast<ptrdiff_t>(share - 1);
    std::nth_element(below_.begin(), at, below_.end(),
                     [](const Coded& a, const Coded& b) { return a.code < b.code; });
    SharedBound::Lower(shared_->shares[worker_], at->code);
    Tighten(shared_->Load());
  }

  // Moves the rows gathered by code alone (none once decoded) whose code is within the bound
  // to the end of `rows`.
  void TakeCoded(std::vector<Coded>* rows) {
    for (const Coded& e : below_) {
      if (e.code <= bound_) rows->push_back(e);
    }
    rows->insert(rows->end(), tied_.begin(), tied_.end());
    below_ = {};
    tied_ = {};
  }

  // Ends the gathering by code: the rows gathered so, and `rows` (gathered by code by any
  // collector), become candidates with their keys; later rows are offered as such.
  void Decode(const std::vector<Coded>& rows = {}) {
    std::vector<Coded> own;
    TakeCoded(&own);
    coded_ = false;
    for (const Coded& e : own) Feed(e);
    for (const Coded& e : rows) Feed(e);
  }

  uint64_t bound() const { return bound_; }

  // The words of a record (Records).
  size_t Stride() const {
    size_t stride = 1;
    for (size_t k = 0; k < width_; ++k) {
      stride += (*classes_)[k] == KeyClass::kString ? kRankStringBytes / 8 + 1 : 1;
    }
    return stride;
  }

  // Appends to `words` the records (below) of the best rows this collector gathered by code
  // alone whose code is at most `bound`: the best `capacity` of them with `trim`, else at most
  // as many again. False (having appended nothing) when their keys do not fit the words: a
  // string key longer than kRankStringBytes, or an integer key holding INT64's largest value
  // (whose code is NULL's). Any thread may call it once the scan is over.
  //
  // A record holds words compared in turn: per key, an integer's order code, or a string's
  // bytes (zero-padded, big-endian) in kRankStringBytes / 8 words and its length (NULL: all
  // ones), each flipped for DESC; then the scan position. A row's record is kept only when it
  // does not rank after the worst kept at the last trim (which keeps the best `capacity` once
  // there are as many again) or of a sample taken first, so that rows tied on the first key
  // mostly cost one comparison.
  bool Records(uint64_t bound, bool trim, std::vector<uint64_t>* out) const {
    const size_t stride = Stride();
    std::vector<const Coded*> rows;
    rows.reserve(below_.size() + tied_.size());
    for (const Coded& e : below_) {
      if (e.code <= bound) rows.push_back(&e);
    }
    for (const Coded& e : tied_) {
      if (e.code <= bound) rows.push_back(&e);
    }
    const size_t n = rows.size();
    const size_t limit = std::min(n, buffer_limit_);
    std::vector<uint64_t> words;  // the records kept
    words.reserve(limit * stride);
    std::vector<uint64_t> record(stride);
    std::vector<uint64_t> worst;  // empty till the first trim
    std::vector<uint32_t> order;
    // Keeps the best `capacity` records; the worst of them bounds the rows after.
    auto keep_best = [&] {
      SelectRecords(words, stride, static_cast<size_t>(capacity_ - 1), &order);
      std::vector<uint64_t> kept(static_cast<size_t>(capacity_) * stride);
      for (size_t j = 0; j < capacity_; ++j) {
        std::memcpy(&kept[j * stride], &words[order[j] * stride], stride * sizeof(uint64_t));
      }
      words.swap(kept);
      worst.assign(words.end() - static_cast<ptrdiff_t>(stride), words.end());
    };
    // The cells of a row a few ahead start loading while this one is read: those Record reads,
    // so not an integer first key's unless the row's code is NULL's (the rows tied on the first
    // key, often most of them, miss once each, not twice).
    const bool first_from_code = (*classes_)[0] == KeyClass::kInteger;
    const uint64_t null_code = kNullCode ^ flip_;
    auto prefetch = [&](const Coded& next) {
      uint64_t ahead;
      const uint32_t at = Locate(next.position, &ahead);
      const std::vector<const storage::Column*>& cols = (*columns_)[at];
      for (size_t k = first_from_code && next.code != null_code ? 1 : 0; k < width_; ++k) {
        if (cols[k] != nullptr) cols[k]->Prefetch(ahead);
      }
    };
    constexpr size_t kAhead = 8;
    // Many rows: the worst of the best `capacity` of a sample spread over them bounds them from
    // the start (at least `capacity` rows rank before a row past it). Else rows met best last
    // (the worker that claims morsels from the back, keys that grow with the scan position)
    // would each beat the worst of the last trim, and every `limit` of them cost one.
    if (n > 2 * limit && limit > capacity_) {
      const size_t sample = std::min(limit, std::max<size_t>(256, 4 * capacity_));
      const size_t step = n / sample;
      for (size_t i = 0; i < sample; ++i) {
        if (i + kAhead < sample) prefetch(*rows[(i + kAhead) * step]);
        if (!Record(*rows[i * step], record.data())) return false;
        words.insert(words.end(), record.begin(), record.end());
      }
      keep_best();
      words.clear();
    }
    for (size_t i = 0; i < n; ++i) {
      if (i + kAhead < n) prefetch(*rows[i + kAhead]);
      if (!Record(*rows[i], record.data())) return false;
      // A row equal to the worst is the sampled row it came from: it is kept.
      if (!worst.empty() && RecordLess(worst.data(), record.data(), 0, stride)) continue;
      words.insert(words.end(), record.begin(), record.end());
      if (words.size() >= limit * stride && limit > capacity_) keep_best();
    }
    if (trim && words.size() / stride > capacity_) keep_best();
    out->insert(out->end(), words.begin(), words.end());
    return true;
  }

  // The records of a collector (Records) and their codes (their first words) apart, which
  // Order reads first: the records of another worker's part are read only where needed.
  struct Run {
    const std::vector<uint64_t>* words;
    const std::vector<uint64_t>* codes;
  };

  // The first words of the records in `words` (Records), appended to `codes`.
  void Codes(const std::vector<uint64_t>& words, std::vector<uint64_t>* codes) const {
    const size_t stride = Stride();
    codes->reserve(codes->size() + words.size() / stride);
    for (size_t at = 0; at < words.size(); at += stride) codes->push_back(words[at]);
  }

  // The best `capacity` of the records in `runs` (of any collectors of this scan) in order, as
  // TakeSorted gives them. The ranks taken are found a word at a time: the words of the first
  // and the last rank taken bound the records that can hold those ranks, and the records
  // before them are only counted. The first words are the runs' codes, so only the records
  // within the codes' bounds are read; while those share their code, the first word they
  // differ in narrows them down again (most often to the ranks taken), and what is left is
  // ordered in full.
  void Order(const std::vector<Run>& runs, uint64_t skip, uint64_t* count,
             std::vector<Candidate>* out) const {
    const size_t stride = Stride();
    std::vector<uint64_t> keys;
    size_t n = 0;
    for (const Run& run : runs) n += run.codes->size();
    keys.reserve(n);
    for (const Run& run : runs) keys.insert(keys.end(), run.codes->begin(), run.codes->end());
    *count = std::min<uint64_t>(n, capacity_);
    size_t from = static_cast<size_t>(std::min<uint64_t>(skip, *count));
    size_t to = static_cast<size_t>(*count);
    out->clear();
    if (from == to) return;
    uint64_t low;
    uint64_t high;
    size_t before = KeyRange(keys, from, to, &low, &high);
    std::vector<const uint64_t*> rows;  // the records that may hold the ranks taken
    for (const Run& run : runs) {
      const std::vector<uint64_t>& codes = *run.codes;
      for (size_t i = 0; i < codes.size(); ++i) {
        if (codes[i] >= low && codes[i] <= high) rows.push_back(run.words->data() + i * stride);
      }
    }
    from -= before;
    to -= before;
    // `rows` share their first `shared` words; ranks [from, to) of them are taken.
    size_t shared = low == high ? 1 : 0;
    while (shared > 0 && shared < stride && rows.size() > to - from) {
      // The first word past those where the rows differ (the position, last, at the latest).
      size_t level = stride;
      for (const uint64_t* row : rows) {
        for (size_t j = shared; j < level; ++j) {
          if (row[j] != rows[0][j]) {
            level = j;
            break;
          }
        }
      }
      if (level == stride) break;
      keys.clear();
      for (const uint64_t* row : rows) keys.push_back(row[level]);
      before = KeyRange(keys, from, to, &low, &high);
      size_t kept = 0;
      for (const uint64_t* row : rows) {
        if (row[level] >= low && row[level] <= high) rows[kept++] = row;
      }
      rows.resize(kept);
      from -= before;
      to -= before;
      shared = low == high ? level + 1 : level;
      if (low != high) break;
    }
    auto less = [shared, stride](const uint64_t* a, const uint64_t* b) {
      return RecordLess(a, b, shared, stride);
    };
    const auto first = rows.begin() + static_cast<ptrdiff_t>(from);
    const auto last = rows.begin() + static_cast<ptrdiff_t>(to);
    if (first != rows.begin()) std::nth_element(rows.begin(), first, rows.end(), less);
    std::partial_sort(first, last, rows.end(), less);
    out->reserve(to - from);
    for (auto it = first; it != last; ++it) {
      Candidate c;
      c.position = (*it)[stride - 1];
      c.table = Locate(c.position, &c.offset);
      out->push_back(c);
    }
  }

  // For ranks [from, to) (from < to <= keys.size()) of the records whose next words are `keys`
  // (the records agree on the words before): the words of ranks `from` and `to - 1`. Returns
  // how many records have a word below `*low` (all of them rank before `from`). Reorders `keys`.
  static size_t KeyRange(std::vector<uint64_t>& keys, size_t from, size_t to, uint64_t* low,
                         uint64_t* high) {
    const auto low_at = keys.begin() + static_cast<ptrdiff_t>(from);
    std::nth_element(keys.begin(), low_at, keys.end());
    *low = *low_at;
    *high = *low;
    if (to - 1 > from) {
      const auto high_at = keys.begin() + static_cast<ptrdiff_t>(to - 1);
      std::nth_element(low_at + 1, high_at, keys.end());
      *high = *high_at;
    }
    size_t before = 0;
    for (size_t i = 0; i < from; ++i) before += keys[i] < *low ? 1 : 0;
    return before;
  }

  // Whether record `x` sorts before `y`, both of `stride` words, equal in their first `from`.
  static bool RecordLess(const uint64_t* x, const uint64_t* y, size_t from, size_t stride) {
    for (size_t j = from; j < stride; ++j) {
      if (x[j] != y[j]) return x[j] < y[j];
    }
    return false;
  }

  // Fills `order` with the indexes of the records in `words`, the one of rank `mid` (if any)
  // in its place, the better ones before it. Returns how many leading words all the records
  // share (the comparisons skip them: rows tied on a long first key).
  static size_t SelectRecords(const std::vector<uint64_t>& words, size_t stride, size_t mid,
                              std::vector<uint32_t>* order) {
    const size_t n = words.size() / stride;
    order->resize(n);
    for (size_t i = 0; i < n; ++i) (*order)[i] = static_cast<uint32_t>(i);
    size_t common = stride - 1;  // the positions differ
    for (size_t i = 1; i < n && common > 0; ++i) {
      for (size_t j = 0; j < common; ++j) {
        if (words[i * stride + j] != words[j]) {
          common = j;
          break;
        }
      }
    }
    if (mid < n) {
      const uint64_t* base = words.data();
      std::nth_element(order->begin(), order->begin() + static_cast<ptrdiff_t>(mid), order->end(),
                       [base, stride, common](uint32_t a, uint32_t b) {
                         return RecordLess(base + a * stride, base + b * stride, common, stride);
                       });
    }
    return common;
  }

  // Writes the words of row `e` (Records) to `w`; false when they cannot order it. Inlined
  // into both of Records' loops (out of line, top_by_age at 1M took ~7% longer on 1 thread).
  [[gnu::always_inline]] bool Record(const Coded& e, uint64_t* w) const {
    constexpr size_t kStringWords = kRankStringBytes / 8;
    uint64_t offset;
    const uint32_t t = Locate(e.position, &offset);
    for (size_t k = 0; k < width_; ++k) {
      const storage::Column* col = (*columns_)[t][k];
      const uint64_t flip = (*keys_)[k].descending ? ~0ULL : 0;
      // A first key whose code is not NULL's holds a value: its validity bit need not be read.
      const bool value = k == 0 && e.code != (kNullCode ^ flip);
      if (value && (*classes_)[0] == KeyClass::kInteger) {
        *w++ = e.code;  // a value's order code, which the code is
        continue;
      }
      const bool null = !value && (col == nullptr || col->IsNull(offset));
      if ((*classes_)[k] == KeyClass::kInteger) {
        if (null) {
          *w++ = kNullCode ^ flip;
          continue;
        }
        const int64_t v = col->GetInt64(offset);
        if (v == std::numeric_limits<int64_t>::max()) return false;
        *w++ = IntegerCode(v) ^ flip;
        continue;
      }
      if (null) {
        for (size_t j = 0; j <= kStringWords; ++j) *w++ = kNullCode ^ flip;
        continue;
      }
      char inline_bytes[storage::Column::kInlineStringBytes];
      const std::string_view s = col->ReadString(offset, inline_bytes);
      if (s.size() > kRankStringBytes) return false;
      char bytes[kRankStringBytes] = {};
      std::memcpy(bytes, s.data(), s.size());
      for (size_t j = 0; j < kStringWords; ++j) {
        uint64_t word;
        std::memcpy(&word, bytes + 8 * j, 8);
        *w++ = __builtin_bswap64(word) ^ flip;
      }
      *w++ = s.size() ^ flip;
    }
    *w = e.position;
    return true;
  }

  // Takes in every candidate of `other` that ranks among the best.
  void Merge(Collector& other) {
    for (const Entry& e : other.entries_) {
      if (e.code > bound_ ||
          (full_ && e.code == worst_code_ && !Before(other, e.slot, *this, worst_slot_))) {
        continue;
      }
      const uint32_t slot = Acquire();
      meta_[slot] = other.meta_[e.slot];
      for (size_t k = 0; k < width_; ++k) {
        KeyValue& v = value(slot, k);
        v = other.value(e.slot, k);
        if (!v.null && (*classes_)[k] == KeyClass::kString) v.at = Store(other.view(v));
      }
      Append({e.code, slot});
    }
    other.entries_.clear();
  }

  // The best `capacity` candidates, best first, but for the first `skip`, which are only
  // counted (`*count`: all of them), and not sorted; the collector is left empty.
  std::vector<Candidate> TakeSorted(uint64_t skip, uint64_t* count) {
    if (entries_.size() > capacity_) Trim();
    auto less = [this](const Entry& a, const Entry& b) { return Less(a, b); };
    *count = entries_.size();
    auto from = entries_.begin() + static_cast<ptrdiff_t>(std::min<uint64_t>(skip, *count));
    if (from != entries_.begin() && from != entries_.end()) {
      std::nth_element(entries_.begin(), from, entries_.end(), less);
    }
    std::sort(from, entries_.end(), less);
    std::vector<Candidate> out;
    out.reserve(static_cast<size_t>(entries_.end() - from));
    for (auto it = from; it != entries_.end(); ++it) out.push_back(meta_[it->slot]);
    entries_.clear();
    return out;
  }

  size_t bytes() const {
    return (below_.capacity() + tied_.capacity()) * sizeof(Coded) +
           entries_.capacity() * sizeof(Entry) + free_.capacity() * sizeof(uint32_t) +
           meta_.capacity() * sizeof(Candidate) + values_.capacity() * sizeof(KeyValue) +
           arena_.capacity();
  }

 private:
  struct Entry {
    uint64_t code;  // the first key's order code
    uint32_t slot;  // its candidate: meta_[slot], values_[slot * width_ ...]
  };

  // The order code of the first key of the row at `offset` of `col` (null: no such column).
  uint64_t FirstCode(const storage::Column* col, uint64_t offset) const {
    if (col == nullptr || col->IsNull(offset)) return kNullCode ^ flip_;
    if ((*classes_)[0] == KeyClass::kInteger) return IntegerCode(col->GetInt64(offset)) ^ flip_;
    uint64_t known;
    const uint64_t head = col->StringHead(offset, &known);
    if (known == ~0ULL) return head ^ flip_;  // all 8 bytes in the slot
    char inline_bytes[storage::Column::kInlineStringBytes];
    return StringPrefix(col->ReadString(offset, inline_bytes)) ^ flip_;
  }

  // The rows at `pending[0, n)` of table `table` (the range from `begin` starts at scan
  // position `position`), whose cells passed the bound: each whose first key's code is within
  // the bound and that the snapshot sees (null: every row is known visible) is gathered.
  void OfferCoded(uint32_t table, const storage::NodeTable& rows, const Snapshot* snapshot,
                  const uint64_t* pending, size_t n, uint64_t begin, uint64_t position) {
    if (below_.capacity() == 0) below_.reserve(std::min<size_t>(buffer_limit_, kMaxTiedRows));
    const storage::Column* col = (*columns_)[table][0];
    if (col != nullptr && (*classes_)[0] == KeyClass::kString) {
      // Start loading the heap bytes of every long string before reading the first.
      for (size_t i = 0; i < n; ++i) {
        if (col->StringLength(pending[i]) <= storage::Column::kInlineStringBytes) continue;
        char inline_bytes[storage::Column::kInlineStringBytes];
        __builtin_prefetch(col->ReadString(pending[i], inline_bytes).data());
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t offset = pending[i];
      const uint64_t code = FirstCode(col, offset);
      if (code > bound_ || (snapshot != nullptr && !snapshot->RowVisible(rows.create_ts(offset),
                                                                         rows.delete_ts(offset)))) {
        continue;
      }
      // The tied rows may come to thousands (a top age at 1M rows: ~16k): their list grows
      // fourfold, not twofold (copying them took ~5% of `top_by_age` at 1M).
      if (code == bound_ && tied_.size() == tied_.capacity()) {
        tied_.reserve(std::max<size_t>(1024, 4 * tied_.capacity()));
      }
      // The fields stored one by one: a copy of a whole entry built just before would wait for
      // the two stores to reach the cache (no store forwarding into a 16-byte load).
      Coded& e = code == bound_ ? tied_.emplace_back() : below_.emplace_back();
      e.code = code;
      e.position = position + (offset - begin);
      if (below_.size() >= buffer_limit_) TrimCoded();
    }
  }

  // The code of the `capacity`-th best gathered row becomes the bound: the rows below it stay,
  // those at it join the tied ones.
  void TrimCoded() {
    const auto kth = below_.begin() + static_cast<ptrdiff_t>(capacity_ - 1);
    std::nth_element(below_.begin(), kth, below_.end(),
                     [](const Coded& a, const Coded& b) { return a.code < b.code; });
    const uint64_t code = kth->code;
    // This worker's share (SharedBound): the code its best ceil(capacity / workers) reach.
    const size_t workers = shared_ == nullptr ? 1 : shared_->shares.size();
    const uint64_t share = (capacity_ + workers - 1) / workers;
    if (workers > 1 && share < capacity_) {
      const auto at = below_.begin() + static_cast<ptrdiff_t>(share - 1);
      std::nth_element(below_.begin(), at, kth,
                       [](const Coded& a, const Coded& b) { return a.code < b.code; });
      SharedBound::Lower(shared_->shares[worker_], at->code);
    }
    if (code < bound_) {
      Tighten(code);
      Publish(code);
    }
    size_t kept = 0;
    for (const Coded& e : below_) {
      if (e.code < bound_) {
        below_[kept++] = e;
      } else if (e.code == bound_) {
        tied_.push_back(e);
      }
    }
    below_.resize(kept);
  }

  // Lowers the bound the workers share to `code` if it is lower.
  void Publish(uint64_t code) {
    if (shared_ != nullptr) SharedBound::Lower(shared_->lowest, code);
  }

  // Offers the gathered row `e` (known visible) with its keys.
  void Feed(const Coded& e) {
    uint64_t offset;
    const uint32_t t = Locate(e.position, &offset);
    Consider(t, *(*tables_)[t], nullptr, offset, e.position);
  }

  // The table (index into the scanned ones) and the offset of scan position `position`.
  uint32_t Locate(uint64_t position, uint64_t* offset) const {
    const auto next = std::upper_bound(starts_->begin(), starts_->end(), position);
    const auto t = static_cast<uint32_t>(next - starts_->begin() - 1);
    *offset = position - (*starts_)[t];
    return t;
  }

  KeyValue& value(uint32_t slot, size_t k) { return values_[slot * width_ + k]; }
  const KeyValue& value(uint32_t slot, size_t k) const { return values_[slot * width_ + k]; }
  std::string_view view(const KeyValue& v) const {
    return std::string_view(arena_.data() + v.at, v.size);
  }

  uint32_t Acquire() {
    if (!free_.empty()) {
      const uint32_t slot = free_.back();
      free_.pop_back();
      return slot;
    }
    meta_.emplace_back();
    values_.resize(values_.size() + width_);
    return static_cast<uint32_t>(meta_.size() - 1);
  }

  // Copies `s` to the end of `arena`, then kArenaPad bytes (ArenaStringsCompare reads words
  // past a string's end); returns where it starts.
  static size_t Store(std::vector<char>& arena, std::string_view s) {
    const size_t at = arena.size();
    arena.insert(arena.end(), s.begin(), s.end());
    arena.resize(arena.size() + kArenaPad);
    return at;
  }
  size_t Store(std::string_view s) { return Store(arena_, s); }

  // Reads key `k` of the row at `offset` into `v`; returns its order code. A string is copied
  // to the arena only when the code is at most `bound`.
  uint64_t ReadKey(size_t k, const storage::Column* col, uint64_t offset, KeyValue& v,
                   uint64_t bound = kNullCode) {
    const uint64_t flip = (*keys_)[k].descending ? ~0ULL : 0;
    v.null = col == nullptr || col->IsNull(offset);
    if (v.null) return kNullCode ^ flip;
    if ((*classes_)[k] == KeyClass::kInteger) {
      v.integer = col->GetInt64(offset);
      return IntegerCode(v.integer) ^ flip;
    }
    char inline_bytes[storage::Column::kInlineStringBytes];
    const std::string_view s = col->ReadString(offset, inline_bytes);
    v.prefix = StringPrefix(s);
    const uint64_t code = v.prefix ^ flip;
    if (code <= bound) {
      v.at = Store(s);
      v.size = static_cast<uint32_t>(s.size());
    }
    return code;
  }

  // The row at `offset` (scan position `position`), whose first key passed the bound on its
  // cell: kept when its keys rank it among the best and the snapshot sees it (null `snapshot`:
  // the row is known visible).
  void Consider(uint32_t table, const storage::NodeTable& rows, const Snapshot* snapshot,
                uint64_t offset, uint64_t position) {
    const std::vector<const storage::Column*>& cols = (*columns_)[table];
    const uint32_t slot = Acquire();
    const size_t arena_mark = arena_.size();
    const uint64_t code = ReadKey(0, cols[0], offset, value(slot, 0), bound_);
    bool keep = code <= bound_;
    if (keep) {
      for (size_t k = 1; k < width_; ++k) ReadKey(k, cols[k], offset, value(slot, k));
      meta_[slot] = {position, table, offset};
      keep = !(full_ && code == worst_code_ && !Before(*this, slot, *this, worst_slot_)) &&
             (snapshot == nullptr ||
              snapshot->RowVisible(rows.create_ts(offset), rows.delete_ts(offset)));
    }
    if (!keep) {
      arena_.resize(arena_mark);
      free_.push_back(slot);
      return;
    }
    Append({code, slot});
  }

  void Append(Entry e) {
    entries_.push_back(e);
    if (entries_.size() >= buffer_limit_) Trim();
  }

  // Keeps the best `capacity` entries; the worst of them becomes the bound. The arena keeps
  // the strings of the candidates kept only.
  void Trim() {
    const auto kth = entries_.begin() + static_cast<ptrdiff_t>(capacity_ - 1);
    std::nth_element(entries_.begin(), kth, entries_.end(),
                     [this](const Entry& a, const Entry& b) { return Less(a, b); });
    for (auto it = kth + 1; it != entries_.end(); ++it) free_.push_back(it->slot);
    entries_.resize(static_cast<size_t>(capacity_));
    full_ = true;
    worst_code_ = entries_.back().code;
    worst_slot_ = entries_.back().slot;
    bound_ = std::min(bound_, worst_code_);
    Publish(worst_code_);
    if (!arena_.empty()) {
      spare_.clear();
      for (const Entry& e : entries_) {
        for (size_t k = 0; k < width_; ++k) {
          KeyValue& v = value(e.slot, k);
          if (v.null || (*classes_)[k] != KeyClass::kString) continue;
          v.at = Store(spare_, view(v));
        }
      }
      arena_.swap(spare_);
    }
  }

  bool Less(const Entry& a, const Entry& b) const {
    if (a.code != b.code) return a.code < b.code;
    return Before(*this, a.slot, *this, b.slot);
  }

  // -1, 0, 1 as a NULL-aware comparison of two key values (NULL the largest).
  static int Order(bool a_null, bool b_null) { return a_null == b_null ? 0 : (a_null ? 1 : -1); }
  template <typename T>
  static int Order(const T& a, const T& b) {
    return a < b ? -1 : (b < a ? 1 : 0);
  }

  // Whether candidate `a` of `ca` sorts before candidate `b` of `cb` (keys, then the earlier
  // position).
  static bool Before(const Collector& ca, uint32_t a, const Collector& cb, uint32_t b) {
    for (size_t k = 0; k < ca.width_; ++k) {
      const KeyValue& x = ca.value(a, k);
      const KeyValue& y = cb.value(b, k);
      int c = x.null || y.null ? Order(x.null, y.null)
              : (*ca.classes_)[k] == KeyClass::kInteger
                  ? Order(x.integer, y.integer)
                  : ArenaStringsCompare(x.prefix, ca.view(x), y.prefix, cb.view(y));
      if (c != 0) return (*ca.keys_)[k].descending ? c > 0 : c < 0;
    }
    return ca.meta_[a].position < cb.meta_[b].position;
  }

  const std::vector<Key>* keys_;
  const std::vector<KeyClass>* classes_;
  const std::vector<std::vector<const storage::Column*>>* columns_;
  const std::vector<const storage::NodeTable*>* tables_;
  const std::vector<uint64_t>* starts_;
  size_t width_;                     // keys per candidate
  std::vector<size_t> string_keys_;  // the keys of class kString
  uint64_t capacity_;
  size_t buffer_limit_;
  uint64_t flip_;  // all ones when the first key is DESC
  SharedBound* shared_;
  unsigned worker_;
  // First the rows are gathered by their first key's code alone (coded_): those below the
  // bound unsorted (trimmed to fewer than `capacity` at buffer_limit_), those at it apart. At
  // the end, or once more than tie_limit_ rows share the bound, they are decoded: read with
  // their keys as candidates (entries_), as the rows after them then are.
  bool coded_ = true;
  std::vector<Coded> below_;
  std::vector<Coded> tied_;
  size_t tie_limit_;
  std::vector<Entry> entries_;  // unsorted; at most capacity_ after each trim
  std::vector<Candidate> meta_;
  std::vector<KeyValue> values_;  // width_ per candidate
  std::vector<uint32_t> free_;    // candidate slots no entry holds
  std::vector<char> arena_;       // the candidates' strings (and garbage till the next trim)
  std::vector<char> spare_;
  // Rows whose first key's code is above the bound lose; once a trim kept `capacity`
  // candidates (full_), those whose code equals the worst's are compared with it.
  uint64_t bound_ = kNullCode;
  uint64_t guess_ = kNullCode;  // Start
  bool full_ = false;
  uint64_t worst_code_ = 0;
  uint32_t worst_slot_ = 0;
};

ScanTopK::~ScanTopK() = default;

std::unique_ptr<ScanTopK> ScanTopK::For(const LogicalOperator& sort,
                                        const catalog::Catalog* catalog) {
  if (catalog == nullptr || sort.kind != LogicalOpKind::kSort || !sort.expr2 ||
      sort.children.empty() || sort.order_by.empty()) {
    return nullptr;
  }
  // The chain: projections, then a node scan of a single-row leaf.
  std::vector<const LogicalOperator*> projections;  // top-down for now
  const LogicalOperator* cur = sort.children[0].get();
  while (cur->kind == LogicalOpKind::kProjection) {
    projections.push_back(cur);
    if (cur->children.empty()) return nullptr;
    cur = cur->children[0].get();
  }
  if (cur->kind != LogicalOpKind::kNodeScan || cur->children.size() != 1 ||
      cur->children[0]->kind != LogicalOpKind::kSingleRow || cur->table_ids.empty()) {
    return nullptr;
  }
  auto out = std::unique_ptr<ScanTopK>(new ScanTopK());
  out->scan_slot_ = cur->slot;
  out->tables_ = cur->table_ids;
  for (const LogicalOperator* p : projections) {
    for (const auto& item : p->items) {
      if (!ProjectsSafely(*item.expr, out->scan_slot_)) return nullptr;
    }
  }
  for (const binder::BoundOrderItem* o : sort.order_by) {
    // Through the projections (top-down) to what the key reads.
    const BoundExpression* e = o->expr.get();
    for (const LogicalOperator* p : projections) {
      if (e->kind != ExprKind::kVariable) break;
      for (const auto& item : p->items) {
        if (item.slot == e->slot) {
          e = item.expr;
          break;
        }
      }
    }
    if (!IsNodeProperty(*e, out->scan_slot_)) return nullptr;
    out->keys_.push_back({e, o->descending});
  }
  out->projections_.assign(projections.rbegin(), projections.rend());
  return out;
}

bool ScanTopK::Fill(ExecContext& ctx, uint64_t capacity, uint64_t skip,
                    std::vector<TopKHeap::Row>* rows, uint64_t* count, MemoryCharge& memory) const {
  GraphStore* store = ctx.store;
  if (store == nullptr) return false;
  // The tables, their rows when the scan starts, each key's column in each.
  std::vector<const storage::NodeTable*> tables;
  std::vector<uint64_t> limits;
  std::vector<uint64_t> starts;  // each table's first scan position
  std::vector<std::vector<const storage::Column*>> columns(tables_.size());
  std::vector<KeyClass> classes(keys_.size());
  uint64_t total = 0;
  for (size_t t = 0; t < tables_.size(); ++t) {
    const storage::NodeTable& table = store->node_table(tables_[t]);
    if (!table.versions().empty()) return false;
    tables.push_back(&table);
    starts.push_back(total);
    limits.push_back(table.NumRows());
    total += limits.back();
    for (size_t k = 0; k < keys_.size(); ++k) {
      const std::vector<int32_t>& cols = keys_[k].property->property_columns;
      const int32_t c = tables_[t] < cols.size() ? cols[tables_[t]] : -1;
      if (c < 0 || static_cast<size_t>(c) >= table.NumColumns()) {
        columns[t].push_back(nullptr);
        continue;
      }
      const storage::Column& col = table.column(static_cast<size_t>(c));
      KeyClass cls;
      // One type in every table (the key's bound type): the keys of an item compare alike.
      if (col.type().id() != keys_[k].property->type.id() || !KeyClassOf(col.type().id(), &cls)) {
        return false;
      }
      classes[k] = cls;
      columns[t].push_back(&col);
    }
  }
  rows->clear();
  *count = 0;
  if (capacity == 0) return true;
  const Snapshot& snapshot = store->snapshot();

  // A cache line of its own: each worker writes its part as it goes.
  struct alignas(64) Part {
    explicit Part(Collector c) : heap(std::move(c)) {}
    Collector heap;
    MemoryCharge memory;
    size_t charged = 0;
    std::vector<uint64_t> words;  // Collector::Records
    std::vector<uint64_t> codes;  // their first words (Collector::Codes)
    bool rank_tried = false;
    bool ranked = false;
  };
  std::unique_ptr<SharedBound> shared_bound;  // (re)made by each gather below
  std::vector<std::unique_ptr<Part>> parts;
  AbsorbCharges<Part> absorb{parts, memory};
  const bool counts_memory = ctx.CountsMemory();
  // Scan positions [begin, end) (the tables laid end to end) into part `w`.
  auto scan = [&](unsigned w, uint64_t begin, uint64_t end) {
    Part& part = *parts[w];
    uint64_t table_start = 0;
    uint32_t t = 0;
    while (begin < end) {
      while (begin >= table_start + limits[t]) table_start += limits[t++];
      const uint64_t stop = std::min(end, table_start + limits[t]);
      part.heap.OfferRange(t, *tables[t], snapshot, begin - table_start, stop - table_start, begin);
      begin = stop;
      if (counts_memory && part.heap.bytes() > part.charged) {
        part.memory.Add(ctx, part.heap.bytes() - part.charged);
        part.charged = part.heap.bytes();
      }
    }
  };
  constexpr uint64_t kMorsel = ParallelPipeline::kMorselRows;
  const unsigned workers = ParallelPipeline::MorselWorkers(ctx, total);
  // The pool threads wake while the guess below is sampled (about as long as a wake-up takes),
  // rather than once the scan starts.
  const uint64_t guess_rank = Collector::GuessRank(total, capacity);
  if (workers > 1 && guess_rank != 0) ctx.tasks->Wake();
  // Ranks part `w`'s rows gathered by code (Collector::Records) within its bound and
  // `bound`, once.
  auto rank = [&](unsigned w, uint64_t bound) {
    Part& part = *parts[w];
    if (part.rank_tried || !part.heap.coded()) return;
    part.rank_tried = true;
    part.heap.Settle();
    part.ranked = part.heap.Records(std::min(bound, part.heap.bound()), workers > 1, &part.words);
    if (part.ranked) part.heap.Codes(part.words, &part.codes);
    if (counts_memory) {
      part.memory.Add(ctx, (part.words.capacity() + part.codes.capacity()) * sizeof(uint64_t));
    }
  };
  // Gathers the rows into fresh parts, from the guessed bound with `guess` (Collector::Guess).
  uint64_t guess = kNullCode;
  auto gather = [&](bool guessing) {
    shared_bound = std::make_unique<SharedBound>(workers);
    for (unsigned w = 0; w < workers; ++w) {
      parts.push_back(
          std::make_unique<Part>(Collector(&keys_, &classes, &columns, &tables, &starts, capacity,
                                           workers > 1 ? shared_bound.get() : nullptr, w)));
    }
    guessing = guessing && guess_rank != 0;
    if (guessing && workers == 1) ctx.ChargeWork(Collector::SampleSize(total));
    guess = guessing ? parts[0]->heap.Guess(total, guess_rank, snapshot) : kNullCode;
    for (auto& part : parts) part->heap.Start(guess);
    if (workers == 1) {
      for (uint64_t begin = 0; begin < total; begin += kMorsel) {
        const uint64_t end = std::min(total, begin + kMorsel);
        ctx.ChargeWork(end - begin);
        scan(0, begin, end);
      }
      return;
    }
    StatementControl* control = ctx.control;
    // Which morsel a call scans is this scan's choice (the pool only counts them): the first
    // worker takes them from the front, the others from the back, so that from one statement
    // to the next a worker scans about the same rows, still in its core's cache (a table of
    // 100k rows fits in one core's).
    const uint64_t morsels = (total + kMorsel - 1) / kMorsel;
    std::atomic<uint64_t> unclaimed{morsels << 32};  // [front, back): back << 32 | front
    // A call takes a run of morsels, a share of those left (as TaskPool::ParallelFor does), so
    // that the counter's cache line passes between the cores a few dozen times a scan rather
    // than once a morsel; calls that find none left do nothing. Every morsel is taken, as
    // there are as many calls as morsels and each takes one at least while any is left.
    // Returns the run's first morsel and sets `count` (0: none left).
    auto claim = [&](bool front, uint64_t* count) {
      uint64_t seen = unclaimed.load(std::memory_order_relaxed);
      while (true) {
        const uint64_t first = seen & 0xFFFFFFFFULL;
        const uint64_t last = seen >> 32;
        if (first >= last) {
          *count = 0;
          return first;
        }
        const uint64_t take = TaskPool::RunMorselsOf(last - first, workers);
        const uint64_t next = front ? seen + take : seen - (take << 32);
        if (unclaimed.compare_exchange_weak(seen, next, std::memory_order_relaxed)) {
          *count = take;
          return front ? first : last - take;
        }
      }
    };
    // Past the scan's morsels, one more call per worker: a worker that gets one has scanned
    // its last rows, and ranks its part there and then.
    ctx.tasks->ParallelFor(total + workers * kMorsel, kMorsel, workers,
                           [&](unsigned w, uint64_t begin, uint64_t end) {
                             if (begin < total) {
                               uint64_t count;
                               const uint64_t first = claim(w == 0, &count);
                               for (uint64_t m = first; m < first + count; ++m) {
                                 if (control) control->Check();
                                 scan(w, m * kMorsel, std::min((m + 1) * kMorsel, total));
                               }
                             }
                             if (end > total) {
                               if (control) control->Check();
                               rank(w, shared_bound->Load());
                             }
                           });
  };
  gather(/*guessing=*/true);
  if (guess != kNullCode) {
    // The guess holds when a bound found is below it, or when at least `capacity` rows passed
    // it; else the rows it dropped may be needed: the scan runs again without it.
    bool held = false;
    uint64_t gathered = 0;
    for (auto& part : parts) {
      held = held || part->heap.PastGuess();
      gathered += part->heap.Gathered();
    }
    if (!held && gathered < capacity) {
      for (auto& part : parts) memory.Absorb(part->memory);
      memory.Release(ctx);
      parts.clear();
      gather(/*guessing=*/false);
    }
  }
  // The rows the workers gathered by code are ranked on their keys (Records: each worker's
  // as it ends, those of workers that did not here, within the lowest bound any had), then
  // in all (Order); else (a worker read its rows' keys already, or Records declined) they are
  // read as candidates.
  Collector& heap = parts[0]->heap;
  std::vector<Candidate> best;
  uint64_t bound = kNullCode;
  for (auto& part : parts) bound = std::min(bound, part->heap.bound());
  bool ranked = true;
  for (unsigned w = 0; w < parts.size(); ++w) {
    rank(w, bound);
    ranked = ranked && parts[w]->ranked;
  }
  if (ranked) {
    std::vector<Collector::Run> runs;
    for (auto& part : parts) runs.push_back({&part->words, &part->codes});
    heap.Order(runs, skip, count, &best);
  } else {
    std::vector<Collector::Coded> gathered;
    for (auto& part : parts) part->heap.TakeCoded(&gathered);
    heap.Decode(gathered);
    for (size_t w = 1; w < parts.size(); ++w) heap.Merge(parts[w]->heap);
    best = heap.TakeSorted(skip, count);
  }
  // A writer that overwrote a cell meanwhile recorded the old value first, and keeps it while
  // this statement runs: when a table has versions now, once every key was read (ranking and
  // decoding read them too), read again through the store (the caller's generic path), which
  // picks the version this snapshot sees.
  for (const storage::NodeTable* table : tables) {
    if (!table->versions().empty()) {
      for (auto& part : parts) memory.Absorb(part->memory);
      memory.Release(ctx);
      return false;
    }
  }
  // The winners' rows: the scanned node, then the projections, as the child would make them.
  rows->reserve(best.size());
  for (const Candidate& c : best) {
    ctx.frame[scan_slot_] = Value::Id({tables_[c.table], c.offset});
    for (const LogicalOperator* p : projections_) {
      for (const auto& item : p->items) ctx.frame[item.slot] = Evaluate(*item.expr, ctx);
    }
    rows->push_back({{}, c.position, ctx.frame});
  }
  return true;
}

void TopKOp::Open(ExecContext& ctx) {
  PhysicalOperator::Open(ctx);
  rows_.clear();
  memory_.Release(ctx);
  first_ = 0;
  count_ = 0;
  position_ = 0;
  filled_ = false;
}

void TopKOp::Offer(ExecContext& ctx, uint64_t sequence, TopKHeap& heap, std::vector<Value>& keys,
                   MemoryCharge& memory, size_t* charged, TopBound* bound) const {
  // A variable's value (a projected column: the common key) compared where it is, and copied
  // only for a row the heap keeps; other keys evaluated.
  constexpr size_t kInPlace = 8;
  std::array<const Value*, kInPlace> at;
  const bool in_place = keys_.size() <= kInPlace;
  for (size_t i = 0; i < keys_.size(); ++i) {
    const BoundExpression& e = *keys_[i].expr;
    if (in_place && e.kind == ExprKind::kVariable) {
      at[i] = &ctx.frame[e.slot];
      continue;
    }
    keys[i] = Evaluate(e, ctx);
    if (in_place) at[i] = &keys[i];
  }
  if (!(in_place ? heap.Admits(at.data(), sequence) : heap.Admits(keys, sequence))) return;
  for (size_t i = 0; in_place && i < keys_.size(); ++i) {
    if (at[i] != &keys[i]) keys[i] = *at[i];
  }
  heap.Push({std::move(keys), sequence, ctx.frame});
  keys.assign(keys_.size(), Value());
  if (bound != nullptr) {
    const TopKHeap::Row* worst = heap.Worst();
    if (worst != nullptr && worst->keys[0].type_id() == LogicalTypeId::kInt64 &&
        !worst->keys[0].is_null()) {
      bound->value = worst->keys[0].GetInt();
      bound->set = true;
    }
  }
  if (ctx.CountsMemory() && heap.bytes() > *charged) {
    memory.Add(ctx, heap.bytes() - *charged);
    *charged = heap.bytes();
  }
}

void TopKOp::Fill(ExecContext& ctx, uint64_t skipped) {
  const uint64_t limit = EvaluateCount(limit_, ctx);
  const uint64_t skip = skip_ ? EvaluateCount(skip_, ctx) : 0;
  const uint64_t capacity = skip > UINT64_MAX - limit ? UINT64_MAX : limit + skip;
  filled_ = true;
  if (scan_ && scan_->Fill(ctx, capacity, skipped, &rows_, &count_, memory_)) {
    first_ = std::min(skipped, count_);
    return;
  }
  if (!parallel_ || capacity == 0 || !FillParallel(ctx, capacity)) {
    TopKHeap heap(&keys_, capacity);
    std::vector<Value> keys(keys_.size());
    size_t charged = 0;  // the most bytes the heap held so far
    uint64_t sequence = 0;
    TopBound bound = bound_;
    TopBound* const outer = ctx.top_bound;
    ctx.top_bound = bound.source ? &bound : nullptr;
    try {
      while (child->Next(ctx)) {
        if ((++sequence & (kInterruptCheckUnits - 1)) == 0) ctx.CheckInterrupt();
        Offer(ctx, sequence, heap, keys, memory_, &charged, ctx.top_bound);
      }
    } catch (...) {
      ctx.top_bound = outer;
      throw;
    }
    ctx.top_bound = outer;
    rows_ = heap.TakeSorted();
  }
  count_ = rows_.size();
}

bool TopKOp::FillParallel(ExecContext& ctx, uint64_t capacity) {
  struct Part {
    explicit Part(const std::vector<SortKey>* keys, uint64_t capacity, const TopBound& bound)
        : heap(keys, capacity), keys(keys->size()), bound(bound) {}
    TopKHeap heap;
    std::vector<Value> keys;
    MemoryCharge memory;
    size_t charged = 0;
    TopBound bound;  // the worker's own (its context points at it)
  };
  std::vector<std::unique_ptr<Part>> parts;
  AbsorbCharges<Part> absorb{parts, memory_};
  const bool ran = parallel_->Run(
      ctx,
      [&](unsigned workers) {
        while (parts.size() < workers) {
          parts.push_back(std::make_unique<Part>(&keys_, capacity, bound_));
        }
      },
      [&](unsigned w, ExecContext& wctx, uint64_t position) {
        Part& part = *parts[w];
        // (Its first row came before the bound was set: that row passes it anyway.)
        if (bound_.source != nullptr) wctx.top_bound = &part.bound;
        Offer(wctx, position, part.heap, part.keys, part.memory, &part.charged, wctx.top_bound);
      });
  if (!ran) return false;
  TopKHeap& heap = parts[0]->heap;
  for (size_t w = 1; w < parts.size(); ++w) heap.Merge(std::move(parts[w]->heap));
  rows_ = heap.TakeSorted();
  return true;
}

TopKOp::~TopKOp() = default;

bool TopKOp::Next(ExecContext& ctx) {
  if (!filled_) Fill(ctx, 0);
  if (position_ >= count_) return false;
  ctx.frame = std::move(rows_[position_++ - first_].frame);
  return true;
}

uint64_t TopKOp::Skip(ExecContext& ctx, uint64_t n) {
  if (!filled_) Fill(ctx, n);
  const uint64_t skipped = std::min(n, count_ - position_);
  position_ += skipped;
  return skipped;
}

}  // namespace graphdb::exec
