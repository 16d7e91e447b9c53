// Arithmetic operators (+ - * / % ^ negate), bitwise operators, date/interval arithmetic and
// the numeric math functions (abs, ceil, floor, round, sqrt, trigonometry, logs, ...).
#include <cmath>
#include <numeric>

#include "function/cast.h"
#include "function/function_internal.h"
#include "types/temporal.h"

namespace graphdb::function::internal {

namespace {

constexpr Id kIntegerIds[] = {Id::kInt64,  Id::kInt32,  Id::kInt16, Id::kInt8,  Id::kUInt64,
                              Id::kUInt32, Id::kUInt16, Id::kUInt8, Id::kInt128};
constexpr Id kNumericIds[] = {Id::kInt64,  Id::kInt32,  Id::kInt16,  Id::kInt8,
                              Id::kUInt64, Id::kUInt32, Id::kUInt16, Id::kUInt8,
                              Id::kInt128, Id::kDouble, Id::kFloat};

std::string Text(int128_t v) { return Int128Text(v); }

[[noreturn]] void RangeError(int128_t a, const char* op, int128_t b, Id id) {
  ThrowOverflow("Value " + Text(a) + " " + op + " " + Text(b) + " is not within " +
                LogicalTypeIdName(id) + " range.");
}

// ---- Integer operations with Kùzu's overflow checks.

Value IntAdd(Id id, int128_t a, int128_t b) {
  int128_t r;
  if (id == Id::kInt128) {
    if (__builtin_add_overflow(a, b, &r)) ThrowOverflow("INT128 is out of range: cannot add.");
    return Value::Int128(r);
  }
  r = a + b;
  if (!FitsIn(id, r)) RangeError(a, "+", b, id);
  return MakeInteger(id, r);
}

Value IntSub(Id id, int128_t a, int128_t b) {
  int128_t r;
  if (id == Id::kInt128) {
    if (__builtin_sub_overflow(a, b, &r)) ThrowOverflow("INT128 is out of range: cannot subtract.");
    return Value::Int128(r);
  }
  r = a - b;
  if (!FitsIn(id, r)) RangeError(a, "-", b, id);
  return MakeInteger(id, r);
}

Value IntMul(Id id, int128_t a, int128_t b) {
  int128_t r;
  bool overflow = __builtin_mul_overflow(a, b, &r);
  if (id == Id::kInt128) {
    if (overflow) ThrowOverflow("INT128 is out of range: cannot multiply.");
    return Value::Int128(r);
  }
  if (overflow || !FitsIn(id, r)) RangeError(a, "*", b, id);
  return MakeInteger(id, r);
}

constexpr int128_t kInt128Min = static_cast<int128_t>(static_cast<unsigned __int128>(1) << 127);

Value IntDiv(Id id, int128_t a, int128_t b) {
  if (b == 0) ThrowRuntime("Divide by zero.");
  if (id == Id::kInt128) {
    if (a == kInt128Min && b == -1) ThrowOverflow("INT128 is out of range: cannot divide.");
    return Value::Int128(a / b);
  }
  int128_t r = a / b;
  if (!FitsIn(id, r)) RangeError(a, "/", b, id);
  return MakeInteger(id, r);
}

Value IntMod(Id id, int128_t a, int128_t b) {
  if (b == 0) ThrowRuntime("Modulo by zero.");
  if (id == Id::kInt128) {
    if (a == kInt128Min && b == -1) return Value::Int128(0);
    return Value::Int128(a % b);
  }
  if (IsSignedIntId(id) && a == IntMin(id) && b == -1) RangeError(a, "%", b, id);
  return MakeInteger(id, a % b);
}

// ---- Numeric operator execs: the argument types equal the result type.

enum class Op { kAdd, kSub, kMul, kDiv, kMod };

template <Op op>
Value NumericBinary(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  Id id = result.id();
  if (id == Id::kFloat) {
    float a = args[0].GetFloat(), b = args[1].GetFloat();
    switch (op) {
      case Op::kAdd: return Value::Float(a + b);
      case Op::kSub: return Value::Float(a - b);
      case Op::kMul: return Value::Float(a * b);
      case Op::kDiv: return Value::Float(a / b);
      case Op::kMod: return Value::Float(std::fmod(a, b));
    }
  }
  if (id == Id::kDouble) {
    double a = args[0].GetDouble(), b = args[1].GetDouble();
    switch (op) {
      case Op::kAdd: return Value::Double(a + b);
      case Op::kSub: return Value::Double(a - b);
      case Op::kMul: return Value::Double(a * b);
      case Op::kDiv: return Value::Double(a / b);
      case Op::kMod: return Value::Double(std::fmod(a, b));
    }
  }
  int128_t a = GetInteger(args[0]), b = GetInteger(args[1]);
  switch (op) {
    case Op::kAdd: return IntAdd(id, a, b);
    case Op::kSub: return IntSub(id, a, b);
    case Op::kMul: return IntMul(id, a, b);
    case Op::kDiv: return IntDiv(id, a, b);
    case Op::kMod: return IntMod(id, a, b);
  }
  return Value::Null(result);
}

Value NegateExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  Id id = result.id();
  const Value& v = args[0];
  if (id == Id::kInterval) {
    Interval i = v.GetInterval();
    return CheckedInterval(-int128_t{i.months}, -int128_t{i.days}, -int128_t{i.micros});
  }
  if (IsFloatingId(id)) return MakeFloating(id, -v.GetDouble());
  int128_t a = GetInteger(v);
  if (IsUnsignedIntId(id)) {
    int128_t modulus = IntMax(id) + 1;
    return MakeInteger(id, a == 0 ? 0 : modulus - a);
  }
  if ((id == Id::kInt128 && a == kInt128Min) || (id != Id::kInt128 && a == IntMin(id))) {
    ThrowOverflow("Value " + Text(a) + " cannot be negated within " + LogicalTypeIdName(id) +
                  " range.");
  }
  return MakeInteger(id, -a);
}

Value AbsExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  Id id = result.id();
  const Value& v = args[0];
  if (IsFloatingId(id)) return MakeFloating(id, std::fabs(v.GetDouble()));
  int128_t a = GetInteger(v);
  if (a >= 0) return v;
  if ((id == Id::kInt128 && a == kInt128Min) || (id != Id::kInt128 && a == IntMin(id))) {
    ThrowOverflow("Cannot take the absolute value of " + Text(a) + " within " +
                  LogicalTypeIdName(id) + " range.");
  }
  return MakeInteger(id, -a);
}

