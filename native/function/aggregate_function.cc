#include "function/aggregate_function.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <unordered_set>

#include "common/open_index.h"
#include "function/average.h"
#include "function/cast.h"
#include "function/function_internal.h"
#include "function/value_ops.h"

namespace graphdb::function {

using internal::Id;

AggregateState::~AggregateState() = default;

namespace {

// ---- States

class CountStarState final : public AggregateState {
 public:
  void Update(const Value&) override { ++count_; }
  void UpdateRepeated(const Value&, uint64_t n) override { count_ += static_cast<int64_t>(n); }
  void Combine(const AggregateState& other) override {
    count_ += static_cast<const CountStarState&>(other).count_;
  }
  Value Finalize() const override { return Value::Int64(count_); }

 private:
  int64_t count_ = 0;
};

class CountState final : public AggregateState {
 public:
  void Update(const Value& v) override {
    if (!v.is_null()) ++count_;
  }
  void UpdateRepeated(const Value& v, uint64_t n) override {
    if (!v.is_null()) count_ += static_cast<int64_t>(n);
  }
  void Combine(const AggregateState& other) override {
    count_ += static_cast<const CountState&>(other).count_;
  }
  Value Finalize() const override { return Value::Int64(count_); }

 private:
  int64_t count_ = 0;
};

class SumState final : public AggregateState {
 public:
  explicit SumState(const LogicalType& type) : id_(type.id()) {
    if (id_ == Id::kDecimal) scale_ = type.scale();
  }
  void Update(const Value& v) override {
    if (v.is_null()) return;
    if (internal::IsFloatingId(id_)) {
      dsum_ += v.GetDouble();
    } else if (id_ == Id::kDecimal) {
      Add(v.GetInt128());  // every input has the argument's scale
    } else {
      Add(internal::GetInteger(v));
    }
    has_value_ = true;
  }
  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const SumState&>(other);
    if (!o.has_value_) return;
    if (internal::IsFloatingId(id_)) {
      dsum_ += o.dsum_;
    } else {
      Add(o.isum_);
    }
    has_value_ = true;
  }
  Value Finalize() const override {
    if (!has_value_) return Value::Null(LogicalType(id_));
    // FLOAT sums accumulate in double precision, as Kùzu does, and round once at the end.
    if (id_ == Id::kFloat) return Value::Float(static_cast<float>(dsum_));
    if (id_ == Id::kDouble) return Value::Double(dsum_);
    if (id_ == Id::kDecimal) return Value::Decimal(isum_, kMaxDecimalPrecision, scale_);
    return internal::MakeInteger(id_, isum_);
  }

 private:
  void Add(int128_t x) {
    int128_t r;
    bool overflow = __builtin_add_overflow(isum_, x, &r);
    if (id_ == Id::kInt128) {
      if (overflow) internal::ThrowOverflow("INT128 is out of range: cannot add.");
    } else if (id_ == Id::kDecimal) {
      int128_t bound = 1;
      for (uint32_t i = 0; i < kMaxDecimalPrecision; ++i) bound *= 10;
      if (overflow || r >= bound || r <= -bound) {
        internal::ThrowOverflow("Decimal Addition result is out of range");
      }
    } else if (overflow || !internal::FitsIn(id_, r)) {
      internal::ThrowOverflow("Value " + internal::Int128Text(isum_) + " + " +
                              internal::Int128Text(x) + " is not within " + LogicalTypeIdName(id_) +
                              " range.");
    }
    isum_ = r;
  }

  Id id_;
  uint32_t scale_ = 0;  // DECIMAL
  bool has_value_ = false;
  int128_t isum_ = 0;
  double dsum_ = 0;
};

class AvgState final : public AggregateState {
 public:
  explicit AvgState(Id id) : floating_(internal::IsFloatingId(id) || id == Id::kDecimal) {}
  void Update(const Value& v) override {
    if (v.is_null()) return;
    if (floating_) {
      dsum_ += internal::GetNumber(v);
    } else {
      isum_ += internal::GetInteger(v);
    }
    ++count_;
  }
  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const AvgState&>(other);
    dsum_ += o.dsum_;
    isum_ += o.isum_;
    count_ += o.count_;
  }
  Value Finalize() const override {
    if (count_ == 0) return Value::Null(LogicalType::Double());
    if (floating_) return Value::Double(dsum_ / static_cast<double>(count_));
    return Value::Double(CorrectlyRoundedQuotient(isum_, static_cast<uint64_t>(count_)));
  }

