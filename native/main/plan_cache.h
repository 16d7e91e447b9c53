// PlanCache: parsed statements and compiled query plans kept for reuse, so a query that runs
// again with new `$parameters` skips the parser, the binder and the planner.
//
// Two levels, each a bounded LRU map:
//   - parsed:   query text -> the statements the parser made of it. Only texts holding exactly
//               one query statement (MATCH ... RETURN, CREATE ..., EXPLAIN of either) are kept;
//               DDL, COPY, CALL options, transaction control and multi-statement texts are
//               parsed every time. Parsing depends on nothing but the text, so this level
//               never goes stale.
//   - compiled: (statement text, the name and exact type of every parameter given)
//               -> the bound query and its logical plan, built against one catalog version.
//               A lookup hits only when that version is the current one: DDL (and anything
//               else that changes the catalog) makes older entries misses, which are
//               re-compiled and replace them. The statements of multi-statement texts are
//               compiled through this level too, each under its own text.
//               Plans are chosen by cost from the sizes of the tables (StorageEstimates):
//               an entry records every count its planning read, and a lookup finds it stale
//               (and re-plans) once one of them has grown or shrunk by a factor of two
//               (PlannedCount::Changed), so a plan made over an empty table is not kept
//               after a bulk load.
//
// Why the parameter types are part of the key: the binder types `$x` from the value it is
// given (INT64, STRING, LIST(...)...) and picks overloads and casts from that type, but never
// reads the value itself; the executor reads parameter values from ExecContext::params on
// every run. So one plan serves every set of values of the same types, and a parameter of
// another type (or a missing one) is a different key: it is compiled afresh, and fails with
// exactly the error an uncached run gives. Errors are never cached.
//
// Not cached: queries with LOAD FROM (the binder learns their columns from the files, which
// may change), and plans built outside Compile (CREATE TABLE ... AS, COPY ... FROM (query),
// standalone CALL).
//
// Thread-safety: thread-safe. One mutex per level guards the maps and the counters; parsing
// and compiling run outside it. Entries are immutable once built (but for one atomic hint,
// CompiledQuery::inline_backoff) and handed out as shared_ptr<const ...>, so any number of
// executions (several slots, readers in parallel) use one entry at once, and an entry evicted
// or replaced meanwhile lives until its last user is done. Per-execution state (physical
// operators, the frame, parameter values) is never cached here (a session keeps the operators
// of its own short reads: PreparedPlans below).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "catalog/catalog.h"
#include "cypher/binder/bound_statement.h"
#include "cypher/parser/ast.h"
#include "cypher/planner/logical_plan.h"
#include "cypher/planner/planner.h"
#include "exec/executor.h"
#include "types/value.h"

namespace graphdb {

using ParsedStatements = std::vector<std::unique_ptr<parser::ParsedStatement>>;

namespace exec {
class TableProvider;  // exec/graph_store.h
}  // namespace exec

// The planner's cardinality estimates read from storage now: the live rows of each node table
// and the live edges of each rel-table pair (a few loads per table, exact at the time of the
// call; plans keep what they read, CompiledQuery::planned_counts), and the distinct values of
// a property estimated from a sample of kDistinctSample rows spread over the table.
// REQUIRES: the caller holds the database's statement lock while it is used.
class StorageEstimates final : public planner::CardinalityEstimates {
 public:
  static constexpr uint64_t kDistinctSample = 512;

  explicit StorageEstimates(exec::TableProvider& tables) : tables_(tables) {}
  double NodeCount(catalog::TableId table) const override;
  double EdgeCount(catalog::TableId pair_id) const override;
  // From the sample: d distinct values, f1 of them seen once, among n non-NULL cells of the
  // table's N rows; sqrt(N / n) * f1 + (d - f1) (values seen once stand for many unseen ones,
  // repeated ones are all there), which is d when the sample is the whole table.
  double DistinctValues(catalog::TableId table, size_t property) const override;

 private:
  exec::TableProvider& tables_;
};

// One count the planner read while planning a query, and its value then.
struct PlannedCount {
  // Counts are this far apart before they are "a factor of two" apart: small tables
  // growing by a few rows re-plan nothing.
  static constexpr double kSlack = 64;

