#include "main/plan_cache.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "common/recent_list.h"
#include "cypher/binder/binder.h"
#include "cypher/parser/parser.h"
#include "cypher/planner/planner.h"
#include "exec/file_scan.h"
#include "exec/graph_store.h"
#include "function/value_ops.h"
#include "storage/node_table.h"
#include "storage/rel_table.h"

namespace graphdb {

namespace {

void AppendLength(size_t n, std::string* out) {
  uint32_t v = static_cast<uint32_t>(n);
  out->append(reinterpret_cast<const char*>(&v), sizeof(v));
}

void AppendBytes(std::string_view bytes, std::string* out) {
  AppendLength(bytes.size(), out);
  out->append(bytes);
}

// An exact, unambiguous encoding of a type: field names keep their case, since the binder
// passes them on to result types.
void AppendType(const LogicalType& type, std::string* out) {
  out->push_back(static_cast<char>(type.id()));
  switch (type.id()) {
    case LogicalTypeId::kList:
    case LogicalTypeId::kMap: AppendType(type.child(), out); break;
    case LogicalTypeId::kArray:
      AppendLength(type.array_size(), out);
      AppendType(type.child(), out);
      break;
    case LogicalTypeId::kStruct:
    case LogicalTypeId::kUnion:
      AppendLength(type.fields().size(), out);
      for (const auto& field : type.fields()) {
        AppendBytes(field.name, out);
        AppendType(*field.type, out);
      }
      break;
    default: break;
  }
}

// The compiled level's key: the statement text, then each parameter's name and type in name
// order (the map's own order is unspecified).
std::string CompiledKey(std::string_view text,
                        const std::unordered_map<std::string, Value>& params) {
  std::string key;
  key.reserve(text.size() + 8 + params.size() * 16);
  AppendBytes(text, &key);
  if (params.empty()) return key;
  std::vector<const std::pair<const std::string, Value>*> sorted;
  sorted.reserve(params.size());
  for (const auto& entry : params) sorted.push_back(&entry);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : sorted) {
    AppendBytes(entry->first, &key);
    AppendType(entry->second.type(), &key);
  }
  return key;
}

// Whether the compiled level keeps `compiled` (of `statement`): not LOAD FROM (its binding
// depends on the files), not a CALL given a parameter's value, not texts over the size limit.
bool CacheableCompiled(const parser::ParsedQueryStatement& statement,
                       const CompiledQuery& compiled) {
  return !compiled.bound->reads_files && !compiled.bound->binds_parameter_values &&
         statement.text.size() <= PlanCache::kMaxCachedTextBytes;
}

bool CacheableParse(std::string_view text, const ParsedStatements& statements) {
  return text.size() <= PlanCache::kMaxCachedTextBytes && statements.size() == 1 &&
         statements[0]->kind == parser::StatementKind::kQuery;
}

// The estimates the planner is given: `live`'s counts, each one read noted in `*read` once.
class RecordingEstimates final : public planner::CardinalityEstimates {
 public:
  RecordingEstimates(const planner::CardinalityEstimates& live, std::vector<PlannedCount>* read)
      : live_(live), read_(*read) {}
  double NodeCount(catalog::TableId table) const override { return Read(false, table); }
  double EdgeCount(catalog::TableId pair_id) const override { return Read(true, pair_id); }
  double DistinctValues(catalog::TableId table, size_t property) const override {
    return live_.DistinctValues(table, property);
  }

 private:
  double Read(bool edges, catalog::TableId id) const {
    for (const PlannedCount& c : read_) {
      if (c.edges == edges && c.id == id) return c.count;
    }
    const double count = edges ? live_.EdgeCount(id) : live_.NodeCount(id);
    read_.push_back({edges, id, count});
    return count;
  }
  const planner::CardinalityEstimates& live_;
  std::vector<PlannedCount>& read_;
};

}  // namespace

double StorageEstimates::NodeCount(catalog::TableId table) const {
  const storage::NodeTable* t = tables_.GetNodeTable(table);
  return t ? static_cast<double>(t->NumLiveRows()) : 0;
}