  // sum / count rounded once to the nearest double (issue 34, item 15): converting the sum to
  // double before dividing rounds twice. Long division yields at least 56 quotient bits; the
  // remainder becomes a sticky bit below them, so the one conversion rounds as the exact
  // quotient would.
  static double CorrectlyRoundedQuotient(int128_t sum, uint64_t count) {
    using uint128 = unsigned __int128;
    bool negative = sum < 0;
    uint128 n = negative ? uint128{0} - static_cast<uint128>(sum) : static_cast<uint128>(sum);
    if (n == 0) return 0.0;
    uint128 q = n / count;
    uint128 r = n % count;  // < count <= 2^63, so r << 1 cannot overflow
    int exponent = 0;
    while (q < (uint128{1} << 55)) {
      q <<= 1;
      r <<= 1;
      if (r >= count) {
        q |= 1;
        r -= count;
      }
      --exponent;
    }
    if (r != 0) q |= 1;
    double magnitude = std::ldexp(static_cast<double>(q), exponent);
    return negative ? -magnitude : magnitude;
  }

 private:
  bool floating_;
  double dsum_ = 0;
  int128_t isum_ = 0;
  int64_t count_ = 0;
};

template <bool kMax>
class MinMaxState final : public AggregateState {
 public:
  explicit MinMaxState(LogicalType type) : type_(std::move(type)) {}
  void Update(const Value& v) override {
    if (v.is_null()) return;
    if (!has_value_) {
      best_ = v;
      has_value_ = true;
      return;
    }
    int c = CompareValues(v, best_);
    if (kMax ? c > 0 : c < 0) best_ = v;
  }
  size_t HeldBytes() const override { return has_value_ ? ApproxBytes(best_) : 0; }
  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const MinMaxState&>(other);
    if (o.has_value_) Update(o.best_);
  }
  Value Finalize() const override { return has_value_ ? best_ : Value::Null(type_); }
  void UpdateRepeated(const Value& v, uint64_t n) override {
    if (n > 0) Update(v);  // the same value again changes nothing
  }

 private:
  LogicalType type_;
  bool has_value_ = false;
  Value best_;
};

class CollectState final : public AggregateState {
 public:
  explicit CollectState(LogicalType type) : type_(std::move(type)) {}
  void Update(const Value& v) override {
    if (v.is_null()) return;
    values_.push_back(v);
    bytes_ += ApproxBytes(v);
  }
  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const CollectState&>(other);
    values_.insert(values_.end(), o.values_.begin(), o.values_.end());
    bytes_ += o.bytes_;
  }
  size_t HeldBytes() const override { return bytes_; }
  Value Finalize() const override {
    if (values_.empty()) return Value::Null(type_);
    return Value::Nested(type_, values_);
  }

 private:
  LogicalType type_;
  std::vector<Value> values_;
  size_t bytes_ = 0;  // ApproxBytes of values_
};

struct ValueHash {
  size_t operator()(const Value& v) const { return HashValue(v); }
};
struct ValueEq {
  bool operator()(const Value& a, const Value& b) const { return ValuesEqual(a, b); }
};

// What a DISTINCT state's inner state needs of a value seen first in another partial state
// (Combine) or kept across a switch to the generic set: nothing but its presence (count), its
// number (sum, avg: rebuilt from the key code) or the value itself (collect: kept).
enum class Needs : uint8_t { kNothing, kNumber, kValue };

// The types whose values a DISTINCT state keys by a 64-bit code, and strings (keyed by their
// hash and compared byte for byte). Within one of these types, equal codes mean equal values
// under ValuesEqual and the reverse.
bool IsCodedType(Id id) {
  return id == Id::kBool || internal::IsSignedIntId(id) || internal::IsUnsignedIntId(id) ||
         internal::IsFloatingId(id) || id == Id::kDate || internal::IsTimestampId(id) ||
         id == Id::kInternalId || id == Id::kNode || id == Id::kRel;
}
bool IsStringType(Id id) { return id == Id::kString || id == Id::kJson || id == Id::kBlob; }

// The code of `v` (of a coded type), or false when it has none: NaN (its bits vary, all NaNs
// are one value), an internal id past 16 table bits or 48 offset bits. -0.0 codes as 0.0 (they
// are equal).
bool KeyCode(const Value& v, uint64_t* code) {
  const Id id = v.type_id();
  if (id == Id::kBool) {
    *code = v.GetBool() ? 1 : 0;
  } else if (internal::IsFloatingId(id)) {
    double d = v.GetDouble();
    if (std::isnan(d)) return false;
    if (d == 0) d = 0;
    std::memcpy(code, &d, sizeof d);
  } else if (id == Id::kInternalId || id == Id::kNode || id == Id::kRel) {
    const InternalId i = v.GetId();
    if (!IdFitsCode(i)) return false;
    *code = IdCode(i);
  } else {
    *code = v.GetUInt();  // integers, DATE and TIMESTAMP*: the 64-bit payload
  }
  return true;
}

