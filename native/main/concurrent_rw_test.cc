// Write statements beside read statements (docs/concurrency.md): one writer and three readers,
// each on its own connection (ExecutionSlot), run Cypher through the pipeline for a bounded
// wall time, in memory and on disk, and every reader statement checks that it sees exactly one
// committed state: transfers keep the total, strings are never torn, a node inserted with its
// edges appears whole, a deleted and re-inserted key never shows twice, and a READ ONLY
// transaction reads the same snapshot in every statement. Some write statements fail after
// they changed rows, or run in a transaction that rolls back: none of that may ever be seen.
// Each test also checks that the writer committed and every reader ran enough statements for
// the checks to mean something.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "main/database.h"
#include "main/execution_slot.h"
#include "main/slot_test_util.h"

namespace graphdb {
namespace {

using testing_util::RunCypher;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using Rng = std::mt19937_64;
using Rows = std::vector<std::vector<Value>>;

// Concurrent activity per test, in wall time: ThreadSanitizer makes statements ~10x slower,
// so an iteration count would not bound the duration.
constexpr auto kActive = std::chrono::milliseconds(600);
// Past kActive a run goes on until the minimums below are met, for at most this long, with the
// writer slowed down: on a machine busy with other work the threads get fewer turns, which is
// no lack of liveness.
constexpr auto kMaxActive = std::chrono::seconds(15);
constexpr int64_t kMinCommits = 10;  // writer commits per test
constexpr int64_t kMinReads = 10;    // steps (one or more statements) per reader
constexpr int kReaders = 3;
constexpr int64_t kStepsPerWrite = 4;  // reader steps per writer step, at most

ParameterMap P(std::initializer_list<std::pair<const std::string, int64_t>> ints) {
  ParameterMap params;
  for (const auto& [name, v] : ints) params[name] = Value::Int64(v);
  return params;
}

Value StringList(const std::vector<std::string>& items) {
  std::vector<Value> children;
  for (const auto& s : items) children.push_back(Value::String(s));
  return Value::Nested(LogicalType::List(LogicalType::String()), std::move(children));
}

// Test parameter: on disk (true, without fdatasync on commit) or in memory.
class ConcurrentReadWriteTest : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    DatabaseConfig config;
    config.path = ":memory:";
    config.max_thread_num = 4;
    if (GetParam()) {
      std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
      std::replace(name.begin(), name.end(), '/', '-');
      root_ = fs::temp_directory_path() /
              ("graphdb-concurrent-rw-" + std::to_string(::getpid()) + "-" + name);
      fs::remove_all(root_);
      fs::create_directories(root_);
      config.path = (root_ / "db").string();
      config.sync_on_commit = false;
    }
    auto db = Database::Open(config);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(db).value();
    setup_ = std::make_unique<ExecutionSlot>(db_);
  }

  void TearDown() override {
    setup_.reset();
    if (db_) {
      EXPECT_TRUE(db_->Close().ok());
    }
    db_.reset();
    if (!root_.empty()) fs::remove_all(root_);
  }

  // Runs a statement on the setup connection (before the threads start, or after they end).
  void Exec(const std::string& q, const ParameterMap& params = {}) {
    auto r = RunCypher(*setup_, q, params);
    ASSERT_TRUE(r.ok()) << q << ": " << r.status().ToString();
  }

  // Records a broken invariant (the first few are reported) and stops every thread.
  void Fail(const std::string& what) {
    if (failures_.fetch_add(1) < 5) ADD_FAILURE() << what;
    Stop();
  }

  void Stop() {
    std::lock_guard<std::mutex> lock(pace_mu_);
    stop_.store(true);
    pace_cv_.notify_all();
  }

  // The rows of a statement that must succeed; nullopt (and a failure) otherwise.
  std::optional<Rows> Query(ExecutionSlot& slot, const std::string& q,
                            const ParameterMap& params = {}) {
    auto r = RunCypher(slot, q, params);
    if (!r.ok()) {
      Fail(q + ": " + r.status().ToString());
      return std::nullopt;
    }
    return std::move(r->rows);
  }