double StorageEstimates::EdgeCount(catalog::TableId pair_id) const {
  const storage::RelTable* t = tables_.GetRelTable(pair_id);
  return t ? static_cast<double>(t->NumLiveRels()) : 0;
}

double StorageEstimates::DistinctValues(catalog::TableId table, size_t property) const {
  const storage::NodeTable* t = tables_.GetNodeTable(table);
  if (t == nullptr || property >= t->NumColumns()) return 0;
  const uint64_t rows = t->NumRows();
  const uint64_t step = std::max<uint64_t>(1, rows / kDistinctSample);
  struct Hash {
    size_t operator()(const Value& v) const { return function::HashValue(v); }
  };
  struct Equal {
    bool operator()(const Value& a, const Value& b) const { return function::ValuesEqual(a, b); }
  };
  std::unordered_map<Value, uint32_t, Hash, Equal> seen;
  double sampled = 0;
  for (uint64_t row = 0; row < rows; row += step) {
    ++sampled;
    Value v = t->Get(property, row);
    if (!v.is_null()) ++seen[std::move(v)];
  }
  double once = 0;
  for (const auto& entry : seen) once += entry.second == 1 ? 1 : 0;
  const double distinct = static_cast<double>(seen.size());
  if (step == 1) return distinct;
  return std::sqrt(static_cast<double>(rows) / sampled) * once + (distinct - once);
}

bool CompiledQuery::CountsChanged(const planner::CardinalityEstimates* estimates) const {
  if (estimates == nullptr) return false;
  for (const PlannedCount& c : planned_counts) {
    if (c.Changed(c.edges ? estimates->EdgeCount(c.id) : estimates->NodeCount(c.id))) return true;
  }
  return false;
}

std::shared_ptr<const CompiledQuery> CompileQuery(
    const parser::ParsedRegularQuery& query, const std::unordered_map<std::string, Value>& params,
    const catalog::Catalog& catalog, const planner::CardinalityEstimates* estimates) {
  auto compiled = std::make_shared<CompiledQuery>();
  compiled->catalog_version = catalog.version();
  binder::Binder binder(catalog, params);
  binder.set_file_scan_resolver(exec::ResolveFileScan);
  compiled->bound = binder.BindQuery(query);
  if (estimates != nullptr) {
    RecordingEstimates recording(*estimates, &compiled->planned_counts);
    compiled->plan = planner::PlanQuery(*compiled->bound, catalog, &recording);
  } else {
    compiled->plan = planner::PlanQuery(*compiled->bound, catalog);
  }
  compiled->inline_candidate =
      compiled->bound->read_only && IsInlineCandidate(compiled->plan, catalog);
  return compiled;
}

bool CompiledQuery::SkipInlineAttempt() const {
  uint32_t backoff = inline_backoff.load(std::memory_order_relaxed);
  if (backoff == 0) return false;
  // One try: when another connection counted meanwhile, this attempt is turned away uncounted.
  inline_backoff.compare_exchange_strong(backoff, backoff - 1, std::memory_order_relaxed);
  return true;
}