// A value of type `id` equal to the one `code` was taken from (a node or rel without label or
// properties: they compare by id).
Value FromCode(Id id, uint64_t code) {
  if (id == Id::kBool) return Value::Boolean(code != 0);
  if (internal::IsFloatingId(id)) {
    double d;
    std::memcpy(&d, &code, sizeof d);
    return id == Id::kFloat ? Value::Float(static_cast<float>(d)) : Value::Double(d);
  }
  if (id == Id::kInternalId || id == Id::kNode || id == Id::kRel) {
    const InternalId i = IdFromCode(code);
    if (id == Id::kInternalId) return Value::Id(i);
    if (id == Id::kNode) return Value::Node(i, "", {}, {});
    return Value::Rel(i, "", {}, {}, {}, {});
  }
  if (internal::IsUnsignedIntId(id)) return Value::UInt(id, code);
  return Value::Int(id, static_cast<int64_t>(code));
}

uint64_t StringHash(std::string_view s) { return std::hash<std::string_view>()(s); }

// The distinct non-NULL values seen, each passed once to the inner state, in arrival order.
//
// While every value has one coded type (IsCodedType) or one string type, the set is typed: the
// values' codes in arrival order with a bitmap or an open-addressing table of them (AddCode),
// or for strings the values, their hashes and an index of them (common/open_index.h); a few
// flat arrays, no allocation per value. The first value of another type (1.0 after INT64s:
// equal to 1), or one without a code (NaN), turns the state into the generic set of Values
// (ValuesEqual, HashValue), fed the typed values in their arrival order first, so the state
// then is what the generic set would have been from the start. Combine replays the other
// state's values in its arrival order, as a serial run would meet them after this state's.
class DistinctState final : public AggregateState {
 public:
  DistinctState(std::unique_ptr<AggregateState> inner, Needs needs)
      : inner_(std::move(inner)), needs_(needs) {}