  // A write statement that must commit.
  bool Commit(ExecutionSlot& slot, const std::string& q, const ParameterMap& params) {
    if (!Query(slot, q, params)) return false;
    commits_.fetch_add(1);
    return true;
  }

  // A write statement that must fail while it runs, after it changed rows, so that it is
  // undone (a failure found while parsing or binding would undo nothing).
  void FailAndRollBack(ExecutionSlot& slot, const std::string& q, const ParameterMap& params) {
    auto r = RunCypher(slot, q, params);
    if (r.ok()) return Fail("expected to fail at run time, but committed: " + q);
    const ErrorCode code = r.status().code();
    if (code != ErrorCode::kQueryRuntime && code != ErrorCode::kConstraintViolation) {
      return Fail("expected a run-time failure: " + q + ": " + r.status().ToString());
    }
    rollbacks_.fetch_add(1);
  }

  // BEGIN TRANSACTION, the statements (each must succeed), then COMMIT or ROLLBACK.
  void RunTransaction(ExecutionSlot& slot,
                      const std::vector<std::pair<std::string, ParameterMap>>& statements,
                      bool commit) {
    if (!Query(slot, "BEGIN TRANSACTION")) return;
    for (const auto& [q, params] : statements) {
      if (!Query(slot, q, params)) return;
    }
    if (!Query(slot, commit ? "COMMIT" : "ROLLBACK")) return;
    (commit ? commits_ : rollbacks_).fetch_add(1);
  }

