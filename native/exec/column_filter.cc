#include "exec/column_filter.h"

#include <string_view>

#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

using planner::ColumnTestOp;

namespace {

// How a test reads its column in one table.
enum class Read : uint8_t {
  kGeneric,   // evaluate the conjunct on the row
  kNever,     // a comparison with NULL (or a missing property): never TRUE
  kNullTest,  // IS [NOT] NULL on the validity bit (or a missing property: always NULL)
  kInteger,   // signed integers (GetInt64)
  kInt64,     // an INT64-wide column (GetFixed<int64_t>)
  kString,    // bytes
};

bool IsStringTest(ColumnTestOp op) {
  return op == ColumnTestOp::kStartsWith || op == ColumnTestOp::kEndsWith ||
         op == ColumnTestOp::kContains;
}

template <typename T>
bool Holds(ColumnTestOp op, const T& a, const T& b) {
  switch (op) {
    case ColumnTestOp::kEq: return a == b;
    case ColumnTestOp::kNe: return a != b;
    case ColumnTestOp::kLt: return a < b;
    case ColumnTestOp::kLe: return a <= b;
    case ColumnTestOp::kGt: return a > b;
    case ColumnTestOp::kGe: return a >= b;
    default: return false;
  }
}

bool HoldsForString(ColumnTestOp op, std::string_view s, std::string_view v) {
  switch (op) {
    case ColumnTestOp::kStartsWith: return s.substr(0, v.size()) == v;
    case ColumnTestOp::kEndsWith: return s.size() >= v.size() && s.substr(s.size() - v.size()) == v;
    case ColumnTestOp::kContains: return s.find(v) != std::string_view::npos;
    default: return Holds(op, s, v);
  }
}

}  // namespace

bool IsTemporal(LogicalTypeId id) {
  return id == LogicalTypeId::kDate || LogicalType(id).IsTimestamp();
}

struct ColumnFilter::Test {
  bool is_test = false;  // the conjunct is a planner::ColumnTest
  planner::ColumnTest test{};
  Value value;                                  // per run
  std::vector<Read> reads;                      // per table
  std::vector<const storage::Column*> columns;  // per table
};

ColumnFilter::ColumnFilter(const std::vector<const binder::BoundExpression*>& predicates,
                           binder::SlotId slot, const std::vector<uint64_t>& tables)
    : predicates_(predicates), slot_(slot), tables_(tables), tests_(predicates.size()) {
  for (size_t i = 0; i < predicates.size(); ++i) {
    tests_[i].is_test = planner::AsColumnTest(*predicates[i], slot, &tests_[i].test);
  }
}

ColumnFilter::~ColumnFilter() = default;

void ColumnFilter::Open(ExecContext& ctx, GraphStore& store) {
  table_ptrs_.clear();
  for (uint64_t t : tables_) table_ptrs_.push_back(&store.node_table(t));
  for (Test& test : tests_) {
    test.reads.assign(tables_.size(), Read::kGeneric);
    test.columns.assign(tables_.size(), nullptr);
    if (!test.is_test) continue;
    const ColumnTestOp op = test.test.op;
    const bool null_test = op == ColumnTestOp::kIsNull || op == ColumnTestOp::kIsNotNull;
    test.value = null_test ? Value() : Evaluate(*test.test.value, ctx);
    const std::vector<int32_t>& columns = test.test.property->property_columns;
    for (size_t t = 0; t < tables_.size(); ++t) {
      const int32_t c = tables_[t] < columns.size() ? columns[tables_[t]] : -1;
      const storage::NodeTable& table = *table_ptrs_[t];
      const storage::Column* column =
          c >= 0 && static_cast<size_t>(c) < table.NumColumns() ? &table.column(c) : nullptr;
      test.columns[t] = column;
      if (null_test) {
        test.reads[t] = Read::kNullTest;
        continue;
      }
      if (column == nullptr || test.value.is_null()) {
        test.reads[t] = Read::kNever;
        continue;
      }
      const LogicalTypeId have = column->type().id();
      const LogicalTypeId want = test.value.type_id();
      if (IsStringTest(op)) {
        if (have == LogicalTypeId::kString && want == LogicalTypeId::kString) {
          test.reads[t] = Read::kString;
        }
      } else if (have == LogicalTypeId::kString && want == LogicalTypeId::kString) {
        test.reads[t] = Read::kString;
      } else if ((IsSignedInteger(have) && IsSignedInteger(want)) ||
                 (IsTemporal(have) && have == want)) {
        test.reads[t] =
            column->kind() == storage::PhysicalKind::kInt64 ? Read::kInt64 : Read::kInteger;
      }
    }
  }
}

bool ColumnFilter::Generic(ExecContext& ctx, size_t table, uint64_t offset) {
  ctx.frame[slot_] = Value::Id({tables_[table], offset});
  for (const binder::BoundExpression* predicate : predicates_) {
    if (!EvaluatePredicate(*predicate, ctx)) return false;
  }
  return true;
}

bool ColumnFilter::Passes(ExecContext& ctx, size_t table, uint64_t offset) {
  bool read_cells = false;
  bool framed = false;
  bool pass = true;
  for (size_t i = 0; i < tests_.size() && pass; ++i) {
    const Test& test = tests_[i];
    const storage::Column* column = test.columns[table];
    switch (test.reads[table]) {
      case Read::kGeneric:
        if (!framed) {
          ctx.frame[slot_] = Value::Id({tables_[table], offset});
          framed = true;
        }
        pass = EvaluatePredicate(*predicates_[i], ctx);
        break;
      case Read::kNever: pass = false; break;
      case Read::kNullTest: {
        read_cells = true;
        const bool null = column == nullptr || column->IsNull(offset);
        pass = test.test.op == ColumnTestOp::kIsNull ? null : !null;
        break;
      }
      case Read::kInteger:
        read_cells = true;
        pass = !column->IsNull(offset) &&
               Holds(test.test.op, column->GetInt64(offset), test.value.GetInt());
        break;
      case Read::kInt64:
        read_cells = true;
        pass = !column->IsNull(offset) &&
               Holds(test.test.op, column->GetFixed<int64_t>(offset), test.value.GetInt());
        break;
      case Read::kString: {
        read_cells = true;
        if (column->IsNull(offset)) {
          pass = false;
          break;
        }
        // The length alone decides most equalities and prefix tests.
        const uint32_t length = column->StringLength(offset);
        const size_t wanted = test.value.GetString().size();
        const ColumnTestOp op = test.test.op;
        if ((op == ColumnTestOp::kEq || op == ColumnTestOp::kNe) && length != wanted) {
          pass = op == ColumnTestOp::kNe;
          break;
        }
        if ((op == ColumnTestOp::kStartsWith || op == ColumnTestOp::kEndsWith) && length < wanted) {
          pass = false;
          break;
        }
        char inline_bytes[storage::Column::kInlineStringBytes];
        pass = HoldsForString(op, column->ReadString(offset, inline_bytes), test.value.GetString());
        break;
      }
    }
  }
  // Cells read before a writer's old value entered the versions: decide the row as the
  // generic path would, through the store.
  if (read_cells && !table_ptrs_[table]->versions().empty()) return Generic(ctx, table, offset);
  return pass;
}

}  // namespace graphdb::exec