namespace {

// Whether an inline candidate may call `fn`. The library's functions are pure and take time in
// proportion to the size of their arguments, which come from stored values, parameters or
// rows the budget has charged. Excluded, as the budget cannot account for them:
//   - the non-deterministic ones (nextval, currval, random, setseed, gen_random_uuid,
//     current_date, current_timestamp): they change or read state beyond the statement (a
//     sequence, the session's generator) that an abandoned run must not touch;
//   - those whose result size comes from an argument's value rather than its size: range()
//     makes a list of any length, repeat(), lpad() and rpad() strings of any length;
//   - those whose time can grow much faster than their arguments within one call: regular
//     expressions (=~, regexp_*: the text's length times the compiled pattern's size, which a
//     counted repetition makes far larger than the pattern's text) and levenshtein()
//     (quadratic).
bool InlineSafeFunction(const function::BoundScalarFunction& fn) {
  if (!fn.deterministic) return false;
  const std::string& name = fn.name;
  return name != "range" && name != "repeat" && name != "lpad" && name != "rpad" && name != "=~" &&
         !name.starts_with("regexp_") && name != "levenshtein";
}

bool InlineSafeExpression(const binder::BoundExpression* e, const catalog::Catalog& catalog) {
  if (e == nullptr) return true;
  using binder::ExprKind;
  switch (e->kind) {
    case ExprKind::kScalarFunction:
      if (!e->scalar || !InlineSafeFunction(*e->scalar)) return false;
      break;
    case ExprKind::kOperatorChain:
      for (const auto& step : e->chain) {
        if (!InlineSafeFunction(step.fn)) return false;
      }
      break;
    case ExprKind::kSubquery: {
      // Runs over the same ExecContext, so its operators charge the same budget (the planner
      // makes the same plan of it again when it runs).
      planner::LogicalPlan sub;
      try {
        sub.root = planner::PlanSubquery(*e->subquery, catalog);
      } catch (const GraphDBException&) {
        return false;  // reported when it runs, as before
      }
      if (!IsInlineCandidate(sub, catalog)) return false;
      break;
    }
    default:
      // Comprehensions, quantifiers and lambdas charge a unit per list element; the rest take
      // time in proportion to their operands.
      break;
  }
  for (const auto& child : e->children) {
    if (!InlineSafeExpression(child.get(), catalog)) return false;
  }
  return true;
}

bool InlineSafeOperator(const planner::LogicalOperator& op, const catalog::Catalog& catalog) {
  using planner::LogicalOpKind;
  auto safe = [&catalog](const binder::BoundExpression* e) {
    return InlineSafeExpression(e, catalog);
  };
  switch (op.kind) {
    case LogicalOpKind::kSingleRow:
    case LogicalOpKind::kNodeScan:
    case LogicalOpKind::kDistinct:
    case LogicalOpKind::kUnion:
    case LogicalOpKind::kOptional:
    case LogicalOpKind::kMaterialize:
    case LogicalOpKind::kCountExpand:  // fixed-length expansions: no expressions
    case LogicalOpKind::kSemiJoin:     // one relationship looked up: no expressions
    case LogicalOpKind::kIntersect:    // fixed-length expansions: no expressions
      break;
    case LogicalOpKind::kIndexSeek:
      if (!safe(op.key_expr)) return false;
      break;
    case LogicalOpKind::kHashJoin:
      for (const auto* key : op.probe_keys) {
        if (!safe(key)) return false;
      }
      for (const auto* key : op.build_keys) {
        if (!safe(key)) return false;
      }
      for (const auto* predicate : op.predicates) {
        if (!safe(predicate)) return false;
      }
      break;
    case LogicalOpKind::kExpand:
      if (const binder::BoundRelPattern* rel = op.rel_pattern) {
        if (!safe(rel->step_predicate.get()) || !safe(rel->node_step_predicate.get()) ||
            !safe(rel->weight.get())) {
          return false;
        }
      }
      for (const auto* filter : op.end_filters) {
        if (!safe(filter)) return false;
      }
      break;
    case LogicalOpKind::kFilter:
      for (const auto* predicate : op.predicates) {
        if (!safe(predicate)) return false;
      }
      break;
    case LogicalOpKind::kUnwind:
    case LogicalOpKind::kSkipLimit:
      if (!safe(op.expr) || !safe(op.expr2)) return false;
      break;
    case LogicalOpKind::kProjection:
    case LogicalOpKind::kAggregate:
      for (const auto& item : op.items) {
        if (!safe(item.expr)) return false;
      }
      for (const auto* aggregate : op.aggregates) {
        if (!safe(aggregate)) return false;
      }
      break;
    case LogicalOpKind::kSort:
      for (const auto* item : op.order_by) {
        if (!safe(item->expr.get())) return false;
      }
      if (!safe(op.expr) || !safe(op.expr2)) return false;
      break;
    case LogicalOpKind::kUpdate:
    case LogicalOpKind::kTableFunction:
    case LogicalOpKind::kFileScan: return false;
  }
  for (const auto& child : op.children) {
    if (!InlineSafeOperator(*child, catalog)) return false;
  }
  return true;
}

}  // namespace