  bool edges = false;  // EdgeCount of a pair, else NodeCount of a node table
  catalog::TableId id = 0;
  double count = 0;

  // Whether `now` is at least twice the planned count, or at most half of it (with kSlack).
  bool Changed(double now) const {
    const double lo = std::min(now, count) + kSlack, hi = std::max(now, count) + kSlack;
    return hi >= 2 * lo;
  }
};

// A query statement bound and planned against one catalog version and one set of parameter
// types. Immutable but for `inline_backoff` and `inline_overrun_rate`; `plan` points into `*bound`.
struct CompiledQuery {
  // After an inline run overran its work budget, the attempts turned away before the next one:
  // one while overruns are rare (an average under a quarter of the recent attempts, counting
  // this one: a hiccup of the machine, parameters that found more), so that such a query goes
  // on running inline; 63 while they are not, so that a query that keeps overrunning tries
  // inline once every 64 runs, and one whose parameters now find little goes back to inline.
  static constexpr uint32_t kInlineRetryInterval = 64;
  // The overrun rate's scale (1: every attempt overran); each attempt weighs an eighth.
  static constexpr uint32_t kInlineRateOne = 1024;

  uint64_t catalog_version = 0;
  // The table sizes the plan was chosen with (each once); see PlanCache.
  std::vector<PlannedCount> planned_counts;
  std::unique_ptr<binder::BoundQuery> bound;
  planner::LogicalPlan plan;
  // A read that may run on the caller's thread under a work budget (IsInlineCandidate,
  // TryRunShortRead in main/query_pipeline.h, docs/concurrency.md).
  bool inline_candidate = false;
  // Inline attempts still to turn away after an overrun (0: attempt). A hint shared by every
  // connection running this entry: relaxed atomics suffice, and a race at worst moves the next
  // retry by a run or two.
  mutable std::atomic<uint32_t> inline_backoff{0};
  // The share of recent inline attempts that overran, in kInlineRateOne-ths: a moving average,
  // a hint like inline_backoff.
  mutable std::atomic<uint32_t> inline_overrun_rate{0};

  // Whether a table the plan was chosen by has changed size enough to plan again
  // (PlannedCount::Changed); never without `estimates`.
  bool CountsChanged(const planner::CardinalityEstimates* estimates) const;
  // Whether to skip this inline attempt (counting it towards the next retry).
  bool SkipInlineAttempt() const;
  // An inline run overran the budget: skip the next attempt, or kInlineRetryInterval - 1 of
  // them when overruns are not rare.
  void NoteInlineOverrun() const {
    uint32_t rate = inline_overrun_rate.load(std::memory_order_relaxed);
    rate = rate - (rate + 7) / 8 + kInlineRateOne / 8;
    inline_overrun_rate.store(rate, std::memory_order_relaxed);
    inline_backoff.store(rate < kInlineRateOne / 4 ? 1 : kInlineRetryInterval - 1,
                         std::memory_order_relaxed);
  }
  // An inline run stayed within its budget (written only while the rate is above 0: connections
  // that share the query do not pass its line around on every run).
  void NoteInlineSuccess() const {
    const uint32_t rate = inline_overrun_rate.load(std::memory_order_relaxed);
    if (rate != 0) inline_overrun_rate.store(rate - (rate + 7) / 8, std::memory_order_relaxed);
  }
};

// Whether `plan` may run inline under a work budget: it only reads, is built from operators
// whose work on data is charged to the budget (single row, index seek, node scan, expand of
// any length, filter, projection, UNWIND, aggregate, distinct, sort, SKIP/LIMIT, OPTIONAL,
// UNION, materialize; EXISTS / COUNT subqueries of the same), and its expressions have no
// side effects and no work that grows without being charged (see InlineSafeFunction in
// plan_cache.cc). Table functions (CALL), LOAD FROM and updates never qualify.
// REQUIRES: `catalog` is the one `plan` was built against (subqueries are planned with it).
bool IsInlineCandidate(const planner::LogicalPlan& plan, const catalog::Catalog& catalog);

// Binds and plans `query` now, without the cache. Throws the binder's and planner's errors.
// `estimates`: the table sizes to plan by (null: the planner's defaults); what it reads is
// kept in planned_counts.
// REQUIRES: the catalog does not change during the call.
std::shared_ptr<const CompiledQuery> CompileQuery(
    const parser::ParsedRegularQuery& query, const std::unordered_map<std::string, Value>& params,
    const catalog::Catalog& catalog, const planner::CardinalityEstimates* estimates = nullptr);

struct PlanCacheStats {
  uint64_t hits = 0;       // compiled level: plans reused
  uint64_t misses = 0;     // compiled level: plans built (includes `stale`)
  uint64_t stale = 0;      // misses that found an entry of an older catalog version, or one
                           // whose table sizes changed (CompiledQuery::CountsChanged)
  uint64_t evictions = 0;  // compiled entries dropped for room
  uint64_t parse_hits = 0;
  uint64_t parse_misses = 0;  // texts parsed (cacheable or not)
  uint64_t parse_evictions = 0;
  size_t entries = 0;         // compiled entries held now
  size_t parsed_entries = 0;  // parsed entries held now
};

class PlanCache {
 public:
  static constexpr size_t kDefaultCapacity = 512;
  // Texts longer than this are parsed every time (a generated bulk statement is not a query
  // that repeats, and would hold memory).
  static constexpr size_t kMaxCachedTextBytes = 64 * 1024;

