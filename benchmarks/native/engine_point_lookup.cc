// graphdb_bench_engine: the cost of a primary-key point lookup inside the engine, with no
// Node.js in the way.
//
//   cmake --build build --target graphdb_bench_engine
//   build/graphdb_bench_engine [--persons N] [--ops N] [--trials N] [--seed N]
//
// Loads N Person vertices (default 100,000) into an in-memory database through COPY of a
// generated CSV, then runs `MATCH (p:Person {id: $id}) RETURN p.name` with random ids through
// ExecutionSlot::Execute, the call the addon's connections make, and checks every answer.
// Each trial times --ops lookups after an untimed warm-up; the figure is the median of the
// trials in nanoseconds per lookup. Also reported: the plan cache's hit rate over the timed
// lookups and, for scale, what parsing, binding and planning the query costs when nothing is
// cached.
//
// Prints a readable summary on stderr and one JSON line on stdout.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "cypher/parser/parser.h"
#include "main/database.h"
#include "main/execution_slot.h"
#include "main/plan_cache.h"

namespace graphdb {
namespace {

constexpr char kLookup[] = "MATCH (p:Person {id: $id}) RETURN p.name";

struct Options {
  int64_t persons = 100000;
  int64_t ops = 200000;
  int trials = 5;
  uint64_t seed = 42;
};

[[noreturn]] void Fail(const std::string& message) {
  std::fprintf(stderr, "graphdb_bench_engine: %s\n", message.c_str());
  std::printf("{\"error\":{\"code\":\"BENCH_FAILED\",\"message\":\"%s\"}}\n", message.c_str());
  std::exit(1);
}

Options ParseOptions(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (i + 1 >= argc) Fail("missing value after " + std::string(arg));
    long long value = std::atoll(argv[++i]);
    if (value <= 0) Fail("bad value for " + std::string(arg));
    if (arg == "--persons") {
      o.persons = value;
    } else if (arg == "--ops") {
      o.ops = value;
    } else if (arg == "--trials") {
      o.trials = static_cast<int>(value);
    } else if (arg == "--seed") {
      o.seed = static_cast<uint64_t>(value);
    } else {
      Fail("unknown option " + std::string(arg));
    }
  }
  return o;
}

// splitmix64: a small seeded generator, so every run asks for the same ids.
struct Random {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

std::string NameOf(int64_t id) { return "person" + std::to_string(id); }

void Check(const Result<exec::QueryResult*>& result, const char* what) {
  if (!result.ok()) Fail(std::string(what) + ": " + result.status().ToString());
}

// Runs the Cypher `query` with `params` on `slot` to its end (ExecutionSlot::Run); the result
// is the slot's until its next statement.
Result<exec::QueryResult*> Execute(ExecutionSlot& slot, std::string_view query,
                                   const ParameterMap& params = {}) {
  StatementSpec spec;
  spec.text = query;
  spec.params = &params;
  return *slot.Run(spec);
}

void Load(ExecutionSlot& slot, int64_t persons) {
  std::string path = "/tmp/graphdb_bench_engine_" + std::to_string(getpid()) + ".csv";
  {
    std::ofstream csv(path);
    csv << "id|name|age|city\n";
    for (int64_t id = 0; id < persons; ++id) {
      csv << id << '|' << NameOf(id) << '|' << 18 + id % 63 << "|city" << id % 100 << '\n';
    }
    if (!csv) Fail("cannot write " + path);
  }
  Check(Execute(slot, "CREATE NODE TABLE Person(id INT64, name STRING, age INT64, city STRING, "
                      "PRIMARY KEY(id))"),
        "CREATE NODE TABLE");
  auto copied = Execute(slot, "COPY Person FROM '" + path + "' (header=true, delim='|')");
  std::remove(path.c_str());
  Check(copied, "COPY");
  auto count = Execute(slot, "MATCH (p:Person) RETURN count(*)");
  Check(count, "count");
  if ((*count)->rows[0][0].GetInt() != persons) Fail("COPY loaded the wrong number of persons");
}

// Runs `ops` lookups of random ids, checking each answer against `names` (by id); returns
// the elapsed nanoseconds.
double TimeLookups(ExecutionSlot& slot, Random& random, const std::vector<std::string>& names,
                   int64_t ops) {
  ParameterMap params{{"id", Value::Int64(0)}};
  Value& id_param = params["id"];
  std::vector<int64_t> ids(static_cast<size_t>(ops));
  for (auto& id : ids) id = static_cast<int64_t>(random.Next() % names.size());
  auto started = std::chrono::steady_clock::now();
  for (int64_t id : ids) {
    id_param = Value::Int64(id);
    auto result = Execute(slot, kLookup, params);
    Check(result, "lookup");
    const exec::QueryResult& rows = **result;
    if (rows.rows.size() != 1 || rows.rows[0][0].is_null() ||
        rows.rows[0][0].GetString() != names[static_cast<size_t>(id)]) {
      Fail("wrong answer for id " + std::to_string(id));
    }
  }
  auto elapsed = std::chrono::steady_clock::now() - started;
  return std::chrono::duration<double, std::nano>(elapsed).count();
}

// Parsing, binding and planning the lookup with no cache, per run (what a miss costs before
// execution).
double TimeUncachedCompile(Database& db, int64_t runs) {
  ParameterMap params{{"id", Value::Int64(1)}};
  auto started = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < runs; ++i) {
    std::shared_lock<StatementLock> lock(db.statement_lock());
    auto statements = parser::ParseStatements(kLookup);
    auto compiled =
        CompileQuery(statements[0]->As<parser::ParsedQueryStatement>().query, params, db.catalog());
    if (!compiled->plan.root) Fail("no plan");
  }
  auto elapsed = std::chrono::steady_clock::now() - started;
  return std::chrono::duration<double, std::nano>(elapsed).count() / static_cast<double>(runs);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

int Main(int argc, char** argv) {
  Options options = ParseOptions(argc, argv);
  auto opened = Database::Open({":memory:", 1});
  if (!opened.ok()) Fail(opened.status().ToString());
  std::shared_ptr<Database> db = std::move(opened).value();
  ExecutionSlot slot(db);
  auto load_started = std::chrono::steady_clock::now();
  Load(slot, options.persons);
  double load_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - load_started).count();

