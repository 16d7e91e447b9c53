// Evaluates bound expressions against the frame of an ExecContext, with Cypher's
// three-valued logic. Failures throw GraphDBException (QUERY_RUNTIME for bad casts, overflow,
// division by zero; INVALID_REQUEST for a missing parameter).
//
// Memory: the lists and strings an evaluation builds are counted against the statement's memory
// limit while it holds them (ctx.expr_memory, common/expression_memory.h); Evaluate and
// EvaluatePredicate give back what they counted when they return, as their value passes to the
// caller.
//
// Thread-safety: stateless; the context is the caller's.
#pragma once

#include "cypher/binder/bound_expression.h"
#include "exec/exec_context.h"
#include "types/value.h"

namespace graphdb::exec {

Value Evaluate(const binder::BoundExpression& expr, ExecContext& ctx);

// Evaluates a predicate: true only for a non-NULL true value.
bool EvaluatePredicate(const binder::BoundExpression& expr, ExecContext& ctx);

// Turns node/rel ids inside `value` (typed `type`) into whole node and rel values, for
// results.
Value Materialize(const Value& value, const LogicalType& type, ExecContext& ctx);

}  // namespace graphdb::exec
