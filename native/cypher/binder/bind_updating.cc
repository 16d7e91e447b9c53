// The updating clauses: CREATE and MERGE (their patterns, labels inferred where the pattern
// allows one table, MERGE's ON MATCH / ON CREATE), SET, REMOVE and DELETE.
#include <algorithm>

#include "cypher/binder/binder_internal.h"

namespace graphdb::binder {

void Binder::BindCreate(const parser::ParsedCreateClause& create, BoundClause* out) {
  out->kind = BoundClause::Kind::kCreate;
  read_only_ = false;
  for (const auto& pattern : create.patterns) {
    out->patterns.push_back(BindPattern(pattern, true));
  }
  CheckCreatesSomething(out->patterns);
}

void Binder::BindMerge(const parser::ParsedMergeClause& merge, BoundClause* out) {
  out->kind = BoundClause::Kind::kMerge;
  read_only_ = false;
  creates_only_ = false;
  for (const auto& pattern : merge.patterns) {
    out->patterns.push_back(BindPattern(pattern, true));
    const BoundPattern& b = out->patterns.back();
    bool nodes_bound =
        std::all_of(b.nodes.begin(), b.nodes.end(), [](const auto& n) { return n.bound_before; });
    // A path with new nodes is matched like a MATCH (its properties as predicates).
    if (!(b.rels.empty() && b.nodes.size() == 1) && !nodes_bound) out->merge_by_match = true;
  }
  if (out->merge_by_match) {
    std::vector<BoundExpressionPtr> conjuncts;
    for (size_t i = 0; i < merge.patterns.size(); ++i) {
      if (auto p = PatternPredicate(merge.patterns[i], out->patterns[i])) {
        conjuncts.push_back(std::move(p));
      }
    }
    out->where = Conjunction(std::move(conjuncts));
  }
  CheckCreatesSomething(out->patterns);
  for (const auto& item : merge.on_match) out->set_items.push_back(BindSetItem(item));
  for (const auto& item : merge.on_create) out->on_create.push_back(BindSetItem(item));
}

void Binder::BindSet(const parser::ParsedSetClause& set, BoundClause* out) {
  out->kind = BoundClause::Kind::kSet;
  read_only_ = false;
  creates_only_ = false;
  for (const auto& item : set.items) out->set_items.push_back(BindSetItem(item));
}

void Binder::BindRemove(const parser::ParsedRemoveClause& remove, BoundClause* out) {
  out->kind = BoundClause::Kind::kSet;
  read_only_ = false;
  creates_only_ = false;
  for (const auto& item : remove.items) out->set_items.push_back(BindRemoveItem(*item));
}

void Binder::BindDelete(const parser::ParsedDeleteClause& del, BoundClause* out) {
  out->kind = BoundClause::Kind::kDelete;
  read_only_ = false;
  creates_only_ = false;
  out->detach = del.detach;
  for (const auto& e : del.expressions) {
    auto target = Bind(*e);
    if (!IsPatternVariable(*target)) {
      BindError("Cannot delete expression " + e->text + " with type " +
                (target->kind == ExprKind::kVariable ? "VARIABLE" : "EXPRESSION") +
                ". Expect node or rel pattern.");
    }
    if (target->type.id() == LogicalTypeId::kRel) {
      if (del.detach) BindError("Detach delete on rel tables is not supported.");
      const VariableInfo* v = scope_->Find(target->text);
      if (v && v->undirected) BindError("Delete undirected rel is not supported.");
    }
    out->delete_exprs.push_back(std::move(target));
  }
}

bool Binder::IsPatternVariable(const BoundExpression& expr) const {
  if (!IsNodeOrRel(expr.type) || expr.kind != ExprKind::kVariable) return false;
  const VariableInfo* v = scope_->Find(expr.text);
  return v && v->slot == expr.slot && v->from_pattern && !v->table_ids.empty();
}

BoundSetItem Binder::BindSetItem(const parser::ParsedSetItem& item) {
  if (item.target->kind != ExpressionKind::kProperty) {
    ThrowNotSupported("SET of labels is not supported");
  }
  BoundSetItem out;
  auto target = Bind(*item.target->children[0]);
  if (!IsPatternVariable(*target)) {
    BindError("Cannot set expression " + item.target->children[0]->text + " with type " +
              (target->kind == ExprKind::kVariable ? "VARIABLE" : "EXPRESSION") +
              ". Expect node or rel pattern.");
  }
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.target->name;
  auto property = Bind(*item.target);
  if (out.property == "_id" || out.property == "_ID") BindError("Cannot set property _ID.");
  out.value = ImplicitCast(Bind(*item.value), property->type);
  return out;
}

BoundSetItem Binder::BindRemoveItem(const ParsedExpression& item) {
  if (item.kind != ExpressionKind::kProperty)
    ThrowNotSupported("REMOVE of labels is not supported");
  BoundSetItem out;
  out.kind = BoundSetItem::Kind::kRemoveProperty;
  auto target = Bind(*item.children[0]);
  if (!IsNodeOrRel(target->type))
    BindError("Cannot remove property of " + item.children[0]->text + ".");
  out.target = target->slot;
  out.target_is_rel = target->type.id() == LogicalTypeId::kRel;
  out.property = item.name;
  auto property = Bind(item);
  out.value = MakeLiteral(Value::Null(property->type), "NULL");
  return out;
}

void Binder::CheckCreatesSomething(const std::vector<BoundPattern>& patterns) {
  for (const BoundPattern& pattern : patterns) {
    if (!pattern.rels.empty()) return;
    for (const auto& node : pattern.nodes) {
      if (!node.bound_before) return;
    }
  }
  BindError("Cannot resolve any node or relationship to create.");
}

namespace {

// Keeps the ids of `ids` that `allowed` holds; whether any went.
bool KeepAllowed(std::vector<uint64_t>& ids, const std::vector<uint64_t>& allowed) {
  std::vector<uint64_t> kept;
  for (uint64_t id : ids) {
    if (std::find(allowed.begin(), allowed.end(), id) != allowed.end()) kept.push_back(id);
  }
  bool changed = kept.size() != ids.size();
  ids = std::move(kept);
  return changed;
}

}  // namespace

void Binder::InferCreateLabels(BoundPattern& pattern) {
  NarrowCreateTables(pattern);
  CheckCreateTables(pattern);
}

void Binder::NarrowCreateTables(BoundPattern& pattern) {
  // Narrow unlabelled nodes and untyped rels to the tables the pattern's rels can connect.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& rel : pattern.rels) {
      BoundNodePattern& left = pattern.nodes[rel.left];
      BoundNodePattern& right = pattern.nodes[rel.right];
      bool forward = rel.direction != Direction::kBackward;
      BoundNodePattern& src = forward ? left : right;
      BoundNodePattern& dst = forward ? right : left;
      std::vector<uint64_t> rel_ok, src_ok, dst_ok;
      for (uint64_t rel_id : rel.table_ids) {
        bool used = false;
        for (const auto& pair : catalog_.GetRelTable(rel_id)->pairs) {
          bool s = std::find(src.table_ids.begin(), src.table_ids.end(), pair.src_table) !=
                   src.table_ids.end();
          bool d = std::find(dst.table_ids.begin(), dst.table_ids.end(), pair.dst_table) !=
                   dst.table_ids.end();
          if (!s || !d) continue;
          used = true;
          src_ok.push_back(pair.src_table);
          dst_ok.push_back(pair.dst_table);
        }
        if (used) rel_ok.push_back(rel_id);
      }
      if (rel.table_ids.size() > 1) changed |= KeepAllowed(rel.table_ids, rel_ok);
      if (!src.bound_before && src.table_ids.size() > 1) {
        changed |= KeepAllowed(src.table_ids, src_ok);
      }
      if (!dst.bound_before && dst.table_ids.size() > 1) {
        changed |= KeepAllowed(dst.table_ids, dst_ok);
      }
    }
  }
}

