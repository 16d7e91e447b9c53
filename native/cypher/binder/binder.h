// Binder: turns a parsed query into a BoundQuery against a read-only view of the catalog.
// It resolves variables to frame slots, labels to table ids, properties to columns,
// functions to implementations, and types every expression. Errors are QUERY_BINDING with
// Kùzu's "Binder exception: ..." text (INVALID_REQUEST for a missing parameter).
//
// Thread-safety: a Binder is used by one thread for one statement; the catalog must not
// change while it binds.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include "catalog/catalog.h"
#include "cypher/binder/bound_statement.h"
#include "cypher/parser/ast.h"
#include "types/value.h"

namespace graphdb::binder {

class Binder {
 public:
  Binder(const catalog::Catalog& catalog, const std::unordered_map<std::string, Value>& params)
      : catalog_(catalog), params_(params) {}

  std::unique_ptr<BoundQuery> BindQuery(const parser::ParsedRegularQuery& query);

  // Binds a standalone expression with no variables in scope (DDL DEFAULT values).
  BoundExpressionPtr BindConstantExpression(const parser::ParsedExpression& expr);

 private:
  struct VariableInfo;
  class Scope;

  BoundQueryPart BindSingleQuery(const parser::ParsedSingleQuery& query,
                                 std::vector<BoundColumn>* columns);
  void BindMatch(const parser::ParsedMatchClause& clause, BoundClause* out);
  BoundPattern BindPattern(const parser::ParsedPatternElement& pattern, bool for_create);
  void BindNodePattern(const parser::ParsedNodePattern& node, bool for_create,
                       BoundNodePattern* out);
  void BindRelPattern(const parser::ParsedRelPattern& rel, bool for_create,
                      BoundRelPattern* out);
  std::unique_ptr<BoundProjection> BindProjection(const parser::ParsedProjection& projection,
                                                  bool is_with, bool is_return,
                                                  const parser::ParsedExpression* where);
  BoundSetItem BindSetItem(const parser::ParsedSetItem& item);
  BoundSetItem BindRemoveItem(const parser::ParsedExpression& item);

  BoundExpressionPtr Bind(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLiteral(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindProperty(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindFunction(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindScalar(const std::string& name, std::vector<BoundExpressionPtr> args,
                                const std::string& text);
  BoundExpressionPtr BindBinary(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindCase(const parser::ParsedExpression& expr);
  BoundExpressionPtr BindLambdaCall(const std::string& name,
                                    const parser::ParsedExpression& expr);
  BoundExpressionPtr ImplicitCast(BoundExpressionPtr expr, const LogicalType& target);
  BoundExpressionPtr NodeOrRelToId(BoundExpressionPtr expr);

  SlotId NewSlot() { return num_slots_++; }
  std::vector<uint64_t> ResolveNodeTables(const std::vector<std::string>& labels);
  std::vector<uint64_t> ResolveRelTables(const std::vector<std::string>& types);

  const catalog::Catalog& catalog_;
  const std::unordered_map<std::string, Value>& params_;
  std::shared_ptr<Scope> scope_;
  uint32_t num_slots_ = 0;
  // While binding WITH/RETURN items: where aggregate expressions are collected.
  std::vector<BoundExpression*>* aggregate_sink_ = nullptr;
  bool read_only_ = true;
  bool creates_only_ = true;
};

}  // namespace graphdb::binder
