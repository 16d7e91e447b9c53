// Internal helpers shared by the function library's .cc files: numeric access to Values,
// error helpers with Kùzu's message prefixes, UTF-8 helpers, and the overload registry types.
// Not part of the library's API.
//
// Thread-safety: pure functions; the registry is built once and then only read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/interrupt.h"
#include "common/status.h"
#include "common/utf8.h"  // IsValidUtf8
#include "function/scalar_function.h"
#include "types/json.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::function::internal {

using Id = LogicalTypeId;

// ---- Errors: full Kùzu messages, code QUERY_RUNTIME.
[[noreturn]] void ThrowConversion(const std::string& message);  // "Conversion exception: "
[[noreturn]] void ThrowOverflow(const std::string& message);    // "Overflow exception: "
[[noreturn]] void ThrowRuntime(const std::string& message);     // "Runtime exception: "
[[noreturn]] void ThrowBinder(const std::string& message);      // kQueryBinding, "Binder ..."

// ---- Numeric helpers.
bool IsSignedIntId(Id id);    // INT8..INT64, SERIAL (not INT128)
bool IsUnsignedIntId(Id id);  // UINT8..UINT64
bool IsIntegralId(Id id);     // the above and INT128
bool IsFloatingId(Id id);     // FLOAT, DOUBLE
bool IsNumericId(Id id);      // integral, floating and DECIMAL
bool IsTimestampId(Id id);    // TIMESTAMP, _TZ, _NS, _MS, _SEC
// Range of an integral type other than INT128 (UINT64 max fits in int128).
int128_t IntMin(Id id);
int128_t IntMax(Id id);
bool FitsIn(Id id, int128_t v);  // always true for INT128
// Any integral Value (INT*, UINT*, SERIAL, INT128) as int128.
int128_t GetInteger(const Value& v);
// Any numeric Value as double.
double GetNumber(const Value& v);
// An integral Value of type `id` (no range check).
Value MakeInteger(Id id, int128_t v);
// A numeric Value of type `id` from a double (FLOAT rounds to float precision).
Value MakeFloating(Id id, double v);
std::string Int128Text(int128_t v);

// ---- DECIMAL (decimal.cc).
// Text -> DECIMAL(p, s), rounding half away from zero; Kùzu's conversion errors.
Value ParseDecimal(std::string_view text, const LogicalType& target);
// Any number, BOOL or STRING -> DECIMAL; DECIMAL -> a number or BOOL.
Value CastToDecimal(const Value& v, const LogicalType& target);
Value CastFromDecimal(const Value& v, const LogicalType& target);
double DecimalToDouble(const Value& v);
// Exact order of two values, each a DECIMAL or an integer (at least one a DECIMAL).
int CompareDecimalWith(const Value& a, const Value& b);
// The common type of a DECIMAL and another number (nullopt: none).
std::optional<LogicalType> CommonDecimal(const LogicalType& a, const LogicalType& b);

// ---- Temporal helpers.
// DATE or TIMESTAMP* value -> microseconds since the epoch.
int64_t InstantMicros(const Value& v);
int64_t FloorDiv(int64_t a, int64_t b);
// Adds calendar months to a day number, clamping the day to the target month's length.
int64_t AddMonthsToDate(int64_t days, int64_t months);
// DATE/TIMESTAMP (+/-) INTERVAL, in microseconds (dates count as midnight); exact, so the
// result may lie outside the TIMESTAMP range.
int128_t AddIntervalToMicros(int64_t micros, const Interval& interval);
// Results of temporal arithmetic: the value, or an "Overflow exception: ..." error naming the
// range when it lies outside (temporal.h: DATE and TIMESTAMP share one range).
Value CheckedDate(int128_t days);
Value CheckedTimestamp(Id type, int128_t micros);
Value CheckedInterval(int128_t months, int128_t days, int128_t micros);

// ---- UTF-8 helpers.
// Splits into code points (invalid bytes become one-byte pieces).
std::vector<std::string_view> SplitCodepoints(std::string_view s);
// Splits into (approximate) extended grapheme clusters: a base code point with its combining
// marks, variation selectors, emoji modifiers, ZWJ sequences and regional-indicator pairs.
std::vector<std::string_view> SplitGraphemes(std::string_view s);
// How many of them there are (without building the pieces).
size_t CountGraphemes(std::string_view s);
bool IsAscii(std::string_view s);
// Simple (one-to-one) Unicode case mappings of every code point (common/unicode.h); invalid
// bytes are kept as they are.
std::string Utf8Lower(std::string_view s);
std::string Utf8Upper(std::string_view s);
std::string Utf8Title(std::string_view s);

// ---- Values built (common/expression_memory.h).
// Charges `bytes` that a function is about to allocate for its result to the statement (its
// memory limit: RESOURCE_LIMIT before the allocation; every 64 KiB built, a poll of its cancel
// and deadline). Without an account (constant folding), checks the bytes against the limit of
// the thread's statement and polls it when they are many.
void ChargeBuilt(FunctionContext& ctx, uint64_t bytes);
// The same for `bytes` a function needs only while it runs (the code points of a long text):
// checked against the limit and given back at once.
void ChargeTransient(FunctionContext& ctx, uint64_t bytes);
// What a list of `n` new slots, and a string of `n` bytes, take (as the evaluator counts them).
inline uint64_t ListBytes(uint64_t n) {
  return sizeof(ValueHeap) + (n > UINT64_MAX / 64 ? UINT64_MAX / 2 : n * sizeof(Value));
}
inline uint64_t StringBytes(uint64_t n) {
  return n <= Value::kInlineStringBytes ? 0 : sizeof(ValueHeap) + n;
}
// For loops whose work is not in what they build (edit distances, searches, comparisons): call
// with a running count of steps; polls the statement's control every 4,096 of them.
inline void PollSteps(uint64_t& steps, uint64_t add = 1) {
  const uint64_t before = steps;
  steps += add;
  if ((before >> 12) != (steps >> 12)) [[unlikely]]
    CheckInterrupt();
}