  // Runs `write` in a loop on one thread and `read` in a loop on each of kReaders threads,
  // every thread on its own connection, for kActive of wall time (longer, up to kMaxActive,
  // until the writer made kMinCommits commits, every reader `min_steps` steps and `enough`
  // holds) or until a check fails; then checks those minimums.
  //
  // A reader runs at most kStepsPerWrite steps per step of the writer, so each kind of
  // statement makes progress on this 2-core machine whatever the scheduler favours (when
  // write statements took the statement lock exclusively and the lock let new readers in
  // while a writer waited, 2 commits in 600 ms were seen).
  void RunConcurrently(const std::function<void(ExecutionSlot&, Rng&)>& write,
                       const std::function<void(ExecutionSlot&, Rng&, int reader)>& read,
                       int64_t min_steps = kMinReads,
                       const std::function<bool()>& enough = nullptr) {
    std::vector<std::atomic<int64_t>> reads(kReaders);
    std::vector<std::thread> threads;
    std::atomic<bool> overtime{false};
    const auto start = Clock::now();
    threads.emplace_back([&] {
      ExecutionSlot slot(db_);
      Rng rng(1);
      while (!stop_.load()) {
        write(slot, rng);
        {
          std::lock_guard<std::mutex> lock(pace_mu_);
          ++writer_steps_;
          pace_cv_.notify_all();
        }
        // Overtime: one step a millisecond, so that readers get turns on a busy machine and
        // snapshots they pin do not fall ever further behind.
        if (overtime.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
    });
    for (int r = 0; r < kReaders; ++r) {
      threads.emplace_back([&, r] {
        ExecutionSlot slot(db_);
        Rng rng(100 + r);
        for (int64_t n = 0;; ++n) {
          {
            std::unique_lock<std::mutex> lock(pace_mu_);
            pace_cv_.wait(lock,
                          [&] { return stop_.load() || n < (writer_steps_ + 1) * kStepsPerWrite; });
          }
          if (stop_.load()) break;
          read(slot, rng, r);
          reads[r].fetch_add(1);
        }
      });
    }
    {
      std::unique_lock<std::mutex> lock(pace_mu_);
      pace_cv_.wait_until(lock, start + kActive, [&] { return stop_.load(); });
    }
    auto met = [&] {
      if (commits_.load() < kMinCommits || (enough && !enough())) return false;
      for (auto& n : reads) {
        if (n.load() < min_steps) return false;
      }
      return true;
    };
    overtime.store(true);
    while (!stop_.load() && !met() && Clock::now() < start + kMaxActive) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    Stop();
    for (auto& t : threads) t.join();
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    std::string summary = "commits " + std::to_string(commits_.load()) + ", rollbacks " +
                          std::to_string(rollbacks_.load()) + ", writer steps " +
                          std::to_string(writer_steps_) + ", reader steps";
    for (auto& n : reads) summary += " " + std::to_string(n.load());
    std::printf("[  stats   ] %s in %lld ms\n", summary.c_str(), static_cast<long long>(ms));
    if (failures_.load() > 0) return;  // stopped early: the failure says why
    EXPECT_GE(commits_.load(), kMinCommits) << summary;
    for (int r = 0; r < kReaders; ++r) EXPECT_GE(reads[r].load(), min_steps) << summary;
  }

  // Waits until the writer has made more than `seen` steps, or `deadline`, or stop; returns the
  // writer's steps.
  int64_t WaitForWriter(int64_t seen, Clock::time_point deadline) {
    std::unique_lock<std::mutex> lock(pace_mu_);
    pace_cv_.wait_until(lock, deadline, [&] { return stop_.load() || writer_steps_ > seen; });
    return writer_steps_;
  }

  std::shared_ptr<Database> db_;
  std::unique_ptr<ExecutionSlot> setup_;
  fs::path root_;
  std::mutex pace_mu_;
  std::condition_variable pace_cv_;  // the writer made a step, or stop_
  int64_t writer_steps_ = 0;         // guarded by pace_mu_
  std::atomic<bool> stop_{false};
  std::atomic<int> failures_{0};
  std::atomic<int64_t> commits_{0};    // write statements and transactions committed
  std::atomic<int64_t> rollbacks_{0};  // ... failed or rolled back, as intended
};

// Invariant 1: money moves between accounts, as single statements (some failing after the SET)
// and as transactions of two transfers (some rolled back): every read sees the same total, by
// a scan or by key lookups.
TEST_P(ConcurrentReadWriteTest, TransfersKeepTheTotal) {
  constexpr int64_t kN = 50;
  Exec("CREATE NODE TABLE Account(id INT64, balance INT64, PRIMARY KEY(id))");
  Exec("UNWIND range(0, 49) AS i CREATE (:Account {id: i, balance: 1000 + 7 * i})");
  int64_t total = 0;
  for (int64_t i = 0; i < kN; ++i) total += 1000 + 7 * i;
  const std::string transfer =
      "MATCH (a:Account {id: $x}), (b:Account {id: $y}) "
      "SET a.balance = a.balance - $amt, b.balance = b.balance + $amt";
  const std::string divide_by_zero = transfer + " WITH a, b RETURN a.balance / (b.id - b.id)";
  const std::string duplicate_key = transfer + " CREATE (:Account {id: $y, balance: 0})";
  // The same transfer in one pass over every account: the two rows it changes are far apart,
  // so a read beside it sees one change without the other unless it reads a snapshot.
  const std::string spread =
      "MATCH (a:Account) SET a.balance = a.balance + "
      "CASE WHEN a.id = $x THEN -$amt WHEN a.id = $y THEN $amt ELSE 0 END";
  const std::string spread_and_fail = spread + " WITH a WHERE a.id = 49 RETURN 1 / (a.id - 49)";
  int64_t step = 0;
  RunConcurrently(
      [&](ExecutionSlot& slot, Rng& rng) {
        const int64_t x = rng() % kN, y = (x + 1 + rng() % (kN - 1)) % kN, z = (y + 1) % kN;
        const int64_t amt = 1 + rng() % 500;
        const ParameterMap p = P({{"x", x}, {"y", y}, {"amt", amt}});
        switch (step++ % 6) {
          case 0: Commit(slot, transfer, p); break;
          case 1: Commit(slot, spread, p); break;
          case 2: FailAndRollBack(slot, divide_by_zero, p); break;
          case 3: FailAndRollBack(slot, duplicate_key, p); break;
          case 4: FailAndRollBack(slot, spread_and_fail, p); break;
          default:
            RunTransaction(slot,
                           {{transfer, p}, {transfer, P({{"x", y}, {"y", z}, {"amt", 2 * amt}})}},
                           rng() % 2 == 0);
        }
      },
      [&](ExecutionSlot& slot, Rng& rng, int reader) {
        // Readers 0 and 1 scan the table; reader 2 looks every account up by its key.
        auto sum = Query(slot, reader < 2 ? "MATCH (a:Account) RETURN sum(a.balance), count(*)"
                                          : "UNWIND range(0, 49) AS i MATCH (a:Account {id: i}) "
                                            "RETURN sum(a.balance), count(*)");
        if (!sum) return;
        if (sum->size() != 1 || (*sum)[0][0].GetInt() != total || (*sum)[0][1].GetInt() != kN) {
          return Fail(
              "reader " + std::to_string(reader) + " saw sum|count " +
              (sum->empty() ? "no row" : (*sum)[0][0].ToString() + "|" + (*sum)[0][1].ToString()) +
              ", want " + std::to_string(total) + "|" + std::to_string(kN));
        }
        const int64_t id = rng() % kN;
        auto one = Query(slot, "MATCH (a:Account {id: $x}) RETURN a.balance", P({{"x", id}}));
        if (one && (one->size() != 1 || (*one)[0][0].is_null())) {
          Fail("account " + std::to_string(id) + ": " + std::to_string(one->size()) + " rows");
        }
      });
  if (HasFailure()) return;  // a broken invariant stopped the run early
  EXPECT_GE(rollbacks_.load(), 3);
  auto rows = RunCypher(*setup_, "MATCH (a:Account) RETURN sum(a.balance), count(*)", {});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->rows[0][0].GetInt(), total);
}

// Invariant 2: the writer sets a document's body and tags together to pair k of a fixed set
// (strings of up to 12 bytes sit inline in the column, longer ones on the heap); values only
// ever written by statements that fail, or as the first of two SETs in one transaction, must
// never be seen. Every (body, tags) a reader sees is one whole committed pair.
TEST_P(ConcurrentReadWriteTest, StringsAreNeverTorn) {
  constexpr int64_t kDocs = 8;
  const size_t lengths[] = {0, 3, 12, 13, 20, 64, 150, 300};
  auto text = [&](const std::string& prefix, size_t len) {
    std::string s = prefix;
    while (s.size() < len) s += static_cast<char>('a' + (s.size() * 7 + prefix.size()) % 26);
    s.resize(len);
    return s;
  };
  std::vector<std::string> bodies;
  std::vector<std::vector<std::string>> tags;
  for (int k = 0; k < 8; ++k) {
    bodies.push_back(text(std::to_string(k) + "=", lengths[k]));
    tags.emplace_back();
    for (int j = 0; j < k % 4; ++j)
      tags[k].push_back(text("t" + std::to_string(k * 4 + j), lengths[(k + j + 3) % 8]));
  }
  // Never committed: same lengths, other bytes.
  const std::vector<std::string> lost_bodies = {text("LOST", 12), text("LOST", 300)};
  const Value lost_tags = StringList({text("LOST", 13), text("LOST", 200)});
  std::map<std::string, int> pair_of_body;
  for (int k = 0; k < 8; ++k) pair_of_body[bodies[k]] = k;

  Exec("CREATE NODE TABLE Doc(id INT64, body STRING, tags STRING[], PRIMARY KEY(id))");
  Exec("UNWIND range(0, 7) AS i CREATE (:Doc {id: i, body: $body, tags: $tags})",
       {{"body", Value::String(bodies[0])}, {"tags", StringList(tags[0])}});
  const std::string set = "MATCH (d:Doc {id: $id}) SET d.body = $body, d.tags = $tags";
  auto params = [&](int64_t id, Value body, Value list) {
    ParameterMap p = P({{"id", id}});
    p["body"] = std::move(body);
    p["tags"] = std::move(list);
    return p;
  };
  int64_t step = 0;
  RunConcurrently(
      [&](ExecutionSlot& slot, Rng& rng) {
        const int64_t id = rng() % kDocs;
        const int k = static_cast<int>(rng() % 8);
        const ParameterMap good = params(id, Value::String(bodies[k]), StringList(tags[k]));
        const ParameterMap lost = params(id, Value::String(lost_bodies[step % 2]), lost_tags);
        switch (step++ % 5) {
          case 0: FailAndRollBack(slot, set + " CREATE (:Doc {id: $id})", lost); break;
          case 1: FailAndRollBack(slot, set + " WITH d RETURN 1 / (d.id - d.id)", lost); break;
          case 2: RunTransaction(slot, {{set, lost}, {set, good}}, true); break;
          case 3: RunTransaction(slot, {{set, good}, {set, lost}}, false); break;
          default: Commit(slot, set, good);
        }
      },
      [&](ExecutionSlot& slot, Rng& rng, int reader) {
        // Readers 0 and 1 scan every document; reader 2 looks one up by its key.
        const int64_t id = rng() % kDocs;
        auto rows = reader < 2 ? Query(slot, "MATCH (d:Doc) RETURN d.id, d.body, d.tags")
                               : Query(slot, "MATCH (d:Doc {id: $id}) RETURN d.id, d.body, d.tags",
                                       P({{"id", id}}));
        if (!rows) return;
        const size_t want = reader < 2 ? kDocs : 1;
        if (rows->size() != want) {
          return Fail("reader " + std::to_string(reader) + " saw " + std::to_string(rows->size()) +
                      " documents, want " + std::to_string(want));
        }
        for (const auto& row : *rows) {
          const std::string body(row[1].GetString());
          auto it = pair_of_body.find(body);
          if (row[1].is_null() || it == pair_of_body.end()) {
            return Fail("doc " + row[0].ToString() + " has a body never committed: '" + body +
                        "' (" + std::to_string(body.size()) + " bytes)");
          }
          std::vector<std::string> seen;
          for (const auto& v : row[2].children()) seen.emplace_back(v.GetString());
          if (row[2].is_null() || seen != tags[it->second]) {
            return Fail("doc " + row[0].ToString() + " has body " + std::to_string(it->second) +
                        " but tags " + row[2].ToString() + ", want " +
                        StringList(tags[it->second]).ToString());
          }
        }
      });
  if (HasFailure()) return;  // a broken invariant stopped the run early
  EXPECT_GE(rollbacks_.load(), 3);
}

// Invariant 3: one statement creates a person and two edges from it to existing persons (some
// statements fail on a duplicate key or a division by zero after creating them, some run in a
// transaction that rolls back). Within one statement the edge count matches the node count;
// acknowledged persons are always found with their name and both edges; a person of a failed
// or rolled-back statement is never found.
TEST_P(ConcurrentReadWriteTest, InsertsAppearAtomically) {
  constexpr int64_t kInitialNodes = 10, kInitialEdges = 9, kFirstNew = 1000, kFirstLost = 1000000;
  Exec("CREATE NODE TABLE Person(id INT64, name STRING, PRIMARY KEY(id))");
  Exec("CREATE REL TABLE Knows(FROM Person TO Person)");
  Exec("UNWIND range(0, 9) AS i CREATE (:Person {id: i, name: 'p' + CAST(i AS STRING)})");
  Exec("MATCH (a:Person), (b:Person) WHERE b.id = a.id + 1 CREATE (a)-[:Knows]->(b)");
  const std::string create =
      "MATCH (a:Person {id: $a}), (b:Person {id: $b}) "
      "CREATE (p:Person {id: $new, name: $name})-[:Knows]->(a), (p)-[:Knows]->(b)";
  std::atomic<int64_t> created{0};     // persons kFirstNew + [0, created) are committed
  std::atomic<int64_t> last_lost{-1};  // the id of the latest failed statement's person
  std::vector<int64_t> ids;            // writer only: every committed person
  for (int64_t i = 0; i < kInitialNodes; ++i) ids.push_back(i);
  int64_t step = 0;
  RunConcurrently(
      [&](ExecutionSlot& slot, Rng& rng) {
        const int64_t a = ids[rng() % ids.size()];
        int64_t b = ids[rng() % ids.size()];
        if (b == a) b = ids[(std::find(ids.begin(), ids.end(), a) - ids.begin() + 1) % ids.size()];
        const int64_t kind = step++ % 5;
        const int64_t id = kind < 2 ? kFirstNew + created.load() : kFirstLost + step;
        ParameterMap p = P({{"a", a}, {"b", b}, {"new", id}});
        p["name"] = Value::String("p" + std::to_string(id));
        if (kind >= 2) last_lost.store(id);
        switch (kind) {
          case 2:
            FailAndRollBack(slot, create + " CREATE (:Person {id: $a, name: 'dup'})", p);
            break;
          case 3: FailAndRollBack(slot, create + " WITH p RETURN 1 / (p.id - p.id)", p); break;
          case 4: RunTransaction(slot, {{create, p}}, false); break;
          default:
            if (Commit(slot, create, p)) {
              ids.push_back(id);
              created.fetch_add(1);
            }
        }
      },
      [&](ExecutionSlot& slot, Rng& rng, int reader) {
        const int64_t acknowledged = created.load();
        if (reader < 2) {
          auto rows = Query(slot,
                            "MATCH (p:Person) WITH count(p) AS n "
                            "MATCH (:Person)-[k:Knows]->(:Person) RETURN n, count(k)");
          if (!rows) return;
          const int64_t n = rows->empty() ? -1 : (*rows)[0][0].GetInt();
          const int64_t edges = rows->empty() ? -1 : (*rows)[0][1].GetInt();
          if (n < kInitialNodes + acknowledged ||
              edges != 2 * (n - kInitialNodes) + kInitialEdges) {
            return Fail("reader " + std::to_string(reader) + " saw " + std::to_string(n) +
                        " persons and " + std::to_string(edges) + " edges; " +
                        std::to_string(acknowledged) + " inserts were acknowledged before");
          }
          auto lost = Query(slot, "MATCH (p:Person) WHERE p.id >= $lost RETURN count(*)",
                            P({{"lost", kFirstLost}}));
          if (lost && (lost->empty() || (*lost)[0][0].GetInt() != 0)) {
            Fail("a person of a failed statement is visible to a scan");
          }
          return;
        }
        const int64_t lost_id = last_lost.load();
        auto lost = Query(slot, "MATCH (p:Person {id: $id}) RETURN count(*)", P({{"id", lost_id}}));
        if (lost && (lost->empty() || (*lost)[0][0].GetInt() != 0)) {
          return Fail("person " + std::to_string(lost_id) + " of a failed statement is visible");
        }
        if (acknowledged == 0) return;
        const int64_t id = kFirstNew + static_cast<int64_t>(rng() % acknowledged);
        auto rows = Query(slot,
                          "MATCH (p:Person {id: $id})-[:Knows]->(q:Person) "
                          "RETURN p.name, count(q)",
                          P({{"id", id}}));
        if (rows && (rows->size() != 1 || (*rows)[0][0].GetString() != "p" + std::to_string(id) ||
                     (*rows)[0][1].GetInt() != 2)) {
          Fail("person " + std::to_string(id) + " (acknowledged): " +
               (rows->empty() ? "not found"
                              : (*rows)[0][0].ToString() + " with " + (*rows)[0][1].ToString() +
                                    " edges, " + std::to_string(rows->size()) + " rows"));
        }
      });
  if (HasFailure()) return;  // a broken invariant stopped the run early
  EXPECT_GE(rollbacks_.load(), 3);
  EXPECT_GE(created.load(), kMinCommits);
}

// Invariant 4: keys [0, 20) are deleted and created again, by two auto-commit statements or in
// one transaction (some rolled back); keys [20, 40) are never touched. A key never shows twice,
// an untouched key always shows once with its value, and at most one key is missing at a time.
TEST_P(ConcurrentReadWriteTest, DeletedAndReinsertedKeysShowAtMostOnce) {
  constexpr int64_t kKeys = 40, kChurned = 20;
  Exec("CREATE NODE TABLE Item(id INT64, v INT64, PRIMARY KEY(id))");
  Exec("UNWIND range(0, 39) AS i CREATE (:Item {id: i, v: i})");
  const std::string del = "MATCH (x:Item {id: $k}) DELETE x";
  const std::string ins = "CREATE (:Item {id: $k, v: $v})";
  int64_t step = 0;
  // Every committed value of key k is k modulo 1000 (rolled-back ones are k + 500).
  auto check = [&](int64_t k, const Rows& rows, const std::string& how) {
    if (rows.size() > 1 || (k >= kChurned && rows.size() != 1) ||
        (rows.size() == 1 && rows[0][0].GetInt() % 1000 != k)) {
      Fail(how + " of key " + std::to_string(k) + " returned " + std::to_string(rows.size()) +
           " rows" + (rows.empty() ? "" : ", first v=" + rows[0][0].ToString()));
    }
  };
  RunConcurrently(
      [&](ExecutionSlot& slot, Rng& rng) {
        const int64_t k = rng() % kChurned;
        const ParameterMap p = P({{"k", k}, {"v", k + 1000 * ++step}});
        switch (step % 3) {
          case 0:
            if (Commit(slot, del, p)) Commit(slot, ins, p);
            break;
          case 1: RunTransaction(slot, {{del, p}, {ins, p}}, true); break;
          default:
            RunTransaction(slot, {{del, p}, {ins, P({{"k", k}, {"v", k + 500 + 1000 * step}})}},
                           false);
        }
      },
      [&](ExecutionSlot& slot, Rng& rng, int reader) {
        const int64_t k = rng() % kKeys;
        if (reader < 2) {  // by key (the primary-key index)
          if (auto rows = Query(slot, "MATCH (x:Item {id: $k}) RETURN x.v", P({{"k", k}}))) {
            check(k, *rows, "point read");
          }
          return;
        }
        if (auto rows = Query(slot, "MATCH (x:Item) WHERE x.id = $k RETURN x.v", P({{"k", k}}))) {
          check(k, *rows, "filtered scan");
        }
        auto all = Query(slot, "MATCH (x:Item) RETURN x.id, x.v");
        if (!all) return;
        std::map<int64_t, Rows> by_key;
        for (const auto& row : *all) by_key[row[0].GetInt()].push_back({row[1]});
        for (int64_t key = 0; key < kKeys; ++key) check(key, by_key[key], "full scan");
        if (all->size() < static_cast<size_t>(kKeys - 1)) {
          Fail("a scan saw only " + std::to_string(all->size()) + " items");
        }
      });
  if (HasFailure()) return;  // a broken invariant stopped the run early
  EXPECT_GE(rollbacks_.load(), 3);
}

// Invariant 5: every commit adds one to a counter and creates or deletes an event (the counter
// also counts the live events). A READ ONLY transaction reads the same state in every statement
// while the writer commits, and a read after its COMMIT sees a newer one; an auto-commit read
// sees every commit acknowledged before it started.
TEST_P(ConcurrentReadWriteTest, ReadOnlyTransactionsSeeAFrozenSnapshot) {
  constexpr int64_t kFirstNew = 100;
  Exec("CREATE NODE TABLE Counter(id INT64, v INT64, events INT64, PRIMARY KEY(id))");
  Exec("CREATE NODE TABLE Event(id INT64, v INT64, PRIMARY KEY(id))");
  Exec("CREATE (:Counter {id: 0, v: 0, events: 5})");
  Exec("UNWIND range(0, 4) AS i CREATE (:Event {id: i, v: i})");
  std::atomic<int64_t> next_event{kFirstNew};
  std::vector<int64_t> live;  // writer only: events it may delete
  size_t oldest = 0;
  std::atomic<int64_t> frozen_checks{0}, fresh_checks{0};
  // "counter|events|count|sum|probe" as one statement sees it, checking the counter's events
  // against the count; `probe`: whether the event with that id exists.
  auto state = [&](ExecutionSlot& slot, int64_t probe) -> std::optional<std::string> {
    auto rows = Query(slot,
                      "MATCH (c:Counter {id: 0}) WITH c MATCH (e:Event) "
                      "RETURN c.v, c.events, count(e), sum(e.v)");
    auto found = Query(slot, "MATCH (e:Event {id: $id}) RETURN count(*)", P({{"id", probe}}));
    if (!rows || !found) return std::nullopt;
    if (rows->size() != 1 || (*rows)[0][1].GetInt() != (*rows)[0][2].GetInt()) {
      Fail("the counter does not match the events: " +
           (rows->empty() ? std::string("no row")
                          : (*rows)[0][1].ToString() + " vs " + (*rows)[0][2].ToString()));
      return std::nullopt;
    }
    std::string s;
    for (const auto& v : (*rows)[0]) s += v.ToString() + "|";
    return s + (*found)[0][0].ToString();
  };
  auto counter = [](const std::string& state) { return std::stoll(state); };
  int64_t step = 0;
  RunConcurrently(
      [&](ExecutionSlot& slot, Rng&) {
        if (step++ % 3 == 2 && oldest < live.size()) {
          if (Commit(slot,
                     "MATCH (c:Counter {id: 0}), (e:Event {id: $id}) "
                     "SET c.v = c.v + 1, c.events = c.events - 1 DELETE e",
                     P({{"id", live[oldest]}}))) {
            ++oldest;
          }
          return;
        }
        const int64_t id = next_event.load();
        if (Commit(slot,
                   "MATCH (c:Counter {id: 0}) SET c.v = c.v + 1, c.events = c.events + 1 "
                   "CREATE (:Event {id: $id, v: $id})",
                   P({{"id", id}}))) {
          live.push_back(id);
          next_event.store(id + 1);
        }
      },
      [&](ExecutionSlot& slot, Rng&, int reader) {
        const int64_t before = commits_.load();
        if (reader == 2) {  // auto-commit: each statement sees every acknowledged commit
          auto s = state(slot, next_event.load());
          const int64_t after = commits_.load();
          if (s && (counter(*s) < before || counter(*s) > after + 1)) {
            Fail("an auto-commit read saw counter " + *s + " between " + std::to_string(before) +
                 " and " + std::to_string(after) + " acknowledged commits");
          }
          return;
        }
        if (!Query(slot, "BEGIN TRANSACTION READ ONLY")) return;
        const int64_t pinned = commits_.load();
        const int64_t probe = next_event.load();  // not committed yet at BEGIN, or just now
        const auto first = state(slot, probe);
        if (!first) return;
        if (counter(*first) < before) {
          return Fail("a READ ONLY transaction began at counter " + *first + " after " +
                      std::to_string(before) + " acknowledged commits");
        }
        // Reads again after each step of the writer, for ~100 ms.
        const auto until = Clock::now() + std::chrono::milliseconds(100);
        int reads = 1;
        for (int64_t seen = WaitForWriter(-1, until);;) {
          seen = WaitForWriter(seen, until);
          if (stop_.load() || Clock::now() >= until) break;
          const auto again = state(slot, probe);
          if (!again) return;
          if (*again != *first) {
            return Fail("a READ ONLY transaction read " + *first + " then, after " +
                        std::to_string(commits_.load() - pinned) + " more commits, " + *again);
          }
          ++reads;
        }
        if (!Query(slot, "COMMIT")) return;
        frozen_checks.fetch_add(reads);
        // A commit acknowledged at least two commits after BEGIN became visible after it.
        if (commits_.load() >= pinned + 2) {
          const auto after = state(slot, probe);
          if (after && counter(*after) <= counter(*first)) {
            return Fail("after COMMIT a read still sees counter " + *after + ", as in the " +
                        "transaction: " + *first);
          }
          fresh_checks.fetch_add(1);
        }
      },
      /*min_steps=*/3,  // readers 0 and 1 spend ~100 ms per step
      [&] { return frozen_checks.load() >= 2 * kMinReads && fresh_checks.load() >= 2; });
  std::printf("[  stats   ] reads inside READ ONLY transactions %lld, newer after COMMIT %lld\n",
              static_cast<long long>(frozen_checks.load()),
              static_cast<long long>(fresh_checks.load()));
  if (HasFailure()) return;  // a broken invariant stopped the run early
  EXPECT_GE(frozen_checks.load(), 2 * kMinReads);
  EXPECT_GE(fresh_checks.load(), 2);
}

INSTANTIATE_TEST_SUITE_P(ConcurrentReadWrite, ConcurrentReadWriteTest, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "OnDisk" : "InMemory";
                         });

}  // namespace
}  // namespace graphdb
