#include "exec/parallel_pipeline.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_set>

#include "exec/adjacency_lookahead.h"
#include "exec/column_filter.h"
#include "exec/executor.h"
#include "exec/graph_store.h"
#include "exec/hash_join.h"
#include "exec/scan_aggregate.h"

namespace graphdb::exec {

using binder::BoundExpression;
using binder::ExprKind;
using binder::SlotId;
using planner::LogicalOperator;
using planner::LogicalOpKind;

namespace {

bool SubqueryShareable(const binder::BoundQueryPart& part);

// Whether threads may evaluate `expr` at once: it calls no non-deterministic function (random(),
// nextval(): shared state, and an answer that would depend on the thread) and its subqueries
// (EXISTS, COUNT; each worker runs them with its own SubqueryRunner) only read the graph.
bool Shareable(const BoundExpression* expr) {
  if (expr == nullptr) return true;
  if (!expr->IsDeterministic()) return false;
  std::vector<const BoundExpression*> stack{expr};
  while (!stack.empty()) {
    const BoundExpression* e = stack.back();
    stack.pop_back();
    if (e->kind == ExprKind::kSubquery && (!e->subquery || !SubqueryShareable(*e->subquery))) {
      return false;
    }
    for (const auto& child : e->children) stack.push_back(child.get());
  }
  return true;
}

// Whether workers may run the subquery `part` at once, each with its own operators: MATCH
// clauses alone (they only read), whose expressions are Shareable.
bool SubqueryShareable(const binder::BoundQueryPart& part) {
  for (const binder::BoundClause& clause : part.clauses) {
    if (clause.kind != binder::BoundClause::Kind::kMatch || !Shareable(clause.where.get())) {
      return false;
    }
    for (const binder::BoundPattern& pattern : clause.patterns) {
      if (!Shareable(pattern.path_expr.get())) return false;
      for (const binder::BoundNodePattern& node : pattern.nodes) {
        for (const auto& p : node.properties) {
          if (!Shareable(p.value.get())) return false;
        }
      }
      for (const binder::BoundRelPattern& rel : pattern.rels) {
        for (const auto& p : rel.properties) {
          if (!Shareable(p.value.get())) return false;
        }
        if (!Shareable(rel.step_predicate.get()) || !Shareable(rel.weight.get()) ||
            !Shareable(rel.node_step_predicate.get())) {
          return false;
        }
      }
    }
  }
  return true;
}

// The bottom scan of the pipeline whose top is `op`, or null when `op` is no pipeline whose
// operators may run on several threads. `source`: set to the per-node fused aggregation the
// chain ends in, if it does.
const LogicalOperator* PipelineScan(const LogicalOperator& op, const catalog::Catalog* catalog,
                                    const LogicalOperator** source = nullptr) {
  const LogicalOperator* cur = &op;
  while (true) {
    switch (cur->kind) {
      case LogicalOpKind::kFilter:
        for (const BoundExpression* predicate : cur->predicates) {
          if (!Shareable(predicate)) return nullptr;
        }
        break;
      case LogicalOpKind::kUnwind:
        if (!Shareable(cur->expr)) return nullptr;
        break;
      case LogicalOpKind::kProjection:
        for (const auto& item : cur->items) {
          if (!Shareable(item.expr)) return nullptr;
        }
        break;
      case LogicalOpKind::kExpand:
        if (cur->variable_length) return nullptr;
        break;
      case LogicalOpKind::kCountExpand:
      case LogicalOpKind::kSemiJoin:  // keeps the neighbours of its last node: one per worker
      case LogicalOpKind::kIntersect: break;
      case LogicalOpKind::kIndexSeek:
        if (!Shareable(cur->key_expr)) return nullptr;
        break;
      case LogicalOpKind::kHashJoin:  // the probe side is the pipeline
        for (const BoundExpression* key : cur->probe_keys) {
          if (!Shareable(key)) return nullptr;
        }
        break;
      case LogicalOpKind::kNodeScan:
        if (cur->children.size() == 1 && cur->children[0]->kind == LogicalOpKind::kSingleRow) {
          return cur;
        }
        break;
      case LogicalOpKind::kAggregate:
        if (const LogicalOperator* scan = PerNodeScanAggregate(*cur, catalog)) {
          if (source != nullptr) *source = cur;
          return scan;
        }
        return nullptr;
      default: return nullptr;
    }
    if (cur->children.empty()) return nullptr;
    cur = cur->children[0].get();
  }
}

// Whether partial aggregates of `op` (a kAggregate) merge into what one pass would give.
bool AggregatesMerge(const LogicalOperator& op) {
  for (const BoundExpression* a : op.aggregates) {
    // collect()'s list keeps the input order, which partial lists would lose.
    if (!a->aggregate || a->aggregate->name == "collect") return false;
  }
  return true;
}

// Whether `op`, a pipeline breaker, has an input that may run in parallel.
bool BreakerRunsParallel(const LogicalOperator& op, bool under_limit,
                         const catalog::Catalog* catalog) {
  if (op.children.empty()) return false;
  std::vector<const BoundExpression*> exprs;
  switch (op.kind) {
    case LogicalOpKind::kAggregate:
      if (!AggregatesMerge(op)) return false;
      for (const auto& item : op.items) exprs.push_back(item.expr);
      for (const BoundExpression* a : op.aggregates) exprs.push_back(a);
      break;
    case LogicalOpKind::kSort:
      for (const auto* o : op.order_by) exprs.push_back(o->expr.get());
      break;
    case LogicalOpKind::kDistinct:
      if (under_limit) return false;
      break;
    default: return false;
  }
  for (const BoundExpression* e : exprs) {
    if (!Shareable(e)) return false;
  }
  return PipelineScan(*op.children[0], catalog) != nullptr;
}

// The bottom scan's part of a parallel run: the items [begin, end) of the rows of its tables
// laid end to end (limits: each table's row count when the run started), the visible ones.
class RangeScanOp final : public PhysicalOperator, public FilterableScan, public MorselSource {
 public:
  RangeScanOp(SlotId slot, const std::vector<uint64_t>& tables) : slot_(slot), tables_(tables) {}

