// Bound expressions: the binder's output for every expression in a query. Names are resolved
// (variables to frame slots, properties to property ids, functions to implementations) and
// every node has its result type.
//
// Variables live in a per-query frame: the binder gives each variable (node, rel, path,
// projected alias, aggregate result) a slot index, and operators read and write those slots.
//
// Thread-safety: immutable after binding; shared by plans cached across executions.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "function/aggregate_function.h"
#include "function/scalar_function.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::binder {

using SlotId = uint32_t;

struct BoundQueryPart;  // a subquery body (EXISTS / COUNT), defined in bound_statement.h

enum class ExprKind : uint8_t {
  kLiteral,         // literal
  kParameter,       // name; value supplied at execution
  kVariable,        // slot
  kProperty,        // children[0] = node/rel/struct expression; property name in `name`
  kScalarFunction,  // scalar; children = arguments (already cast to the overload's types)
  kAggregate,       // aggregate; children = argument (none for count(*)); result read from slot
  kAnd,
  kOr,
  kXor,
  kNot,
  kIsNull,
  kIsNotNull,
  kCase,               // children: [operand?] when/then pairs..., else; see case_has_operand
  kCast,               // children[0], target = type
  kList,               // list literal
  kStruct,             // map literal {a: 1} (a STRUCT in Kùzu's dialect); names in field_names
  kGraphFunction,      // id(), label(), nodes(), ... on a node/rel/path: name says which
  kListComprehension,  // [x IN list WHERE pred | proj]: children = list, pred?, proj?; slot = x
  kQuantifier,         // all/any/none/single(x IN list WHERE pred): name; children = list, pred
  kLambdaFunction,     // list_transform / list_filter / list_reduce: name; children = list, body
  kSubquery,           // EXISTS { } / COUNT { }: name = "exists" | "count"; subquery
  kLabelTest,          // n:Label: children[0] node; labels in field_names
  kOperatorChain,      // a run of binary operators, children[0] op children[1] op ...,
                       // left to right (a sum of many terms): chain[i] applies to the result
                       // so far and children[i + 1]; kept flat so that no walk recurses per term
};

// One operator of a kOperatorChain: the function as a binary operator whose left operand is
// the result so far, and the type that result is cast to first (as the binder casts any
// left operand), if any.
struct ChainStep {
  function::BoundScalarFunction fn;
  std::optional<LogicalType> cast;
};

struct BoundExpression {
  ExprKind kind = ExprKind::kLiteral;
  LogicalType type;
  std::string text;  // the expression as written, for column names and messages

  Value literal;  // kLiteral
  // A NULL of no type yet folded from a null-propagating function of the NULL literal (NULL + 1):
  // the type the function's overload gave it, which a projected column takes when no context
  // typed the NULL (issue 34, item 14).
  std::optional<LogicalType> null_default;
  std::string name;  // kParameter name, kProperty name, function names
  SlotId slot = 0;   // kVariable, kAggregate result, comprehension/lambda var
  SlotId slot2 = 0;  // list_reduce accumulator
  std::vector<std::unique_ptr<BoundExpression>> children;
  std::vector<std::string> field_names;  // kStruct keys, kLabelTest labels
  bool case_has_operand = false;
  bool has_predicate = false;   // kListComprehension: children[1] is the WHERE
  bool has_projection = false;  // kListComprehension: last child is the projection
  std::optional<function::BoundScalarFunction> scalar;
  std::optional<function::BoundAggregateFunction> aggregate;
  std::vector<ChainStep> chain;  // kOperatorChain
  std::shared_ptr<BoundQueryPart> subquery;

  // For kProperty on nodes and rels: per table id, the property's column index (-1 when the
  // table has no such property, giving NULL).
  std::vector<int32_t> property_columns;

  bool IsConstant() const;  // no variables, parameters or aggregates below
  // No function below gives a new value each call (nextval(), random(), ...).
  bool IsDeterministic() const;
  bool HasAggregate() const;
  // An EXISTS / COUNT subquery below (a pattern predicate is one).
  bool HasSubquery() const;
};

using BoundExpressionPtr = std::unique_ptr<BoundExpression>;

}  // namespace graphdb::binder
