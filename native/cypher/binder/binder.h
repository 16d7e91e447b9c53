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
  struct VariableInfo;
  class Scope;

  BoundQueryPart BindSingleQuery(const parser::ParsedSingleQuery& query,
                                 std::vector<BoundColumn>* columns);
  void BindMatch(const std::vector<parser::ParsedPatternElement>& patterns,
                 const parser::ParsedExpression* where, BoundClause* out);
  // Kùzu's refusals of a join hint that does not fit the MATCH's patterns.
  // `correlated`: the patterns reuse a node of an earlier clause.
  void CheckJoinHint(const parser::ParsedJoinHint& hint, const std::vector<BoundPattern>& patterns,
                     bool correlated);
  BoundExpressionPtr BindSubquery(const parser::ParsedExpression& expr);
  void BindCall(const parser::ParsedExpression& function,
                const std::vector<parser::ParsedYieldItem>& yields,
                const parser::ParsedExpression* where, BoundClause* out);
  BoundPattern BindPattern(const parser::ParsedPatternElement& pattern, bool for_create);
  void BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                       BoundNodePattern* out);
  void BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create, BoundRelPattern* out);
  // The inline properties of a bound pattern as predicates (nullptr for none).
  BoundExpressionPtr PatternPredicate(const parser::ParsedPatternElement& parsed,
                                      const BoundPattern& bound);
  // Records the node slots a rel variable starts and ends at (start_node / end_node).
  void SetRelEndpoints(const BoundRelPattern& rel, SlotId left_slot, SlotId right_slot);
  void BindRecursiveComprehension(const parser::ParsedRelPattern& rel, BoundRelPattern* out);
  // CREATE / MERGE: gives unlabelled nodes and untyped rels the one table the pattern allows.
  void InferCreateLabels(BoundPattern& pattern);
  std::unique_ptr<BoundProjection> BindProjection(const parser::ParsedProjection& projection,
                                                  bool is_with, bool is_return,
                                                  const parser::ParsedExpression* where);
  BoundSetItem BindSetItem(const parser::ParsedSetItem& item);
  BoundSetItem BindRemoveItem(const parser::ParsedExpression& item);

  BoundExpressionPtr Bind(const parser::ParsedExpression& expr);
  // A WHERE expression: BOOL (or NULL).
  BoundExpressionPtr BindPredicate(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLiteral(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindProperty(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindFunction(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindScalar(const std::string& name, std::vector<BoundExpressionPtr> args,
                                const std::string& text,
                                const std::vector<std::string>& arg_names = {});
  // id, label(s), offset, start_node, end_node, nodes, rels, length, is_trail, is_acyclic,
  // keys, properties, and struct_extract on nodes and rels. nullptr: not a graph call (the
  // scalar function of the same name applies).
  BoundExpressionPtr BindGraphFunction(const std::string& name,
                                       std::vector<BoundExpressionPtr>& args,
                                       const parser::ParsedExpression& expr);
  // `base.name` on a bound node, rel, or struct.
  BoundExpressionPtr BindPropertyAccess(BoundExpressionPtr base, const std::string& name,
                                        std::string text);
  // A node or rel property looked up in `tables` (node or rel table ids); `_id`, `_label`,
  // `_src` and `_dst` are the internal properties.
  BoundExpressionPtr BindPropertyOnTables(BoundExpressionPtr base,
                                          const std::vector<uint64_t>& tables,
                                          const std::string& name, std::string text);
  // The tables of a node or rel variable (or of a list of them, from collect()) when the
  // binder knows them, else empty. Only such variables may be re-used in patterns.
  std::vector<uint64_t> KnownTables(const BoundExpression& expr) const;
  // The candidate tables of a node or rel expression (or of the elements of a list of them).
  std::vector<uint64_t> TablesOf(const BoundExpression& expr) const;
  // Property names of node or rel tables, in table then column order, without repeats.
  std::vector<std::string> PropertyNames(const LogicalType& type,
                                         const std::vector<uint64_t>& tables) const;
  BoundExpressionPtr BindBinary(const parser::ParsedExpression& expr);
  // A run of three or more operands (expr.children) whose first operator is bound as `first`.
  BoundExpressionPtr BindOperatorChain(const parser::ParsedExpression& expr,
                                       BoundExpressionPtr first);
  BoundExpressionPtr BindCase(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLambdaCall(const std::string& name, const parser::ParsedExpression& expr);
  // CREATE / MERGE of nothing but variables bound before fails as in Kùzu.
  void CheckCreatesSomething(const std::vector<BoundPattern>& patterns);
  // A call of a CREATE MACRO macro: its body bound with each parameter standing for the
  // argument (or default) given for it.
  BoundExpressionPtr BindMacroCall(const catalog::MacroDefinition& macro,
                                   const parser::ParsedExpression& expr);
  BoundExpressionPtr ImplicitCast(BoundExpressionPtr expr, const LogicalType& target);
  BoundExpressionPtr NodeOrRelToId(BoundExpressionPtr expr);

  SlotId NewSlot() { return num_slots_++; }
  std::vector<uint64_t> ResolveNodeTables(const std::vector<std::string>& labels);
  std::vector<uint64_t> ResolveRelTables(const std::vector<std::string>& types);

  void BindLoadFrom(const parser::ParsedLoadFromClause& load, BoundClause* out);

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
  std::vector<MacroFrame> macro_frames_;
  int macro_frame_ = -1;  // the frame whose parameters are visible
  // The parsed bodies and defaults of the macros bound so far (the frames point into them).
  std::vector<parser::ParsedExpressionPtr> macro_expressions_;
  bool read_only_ = true;
  bool creates_only_ = true;
  bool reads_files_ = false;
};

}  // namespace graphdb::binder
