// DECIMAL(precision, scale): a fixed-point number held as an INT128 `unscaled` standing for
// unscaled / 10^scale, with |unscaled| < 10^precision. Casts to and from it, its arithmetic
// (+, -, *, %, negate, abs, floor, ceil, round, sign) and its comparison.
//
// Rounding is half away from zero everywhere a value loses digits (a cast to a smaller scale,
// DECIMAL to an integer). Result types follow what Kùzu prints:
//   a + b, a - b   DECIMAL(min(38, max(p) + 1), min(that, max(s) + 1))
//   a * b          DECIMAL(min(38, pa + pb), sa + sb)
//   a % b          DECIMAL(max(p), max(s))
//   a / b          DOUBLE (through the implicit cast to DOUBLE)
// and an integer operand takes the DECIMAL operand's type; a FLOAT or DOUBLE operand makes the
// operation a DOUBLE one. A result outside its precision fails with an Overflow exception.
#include "types/decimal.h"

#include <cmath>
#include <string>

#include "function/function_internal.h"

namespace graphdb::function::internal {

namespace {

[[noreturn]] void CastOutOfRange(const std::string& input, const LogicalType& target) {
  ThrowOverflow("Decimal Cast Failed: input " + input + " is not in range of " + target.ToString());
}

Value MakeDecimal(int128_t unscaled, const LogicalType& type) {
  return Value::Decimal(unscaled, type.precision(), type.scale());
}

// `v` (a DECIMAL) as an unscaled number at `scale`; false on overflow.
bool Rescale(const Value& v, uint32_t scale, int128_t* out) {
  return DecimalRescale(v.GetInt128(), v.decimal_scale(), scale, out);
}

}  // namespace

Value ParseDecimal(std::string_view text, const LogicalType& target) {
  int128_t unscaled = 0;
  switch (ParseDecimalText(text, target.precision(), target.scale(), &unscaled)) {
    case DecimalParse::kOk: return MakeDecimal(unscaled, target);
    case DecimalParse::kOutOfRange:
      ThrowConversion("Cast failed. " + std::string(text) + " is not in " + target.ToString() +
                      " range.");
    case DecimalParse::kSyntax: break;
  }
  ThrowConversion("Cast failed. Could not convert \"" + std::string(text) + "\" to " +
                  target.ToString() + ".");
}

Value CastToDecimal(const Value& v, const LogicalType& target) {
  Id from = v.type_id();
  const uint32_t scale = target.scale();
  int128_t unscaled = 0;
  if (from == Id::kDecimal) {
    if (!Rescale(v, scale, &unscaled) || !DecimalFits(unscaled, target.precision())) {
      CastOutOfRange(v.ToString(), target);
    }
    return MakeDecimal(unscaled, target);
  }
  if (from == Id::kString) return ParseDecimal(v.GetString(), target);
  if (IsIntegralId(from) || from == Id::kBool) {
    int128_t x = GetInteger(v);
    if (!DecimalMultiplyPow10(x, scale, &unscaled) || !DecimalFits(unscaled, target.precision())) {
      CastOutOfRange(Int128Text(x), target);
    }
    return MakeDecimal(unscaled, target);
  }
  if (IsFloatingId(from)) {
    long double scaled = static_cast<long double>(v.GetDouble());
    for (uint32_t i = 0; i < scale; ++i) scaled *= 10;
    scaled = std::round(scaled);
    long double bound = 1;
    for (uint32_t i = 0; i < target.precision(); ++i) bound *= 10;
    if (!std::isfinite(scaled) || scaled >= bound || scaled <= -bound) {
      CastOutOfRange(v.ToString(), target);
    }
    return MakeDecimal(static_cast<int128_t>(scaled), target);
  }
  ThrowConversion("Unsupported casting function from " + v.type().ToString() + " to " +
                  target.ToString() + ".");
}

Value CastFromDecimal(const Value& v, const LogicalType& target) {
  Id to = target.id();
  if (IsFloatingId(to)) return MakeFloating(to, DecimalToDouble(v));
  Id range_id = to == Id::kSerial ? Id::kInt64 : to;
  if (IsIntegralId(range_id)) {
    int128_t x = DecimalDivideRounded(v.GetInt128(), v.decimal_scale());
    if (!FitsIn(range_id, x)) {
      ThrowOverflow("Value " + v.ToString() + " is not within " + LogicalTypeIdName(range_id) +
                    " range");
    }
    return MakeInteger(to, x);
  }
  if (to == Id::kBool) return Value::Boolean(v.GetInt128() != 0);
  ThrowConversion("Unsupported casting function from " + v.type().ToString() + " to " +
                  target.ToString() + ".");
}

double DecimalToDouble(const Value& v) {
  long double x = static_cast<long double>(v.GetInt128());
  for (uint32_t i = 0; i < v.decimal_scale(); ++i) x /= 10;
  return static_cast<double>(x);
}

int CompareDecimalWith(const Value& a, const Value& b) {
  // Exact: both at the larger scale; a side that overflows there is the larger in magnitude.
  uint32_t sa = a.type_id() == Id::kDecimal ? a.decimal_scale() : 0;
  uint32_t sb = b.type_id() == Id::kDecimal ? b.decimal_scale() : 0;
  int128_t x = a.type_id() == Id::kDecimal ? a.GetInt128() : GetInteger(a);
  int128_t y = b.type_id() == Id::kDecimal ? b.GetInt128() : GetInteger(b);
  uint32_t scale = std::max(sa, sb);
  int128_t xs = 0, ys = 0;
  bool ox = !DecimalMultiplyPow10(x, scale - sa, &xs);
  bool oy = !DecimalMultiplyPow10(y, scale - sb, &ys);
  if (ox) return x < 0 ? -1 : 1;
  if (oy) return y < 0 ? 1 : -1;
  return xs < ys ? -1 : (ys < xs ? 1 : 0);
}

std::optional<LogicalType> CommonDecimal(const LogicalType& a, const LogicalType& b) {
  Id x = a.id(), y = b.id();
  if (x == Id::kDecimal && y == Id::kDecimal) {
    uint32_t scale = std::max(a.scale(), b.scale());
    uint32_t whole = std::max(a.precision() - a.scale(), b.precision() - b.scale());
    uint32_t precision = std::min(kMaxDecimalPrecision, whole + scale);
    return LogicalType::Decimal(precision, std::min(scale, precision));
  }
  if (x == Id::kDecimal && (IsIntegralId(y) || y == Id::kSerial)) return a;
  if (y == Id::kDecimal && (IsIntegralId(x) || x == Id::kSerial)) return b;
  if (IsFloatingId(x) || IsFloatingId(y)) return LogicalType::Double();
  return std::nullopt;
}

namespace {

// The DECIMAL type each operand takes: its own, or (an integer) the other operand's.
bool OperandTypes(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  const auto& types = input.arg_types;
  const LogicalType* decimal = nullptr;
  for (const auto& t : types) {
    if (t.id() == Id::kDecimal) decimal = &t;
  }
  if (!decimal) {
    *error = "Binder exception: a DECIMAL operation needs a DECIMAL operand";
    return false;
  }
  fn->arg_types.clear();
  for (const auto& t : types) fn->arg_types.push_back(t.id() == Id::kDecimal ? t : *decimal);
  return true;
}

bool BindAddSub(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  if (!OperandTypes(input, fn, error)) return false;
  const LogicalType& a = fn->arg_types[0];
  const LogicalType& b = fn->arg_types[1];
  uint32_t precision = std::min(kMaxDecimalPrecision, std::max(a.precision(), b.precision()) + 1);
  uint32_t scale = std::min(precision, std::max(a.scale(), b.scale()) + 1);
  fn->result_type = LogicalType::Decimal(precision, scale);
  return true;
}

bool BindMultiply(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  if (!OperandTypes(input, fn, error)) return false;
  const LogicalType& a = fn->arg_types[0];
  const LogicalType& b = fn->arg_types[1];
  uint32_t scale = a.scale() + b.scale();
  if (scale > kMaxDecimalPrecision) {
    *error = "Binder exception: the product of " + a.ToString() + " and " + b.ToString() +
             " would need a scale above 38";
    return false;
  }
  uint32_t precision = std::min(kMaxDecimalPrecision, a.precision() + b.precision());
  fn->result_type = LogicalType::Decimal(precision, scale);
  return true;
}

bool BindModulo(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  if (!OperandTypes(input, fn, error)) return false;
  const LogicalType& a = fn->arg_types[0];
  const LogicalType& b = fn->arg_types[1];
  fn->result_type =
      LogicalType::Decimal(std::max(a.precision(), b.precision()), std::max(a.scale(), b.scale()));
  return true;
}

// One DECIMAL argument, result of the same type.
bool BindSame(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  if (!OperandTypes(input, fn, error)) return false;
  fn->result_type = fn->arg_types[0];
  return true;
}

// floor / ceil / round to an integer: no digits after the point.
bool BindWhole(const ScalarBindInput& input, BoundScalarFunction* fn, std::string* error) {
  if (!OperandTypes(input, fn, error)) return false;
  fn->result_type = LogicalType::Decimal(fn->arg_types[0].precision(), 0);
  return true;
}

Value AddSub(const Value* args, const LogicalType& result, bool subtract) {
  int128_t x = 0, y = 0, r = 0;
  bool ok = Rescale(args[0], result.scale(), &x) && Rescale(args[1], result.scale(), &y);
  ok = ok && !(subtract ? __builtin_sub_overflow(x, y, &r) : __builtin_add_overflow(x, y, &r));
  if (!ok || !DecimalFits(r, result.precision())) {
    ThrowOverflow(std::string("Decimal ") + (subtract ? "Subtraction" : "Addition") +
                  " result is out of range");
  }
  return MakeDecimal(r, result);
}

Value AddExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  return AddSub(args, result, false);
}

Value SubExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  return AddSub(args, result, true);
}