  void SetFilter(std::unique_ptr<ColumnFilter> filter) override { filter_ = std::move(filter); }
  void PrefetchAdjacency(std::vector<uint64_t> rel_tables, binder::Direction direction) override {
    if (filter_) ahead_.Expand(std::move(rel_tables), direction);
  }

  void SetRange(const std::vector<uint64_t>* limits, uint64_t begin, uint64_t end) override {
    limits_ = limits;
    begin_ = begin;
    end_ = end;
  }

  void Open(ExecContext& ctx) override {
    store_ = ctx.store;
    position_ = begin_;
    table_index_ = 0;
    table_start_ = 0;
    table_ = nullptr;
    if (filter_) filter_->Open(ctx, *store_);
    ahead_.Clear();
  }

  bool Next(ExecContext& ctx) override {
    // (Rows found ahead are of table_, returned before the scan moves on.)
    while (position_ < end_ || ahead_.pending()) {
      if ((table_ == nullptr || position_ >= table_end_) && !ahead_.pending()) {
        // The table position_ falls in.
        while (position_ >= table_start_ + (*limits_)[table_index_]) {
          table_start_ += (*limits_)[table_index_++];
          table_ = nullptr;
        }
        if (table_ == nullptr) {
          table_ = &store_->node_table(tables_[table_index_]);
          visible_.emplace(*store_, *table_, (*limits_)[table_index_]);
          if (ahead_.enabled()) ahead_.Begin(*store_, tables_[table_index_]);
        }
        // Kept, not read through limits_ per row (a vector of another object's).
        table_end_ = std::min(end_, table_start_ + (*limits_)[table_index_]);
      }
      const uint64_t table_end = table_end_;
      uint64_t offset;
      auto find = [&](uint64_t* row) {
        while (position_ < table_end) {
          if (filter_) {  // past the rows its column tests reject
            position_ = table_start_ + filter_->Skip(ctx, table_index_, position_ - table_start_,
                                                     table_end - table_start_);
            if (position_ >= table_end) break;
          }
          ctx.ChargeWork();
          const uint64_t o = position_++ - table_start_;
          if (!(*visible_)(o)) continue;
          if (filter_ && !filter_->Passes(ctx, table_index_, o)) continue;
          *row = o;
          return true;
        }
        return false;
      };
      if (ahead_.enabled() ? ahead_.Next(find, &offset) : find(&offset)) {
        ctx.frame[slot_] = Value::Id({tables_[table_index_], offset});
        return true;
      }
    }
    return false;
  }