  void Update(const Value& v) override {
    if (v.is_null()) return;
    if (mode_ == Mode::kTyped && v.type_id() == type_) {
      if (string_ ? InsertString(v) : InsertCoded(v)) return;
    } else if (mode_ == Mode::kEmpty) {
      const Id id = v.type_id();
      if (IsCodedType(id) || IsStringType(id)) {
        mode_ = Mode::kTyped;
        type_ = id;
        string_ = IsStringType(id);
        if (string_ ? InsertString(v) : InsertCoded(v)) return;
      }
    }
    if (mode_ != Mode::kGeneric) ToGeneric();
    InsertGeneric(v);
  }
  void UpdateRepeated(const Value& v, uint64_t n) override {
    if (n > 0) Update(v);
  }

  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const DistinctState&>(other);
    if (o.mode_ == Mode::kEmpty) return;
    if (mode_ == Mode::kEmpty && o.mode_ == Mode::kTyped) {
      mode_ = Mode::kTyped;
      type_ = o.type_;
      string_ = o.string_;
    }
    if (mode_ == Mode::kTyped && o.mode_ == Mode::kTyped && type_ == o.type_ && !string_) {
      uint64_t added = 0;
      for (size_t e = 0; e < o.codes_.size(); ++e) {
        const uint64_t code = o.codes_[e];
        if (!AddCode(code)) continue;
        if (needs_ == Needs::kNothing) {
          ++added;
        } else {
          Added(needs_ == Needs::kValue ? o.values_[e] : FromCode(type_, code));
        }
      }
      if (added != 0) inner_->UpdateRepeated(Value::Boolean(true), added);
      return;
    }
    for (size_t e = 0, n = o.size(); e < n; ++e) Update(o.ValueAt(e));
  }

  Value Finalize() const override { return inner_->Finalize(); }

  // What the arrays' capacities take (their growth is what the memory limit sees), the kept
  // values' payloads, or for the generic set each value twice (set and order) and a hash node.
  size_t HeldBytes() const override {
    size_t own = own_bytes_;
    if (mode_ == Mode::kTyped) {
      own += (table_.capacity() + bits_.capacity() + codes_.capacity() + hashes_.capacity()) *
                 sizeof(uint64_t) +
             index_.capacity() * sizeof(uint32_t) + values_.capacity() * sizeof(Value);
    }
    return own + inner_->HeldBytes();
  }

 private:
  enum class Mode : uint8_t { kEmpty, kTyped, kGeneric };
  static constexpr size_t kSeenEntryBytes = 32;
  static constexpr uint64_t kEmptyCode = 0x7FF4'0000'0000'0001ULL;  // a NaN's bits: rare
  static constexpr uint64_t kBitsPerCode = 128;      // a bitmap's bytes <= 16 a code, as a table's
  static constexpr uint64_t kMinBitmapCodes = 1024;  // fewer: a small table is as good,
  static constexpr uint64_t kSmallSpan = 4096;       // unless the bitmap is this small

  // Adds `code` unless present; true when added. The codes are kept in a bitmap while they are
  // dense (bits_ not empty: code - base_ is a bit), else in a hash table of the codes
  // themselves (one memory access a probe, kEmptyCode marking a free slot; that code itself is
  // a flag). A bitmap spans at most kBitsPerCode bits a code: it never takes more memory than
  // the table would.
  bool AddCode(uint64_t code) {
    if (!bits_.empty()) {
      const uint64_t d = code - base_;
      if (d < bits_.size() * 64) {
        uint64_t& word = bits_[d >> 6];
        const uint64_t bit = uint64_t{1} << (d & 63);
        if ((word & bit) != 0) return false;
        word |= bit;
        Append(code);
        return true;
      }
      // Outside the bitmap, so new: widen the bitmap if the codes stay dense.
      const uint64_t lo = std::min(min_, code), hi = std::max(max_, code);
      const uint64_t n = codes_.size() + 1;
      if ((hi - lo) / kBitsPerCode < n) {
        const uint64_t slack = (hi - lo) / 2;  // widening again costs a rebuild: leave room
        const uint64_t from = code < min_ ? lo - std::min(lo, slack) : lo;
        const uint64_t to = code > max_ ? hi + std::min(~hi, slack) : hi;
        Append(code);
        FillBits(from, to);
        return true;
      }
      std::vector<uint64_t>().swap(bits_);
      FillTable(0);
    }
    if (code == kEmptyCode) {
      if (has_empty_code_) return false;
      has_empty_code_ = true;
      Append(code);
      return true;
    }
    if ((codes_.size() + 1) * 2 > table_.size()) {
      // At each doubling the codes may have become dense enough for a bitmap.
      const uint64_t n = codes_.size(), span = max_ - min_;
      if (n != 0 && span / kBitsPerCode < n && (n >= kMinBitmapCodes || span < kSmallSpan)) {
        FillBits(min_, max_);
        return AddCode(code);
      }
      FillTable(table_.size() * 2);
    }
    if (!Probe(code)) return false;
    Append(code);
    return true;
  }

  // Puts `code` in the table unless there; true when put. The table has a free slot.
  bool Probe(uint64_t code) {
    const size_t mask = table_.size() - 1;
    for (size_t i = HashCodes(&code, 1, 0) & mask;; i = (i + 1) & mask) {
      const uint64_t c = table_[i];
      if (c == code) return false;
      if (c == kEmptyCode) {
        table_[i] = code;
        return true;
      }
    }
  }

  void Append(uint64_t code) {
    if (codes_.empty()) min_ = max_ = code;
    min_ = std::min(min_, code);
    max_ = std::max(max_, code);
    codes_.push_back(code);
  }

  // The table (of `size` slots, at least 16 and twice the codes) filled with codes_.
  void FillTable(size_t size) {
    size = std::max<size_t>(16, size);
    while (size < 2 * (codes_.size() + 1)) size *= 2;
    table_.assign(size, kEmptyCode);
    has_empty_code_ = false;
    for (uint64_t code : codes_) {
      if (code == kEmptyCode) {
        has_empty_code_ = true;
      } else {
        Probe(code);
      }
    }
  }

  // The bitmap over [from, to] filled with codes_, in place of the table.
  void FillBits(uint64_t from, uint64_t to) {
    base_ = from & ~uint64_t{63};
    bits_.assign((to - base_) / 64 + 1, 0);
    for (uint64_t code : codes_) {
      const uint64_t d = code - base_;
      bits_[d >> 6] |= uint64_t{1} << (d & 63);
    }
    std::vector<uint64_t>().swap(table_);
    has_empty_code_ = false;
  }

  // The typed insert of a value of type_; false when it has no code (the caller goes generic).
  bool InsertCoded(const Value& v) {
    uint64_t code;
    if (!KeyCode(v, &code)) return false;
    if (AddCode(code)) Added(v);
    return true;
  }

  bool InsertString(const Value& v) {
    const std::string_view s = v.GetString();
    const uint64_t h = StringHash(s);
    if (index_.empty()) index_.assign(16, 0);
    const size_t mask = index_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const uint32_t slot = index_[i];
      if (slot == 0) break;
      if (hashes_[slot - 1] == h && values_[slot - 1].GetString() == s) return true;
    }
    hashes_.push_back(h);
    if (hashes_.size() * 2 > index_.size()) {
      RegrowIndex(index_, hashes_);
    } else {
      IndexEntry(index_, h, static_cast<uint32_t>(hashes_.size() - 1));
    }
    Added(v);
    return true;
  }

  // Passes the newly added entry's value on, keeping it where the entry needs it.
  void Added(const Value& v) {
    if (string_ || needs_ == Needs::kValue) {
      values_.push_back(v);
      own_bytes_ += ApproxBytes(v) - sizeof(Value);  // the payload; the slot is in capacity()
    }
    inner_->Update(v);
  }

  // How many distinct values the state holds.
  size_t size() const {
    if (mode_ == Mode::kGeneric) return order_.size();
    return string_ ? values_.size() : codes_.size();
  }

  // The e-th distinct value in arrival order.
  Value ValueAt(size_t e) const {
    if (mode_ == Mode::kGeneric) return order_[e];
    if (string_ || needs_ == Needs::kValue) return values_[e];
    return FromCode(type_, codes_[e]);
  }

  void InsertGeneric(const Value& v) {
    if (!seen_.insert(v).second) return;
    order_.push_back(v);
    own_bytes_ += 2 * ApproxBytes(v) + kSeenEntryBytes;
    inner_->Update(v);
  }

  // Moves the typed values to the generic set (the inner state has seen them already).
  void ToGeneric() {
    const size_t n = size();
    own_bytes_ = 0;
    order_.reserve(n);
    for (size_t e = 0; e < n; ++e) {
      Value v = ValueAt(e);
      own_bytes_ += 2 * ApproxBytes(v) + kSeenEntryBytes;
      seen_.insert(v);
      order_.push_back(std::move(v));
    }
    mode_ = Mode::kGeneric;
    std::vector<uint64_t>().swap(table_);
    std::vector<uint64_t>().swap(bits_);
    std::vector<uint64_t>().swap(codes_);
    std::vector<uint64_t>().swap(hashes_);
    std::vector<uint32_t>().swap(index_);
    std::vector<Value>().swap(values_);
  }

  std::unique_ptr<AggregateState> inner_;
  const Needs needs_;
  Mode mode_ = Mode::kEmpty;
  Id type_ = Id::kAny;   // kTyped: every value's type
  bool string_ = false;  // kTyped: type_ is a string type (values_ and hashes_, no codes_)
  // kTyped, entry e = the e-th distinct value: its code (coded types), the value (strings, and
  // for Needs::kValue). Coded types: a table or a bitmap of the codes (AddCode); strings: their
  // hashes and an index of entry + 1.
  std::vector<uint64_t> codes_;
  std::vector<Value> values_;
  std::vector<uint64_t> table_;
  bool has_empty_code_ = false;
  std::vector<uint64_t> bits_;  // when not empty, in place of table_: code - base_ is a bit
  uint64_t base_ = 0;
  uint64_t min_ = 0, max_ = 0;  // of codes_
  std::vector<uint64_t> hashes_;
  std::vector<uint32_t> index_;
  // kGeneric: the set, and the values in arrival order (for Combine).
  std::unordered_set<Value, ValueHash, ValueEq> seen_;
  std::vector<Value> order_;
  size_t own_bytes_ = 0;  // kTyped: the kept values' payloads; kGeneric: what seen_ and order_ hold
};