Value PowerExec(const Value* args, size_t, const LogicalType&, FunctionContext&) {
  return Value::Double(std::pow(args[0].GetDouble(), args[1].GetDouble()));
}

// ---- Bitwise (INT64).

Value BitAnd(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(a[0].GetInt() & a[1].GetInt());
}
Value BitOr(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(a[0].GetInt() | a[1].GetInt());
}
Value BitXor(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(a[0].GetInt() ^ a[1].GetInt());
}
Value BitNot(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(~a[0].GetInt());
}
Value ShiftLeft(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int64_t s = a[1].GetInt();
  if (s < 0 || s >= 64) return Value::Int64(0);
  return Value::Int64(static_cast<int64_t>(static_cast<uint64_t>(a[0].GetInt()) << s));
}
Value ShiftRight(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int64_t s = a[1].GetInt();
  int64_t v = a[0].GetInt();
  if (s < 0) return Value::Int64(0);
  if (s >= 64) return Value::Int64(v < 0 ? -1 : 0);
  return Value::Int64(v >> s);
}

// ---- String and list concatenation with "+".

Value StringConcat(const Value* a, size_t, const LogicalType&, FunctionContext& ctx) {
  const std::string_view x = a[0].GetString(), y = a[1].GetString();
  ChargeBuilt(ctx, StringBytes(x.size() + y.size()));
  std::string s;
  s.reserve(x.size() + y.size());
  s.append(x);
  s.append(y);
  return Value::String(s);
}