bool IsInlineCandidate(const planner::LogicalPlan& plan, const catalog::Catalog& catalog) {
  return plan.root != nullptr && InlineSafeOperator(*plan.root, catalog);
}

// ---- Lru ----

template <typename V>
const std::shared_ptr<const V>* PlanCache::Lru<V>::Find(std::string_view key) {
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second);
  return &it->second->second;
}

template <typename V>
size_t PlanCache::Lru<V>::Put(std::string key, std::shared_ptr<const V> value, size_t capacity,
                              std::vector<std::shared_ptr<const V>>* dropped) {
  auto it = index_.find(key);
  if (it != index_.end()) {
    dropped->push_back(std::move(it->second->second));
    it->second->second = std::move(value);
    order_.splice(order_.begin(), order_, it->second);
    return 0;
  }
  order_.emplace_front(std::move(key), std::move(value));
  index_.emplace(std::string_view(order_.front().first), order_.begin());
  size_t evicted = 0;
  while (index_.size() > capacity) {
    auto& last = order_.back();
    index_.erase(std::string_view(last.first));
    dropped->push_back(std::move(last.second));
    order_.pop_back();
    ++evicted;
  }
  return evicted;
}

template <typename V>
void PlanCache::Lru<V>::Clear(std::vector<std::shared_ptr<const V>>* dropped) {
  for (auto& entry : order_) dropped->push_back(std::move(entry.second));
  index_.clear();
  order_.clear();
}

// ---- PlanCache ----

PlanCache::PlanCache(size_t capacity) : capacity_(capacity) {}

PlanCache::~PlanCache() = default;

std::shared_ptr<const ParsedStatements> PlanCache::Parse(std::string_view text) {
  if (capacity_ > 0) {
    std::lock_guard<std::mutex> lock(parsed_mu_);
    if (const auto* hit = parsed_.Find(text)) {
      ++parse_hits_;
      return *hit;
    }
    ++parse_misses_;
  }
  auto parsed = std::make_shared<const ParsedStatements>(parser::ParseStatements(text));
  if (capacity_ == 0 || !CacheableParse(text, *parsed)) return parsed;
  std::vector<std::shared_ptr<const ParsedStatements>> dropped;
  {
    std::lock_guard<std::mutex> lock(parsed_mu_);
    parse_evictions_ += parsed_.Put(std::string(text), parsed, capacity_, &dropped);
  }
  return parsed;  // `dropped` is released here, outside the lock
}

std::shared_ptr<const CompiledQuery> PlanCache::Compile(
    const parser::ParsedQueryStatement& statement,
    const std::unordered_map<std::string, Value>& params, const catalog::Catalog& catalog,
    const planner::CardinalityEstimates* estimates) {
  if (capacity_ == 0) return CompileQuery(statement.query, params, catalog, estimates);
  std::string key = CompiledKey(statement.text, params);
  const uint64_t version = catalog.version();
  {
    std::lock_guard<std::mutex> lock(compiled_mu_);
    if (const auto* entry = compiled_.Find(key)) {
      if ((*entry)->catalog_version == version && !(*entry)->CountsChanged(estimates)) {
        ++hits_;
        return *entry;
      }
      ++stale_;
    }
    ++misses_;
  }
  std::shared_ptr<const CompiledQuery> compiled =
      CompileQuery(statement.query, params, catalog, estimates);
  if (!CacheableCompiled(statement, *compiled)) return compiled;
  std::vector<std::shared_ptr<const CompiledQuery>> dropped;
  {
    std::lock_guard<std::mutex> lock(compiled_mu_);
    evictions_ += compiled_.Put(std::move(key), compiled, capacity_, &dropped);
  }
  return compiled;
}

PlanCacheStats PlanCache::stats() const {
  PlanCacheStats s;
  {
    std::lock_guard<std::mutex> lock(compiled_mu_);
    s.hits = hits_ + memo_hits_.load(std::memory_order_relaxed);
    s.misses = misses_;
    s.stale = stale_;
    s.evictions = evictions_;
    s.entries = compiled_.size();
  }
  {
    std::lock_guard<std::mutex> lock(parsed_mu_);
    s.parse_hits = parse_hits_ + memo_parse_hits_.load(std::memory_order_relaxed);
    s.parse_misses = parse_misses_;
    s.parse_evictions = parse_evictions_;
    s.parsed_entries = parsed_.size();
  }
  return s;
}