Value MulExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  int128_t r = 0;
  if (__builtin_mul_overflow(args[0].GetInt128(), args[1].GetInt128(), &r) ||
      !DecimalFits(r, result.precision())) {
    ThrowOverflow("Decimal Multiplication result is out of range");
  }
  return MakeDecimal(r, result);
}

Value ModExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  int128_t x = 0, y = 0;
  if (!Rescale(args[0], result.scale(), &x) || !Rescale(args[1], result.scale(), &y)) {
    ThrowOverflow("Decimal Modulo result is out of range");
  }
  if (y == 0) ThrowRuntime("Modulo by zero.");
  return MakeDecimal(x % y, result);  // the sign of the dividend, as for integers
}

Value NegateExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  return MakeDecimal(-args[0].GetInt128(), result);
}

Value AbsExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  int128_t x = args[0].GetInt128();
  return MakeDecimal(x < 0 ? -x : x, result);
}

// Rounds to a whole number: mode -1 floor, 1 ceil, 0 half away from zero.
template <int kMode>
Value WholeExec(const Value* args, size_t, const LogicalType& result, FunctionContext&) {
  uint32_t scale = args[0].decimal_scale();
  int128_t x = args[0].GetInt128();
  int128_t d = DecimalPow10(scale);
  int128_t q = x / d;
  int128_t r = x % d;
  if (kMode == 0) {
    q = DecimalDivideRounded(x, scale);
  } else if (kMode < 0 && r < 0) {
    --q;
  } else if (kMode > 0 && r > 0) {
    ++q;
  }
  return MakeDecimal(q, result);
}

Value SignExec(const Value* args, size_t, const LogicalType&, FunctionContext&) {
  int128_t x = args[0].GetInt128();
  return Value::Int64(x > 0 ? 1 : (x < 0 ? -1 : 0));
}

}  // namespace

void RegisterDecimalFunctions(RegistryBuilder& r) {
  const Id d = Id::kDecimal;
  r.Add("+", {d, d}, d, AddExec).bind = BindAddSub;
  r.Add("-", {d, d}, d, SubExec).bind = BindAddSub;
  r.Add("*", {d, d}, d, MulExec).bind = BindMultiply;
  r.Add("%", {d, d}, d, ModExec).bind = BindModulo;
  r.Add("negate", {d}, d, NegateExec).bind = BindSame;
  r.Add("abs", {d}, d, AbsExec).bind = BindSame;
  r.Add("floor", {d}, d, WholeExec<-1>).bind = BindWhole;
  r.Add("ceil", {d}, d, WholeExec<1>).bind = BindWhole;
  r.Add("round", {d}, d, WholeExec<0>).bind = BindWhole;
  r.Add("sign", {d}, Id::kInt64, SignExec);
}

}  // namespace graphdb::function::internal