  // `capacity`: the most entries of each level; 0 disables caching (every run compiles).
  explicit PlanCache(size_t capacity = kDefaultCapacity);
  ~PlanCache();

  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The statements of `text`, from the cache or parsed now. Throws the parser's errors.
  std::shared_ptr<const ParsedStatements> Parse(std::string_view text);

  // The compiled form of `statement` for parameters of these types against `catalog`: from
  // the cache, or compiled now (and kept unless it is not cacheable). Throws the binder's
  // and planner's errors, which are not kept. `estimates`: the table sizes now (null: plan by
  // the planner's defaults, and never find an entry stale for its counts).
  // REQUIRES: the catalog does not change during the call (the caller holds the database's
  // statement lock).
  std::shared_ptr<const CompiledQuery> Compile(
      const parser::ParsedQueryStatement& statement,
      const std::unordered_map<std::string, Value>& params, const catalog::Catalog& catalog,
      const planner::CardinalityEstimates* estimates = nullptr);

  size_t capacity() const { return capacity_; }
  PlanCacheStats stats() const;
  // Drops every entry (counters stay). Executions using an entry keep it until they finish.
  void Clear();

 private:
  // A bounded map with least-recently-used eviction. Not thread-safe: the owner locks.
  template <typename V>
  class Lru {
   public:
    // The value of `key`, marked most recently used; nullptr when absent.
    const std::shared_ptr<const V>* Find(std::string_view key);
    // Inserts or replaces; evicted values are appended to `dropped` (released by the caller
    // after unlocking). Returns the number of entries evicted.
    size_t Put(std::string key, std::shared_ptr<const V> value, size_t capacity,
               std::vector<std::shared_ptr<const V>>* dropped);
    size_t size() const { return index_.size(); }
    void Clear(std::vector<std::shared_ptr<const V>>* dropped);

   private:
    using Entry = std::pair<std::string, std::shared_ptr<const V>>;
    std::list<Entry> order_;  // most recently used first
    // Keys view the strings held in `order_` (list nodes never move).
    std::unordered_map<std::string_view, typename std::list<Entry>::iterator> index_;
  };

  friend class StatementMemo;

  const size_t capacity_;
  // Hits served by connections' StatementMemos, counted in stats().parse_hits and hits (on a
  // line of their own: connections on other cores bump them at once).
  alignas(64) std::atomic<uint64_t> memo_parse_hits_{0};
  std::atomic<uint64_t> memo_hits_{0};

