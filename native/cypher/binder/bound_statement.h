// Bound statements: what the binder hands the planner. A query is a list of query parts
// (UNION branches), each a list of clauses in source order whose variables are already
// resolved to frame slots. DDL and utility statements carry their checked arguments.
//
// Thread-safety: immutable after binding.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cypher/binder/bound_expression.h"
#include "cypher/binder/table_functions.h"

namespace graphdb::binder {

enum class Direction : uint8_t { kForward, kBackward, kBoth };

// Which paths a variable-length relationship matches (Kùzu's default is WALK).
enum class PathSemantic : uint8_t {
  kWalk,                 // any sequence of edges
  kTrail,                // no relationship twice
  kAcyclic,              // no node twice
  kShortest,             // * SHORTEST: one path of fewest hops to each end node
  kAllShortest,          // * ALL SHORTEST: every path of fewest hops
  kWeightedShortest,     // * WSHORTEST(w): one path of least total weight
  kAllWeightedShortest,  // * ALL WSHORTEST(w): every path of least total weight
};

struct BoundPropertyEquality {
  std::string property;
  BoundExpressionPtr value;
};

struct BoundNodePattern {
  std::string name;  // variable name ("" for anonymous)
  SlotId slot = 0;
  std::vector<uint64_t> table_ids;                // candidate node tables (all when unlabelled)
  std::vector<BoundPropertyEquality> properties;  // inline {k: v}
  bool bound_before = false;  // variable already in scope when the pattern starts
};

struct BoundRelPattern {
  std::string name;
  SlotId slot = 0;
  std::vector<uint64_t> table_ids;
  std::vector<BoundPropertyEquality> properties;
  Direction direction = Direction::kForward;  // relative to the pattern's left-to-right order
  size_t left = 0;                            // index of the node pattern on its left
  size_t right = 0;                           // index of the node pattern on its right
  bool variable_length = false;
  uint32_t min_hops = 1;
  uint32_t max_hops = 1;
  PathSemantic semantic = PathSemantic::kWalk;
  // Variable-length rels: each relationship of the path is placed in step_slot, where it must
  // satisfy step_predicate (inline properties, the comprehension's WHERE on it) and where
  // `weight` (weighted shortest paths) reads it. Each intermediate node is placed in
  // node_step_slot and must satisfy node_step_predicate.
  SlotId step_slot = 0;
  BoundExpressionPtr step_predicate;
  BoundExpressionPtr weight;       // DOUBLE
  bool weight_is_integer = false;  // the weight property's own type (for messages)
  SlotId node_step_slot = 0;
  BoundExpressionPtr node_step_predicate;
  // The comprehension's projections ({r.p}, {n.q}): the properties the path's rels and nodes
  // keep (nullopt: all).
  std::optional<std::vector<std::string>> rel_properties;
  std::optional<std::vector<std::string>> node_properties;
  bool bound_before = false;
};

struct BoundPattern {
  std::vector<BoundNodePattern> nodes;
  std::vector<BoundRelPattern> rels;
  std::optional<SlotId> path_slot;  // p = (...)
  std::string path_name;
  BoundExpressionPtr path_expr;  // builds the path from the pattern's variables
};

struct BoundProjectionItem {
  BoundExpressionPtr expr;
  SlotId slot = 0;
  std::string name;  // column name / alias
};

struct BoundOrderItem {
  BoundExpressionPtr expr;
  bool descending = false;
};

// WITH and RETURN.
struct BoundProjection {
  std::vector<BoundProjectionItem> items;
  bool distinct = false;
  // Aggregation: when any item contains an aggregate, the non-aggregate items are the keys.
  std::vector<BoundExpression*> aggregates;  // kAggregate nodes inside items (and ORDER BY)
  bool has_aggregation = false;
  std::vector<BoundOrderItem> order_by;
  BoundExpressionPtr skip;
  BoundExpressionPtr limit;
  BoundExpressionPtr where;  // WITH ... WHERE
  bool is_return = false;
};

struct BoundSetItem {
  enum class Kind : uint8_t { kProperty, kRemoveProperty } kind = Kind::kProperty;
  SlotId target = 0;  // node or rel variable
  bool target_is_rel = false;
  std::string property;
  BoundExpressionPtr value;  // NULL literal for REMOVE
};

// LOAD FROM: the files, their CSV options and the columns (given by LOAD WITH HEADERS or
// sniffed from the files), each read into its slot.
struct BoundFileScan {
  std::vector<std::string> paths;
  std::vector<std::pair<std::string, Value>> options;
  std::vector<std::string> column_names;
  std::vector<LogicalType> column_types;
  bool has_header = false;
  bool npy = false;   // the files are NumPy arrays (.npy, or file_format = 'npy'), else CSV
  bool json = false;  // JSON records (.json, .jsonl, .ndjson, or file_format = 'json')
  std::vector<SlotId> slots;
};

struct BoundClause {
  enum class Kind : uint8_t {
    kMatch,
    kOptionalMatch,
    kUnwind,
    kProjection,  // WITH / RETURN
    kCreate,
    kMerge,
    kSet,
    kDelete,
    kCall,      // CALL table_function(...) [YIELD ...] [WHERE ...]
    kLoadFrom,  // LOAD FROM files [WHERE ...]
  } kind = Kind::kMatch;

  std::vector<BoundPattern> patterns;  // MATCH / CREATE / MERGE
  BoundExpressionPtr where;            // MATCH ... WHERE
  BoundExpressionPtr unwind_expr;      // UNWIND e AS x
  SlotId unwind_slot = 0;
  std::unique_ptr<BoundProjection> projection;
  std::vector<BoundSetItem> set_items;  // SET / REMOVE, MERGE ON MATCH SET
  std::vector<BoundSetItem> on_create;  // MERGE ON CREATE SET
  std::vector<BoundExpressionPtr> delete_exprs;
  bool detach = false;
  // MERGE of a path with new nodes: matched by a sub-plan over `patterns` and `where` (the
  // patterns' properties); simpler MERGEs look nodes and rels up directly.
  bool merge_by_match = false;
  std::unique_ptr<BoundTableFunction> table_function;  // kCall (WHERE in `where`)
  std::unique_ptr<BoundFileScan> file_scan;            // kLoadFrom (WHERE in `where`)
};

struct BoundQueryPart {
  std::vector<BoundClause> clauses;
  // A subquery (EXISTS / COUNT): the outer variables' slots, bound when it runs.
  std::vector<SlotId> correlated_slots;
};

struct BoundColumn {
  std::string name;
  LogicalType type;
  SlotId slot = 0;
};

struct BoundQuery {
  std::vector<BoundQueryPart> parts;              // UNION branches
  std::vector<bool> union_all;                    // between part i and i+1
  std::vector<std::vector<BoundColumn>> columns;  // per part, the RETURN columns
  uint32_t num_slots = 0;
  bool read_only = true;
  bool creates_only = true;  // only CREATE among the updates (access mode insert)
  // LOAD FROM: the binder learnt columns from the files, so the binding holds only as long as
  // the files do (plans of such queries are not cached).
  bool reads_files = false;
  // A CALL took a parameter's value as an argument ($q): the binding holds that value (plans of
  // such queries are not cached).
  bool binds_parameter_values = false;
};

}  // namespace graphdb::binder
