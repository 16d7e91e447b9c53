#include "function/aggregate_function.h"

#include <cmath>
#include <unordered_set>

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

class DistinctState final : public AggregateState {
 public:
  explicit DistinctState(std::unique_ptr<AggregateState> inner) : inner_(std::move(inner)) {}
  void Update(const Value& v) override {
    if (v.is_null()) return;
    if (!seen_.insert(v).second) return;
    order_.push_back(v);
    // Held twice (the set and the arrival order), plus a hash node.
    own_bytes_ += 2 * ApproxBytes(v) + kSeenEntryBytes;
    inner_->Update(v);
  }
  size_t HeldBytes() const override { return own_bytes_ + inner_->HeldBytes(); }
  void Combine(const AggregateState& other) override {
    const auto& o = static_cast<const DistinctState&>(other);
    for (const auto& v : o.order_) Update(v);
  }
  Value Finalize() const override { return inner_->Finalize(); }
  void UpdateRepeated(const Value& v, uint64_t n) override {
    if (n > 0) Update(v);
  }

 private:
  std::unique_ptr<AggregateState> inner_;
  static constexpr size_t kSeenEntryBytes = 32;
  std::unordered_set<Value, ValueHash, ValueEq> seen_;
  std::vector<Value> order_;  // the distinct values in arrival order, for Combine
  size_t own_bytes_ = 0;      // what seen_ and order_ hold
};

// ---- Factories

std::unique_ptr<AggregateState> Wrap(const BoundAggregateFunction& fn,
                                     std::unique_ptr<AggregateState> inner) {
  if (!fn.distinct) return inner;
  return std::make_unique<DistinctState>(std::move(inner));
}

std::unique_ptr<AggregateState> MakeCountStar(const BoundAggregateFunction&) {
  return std::make_unique<CountStarState>();
}
std::unique_ptr<AggregateState> MakeCount(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<CountState>());
}
std::unique_ptr<AggregateState> MakeSum(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<SumState>(fn.result_type));
}
std::unique_ptr<AggregateState> MakeAvg(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<AvgState>(fn.arg_types[0].id()));
}
std::unique_ptr<AggregateState> MakeMin(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<MinMaxState<false>>(fn.result_type));
}
std::unique_ptr<AggregateState> MakeMax(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<MinMaxState<true>>(fn.result_type));
}
std::unique_ptr<AggregateState> MakeCollect(const BoundAggregateFunction& fn) {
  return Wrap(fn, std::make_unique<CollectState>(fn.result_type));
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