  std::vector<std::string> names;
  names.reserve(static_cast<size_t>(options.persons));
  for (int64_t id = 0; id < options.persons; ++id) names.push_back(NameOf(id));

  Random random{options.seed};
  TimeLookups(slot, random, names, std::max<int64_t>(options.ops / 10, 1000));  // warm-up
  PlanCacheStats before = db->plan_cache().stats();
  std::vector<double> ns_per_op;
  for (int trial = 0; trial < options.trials; ++trial) {
    double ns = TimeLookups(slot, random, names, options.ops);
    ns_per_op.push_back(ns / static_cast<double>(options.ops));
    std::fprintf(stderr, "trial %d/%d: %.0f ns/op\n", trial + 1, options.trials, ns_per_op.back());
  }
  PlanCacheStats after = db->plan_cache().stats();
  uint64_t hits = after.hits - before.hits;
  uint64_t lookups = hits + (after.misses - before.misses);
  double hit_rate = lookups ? static_cast<double>(hits) / static_cast<double>(lookups) : 0;
  double uncached = TimeUncachedCompile(*db, std::max<int64_t>(options.ops / 20, 1000));

  double median = Median(ns_per_op);
  std::fprintf(stderr,
               "%lld persons loaded in %.2f s; %s\n"
               "cached point lookup: median %.0f ns/op (%.2f us) over %d trials of %lld ops; "
               "plan cache hit rate %.4f\n"
               "for scale: parse + bind + plan without the cache costs %.0f ns\n",
               static_cast<long long>(options.persons), load_seconds, kLookup, median,
               median / 1000, options.trials, static_cast<long long>(options.ops), hit_rate,
               uncached);
  std::printf("{\"query\":\"%s\",\"persons\":%lld,\"opsPerTrial\":%lld,\"nsPerOp\":[", kLookup,
              static_cast<long long>(options.persons), static_cast<long long>(options.ops));
  for (size_t i = 0; i < ns_per_op.size(); ++i) std::printf("%s%.1f", i ? "," : "", ns_per_op[i]);
  std::printf(
      "],\"nsPerOpMedian\":%.1f,\"hitRate\":%.6f,\"uncachedCompileNs\":%.1f,"
      "\"loadSeconds\":%.3f}\n",
      median, hit_rate, uncached, load_seconds);
  return 0;
}

}  // namespace
}  // namespace graphdb

int main(int argc, char** argv) { return graphdb::Main(argc, argv); }