Value ListConcatExec(const Value* a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const auto& left = a[0].children();
  const auto& right = a[1].children();
  ChargeBuilt(ctx, ListBytes(left.size() + right.size()));
  std::vector<Value> out;
  out.reserve(left.size() + right.size());
  out.insert(out.end(), left.begin(), left.end());
  out.insert(out.end(), right.begin(), right.end());
  return Value::Nested(result, std::move(out));
}

bool BindListPlus(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  auto common = CommonType(in.arg_types[0], in.arg_types[1]);
  LogicalType result;
  if (common && IsListLike(common->id())) {
    result = LogicalType::List(common->child());
  } else if (in.arg_types[0].id() == Id::kAny || in.arg_types[1].id() == Id::kAny) {
    result = in.arg_types[0].id() == Id::kAny ? in.arg_types[1] : in.arg_types[0];
    if (result.id() == Id::kAny) result = LogicalType::List(LogicalType::Any());
    result = LogicalType::List(ElementType(result));
  } else {
    *error = "Binder exception: Cannot concatenate lists of types " + in.arg_types[0].ToString() +
             " and " + in.arg_types[1].ToString() + ".";
    return false;
  }
  fn->arg_types = {result, result};
  fn->result_type = result;
  return true;
}

// ---- Temporal arithmetic.

Value DateAddInt(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  const Value& d = a[0].type_id() == Id::kDate ? a[0] : a[1];
  const Value& n = a[0].type_id() == Id::kDate ? a[1] : a[0];
  return CheckedDate(int128_t{d.GetInt()} + n.GetInt());
}
Value DateSubInt(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return CheckedDate(int128_t{a[0].GetInt()} - a[1].GetInt());
}
Value DateSubDate(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(a[0].GetInt() - a[1].GetInt());
}

// -i; only INT32_MIN months or days (and INT64_MIN microseconds) have no negation.
Interval Negated(const Interval& i) {
  if (i.months == INT32_MIN || i.days == INT32_MIN || i.micros == INT64_MIN) {
    ThrowOverflow("the negation of the INTERVAL is out of range.");
  }
  return {-i.months, -i.days, -i.micros};
}

Value DateWithInterval(const Value& date, const Interval& interval) {
  int128_t micros = AddIntervalToMicros(date.GetInt() * temporal::kMicrosPerDay, interval);
  return CheckedDate(temporal::FloorDiv128(micros, temporal::kMicrosPerDay));
}
Value DateAddInterval(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  const Value& d = a[0].type_id() == Id::kDate ? a[0] : a[1];
  const Value& iv = a[0].type_id() == Id::kDate ? a[1] : a[0];
  return DateWithInterval(d, iv.GetInterval());
}
Value DateSubInterval(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return DateWithInterval(a[0], Negated(a[1].GetInterval()));
}
Value TimestampAddInterval(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  const Value& t = a[0].type_id() == Id::kInterval ? a[1] : a[0];
  const Value& iv = a[0].type_id() == Id::kInterval ? a[0] : a[1];
  return CheckedTimestamp(Id::kTimestamp, AddIntervalToMicros(t.GetInt(), iv.GetInterval()));
}
Value TimestampSubInterval(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return CheckedTimestamp(Id::kTimestamp,
                          AddIntervalToMicros(a[0].GetInt(), Negated(a[1].GetInterval())));
}
Value TimestampSubTimestamp(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  // At most twice the range apart: 2^64 microseconds are some 213 million days.
  int128_t diff = int128_t{a[0].GetInt()} - a[1].GetInt();
  return CheckedInterval(0, diff / temporal::kMicrosPerDay, diff % temporal::kMicrosPerDay);
}
Value IntervalAdd(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  Interval x = a[0].GetInterval(), y = a[1].GetInterval();
  return CheckedInterval(int128_t{x.months} + y.months, int128_t{x.days} + y.days,
                         int128_t{x.micros} + y.micros);
}
Value IntervalSub(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  Interval x = a[0].GetInterval(), y = a[1].GetInterval();
  return CheckedInterval(int128_t{x.months} - y.months, int128_t{x.days} - y.days,
                         int128_t{x.micros} - y.micros);
}
Value IntervalDiv(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  Interval x = a[0].GetInterval();
  int128_t n = a[1].GetInt();
  if (n == 0) ThrowRuntime("Divide by zero.");
  // A remainder of months carries over as 30-day months, one of days as microseconds.
  int128_t days = x.days + int128_t{x.months % n} * 30;
  int128_t micros = (x.micros + days % n * temporal::kMicrosPerDay) / n;
  return CheckedInterval(x.months / n, days / n, micros);
}
Value IntervalMul(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  const Value& iv = a[0].type_id() == Id::kInterval ? a[0] : a[1];
  const Value& n = a[0].type_id() == Id::kInterval ? a[1] : a[0];
  Interval x = iv.GetInterval();
  int128_t k = n.GetInt();
  return CheckedInterval(x.months * k, x.days * k, x.micros * k);
}