// ---- Factories

std::unique_ptr<AggregateState> Wrap(const BoundAggregateFunction& fn,
                                     std::unique_ptr<AggregateState> inner, Needs needs) {
  if (!fn.distinct) return inner;
  return std::make_unique<DistinctState>(std::move(inner), needs);
}

std::unique_ptr<AggregateState> MakeCountStar(const BoundAggregateFunction&) {
  return std::make_unique<CountStarState>();
}
std::unique_ptr<AggregateState> MakeCount(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<CountState>(), Needs::kNothing);
}
std::unique_ptr<AggregateState> MakeSum(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<SumState>(fn.result_type), Needs::kNumber);
}
std::unique_ptr<AggregateState> MakeAvg(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<AvgState>(fn.arg_types[0].id()), Needs::kNumber);
}
// min and max need no DISTINCT set: a value equal to one seen before cannot change the best
// value (the first of equal values stays), serially or across Combine.
std::unique_ptr<AggregateState> MakeMin(const BoundAggregateFunction& fn) {
  return std::make_unique<MinMaxState<false>>(fn.result_type);
}
std::unique_ptr<AggregateState> MakeMax(const BoundAggregateFunction& fn) {
  return std::make_unique<MinMaxState<true>>(fn.result_type);
}
std::unique_ptr<AggregateState> MakeCollect(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<CollectState>(fn.result_type), Needs::kValue);
}