  mutable std::mutex parsed_mu_;
  Lru<ParsedStatements> parsed_;  // GUARDED_BY(parsed_mu_)
  uint64_t parse_hits_ = 0;       // GUARDED_BY(parsed_mu_)
  uint64_t parse_misses_ = 0;     // GUARDED_BY(parsed_mu_)
  uint64_t parse_evictions_ = 0;  // GUARDED_BY(parsed_mu_)

  mutable std::mutex compiled_mu_;
  Lru<CompiledQuery> compiled_;  // GUARDED_BY(compiled_mu_)
  uint64_t hits_ = 0;            // GUARDED_BY(compiled_mu_)
  uint64_t misses_ = 0;          // GUARDED_BY(compiled_mu_)
  uint64_t stale_ = 0;           // GUARDED_BY(compiled_mu_)
  uint64_t evictions_ = 0;       // GUARDED_BY(compiled_mu_)
};

// StatementMemo: one connection's memo of the few statement texts it ran last, in front of the
// database's PlanCache. A connection running the same statements again and again (the common
// case: an application's handful of queries with new parameters) finds their parsed and
// compiled forms here for a text comparison and one lookup per parameter, instead of the
// cache's locks, key building and hashing (a good part of a point read's time).
//
// It keeps only what the PlanCache itself would keep, and hands out exactly what a PlanCache
// lookup would at that moment: a compiled entry is reused only for the catalog version it was
// built against, while its table sizes hold (CountsChanged), and for parameters of exactly the
// same names and types (PlanCache's key);
// anything else goes to the PlanCache, whose answer replaces the memo's. A hit counts as a
// compiled-level hit in the PlanCache's stats.
//
// Thread-safety: not thread-safe; owned by one session, used by one statement at a time.
class StatementMemo {
 public:
  static constexpr size_t kEntries = 4;

  // As PlanCache::Parse.
  std::shared_ptr<const ParsedStatements> Parse(PlanCache& cache, std::string_view text);

  // As PlanCache::Compile. `statement` must be the statement of a text this memo returned
  // from Parse (its entry is found by the statement's address); others go to the cache.
  // REQUIRES: as PlanCache::Compile (the catalog does not change during the call).
  std::shared_ptr<const CompiledQuery> Compile(
      PlanCache& cache, const parser::ParsedQueryStatement& statement,
      const std::unordered_map<std::string, Value>& params, const catalog::Catalog& catalog,
      const planner::CardinalityEstimates* estimates = nullptr);

 private:
  struct Entry {
    std::string text;
    std::shared_ptr<const ParsedStatements> parsed;  // one query statement
    std::shared_ptr<const CompiledQuery> compiled;   // null until compiled through the memo
    // The parameters `compiled` was compiled for, in the order of the map it was given.
    std::vector<std::pair<std::string, LogicalType>> params;
  };

  std::vector<Entry> entries_;  // most recently used first; at most kEntries
};

// PreparedPlans: one session's physical operators of the compiled queries it ran as short
// reads last (exec::PreparedPlan), so a short read run again skips building its operators and
// reuses its frame and result rows. Each entry holds its compiled query, which the operators
// point into; a query recompiled (another catalog version or parameter types) is another
// entry. Short reads stop within a small work budget, so what an entry keeps between runs
// (rows, operator buffers) stays small.
//
// Thread-safety: not thread-safe; owned by one session, used by one statement at a time.
class PreparedPlans {
 public:
  static constexpr size_t kEntries = 4;

  // The prepared plan of `compiled`: the kept one, or built now (dropping the least recently
  // used when full). Throws what building the operators throws, keeping nothing then.
  // REQUIRES: `catalog` is the one `compiled` was built against.
  exec::PreparedPlan& For(const std::shared_ptr<const CompiledQuery>& compiled,
                          const catalog::Catalog& catalog);

 private:
  struct Entry {
    std::shared_ptr<const CompiledQuery> compiled;
    std::unique_ptr<exec::PreparedPlan> prepared;  // of compiled->plan
  };
  std::vector<Entry> entries_;  // most recently used first; at most kEntries
};

}  // namespace graphdb