// ---- Math functions.

template <double (*F)(double)>
Value UnaryDouble(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Double(F(a[0].GetDouble()));
}

double Cot(double x) { return 1.0 / std::tan(x); }
double Degrees(double x) { return x * 180.0 / M_PI; }
double Radians(double x) { return x * M_PI / 180.0; }
double Ln(double x) { return std::log(x); }
double Even(double x) {
  double v = x >= 0 ? std::ceil(x) : std::floor(x);
  if (std::fmod(v, 2.0) != 0) v += x >= 0 ? 1 : -1;
  return v;
}
double Sqrt(double x) { return std::sqrt(x); }
double Cbrt(double x) { return std::cbrt(x); }
double Sin(double x) { return std::sin(x); }
double Cos(double x) { return std::cos(x); }
double Tan(double x) { return std::tan(x); }
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Atan(double x) { return std::atan(x); }
double Exp(double x) { return std::exp(x); }
double Log10(double x) { return std::log10(x); }
double Log2(double x) { return std::log2(x); }
double Gamma(double x) { return std::tgamma(x); }
double LGamma(double x) { return std::lgamma(x); }

Value Atan2Exec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Double(std::atan2(a[0].GetDouble(), a[1].GetDouble()));
}

Value PiExec(const Value*, size_t, const LogicalType&, FunctionContext&) {
  return Value::Double(M_PI);
}

template <double (*F)(double)>
Value RoundingExec(const Value* a, size_t, const LogicalType& result, FunctionContext&) {
  if (IsIntegralId(result.id())) return a[0];
  return MakeFloating(result.id(), F(a[0].GetDouble()));
}
double Ceil(double x) { return std::ceil(x); }
double Floor(double x) { return std::floor(x); }

Value RoundExec(const Value* a, size_t n, const LogicalType&, FunctionContext&) {
  double x = a[0].GetDouble();
  int64_t digits = n > 1 ? a[1].GetInt() : 0;
  if (digits == 0) return Value::Double(std::round(x));
  double scale = std::pow(10.0, static_cast<double>(digits));
  double r = std::round(x * scale) / scale;
  if (!std::isfinite(r)) return Value::Double(x);
  return Value::Double(r);
}

Value SignExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  const Value& v = a[0];
  if (IsFloatingId(v.type_id())) {
    double d = v.GetDouble();
    return Value::Int64(d > 0 ? 1 : (d < 0 ? -1 : 0));
  }
  int128_t x = GetInteger(v);
  return Value::Int64(x > 0 ? 1 : (x < 0 ? -1 : 0));
}

Value FactorialExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int64_t n = a[0].GetInt();
  int64_t r = 1;
  for (int64_t i = 2; i <= n; ++i) {
    if (__builtin_mul_overflow(r, i, &r)) {
      ThrowOverflow("Value " + std::to_string(n) + "! is not within INT64 range.");
    }
  }
  return Value::Int64(r);
}