constexpr Id kNumericIds[] = {Id::kInt64,  Id::kInt32,  Id::kInt16,  Id::kInt8,
                              Id::kUInt64, Id::kUInt32, Id::kUInt16, Id::kUInt8,
                              Id::kInt128, Id::kDouble, Id::kFloat};

std::string NumericSignatures(const char* name, const std::vector<LogicalType>& args, bool avg) {
  std::string out = "Binder exception: Function " + std::string(name) +
                    " did not receive correct arguments:\nActual:   " + internal::TypesText(args) +
                    "\nExpected: ";
  bool first = true;
  for (Id id : kNumericIds) {
    if (!first) out += "\n          ";
    first = false;
    out += "(" + std::string(LogicalTypeIdName(id)) + ") -> " +
           (avg ? "DOUBLE" : LogicalTypeIdName(id));
  }
  return out;
}

}  // namespace

double IntegerAverage(int128_t sum, uint64_t count) {
  return AvgState::CorrectlyRoundedQuotient(sum, count);
}

std::optional<BoundAggregateFunction> BindAggregateFunction(
    std::string_view name, const std::vector<LogicalType>& arg_types, bool distinct,
    std::string* error) {
  std::string lower = internal::ToLower(name);
  BoundAggregateFunction fn;
  fn.name = lower;
  fn.distinct = distinct;
  fn.arg_types = arg_types;
  if (lower == "count_star") {
    fn.distinct = false;
    fn.result_type = LogicalType::Int64();
    fn.make_state = MakeCountStar;
    return fn;
  }
  if (!IsAggregateFunction(lower)) {
    *error = "Catalog exception: function " + internal::ToUpper(name) + " does not exist.";
    return std::nullopt;
  }
  std::string upper = internal::ToUpper(name);
  if (arg_types.size() != 1) {
    *error = "Binder exception: Function " + upper + " did not receive correct arguments:\n" +
             "Actual:   " + internal::TypesText(arg_types) + "\nExpected: (ANY) -> ANY";
    return std::nullopt;
  }
  LogicalType arg = arg_types[0];
  if (arg.id() == Id::kSerial) arg = LogicalType::Int64();
  if (lower == "count") {
    fn.result_type = LogicalType::Int64();
    fn.make_state = MakeCount;
  } else if (lower == "sum" || lower == "avg") {
    bool avg = lower == "avg";
    if (arg.id() == Id::kAny) arg = avg ? LogicalType::Double() : LogicalType::Int64();
    if (!internal::IsNumericId(arg.id())) {
      *error = NumericSignatures(upper.c_str(), arg_types, avg);
      return std::nullopt;
    }
    fn.arg_types = {arg};
    fn.result_type = avg ? LogicalType::Double() : arg;
    if (!avg && arg.id() == Id::kDecimal) {
      fn.result_type = LogicalType::Decimal(kMaxDecimalPrecision, arg.scale());
    }
    fn.make_state = avg ? MakeAvg : MakeSum;
  } else if (lower == "min" || lower == "max") {
    fn.arg_types = {arg};
    fn.result_type = arg;
    fn.make_state = lower == "min" ? MakeMin : MakeMax;
  } else {  // collect
    LogicalType element = ResolveAnyType(arg, LogicalType::Int64());
    fn.arg_types = {element};
    fn.result_type = LogicalType::List(element);
    fn.make_state = MakeCollect;
  }
  return fn;
}

bool IsAggregateFunction(std::string_view name) {
  std::string lower = internal::ToLower(name);
  return lower == "count" || lower == "count_star" || lower == "sum" || lower == "avg" ||
         lower == "min" || lower == "max" || lower == "collect";
}

}  // namespace graphdb::function
