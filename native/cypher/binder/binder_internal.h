// Private to the binder's own files (binder.cc, bind_*.cc): the scope of variables a clause
// sees, and the small helpers that every clause and expression binder uses. Not for other
// modules: they include cypher/binder/binder.h.
#pragma once

#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"
#include "cypher/binder/binder.h"

namespace graphdb::binder {

using parser::BinaryOp;
using parser::ClauseKind;
using parser::ExpressionKind;
using parser::LiteralKind;
using parser::ParsedExpression;
using parser::UnaryOp;

struct Binder::VariableInfo {
  VariableInfo(std::string n, SlotId s, LogicalType t, std::vector<uint64_t> tables = {})
      : name(std::move(n)), slot(s), type(std::move(t)), table_ids(std::move(tables)) {}

  std::string name;
  SlotId slot = 0;
  LogicalType type;
  // Node and rel variables: their candidate tables. Lists of nodes or rels (collect(n)): the
  // tables of their elements.
  std::vector<uint64_t> table_ids;
  // Rel variables of a pattern: the slots of the pattern's source and destination nodes
  // (start_node / end_node read them). Empty for rels that come from elsewhere.
  std::optional<SlotId> src_slot;
  std::optional<SlotId> dst_slot;
  bool undirected = false;      // a rel of an undirected pattern: its direction is unknown
  std::string weight_property;  // a weighted shortest path: its weight (cost() sums it)
  // A node or rel of a pattern (or such a variable passed on by WITH), as opposed to one
  // unwound from a list: n.* gives only the properties of pattern variables.
  bool from_pattern = false;
};

// The variables a clause sees, in the order they were added; a name added again replaces the
// variable of that name in place. Lookups go through an index, so that a projection of many
// items (WITH 1 AS a0, 2 AS a1, ...) binds in linear time.
class Binder::Scope {
 public:
  const VariableInfo* Find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &vars_[it->second];
  }
  void Add(VariableInfo info) {
    auto [it, added] = index_.try_emplace(info.name, vars_.size());
    if (!added) {
      vars_[it->second] = std::move(info);
      return;
    }
    vars_.push_back(std::move(info));
  }
  const std::vector<VariableInfo>& vars() const { return vars_; }

  // Add's form for a variable taken out again (ScopedVariables): the variable it replaced, if
  // any; Restore(name, that) undoes it, the last added first.
  std::optional<VariableInfo> Put(VariableInfo info) {
    auto [it, added] = index_.try_emplace(info.name, vars_.size());
    if (added) {
      vars_.push_back(std::move(info));
      return std::nullopt;
    }
    return std::exchange(vars_[it->second], std::move(info));
  }
  void Restore(const std::string& name, std::optional<VariableInfo> previous) {
    auto it = index_.find(name);
    if (previous) {
      vars_[it->second] = std::move(*previous);
      return;
    }
    vars_.pop_back();  // it was added last (ScopedVariables nest)
    index_.erase(it);
  }

 private:
  std::vector<VariableInfo> vars_;
  std::unordered_map<std::string, size_t> index_;  // name -> its position in vars_
};

// The variables of a list comprehension, quantifier or lambda (x in [x IN l | f(x)]), put in
// the binder's scope while their expressions bind and taken out again when it goes (also when
// binding fails). Binding them in a copy of the scope instead would cost the scope's size for
// each comprehension: a WITH of 50,000 items followed by 50,000 comprehensions.
class Binder::ScopedVariables {
 public:
  explicit ScopedVariables(Scope& scope) : scope_(scope) {}
  ~ScopedVariables() {
    for (size_t i = names_.size(); i-- > 0;) scope_.Restore(names_[i], std::move(replaced_[i]));
  }
  ScopedVariables(const ScopedVariables&) = delete;
  ScopedVariables& operator=(const ScopedVariables&) = delete;

  void Add(VariableInfo info) {
    names_.push_back(info.name);
    replaced_.push_back(scope_.Put(std::move(info)));
  }

 private:
  Scope& scope_;
  std::vector<std::string> names_;
  std::vector<std::optional<VariableInfo>> replaced_;
};

[[noreturn]] inline void BindError(const std::string& message) {
  ThrowBinding("Binder exception: " + message);
}

// A type name that does not parse: Kùzu's catalog message for an unknown name, else a binder
// error.
[[noreturn]] inline void TypeError(const std::string& message) {
  if (message.rfind(kUnknownTypePrefix, 0) == 0) ThrowBinding(message);
  BindError(message);
}

inline BoundExpressionPtr MakeExpr(ExprKind kind, LogicalType type, std::string text) {
  auto e = std::make_unique<BoundExpression>();
  e->kind = kind;
  e->type = std::move(type);
  e->text = std::move(text);
  return e;
}

// AND of the expressions; nullptr for none.
inline BoundExpressionPtr Conjunction(std::vector<BoundExpressionPtr> conjuncts) {
  if (conjuncts.empty()) return nullptr;
  if (conjuncts.size() == 1) return std::move(conjuncts[0]);
  auto conj = MakeExpr(ExprKind::kAnd, LogicalType::Bool(), "");
  conj->children = std::move(conjuncts);
  return conj;
}

inline BoundExpressionPtr MakeLiteral(Value v, std::string text) {
  auto e = MakeExpr(ExprKind::kLiteral, v.type(), std::move(text));
  e->literal = std::move(v);
  return e;
}

inline std::string Lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string Upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

inline bool IsNodeOrRel(const LogicalType& t) {
  return t.id() == LogicalTypeId::kNode || t.id() == LogicalTypeId::kRel;
}

}  // namespace graphdb::binder