 private:
  SlotId slot_;
  const std::vector<uint64_t>& tables_;
  const std::vector<uint64_t>* limits_ = nullptr;
  uint64_t begin_ = 0, end_ = 0;
  GraphStore* store_ = nullptr;
  uint64_t position_ = 0;
  size_t table_index_ = 0;
  uint64_t table_start_ = 0;
  uint64_t table_end_ = 0;  // where the run's rows of table_ end (valid while table_ is set)
  storage::NodeTable* table_ = nullptr;
  std::optional<NodeRowVisibility> visible_;  // table_'s rows, a block at a time
  std::unique_ptr<ColumnFilter> filter_;
  AdjacencyLookahead ahead_;
};

}  // namespace

struct ParallelPipeline::Worker {
  explicit Worker(const catalog::Catalog* catalog, std::shared_ptr<SubqueryPlans> plans)
      : subqueries(catalog, std::move(plans)) {}
  ExecContext ctx;
  SubqueryRunner subqueries;  // the worker's own plans of the pipeline's subqueries
  PlanProfile profile;
  OperatorPtr root;
  MorselSource* scan = nullptr;
  std::vector<std::pair<const LogicalOperator*, HashJoinOp*>> joins;  // probing a Join's table
};

struct ParallelPipeline::Join {
  const LogicalOperator* op = nullptr;
  OperatorPtr build;  // the build side's operators, run on the caller
  std::unique_ptr<ParallelPipeline> parallel_build;  // or on the workers, when it runs there
  std::shared_ptr<const HashJoinOp::Table> table;
  MemoryCharge memory;
};

ParallelPipeline::ParallelPipeline(const LogicalOperator& input, const LogicalOperator& scan,
                                   const LogicalOperator* source, const catalog::Catalog* catalog,
                                   PlanProfile* profile)
    : input_(input), scan_(scan), source_(source), catalog_(catalog), profile_(profile) {}

ParallelPipeline::~ParallelPipeline() = default;

void ParallelPipeline::PrefetchScanAdjacency(const LogicalOperator& input, PhysicalOperator& root,
                                             const catalog::Catalog* catalog) {
  const LogicalOperator* scan = PipelineScan(input, catalog);
  if (scan == nullptr) return;  // (it may write, or run a subquery)
  // Down to the operator right above the scan, the physical one in step (one each, but for a
  // FILTER the scan runs itself: planner scan_filter_rule.cc).
  const LogicalOperator* op = &input;
  PhysicalOperator* physical = &root;
  auto right_above = [scan](const LogicalOperator& o) {
    if (o.children.empty()) return false;
    const LogicalOperator& below = *o.children[0];
    return &below == scan || (below.kind == LogicalOpKind::kFilter && below.children.size() == 1 &&
                              below.children[0].get() == scan && scan->column_filter);
  };
  while (!right_above(*op)) {
    if (op->children.empty() || physical->child == nullptr) return;
    op = op->children[0].get();
    physical = physical->child.get();
  }
  auto* filterable = dynamic_cast<FilterableScan*>(physical->child.get());
  if (filterable == nullptr) return;
  const LogicalOperator* expand = nullptr;
  if (op->kind == LogicalOpKind::kExpand && !op->variable_length) expand = op;
  if (op->kind == LogicalOpKind::kCountExpand) {
    for (const auto& e : op->counted) {
      if (e->from_slot == scan->slot && !e->variable_length) {
        expand = e.get();
        break;
      }
    }
  }
  if (expand == nullptr || expand->from_slot != scan->slot) return;
  filterable->PrefetchAdjacency(expand->rel_table_ids, expand->direction);
}

std::unique_ptr<ParallelPipeline> ParallelPipeline::ForJoinBuild(const LogicalOperator& join,
                                                                 const catalog::Catalog* catalog,
                                                                 PlanProfile* profile) {
  if (catalog == nullptr || join.children.size() != 2) return nullptr;
  for (const BoundExpression* key : join.build_keys) {
    if (!Shareable(key)) return nullptr;
  }
  const LogicalOperator* source = nullptr;
  const LogicalOperator* scan = PipelineScan(*join.children[1], catalog, &source);
  if (scan == nullptr) return nullptr;
  return std::unique_ptr<ParallelPipeline>(
      new ParallelPipeline(*join.children[1], *scan, source, catalog, profile));
}

std::unique_ptr<ParallelPipeline> ParallelPipeline::For(const LogicalOperator& breaker,
                                                        bool under_limit,
                                                        const catalog::Catalog* catalog,
                                                        PlanProfile* profile) {
  if (catalog == nullptr || !BreakerRunsParallel(breaker, under_limit, catalog)) return nullptr;
  const LogicalOperator& input = *breaker.children[0];
  const LogicalOperator* source = nullptr;
  const LogicalOperator* scan = PipelineScan(input, catalog, &source);
  return std::unique_ptr<ParallelPipeline>(
      new ParallelPipeline(input, *scan, source, catalog, profile));
}

void ParallelPipeline::ForEach(ExecContext& ctx, uint64_t n, const TaskPool::Body& body) {
  if (ctx.tasks == nullptr || ctx.parallelism <= 1) {
    if (n > 0) body(0, 0, n);
    return;
  }
  ctx.tasks->ParallelFor(n, 1, ctx.parallelism, body);
}

void ParallelPipeline::ShareStatement(ExecContext& ctx, ExecContext& wctx) {
  // The worker writes its frame per row: the copy's block reaches at least a line past its
  // values, so that no block malloc places after it (the next worker's frame, made next)
  // shares a line with them (common/cache_line.h).
  constexpr size_t kPad = (kCacheLine + sizeof(Value) - 1) / sizeof(Value);
  if (wctx.frame.capacity() < ctx.frame.size() + kPad) {
    std::vector<Value> padded;
    padded.reserve(ctx.frame.size() + kPad);
    wctx.frame.swap(padded);
  }
  wctx.frame.assign(ctx.frame.begin(), ctx.frame.end());
  wctx.params = ctx.params;
  // The statement's instant, fixed before the workers copy it (else each would read the clock).
  ctx.fn_ctx.Now();
  wctx.fn_ctx = ctx.fn_ctx;
  // The worker's own account of built values (the statement's is not thread-safe), charging the
  // statement's control (shared, atomic: its limit holds for all threads together).
  wctx.fn_ctx.memory = &wctx.expr_memory;
  wctx.expr_memory.Rebind(ctx.control);
  wctx.graph = ctx.graph;
  wctx.store = ctx.store;
  wctx.settings = ctx.settings;
  wctx.query_id = ctx.query_id;
  wctx.control = ctx.control;
  wctx.top_bound = nullptr;  // a TOP_K sets its worker's own
  // Unlimited, or bounded by the statement's clock (an inline run, MayRunParallel): each
  // worker counts its own units and reads the clock past each budget's worth.
  wctx.SetWorkBudget(ctx.BudgetRenews() ? ctx.budget_step : 0);
  wctx.RenewBudgetUntil(ctx.renew_until);
}

bool ParallelPipeline::MayRunParallel(const ExecContext& ctx) {
  return ctx.tasks != nullptr && ctx.parallelism > 1 && ctx.BudgetBoundsTime();
}

unsigned ParallelPipeline::MorselWorkers(const ExecContext& ctx, uint64_t rows) {
  if (!MayRunParallel(ctx) || rows < kMinParallelRows) return 1;
  return ctx.tasks->WorkersFor(rows, kMorselRows, ctx.parallelism);
}

uint64_t ParallelPipeline::TableRows(GraphStore& store, const std::vector<uint64_t>& tables,
                                     std::vector<uint64_t>* limits) {
  limits->clear();
  uint64_t total = 0;
  for (uint64_t t : tables) {
    limits->push_back(store.node_table(t).NumRows());
    total += limits->back();
  }
  return total;
}

bool ParallelPipeline::Run(ExecContext& ctx, const std::function<void(unsigned)>& prepare,
                           const Consume& consume) {
  if (ctx.store == nullptr || !MayRunParallel(ctx)) return false;
  std::vector<uint64_t> limits;
  const uint64_t total = TableRows(*ctx.store, scan_.table_ids, &limits);
  const unsigned workers = MorselWorkers(ctx, total);
  if (workers <= 1) return false;
  rows_ = total;

  while (workers_.size() < workers) {
    if (!subquery_plans_) subquery_plans_ = std::make_shared<SubqueryPlans>(catalog_);
    auto worker = std::make_unique<Worker>(catalog_, subquery_plans_);
    MorselSource* scan = nullptr;
    const LogicalOperator* scan_op = &scan_;
    PlanProfile* profile = profile_ ? &worker->profile : nullptr;
    PlanOverride leaf;
    leaf = [&](const LogicalOperator& op) -> OperatorPtr {
      if (op.kind == LogicalOpKind::kHashJoin) {  // probes the table the caller builds
        auto join = std::make_unique<HashJoinOp>(HashJoinSpec::Of(op), nullptr);
        join->child = MapPlan(*op.children[0], catalog_, profile, &leaf);
        worker->joins.emplace_back(&op, join.get());
        return join;
      }
      if (&op == source_) return MakeScanAggregateSource(op, catalog_, profile, &scan);
      if (&op != scan_op) return nullptr;
      auto out = std::make_unique<RangeScanOp>(op.slot, op.table_ids);
      scan = out.get();
      return out;
    };
    worker->root = MapPlan(input_, catalog_, profile, &leaf);
    if (profile == nullptr) PrefetchScanAdjacency(input_, *worker->root, catalog_);
    worker->scan = scan;
    workers_.push_back(std::move(worker));
  }
  // The hash joins' tables, each built once on this thread for every worker to probe.
  for (const LogicalOperator* op = &input_; op != &scan_ && op != source_;
       op = op->children[0].get()) {
    if (op->kind != LogicalOpKind::kHashJoin) continue;
    auto it = std::find_if(joins_.begin(), joins_.end(),
                           [op](const std::unique_ptr<Join>& j) { return j->op == op; });
    if (it == joins_.end()) {
      joins_.push_back(std::make_unique<Join>());
      joins_.back()->op = op;
      joins_.back()->build = MapPlan(*op->children[1], catalog_, profile_);
      joins_.back()->parallel_build = ForJoinBuild(*op, catalog_, profile_);
      it = joins_.end() - 1;
    }
    Join& join = **it;
    join.table.reset();
    join.memory.Release(ctx);
    join.table = HashJoinOp::BuildTable(HashJoinSpec::Of(*op), *join.build, ctx, join.memory,
                                        join.parallel_build.get());
  }
  for (const auto& worker : workers_) {
    for (auto& [op, probe] : worker->joins) {
      for (const auto& join : joins_) {
        if (join->op == op) probe->SetTable(join->table);
      }
    }
  }
  for (unsigned w = 0; w < workers; ++w) {
    ShareStatement(ctx, workers_[w]->ctx);
    workers_[w]->ctx.next_morsel = false;
    workers_[w]->ctx.subqueries = &workers_[w]->subqueries;
    workers_[w]->subqueries.NewStatement();  // what its plans learnt of the graph is stale
  }
  prepare(workers);
  ctx.tasks->ParallelFor(total, kMorselRows, ctx.parallelism,
                         [&](unsigned w, uint64_t begin, uint64_t end) {
                           Worker& worker = *workers_[w];
                           worker.scan->SetRange(&limits, begin, end);
                           worker.root->Open(worker.ctx);
                           worker.ctx.next_morsel = true;
                           uint64_t position = (begin / kMorselRows) << kRankBits;
                           while (worker.root->Next(worker.ctx)) {
                             consume(w, worker.ctx, position++);
                           }
                         });
  if (profile_) {
    for (unsigned w = 0; w < workers; ++w) {
      for (auto& [op, stats] : workers_[w]->profile) {
        OperatorStats& total_stats = (*profile_)[op];
        total_stats.rows += stats.rows;
        total_stats.nanos += stats.nanos;
        stats = {};
      }
    }
  }
  return true;
}

std::function<std::string(const LogicalOperator&)> ParallelNotes(const LogicalOperator& root,
                                                                 const catalog::Catalog* catalog) {
  auto parallel = std::make_shared<std::unordered_set<const LogicalOperator*>>();
  std::vector<std::pair<const LogicalOperator*, bool>> stack{{&root, false}};
  while (!stack.empty()) {
    auto [op, under_limit] = stack.back();
    stack.pop_back();
    if (BreakerRunsParallel(*op, under_limit, catalog)) parallel->insert(op);
    for (const auto& child : op->children) {
      stack.push_back({child.get(), op->kind == LogicalOpKind::kSkipLimit});
    }
  }
  return [parallel, catalog](const LogicalOperator& op) -> std::string {
    if (!parallel->count(&op)) return "";
    const LogicalOperator* scan = PipelineScan(*op.children[0], catalog);
    std::string tables;
    for (uint64_t id : scan->table_ids) {
      if (!tables.empty()) tables += ',';
      std::string name = catalog ? catalog->TableName(id) : "";
      tables += name.empty() ? std::to_string(id) : name;
    }
    return " parallel=" + tables;
  };
}

}  // namespace graphdb::exec