void Binder::CheckCreateTables(const BoundPattern& pattern) {
  for (auto& node : pattern.nodes) {
    if (node.bound_before) continue;
    if (node.table_ids.empty()) {
      BindError("Create node " + node.name + " with empty node labels is not supported.");
    }
    if (node.table_ids.size() > 1) {
      BindError("Create node " + node.name + " with multiple node labels is not supported.");
    }
    if (!node.name.empty()) {
      VariableInfo info{node.name, node.slot, LogicalType(LogicalTypeId::kNode), node.table_ids};
      info.from_pattern = true;
      scope_->Add(std::move(info));
    }
  }
  for (auto& rel : pattern.rels) {
    if (rel.table_ids.size() != 1) {
      BindError("Cannot find a label for relationship " + rel.name +
                " that connects to all of its neighbour nodes.");
    }
    // Ends of one table each (an earlier clause's nodes included) that no FROM/TO pair of the
    // rel table joins: no row could be created.
    const BoundNodePattern& left = pattern.nodes[rel.left];
    const BoundNodePattern& right = pattern.nodes[rel.right];
    bool forward = rel.direction != Direction::kBackward;
    const BoundNodePattern& src = forward ? left : right;
    const BoundNodePattern& dst = forward ? right : left;
    if (src.table_ids.size() == 1 && dst.table_ids.size() == 1 &&
        !catalog_.GetRelTable(rel.table_ids[0])->FindPair(src.table_ids[0], dst.table_ids[0])) {
      BindError("Cannot find a valid label in " + rel.name + " that connects " +
                catalog_.TableName(src.table_ids[0]) + " and " +
                catalog_.TableName(dst.table_ids[0]) + ".");
    }
    if (!rel.name.empty()) {
      if (const VariableInfo* v = scope_->Find(rel.name)) {
        VariableInfo info = *v;
        info.table_ids = rel.table_ids;
        scope_->Add(std::move(info));
      }
    }
  }
}

}  // namespace graphdb::binder