Value GcdExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int128_t x = a[0].GetInt(), y = a[1].GetInt();
  if (x < 0) x = -x;
  if (y < 0) y = -y;
  while (y != 0) {
    int128_t t = x % y;
    x = y;
    y = t;
  }
  if (x > INT64_MAX) ThrowOverflow("Value " + Text(x) + " is not within INT64 range.");
  return Value::Int64(static_cast<int64_t>(x));
}

Value LcmExec(const Value* a, size_t, const LogicalType&, FunctionContext&) {
  int128_t x = a[0].GetInt(), y = a[1].GetInt();
  if (x == 0 || y == 0) return Value::Int64(0);
  if (x < 0) x = -x;
  if (y < 0) y = -y;
  int128_t g = x, h = y;
  while (h != 0) {
    int128_t t = g % h;
    g = h;
    h = t;
  }
  int128_t r = x / g * y;
  if (r > INT64_MAX) ThrowOverflow("Value " + Text(r) + " is not within INT64 range.");
  return Value::Int64(static_cast<int64_t>(r));
}

void AddNumericOperator(RegistryBuilder& r, const std::string& name, ScalarExec exec) {
  for (Id id : kNumericIds) r.Add(name, {id, id}, id, exec);
}

}  // namespace

void RegisterArithmeticFunctions(RegistryBuilder& r) {
  // "+"
  AddNumericOperator(r, "+", NumericBinary<Op::kAdd>);
  r.Add("+", {Id::kString, Id::kString}, Id::kString, StringConcat);
  r.Add("+", {Id::kList, Id::kList}, Id::kList, ListConcatExec).bind = BindListPlus;
  r.Add("+", {Id::kDate, Id::kInt64}, Id::kDate, DateAddInt);
  r.Add("+", {Id::kInt64, Id::kDate}, Id::kDate, DateAddInt);
  r.Add("+", {Id::kDate, Id::kInterval}, Id::kDate, DateAddInterval);
  r.Add("+", {Id::kInterval, Id::kDate}, Id::kDate, DateAddInterval);
  r.Add("+", {Id::kTimestamp, Id::kInterval}, Id::kTimestamp, TimestampAddInterval);
  r.Add("+", {Id::kInterval, Id::kTimestamp}, Id::kTimestamp, TimestampAddInterval);
  r.Add("+", {Id::kInterval, Id::kInterval}, Id::kInterval, IntervalAdd);
  // "-"
  AddNumericOperator(r, "-", NumericBinary<Op::kSub>);
  r.Add("-", {Id::kDate, Id::kDate}, Id::kInt64, DateSubDate);
  r.Add("-", {Id::kDate, Id::kInt64}, Id::kDate, DateSubInt);
  r.Add("-", {Id::kDate, Id::kInterval}, Id::kDate, DateSubInterval);
  r.Add("-", {Id::kTimestamp, Id::kTimestamp}, Id::kInterval, TimestampSubTimestamp);
  r.Add("-", {Id::kTimestamp, Id::kInterval}, Id::kTimestamp, TimestampSubInterval);
  r.Add("-", {Id::kInterval, Id::kInterval}, Id::kInterval, IntervalSub);
  // "*", "/", "%"
  AddNumericOperator(r, "*", NumericBinary<Op::kMul>);
  r.Add("*", {Id::kInterval, Id::kInt64}, Id::kInterval, IntervalMul);
  r.Add("*", {Id::kInt64, Id::kInterval}, Id::kInterval, IntervalMul);
  AddNumericOperator(r, "/", NumericBinary<Op::kDiv>);
  r.Add("/", {Id::kInterval, Id::kInt64}, Id::kInterval, IntervalDiv);
  AddNumericOperator(r, "%", NumericBinary<Op::kMod>);
  r.Alias("mod", "%");
  // "^", pow, power
  r.Add("^", {Id::kDouble, Id::kDouble}, Id::kDouble, PowerExec);
  r.Alias("pow", "^");
  r.Alias("power", "^");
  // negate, abs
  for (Id id : kNumericIds) r.Add("negate", {id}, id, NegateExec);
  r.Add("negate", {Id::kInterval}, Id::kInterval, NegateExec);
  for (Id id : kNumericIds) r.Add("abs", {id}, id, AbsExec);
  // Bitwise operators.
  r.Add("&", {Id::kInt64, Id::kInt64}, Id::kInt64, BitAnd);
  r.Alias("bitwise_and", "&");
  r.Add("|", {Id::kInt64, Id::kInt64}, Id::kInt64, BitOr);
  r.Alias("bitwise_or", "|");
  r.Add("bitwise_xor", {Id::kInt64, Id::kInt64}, Id::kInt64, BitXor);
  r.Add("~", {Id::kInt64}, Id::kInt64, BitNot);
  r.Alias("bitwise_not", "~");
  r.Add("<<", {Id::kInt64, Id::kInt64}, Id::kInt64, ShiftLeft);
  r.Alias("bitshift_left", "<<");
  r.Add(">>", {Id::kInt64, Id::kInt64}, Id::kInt64, ShiftRight);
  r.Alias("bitshift_right", ">>");
  // Rounding.
  for (Id id : kIntegerIds) r.Add("ceil", {id}, id, RoundingExec<Ceil>);
  r.Add("ceil", {Id::kDouble}, Id::kDouble, RoundingExec<Ceil>);
  r.Add("ceil", {Id::kFloat}, Id::kFloat, RoundingExec<Ceil>);
  r.Alias("ceiling", "ceil");
  for (Id id : kIntegerIds) r.Add("floor", {id}, id, RoundingExec<Floor>);
  r.Add("floor", {Id::kDouble}, Id::kDouble, RoundingExec<Floor>);
  r.Add("floor", {Id::kFloat}, Id::kFloat, RoundingExec<Floor>);
  r.Add("round", {Id::kDouble}, Id::kDouble, RoundExec);
  r.Add("round", {Id::kDouble, Id::kInt64}, Id::kDouble, RoundExec);
  // Unary DOUBLE functions.
  struct Unary {
    const char* name;
    ScalarExec exec;
  };
  const Unary unary[] = {
      {"sqrt", UnaryDouble<Sqrt>},       {"cbrt", UnaryDouble<Cbrt>},
      {"sin", UnaryDouble<Sin>},         {"cos", UnaryDouble<Cos>},
      {"tan", UnaryDouble<Tan>},         {"cot", UnaryDouble<Cot>},
      {"asin", UnaryDouble<Asin>},       {"acos", UnaryDouble<Acos>},
      {"atan", UnaryDouble<Atan>},       {"exp", UnaryDouble<Exp>},
      {"ln", UnaryDouble<Ln>},           {"log", UnaryDouble<Log10>},
      {"log10", UnaryDouble<Log10>},     {"log2", UnaryDouble<Log2>},
      {"degrees", UnaryDouble<Degrees>}, {"radians", UnaryDouble<Radians>},
      {"gamma", UnaryDouble<Gamma>},     {"lgamma", UnaryDouble<LGamma>},
      {"even", UnaryDouble<Even>},
  };
  for (const auto& u : unary) r.Add(u.name, {Id::kDouble}, Id::kDouble, u.exec);
  r.Add("atan2", {Id::kDouble, Id::kDouble}, Id::kDouble, Atan2Exec);
  r.Add("pi", {}, Id::kDouble, PiExec);
  for (Id id : kNumericIds) r.Add("sign", {id}, Id::kInt64, SignExec);
  r.Add("factorial", {Id::kInt64}, Id::kInt64, FactorialExec);
  r.Add("gcd", {Id::kInt64, Id::kInt64}, Id::kInt64, GcdExec);
  r.Alias("greatest_common_divisor", "gcd");
  r.Add("lcm", {Id::kInt64, Id::kInt64}, Id::kInt64, LcmExec);
  r.Alias("least_common_multiple", "lcm");
}

}  // namespace graphdb::function::internal
