// The scalar function library: every function and operator of Kùzu's Cypher dialect that
// needs only its argument values (no graph access), resolved by name and argument types.
//
// Binding. The binder calls BindScalarFunction with the function name (case-insensitive; an
// alias binds to its canonical function) and the argument types. Overload resolution picks
// the overload with the lowest total ImplicitCastCost (cast.h); ANY arguments (NULL literals,
// untyped parameters) match any parameter. The result says which type to cast each argument
// to (arg_types has exactly one entry per argument), the result type, and the implementation.
// On failure it returns nullopt and sets *error to Kùzu's full message, e.g.
// "Catalog exception: FOO function does not exist." or
// "Binder exception: Function RANGE did not receive correct arguments:\nActual:   (BOOL,...".
// Messages already carry their "Binder exception: " / "Catalog exception: " prefix.
//
// For list literals, struct_pack and similar, arg_types may name a type the argument cannot be
// implicitly cast to (['a', 1]); the binder checks CanImplicitCast and reports Kùzu's
// "Expression a has data type STRING but expected INT64. Implicit cast is not supported.".
//
// Operators are functions under fixed names: "+", "-", "*", "/", "%", "^" (power), "negate"
// (unary minus), "=", "<>" ("!=" too), "<", "<=", ">", ">=", "=~" (regex full match),
// "starts_with", "ends_with", "contains", "in" (x IN list), "&", "|", "<<", ">>", "~"
// (bitwise not), "factorial" (postfix !), "and", "or", "xor", "not", "is_null",
// "is_not_null". "+" also concatenates strings and lists and adds intervals to dates and
// timestamps. Slicing list[a:b] and string[a:b] is "list_slice" (1-based, inclusive end,
// negative indices count from the end; pass 1 for a missing start and -1 for a missing end);
// list[i] and string[i] is "list_extract".
//
// Calling. The executor evaluates the arguments, casts each to arg_types[i] (the binder
// inserts the casts), and: if propagates_nulls and any argument is NULL, the result is NULL
// of result_type without calling exec; otherwise it calls exec(args, n, result_type, ctx).
// exec throws GraphDBException(kQueryRuntime, "Runtime exception: ..." / "Overflow exception:
// ..." / "Conversion exception: ...") on errors. Functions with deterministic == false
// (random(), gen_random_uuid(), current_date(), ...) must not be constant-folded.
//
// Not here (IsGraphFunction / IsLambdaFunction name them so the binder can route them): id,
// label(s), properties, nodes, rels, start_node, end_node, offset, length(path), cost,
// is_trail, is_acyclic, keys(node/rel), and the lambda/quantifier functions list_transform,
// list_filter, list_reduce, all, any, none, single. Casts by type name (CAST(x AS T),
// cast(x, 'T')) are CastValue.
//
// Thread-safety: the registry is built once (thread-safe static initialization) and immutable
// afterwards; all functions are pure apart from the FunctionContext they are given, which
// belongs to one executing statement.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb {
class ExpressionMemory;  // common/expression_memory.h
}  // namespace graphdb

namespace graphdb::function {

// Per-statement state handed to every call. The executor owns it.
struct FunctionContext {
  // The statement's instant in microseconds since the epoch (UTC), for current_date() and
  // current_timestamp(): read from the clock by the statement's first call of Now(), so all
  // calls in one statement see the same instant and statements that never ask do not read
  // the clock. Set it to fix the instant.
  std::optional<int64_t> now_micros;
  int64_t Now();
  // The pcg32 state behind random(), gen_random_uuid() and setseed(). Keep it per connection
  // across statements (setseed(x) affects later statements) and start it from
  // RandomStateFromSeed(<entropy>).
  uint64_t random_state = 0;
  // Kùzu's DISABLE_MAP_KEY_CHECK setting (CALL disable_map_key_check=false turns the check
  // on): when false, map() rejects duplicate and NULL keys.
  bool disable_map_key_check = true;
  // nextval() (advance = true) and currval(): the named sequence's next or last value; throws a
  // GraphDBException for an unknown or exhausted sequence. Set by whoever runs the statement
  // against a catalog; when empty, the sequence functions fail.
  std::function<int64_t(std::string_view name, bool advance)> sequence_value;
  // The statement's account of values built inside expressions (common/expression_memory.h):
  // functions that build lists or long strings charge what they allocate to it before they
  // allocate (function_internal.h: ChargeBuilt). Set by the ExecContext; null elsewhere
  // (constant folding), where only the thread's statement control is consulted.
  ExpressionMemory* memory = nullptr;
};

// The system clock in microseconds since the epoch (UTC).
int64_t EpochMicros();

// The random_state that setseed() would produce from a 64-bit seed (pcg32, default stream).
uint64_t RandomStateFromSeed(uint64_t seed);

using ScalarExec = Value (*)(const Value* args, size_t num_args, const LogicalType& result_type,
                             FunctionContext& ctx);

struct BoundScalarFunction {
  std::string name;                    // canonical lower-case name, e.g. "list_extract"
  std::vector<LogicalType> arg_types;  // one per argument: cast each argument to this first
  LogicalType result_type;
  ScalarExec exec = nullptr;
  bool propagates_nulls = true;  // true: any NULL argument -> NULL result, exec not called
  bool deterministic = true;     // false: never constant-fold
  // Every overload of the function has result_type, whatever its arguments (size(), upper(),
  // the comparisons), as opposed to a result the arguments choose ("+": INT64 + INT64 is INT64,
  // DATE + INT64 a DATE). A NULL argument of no type leaves only such a result type certain.
  bool result_type_fixed = false;
  // The result is an argument or a part of one (list_extract, head, struct_extract, coalesce):
  // the evaluator charges nothing for it to the statement's memory (it was counted, or is held
  // elsewhere), where it charges a string another function returns as new.
  bool returns_argument_part = false;
};

// Extra binding input for BindScalarFunctionWithInput. Only a few functions need it:
//   arg_names      `name := expr` arguments of struct_pack and union_value (struct literals
//                  {a: 1} bind as struct_pack with names); empty strings elsewhere.
//   constant_args  the value of each argument that is a literal (or folded constant), else
//                  nullptr: struct_extract / union_extract need their field name, the optional
//                  regexp_replace option is validated at bind time, array functions learn the
//                  length of list literals.
struct ScalarBindInput {
  std::vector<LogicalType> arg_types;
  std::vector<std::string> arg_names;
  std::vector<const Value*> constant_args;
};

std::optional<BoundScalarFunction> BindScalarFunction(std::string_view name,
                                                      const std::vector<LogicalType>& arg_types,
                                                      std::string* error);
// The same with names and constant values (a distinct name keeps `{}` argument lists
// unambiguous).
std::optional<BoundScalarFunction> BindScalarFunctionWithInput(std::string_view name,
                                                               const ScalarBindInput& input,
                                                               std::string* error);

// Case-insensitive: is `name` a scalar function or operator of this library?
bool IsScalarFunction(std::string_view name);
// Case-insensitive: does a call of `name` change the database's stored state, so that a
// statement calling it writes even when it has no updating clause? nextval() does (it advances
// a sequence, durably); currval(), random() and the rest only read or touch the statement's
// and the session's own state.
bool ScalarFunctionChangesDatabase(std::string_view name);
// Functions the executor implements because they need the graph. "length" is both: a path
// argument goes to the executor, a string to BindScalarFunction.
bool IsGraphFunction(std::string_view name);
// list_transform, list_filter, list_reduce and the quantifiers all/any/none/single.
bool IsLambdaFunction(std::string_view name);

}  // namespace graphdb::function