// ---- Implicit-cast costs for overload resolution (cast.cc).
// Cost of matching an argument of type `from` to a parameter declared as `param` (kAny
// matches anything; nested ids match any type of that kind; LIST and ARRAY convert), or
// nullopt when it does not match. With `any_to_string` (the set's flag), a STRING parameter
// takes any scalar, at the highest cost.
std::optional<uint32_t> CostToParam(const LogicalType& from, Id param, bool any_to_string = false);

// ---- Misc value helpers.
std::string ToLower(std::string_view s);
std::string ToUpper(std::string_view s);
bool IsListLike(Id id);  // LIST or ARRAY
// The element type of a LIST/ARRAY type, ANY otherwise.
LogicalType ElementType(const LogicalType& t);
Value MakeList(const LogicalType& list_type, std::vector<Value> children);
// The index of a field of a STRUCT/UNION type by case-insensitive name.
std::optional<size_t> FieldIndex(const LogicalType& type, std::string_view name);

// Kùzu's slice bounds: 1-based inclusive [begin, end] with negative indices counting from the
// end, clamped to [1, len]. Returns the half-open 0-based range [*from, *to) (possibly empty).
void SliceRange(int64_t len, int64_t begin, int64_t end, size_t* from, size_t* to);

// String overloads of list_extract / list_slice (string_functions.cc), registered by the list
// functions so the overload order matches Kùzu's messages.
Value StringExtractExec(const Value* args, size_t n, const LogicalType& result,
                        FunctionContext& ctx);
Value StringArrayExtractExec(const Value* args, size_t n, const LogicalType& result,
                             FunctionContext& ctx);
Value StringSliceExec(const Value* args, size_t n, const LogicalType& result, FunctionContext& ctx);

// ---- JSON (json_functions.cc).
// The document of a value: to_json's view of it (nodes as {"_ID", "_LABEL", ...}, maps and
// structs as objects, temporal values and DECIMAL/INT128 as strings).
JsonNode ValueToJsonNode(const Value& v);
// A JSON or STRING argument parsed (a runtime error names what is wrong), any other value as
// to_json sees it.
JsonNode ParseJsonArgument(const Value& v);
// CAST(v AS JSON): STRING text kept as written once it is valid JSON, other values to_json.
Value CastToJson(const Value& v);
// CAST(json AS target): STRING keeps the text; other types read the document.
Value CastFromJson(const Value& v, const LogicalType& target);

// ---- Registry.
// A bind hook refines the matched overload: it may set arg_types and result_type from the
// actual argument types, or fail with a full error message.
using BindHook = bool (*)(const ScalarBindInput& input, BoundScalarFunction* fn,
                          std::string* error);

struct ScalarOverload {
  std::vector<Id> params;  // kAny: any type; nested ids match any type of that kind
  Id result = Id::kAny;    // the declared result (for defaults and error text)
  ScalarExec exec = nullptr;
  BindHook bind = nullptr;
  bool variadic = false;  // the last parameter repeats (zero or more times)
  bool propagates_nulls = true;
  bool deterministic = true;
  bool returns_argument_part = false;  // BoundScalarFunction::returns_argument_part
};

// Custom error when no overload matches (nullptr: the generic "did not receive correct
// arguments" text).
using NoMatchError = std::string (*)(std::string_view called_name,
                                     const std::vector<LogicalType>& arg_types);

struct ScalarFunctionSet {
  std::string name;  // canonical lower-case
  std::vector<ScalarOverload> overloads;
  NoMatchError no_match = nullptr;
  bool changes_database = false;  // a call changes stored state (ScalarFunctionChangesDatabase)
  // A STRING parameter takes any scalar (CostToParam): set for the named functions (not the
  // operators) that have no LIST or ARRAY parameter, as in Kùzu, where md5(123) and
  // left(DATE, 4) take the text but list_extract(INT64, INT64) matches nothing.
  bool any_to_string = false;
};

class RegistryBuilder {
 public:
  // Creates (or returns) the set for `name`.
  ScalarFunctionSet& Set(const std::string& name);
  // Shorthand: adds one overload to `name`.
  ScalarOverload& Add(const std::string& name, std::vector<Id> params, Id result, ScalarExec exec);
  // `alias` resolves to the set of `target` (which must exist).
  void Alias(const std::string& alias, const std::string& target);

  std::vector<std::pair<std::string, std::shared_ptr<ScalarFunctionSet>>> entries;
};

void RegisterArithmeticFunctions(RegistryBuilder& r);
void RegisterComparisonFunctions(RegistryBuilder& r);
void RegisterStringFunctions(RegistryBuilder& r);
void RegisterListFunctions(RegistryBuilder& r);
void RegisterNestedFunctions(RegistryBuilder& r);  // struct, map, union, array
void RegisterTemporalFunctions(RegistryBuilder& r);
void RegisterMiscFunctions(RegistryBuilder& r);
void RegisterJsonFunctions(RegistryBuilder& r);     // json_functions.cc
void RegisterDecimalFunctions(RegistryBuilder& r);  // DECIMAL's overloads of the operators  //
                                                    // casts, uuid, blob, null, hashing, random

// Registry introspection (for tests): every registered name (aliases included) and its set.
std::vector<std::string> RegisteredScalarFunctionNames();
const ScalarFunctionSet* FindScalarFunctionSet(std::string_view name);

// The type list text of an error: "(INT64[],BOOL)".
std::string TypesText(const std::vector<LogicalType>& types);

}  // namespace graphdb::function::internal
