// Binder: turns a parsed query into a BoundQuery against a read-only view of the catalog.
// It resolves variables to frame slots, labels to table ids, properties to columns,
// functions to implementations, and types every expression. Errors are QUERY_BINDING with
// Kùzu's "Binder exception: ..." text (INVALID_REQUEST for a missing parameter).
//
// Thread-safety: a Binder is used by one thread for one statement; the catalog must not
// change while it binds.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>

#include "catalog/catalog.h"
#include "cypher/binder/bound_statement.h"
#include "cypher/parser/ast.h"
#include "types/value.h"

namespace graphdb::binder {

// Kùzu's name for an expression in error messages: literals by value (123.400000, foo),
// list and map literals as LIST_CREATION(...) / STRUCT_PACK(...), calls as UPPER(args).
std::string ExpressionUniqueName(const parser::ParsedExpression& expr);

// Learns the columns of a LOAD FROM (the executor reads files; the binder does not): fills
// the scan's column names and types from `given` (LOAD WITH HEADERS) or from the files.
using FileScanResolver = std::function<void(
    BoundFileScan* scan, const std::vector<std::pair<std::string, LogicalType>>& given)>;

class Binder {
 public:
  Binder(const catalog::Catalog& catalog, const std::unordered_map<std::string, Value>& params)
      : catalog_(catalog), params_(params) {}

  // Without a resolver, LOAD FROM is refused.
  void set_file_scan_resolver(FileScanResolver resolver) {
    file_scan_resolver_ = std::move(resolver);
  }

  std::unique_ptr<BoundQuery> BindQuery(const parser::ParsedRegularQuery& query);

  // Binds a standalone expression with no variables in scope (DDL DEFAULT values).
  BoundExpressionPtr BindConstantExpression(const parser::ParsedExpression& expr);

  // `CALL fn(...)` on its own: the table function's rows, all columns returned.
  std::unique_ptr<BoundQuery> BindStandaloneCall(const parser::ParsedExpression& function);

 private:
  // The binder's work is split by clause and expression kind, one file each:
  //   binder.cc              queries, UNION, a query part's clauses (dispatch), table names
  //   bind_match.cc          MATCH, join hints, EXISTS / COUNT subqueries
  //   bind_pattern.cc        node, rel, recursive rel and path patterns
  //   bind_projection.cc     WITH / RETURN items, ORDER BY, SKIP, LIMIT
  //   bind_updating.cc       CREATE, MERGE, SET, REMOVE, DELETE
  //   bind_unwind_call.cc    UNWIND, CALL of a table function
  //   bind_load_from.cc      LOAD FROM
  //   bind_expression.cc     expressions (dispatch), literals, variables, lists, maps, casts
  //   bind_operator.cc       operators, CASE, scalar functions and implicit casts
  //   bind_function.cc       function calls: aggregates, lambdas, typeof, macros
  //   bind_graph_function.cc properties and functions of nodes, rels and paths
  // binder_internal.h holds the scope and the helpers they share.
  struct VariableInfo;
  class Scope;
  class ScopedVariables;

  // Queries and clauses (binder.cc).
  BoundQueryPart BindSingleQuery(const parser::ParsedSingleQuery& query,
                                 std::vector<BoundColumn>* columns);
  // One clause; a RETURN adds the query's result columns to `columns`.
  BoundClause BindClause(const parser::ParsedClause& clause, std::vector<BoundColumn>* columns);
  // A CREATE's or SET's values that hold a subquery, moved into a projection to run before the
  // clause (returned, when there are any), each replaced by a variable of its slot.
  std::optional<BoundClause> HoistSubqueries(BoundClause& clause);
  // UNION: the columns of each query after the first fit the first query's.
  void CheckUnionColumns(const parser::ParsedRegularQuery& query, size_t index,
                         const std::vector<BoundColumn>& first,
                         const std::vector<BoundColumn>& columns);
  // Nodes a later pattern gave more labels are scanned in all of those tables.
  void AddWidenedNodeTables(BoundQuery* query);
  std::vector<uint64_t> ResolveNodeTables(const std::vector<std::string>& labels);
  std::vector<uint64_t> ResolveRelTables(const std::vector<std::string>& types);