void PlanCache::Clear() {
  std::vector<std::shared_ptr<const ParsedStatements>> parsed;
  std::vector<std::shared_ptr<const CompiledQuery>> compiled;
  {
    std::lock_guard<std::mutex> lock(parsed_mu_);
    parsed_.Clear(&parsed);
  }
  {
    std::lock_guard<std::mutex> lock(compiled_mu_);
    compiled_.Clear(&compiled);
  }
}  // the entries are released here, outside the locks

// ---- StatementMemo ----

namespace {

// Whether `a` and `b` make the same PlanCache key (AppendType): nested types compare their
// field names exactly, where LogicalType::operator== ignores their case.
bool SameKeyType(const LogicalType& a, const LogicalType& b) {
  if (a.id() != b.id()) return false;
  if (!a.IsNested()) return true;
  std::string ka, kb;
  AppendType(a, &ka);
  AppendType(b, &kb);
  return ka == kb;
}

bool SameParameters(const std::vector<std::pair<std::string, LogicalType>>& kept,
                    const std::unordered_map<std::string, Value>& params) {
  if (kept.size() != params.size()) return false;
  for (const auto& [name, type] : kept) {
    auto it = params.find(name);
    if (it == params.end()) return false;
    const Value& value = it->second;
    if (value.type_id() != type.id()) return false;
    if (type.IsNested() && !SameKeyType(value.type(), type)) return false;
  }
  return true;
}

}  // namespace

std::shared_ptr<const ParsedStatements> StatementMemo::Parse(PlanCache& cache,
                                                             std::string_view text) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].text == text) {
      cache.memo_parse_hits_.fetch_add(1, std::memory_order_relaxed);
      return MoveToFront(entries_, i).parsed;
    }
  }
  std::shared_ptr<const ParsedStatements> parsed = cache.Parse(text);
  if (cache.capacity() == 0 || !CacheableParse(text, *parsed)) return parsed;
  Entry entry;
  entry.text = std::string(text);
  entry.parsed = parsed;
  PushFront(entries_, std::move(entry), kEntries);
  return parsed;
}

std::shared_ptr<const CompiledQuery> StatementMemo::Compile(
    PlanCache& cache, const parser::ParsedQueryStatement& statement,
    const std::unordered_map<std::string, Value>& params, const catalog::Catalog& catalog,
    const planner::CardinalityEstimates* estimates) {
  Entry* entry = nullptr;
  for (Entry& e : entries_) {
    if (static_cast<const parser::ParsedStatement*>(&statement) == (*e.parsed)[0].get()) {
      entry = &e;
      break;
    }
  }
  if (entry == nullptr) return cache.Compile(statement, params, catalog, estimates);
  if (entry->compiled && entry->compiled->catalog_version == catalog.version() &&
      SameParameters(entry->params, params) && !entry->compiled->CountsChanged(estimates)) {
    cache.memo_hits_.fetch_add(1, std::memory_order_relaxed);
    return entry->compiled;
  }
  std::shared_ptr<const CompiledQuery> compiled =
      cache.Compile(statement, params, catalog, estimates);
  // What the cache does not keep (LOAD FROM, long texts) is not kept here either.
  if (!CacheableCompiled(statement, *compiled)) {
    entry->compiled.reset();
    return compiled;
  }
  entry->compiled = compiled;
  entry->params.clear();
  for (const auto& [name, value] : params) entry->params.emplace_back(name, value.type());
  return compiled;
}

exec::PreparedPlan& PreparedPlans::For(const std::shared_ptr<const CompiledQuery>& compiled,
                                       const catalog::Catalog& catalog) {
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].compiled == compiled) return *MoveToFront(entries_, i).prepared;
  }
  auto prepared = std::make_unique<exec::PreparedPlan>(compiled->plan, &catalog);
  return *PushFront(entries_, Entry{compiled, std::move(prepared)}, kEntries).prepared;
}

}  // namespace graphdb