  // MATCH (bind_match.cc).
  void BindMatchClause(const parser::ParsedMatchClause& match, BoundClause* out);
  void BindMatch(std::span<const parser::ParsedPatternElement> patterns,
                 const parser::ParsedExpression* where, BoundClause* out);
  // Kùzu's refusals of a join hint that does not fit the MATCH's patterns.
  // `correlated`: the patterns reuse a node of an earlier clause.
  void CheckJoinHint(const parser::ParsedJoinHint& hint, const std::vector<BoundPattern>& patterns,
                     bool correlated);
  BoundExpressionPtr BindSubquery(const parser::ParsedExpression& expr);

  // Patterns (bind_pattern.cc).
  BoundPattern BindPattern(const parser::ParsedPatternElement& pattern, bool for_create);
  void BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                       BoundNodePattern* out);
  void BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create, BoundRelPattern* out);
  // The semantic, hops, weight and comprehension of a recursive rel (-[e* 1..3]->).
  void BindRecursiveRel(const parser::ParsedRelPattern& rel, BoundRelPattern* out);
  // The weight of a weighted shortest path, a numeric property of each of its rels.
  void BindPathWeight(const parser::ParsedRelPattern& rel, BoundRelPattern* out);
  // p = (a)-[e]->(b): the path variable of a bound pattern.
  void BindPathVariable(const std::string& name, BoundPattern* out);
  // The inline properties of a bound pattern as predicates (nullptr for none).
  BoundExpressionPtr PatternPredicate(const parser::ParsedPatternElement& parsed,
                                      const BoundPattern& bound);
  // Records the node slots a rel variable starts and ends at (start_node / end_node).
  void SetRelEndpoints(const BoundRelPattern& rel, SlotId left_slot, SlotId right_slot);
  void BindRecursiveComprehension(const parser::ParsedRelPattern& rel, BoundRelPattern* out);

  // WITH and RETURN (bind_projection.cc).
  std::unique_ptr<BoundProjection> BindProjection(const parser::ParsedProjection& projection,
                                                  bool is_with, bool is_return,
                                                  const parser::ParsedExpression* where);
  // One projected column, added to `out` and to the scope after the projection.
  void AddProjectionItem(BoundExpressionPtr expr, std::string name, bool is_return,
                         BoundProjection* out, Scope* new_scope);
  // n.* / s.*: one column per property of the node or rel tables, or per struct field.
  void BindPropertyStar(const parser::ParsedExpression& parsed, bool is_return,
                        BoundProjection* out, Scope* new_scope);
  // ORDER BY sees the projected names and, without aggregation or DISTINCT, the old scope.
  void BindOrderBy(const parser::ParsedProjection& projection, BoundProjection* out,
                   const std::shared_ptr<Scope>& new_scope);
  BoundExpressionPtr BindSortKey(const parser::ParsedExpression& sort, BoundProjection* out,
                                 const std::shared_ptr<Scope>& old_scope,
                                 const std::shared_ptr<Scope>& order_scope);

  // CREATE, MERGE, SET, REMOVE, DELETE (bind_updating.cc).
  void BindCreate(const parser::ParsedCreateClause& create, BoundClause* out);
  void BindMerge(const parser::ParsedMergeClause& merge, BoundClause* out);
  void BindSet(const parser::ParsedSetClause& set, BoundClause* out);
  void BindRemove(const parser::ParsedRemoveClause& remove, BoundClause* out);
  void BindDelete(const parser::ParsedDeleteClause& del, BoundClause* out);
  BoundSetItem BindSetItem(const parser::ParsedSetItem& item);
  BoundSetItem BindRemoveItem(const parser::ParsedExpression& item);
  // CREATE / MERGE: gives unlabelled nodes and untyped rels the one table the pattern allows.
  void InferCreateLabels(BoundPattern& pattern);
  // Narrows unlabelled nodes and untyped rels to the tables the pattern's rels can connect.
  void NarrowCreateTables(BoundPattern& pattern);
  // Each created node and rel has one table (that joins its ends); declares the variables.
  void CheckCreateTables(const BoundPattern& pattern);
  // CREATE / MERGE of nothing but variables bound before fails as in Kùzu.
  void CheckCreatesSomething(const std::vector<BoundPattern>& patterns);

  // UNWIND, CALL, LOAD FROM (bind_unwind_call.cc, bind_load_from.cc).
  void BindUnwind(const parser::ParsedUnwindClause& unwind, BoundClause* out);
  void BindCall(const parser::ParsedExpression& function,
                const std::vector<parser::ParsedYieldItem>& yields,
                const parser::ParsedExpression* where, BoundClause* out);
  void BindLoadFrom(const parser::ParsedLoadFromClause& load, BoundClause* out);

  // Expressions (bind_expression.cc).
  BoundExpressionPtr Bind(const parser::ParsedExpression& expr);
  // A WHERE expression: BOOL (or NULL).
  BoundExpressionPtr BindPredicate(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLiteral(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindParameter(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindVariable(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLabelTest(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindCast(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindListLiteral(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindMapLiteral(const parser::ParsedExpression& expr);
  // [x IN list WHERE p | f(x)] and all/any/none/single(x IN list WHERE p).
  BoundExpressionPtr BindListComprehension(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindSubscript(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindSlice(const parser::ParsedExpression& expr);

  // Operators and scalar functions (bind_operator.cc).
  BoundExpressionPtr BindUnary(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindBinary(const parser::ParsedExpression& expr);
  // A run of three or more operands (expr.children) whose first operator is bound as `first`.
  BoundExpressionPtr BindOperatorChain(const parser::ParsedExpression& expr,
                                       BoundExpressionPtr first);
  BoundExpressionPtr BindCase(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindScalar(const std::string& name, std::vector<BoundExpressionPtr> args,
                                const std::string& text,
                                const std::vector<std::string>& arg_names = {});
  // The type of a NULL that `name` folded to (BoundExpression::null_default): the result type
  // of `fn`, or of the overload the arguments' own null_default types choose.
  LogicalType NullDefault(const std::string& name, const std::vector<BoundExpressionPtr>& args,
                          function::ScalarBindInput input, const function::BoundScalarFunction& fn);
  BoundExpressionPtr ImplicitCast(BoundExpressionPtr expr, const LogicalType& target);
  BoundExpressionPtr NodeOrRelToId(BoundExpressionPtr expr);

  // Function calls (bind_function.cc).
  BoundExpressionPtr BindFunction(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindAggregate(const std::string& name, const parser::ParsedExpression& expr);
  // typeof(x): the name of x's type, a constant.
  BoundExpressionPtr BindTypeOf(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLambdaCall(const std::string& name, const parser::ParsedExpression& expr);
  // A call of a CREATE MACRO macro: its body bound with each parameter standing for the
  // argument (or default) given for it.
  BoundExpressionPtr BindMacroCall(const catalog::MacroDefinition& macro,
                                   const parser::ParsedExpression& expr);

  // Properties and graph functions (bind_graph_function.cc).
  BoundExpressionPtr BindProperty(const parser::ParsedExpression& expr);
  // `base.name` on a bound node, rel, or struct.
  BoundExpressionPtr BindPropertyAccess(BoundExpressionPtr base, const std::string& name,
                                        std::string text);
  // A node or rel property looked up in `tables` (node or rel table ids); `_id`, `_label`,
  // `_src` and `_dst` are the internal properties.
  BoundExpressionPtr BindPropertyOnTables(BoundExpressionPtr base,
                                          const std::vector<uint64_t>& tables,
                                          const std::string& name, std::string text);
  // id, label(s), offset, start_node, end_node, nodes, rels, length, is_trail, is_acyclic,
  // keys, properties, and struct_extract on nodes and rels. nullptr: not a graph call (the
  // scalar function of the same name applies).
  BoundExpressionPtr BindGraphFunction(const std::string& name,
                                       std::vector<BoundExpressionPtr>& args,
                                       const parser::ParsedExpression& expr);
  // id, label(s), offset, start_node, end_node and keys of one node or rel argument.
  BoundExpressionPtr BindNodeRelFunction(const std::string& name,
                                         std::vector<BoundExpressionPtr>& args,
                                         const parser::ParsedExpression& expr);
  // nodes, rels (relationships), is_trail, is_acyclic and cost of one path argument.
  BoundExpressionPtr BindPathFunction(const std::string& name,
                                      std::vector<BoundExpressionPtr>& args,
                                      const parser::ParsedExpression& expr);
  // properties(list, 'k'): [x IN list | x.k].
  BoundExpressionPtr BindListProperties(BoundExpressionPtr list, const std::string& key,
                                        const parser::ParsedExpression& expr);
  // cost(p): the total weight of a weighted shortest path, the sum of its rels' weights.
  BoundExpressionPtr BindPathCost(BoundExpressionPtr path, const parser::ParsedExpression& expr);
  // The tables of a node or rel variable (or of a list of them, from collect()) when the
  // binder knows them, else empty. Only such variables may be re-used in patterns.
  std::vector<uint64_t> KnownTables(const BoundExpression& expr) const;
  // A node or rel variable of a pattern (or one WITH passed on under any name), the only
  // targets of SET and DELETE in Kùzu 0.11.3: one unwound from a list is refused.
  bool IsPatternVariable(const BoundExpression& expr) const;
  // The candidate tables of a node or rel expression (or of the elements of a list of them).
  std::vector<uint64_t> TablesOf(const BoundExpression& expr) const;
  // Property names of node or rel tables, in table then column order, without repeats.
  std::vector<std::string> PropertyNames(const LogicalType& type,
                                         const std::vector<uint64_t>& tables) const;

  SlotId NewSlot() { return num_slots_++; }

  const catalog::Catalog& catalog_;
  const std::unordered_map<std::string, Value>& params_;
  FileScanResolver file_scan_resolver_;
  std::shared_ptr<Scope> scope_;
  uint32_t num_slots_ = 0;
  // While binding WITH/RETURN items: where aggregate expressions are collected.
  std::vector<BoundExpression*>* aggregate_sink_ = nullptr;
  // Node slots whose tables a later pattern widened (MATCH (a:A) MATCH (a:B)): added to the
  // pattern that introduced the node once the query is bound.
  std::unordered_map<SlotId, std::vector<uint64_t>> extra_node_tables_;
  // Macro calls being bound, innermost last. A parameter's name in a macro's body binds the
  // argument's expression, in the frame the argument was written in (-1: no macro's).
  struct MacroArgument {
    std::string parameter;
    const parser::ParsedExpression* expression;
    int frame;
  };
  struct MacroFrame {
    const catalog::MacroDefinition* macro;
    std::vector<MacroArgument> arguments;
    int caller;  // the frame whose body holds the call (-1: the query's own text)
  };
  // The frame of a call of `macro`: its arguments matched to the parameters (by position, or
  // by name for those with defaults), the defaults of the others.
  MacroFrame MacroCallFrame(const catalog::MacroDefinition& macro,
                            const parser::ParsedExpression& expr);
  // A macro's body or default, parsed and kept in macro_expressions_.
  const parser::ParsedExpression* ParseMacroText(const catalog::MacroDefinition& macro,
                                                 const std::string& text);
  std::vector<MacroFrame> macro_frames_;
  int macro_frame_ = -1;  // the frame whose parameters are visible
  // The parsed bodies and defaults of the macros bound so far (the frames point into them).
  std::vector<parser::ParsedExpressionPtr> macro_expressions_;
  bool read_only_ = true;
  bool creates_only_ = true;
  bool reads_files_ = false;
  bool binds_parameter_values_ = false;
  // Expressions bound so far (Bind calls): the statement's control is polled every
  // kInterruptCheckExpressions of them, and past kMaxBoundExpressions (macros expanded into
  // macros can multiply a small text) binding fails.
  static constexpr uint64_t kInterruptCheckExpressions = 1024;
  static constexpr uint64_t kMaxBoundExpressions = 1000000;
  uint64_t bound_expressions_ = 0;
};

}  // namespace graphdb::binder
