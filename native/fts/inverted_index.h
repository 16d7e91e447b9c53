// The full-text index's contents (docs/fts.md, "Storage"): an inverted index whose postings
// carry versions, so that every snapshot reads the index as of its own time.
//
// Terms have ids (a hash map from text); each term has a list of postings, one per (document
// version, term): the document's row offset, the term's frequency in it, the document's length
// (its number of terms) and the version's [begin, end) commit timestamps. A snapshot reading at
// time r sees the postings with begin <= r < end. A document's new version (Put) ends its live
// postings at the commit's timestamp and appends new ones; Remove ends them; Prune drops the
// postings (and document versions) that ended at or before the oldest snapshot still running.
// The collection's document count and total length are kept as a history of (ts, count,
// total) points, one per change, so BM25's N and average length are exact at any snapshot.
//
// BM25 (Kùzu's formula, with a base-10 logarithm):
//   score(d) = sum over the query's matched terms t in d of
//              log10((N - df(t) + 0.5) / (df(t) + 0.5) + 1) * tf * (k + 1) /
//              (tf + k * (1 - b + b * len(d) / avgdl))
//
// Thread-safety: one writer at a time (Put / Remove / Build / Prune), any number of concurrent
// Search calls; a shared mutex inside orders them.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fts/analyzer.h"

namespace graphdb::fts {

inline constexpr uint64_t kForever = std::numeric_limits<uint64_t>::max();

struct SearchOptions {
  double k = 1.2;
  double b = 0.75;
  bool conjunctive = false;
  uint64_t top = 0;  // 0: every match
};

struct ScoredDoc {
  uint64_t offset;
  double score;
};

// What the searching statement's own uncommitted transaction changed: the rows whose committed
// versions it must not see (sorted, unique), and the terms of those of them it sees now.
struct OwnDocs {
  std::vector<uint64_t> changed;
  struct Doc {
    uint64_t offset;
    std::vector<std::string> terms;  // one per occurrence
  };
  std::vector<Doc> docs;
};

// One document's terms as a build or a commit hands them over.
struct DocTerms {
  uint64_t offset = 0;
  uint64_t begin_ts = 0;
  std::vector<std::string> terms;  // one per occurrence
};

class InvertedIndex {
 public:
  InvertedIndex() = default;
  InvertedIndex(const InvertedIndex&) = delete;
  InvertedIndex& operator=(const InvertedIndex&) = delete;

  // Row `offset` has `terms` from commit `ts` on (its earlier version ends at ts). A new
  // version counts as a document even with no terms (as Kùzu counts inserted rows).
  void Put(uint64_t offset, const std::vector<std::string>& terms, uint64_t ts);
  // Row `offset` is deleted from commit `ts` on.
  void Remove(uint64_t offset, uint64_t ts);
  // The first fill of an empty index. Documents without terms are not counted (as Kùzu's
  // CREATE_FTS_INDEX does not count them).
  void Build(std::vector<DocTerms> docs);
  void Prune(uint64_t oldest);

  std::vector<ScoredDoc> Search(const QueryTerms& query, uint64_t read_ts, const OwnDocs& own,
                                const SearchOptions& options) const;

  uint64_t MemoryBytes() const;
  // Persistence (docs/storage-format.md "Index files"). Save appends the documents and
  // postings visible at `snapshot`, each as current (a reader at the snapshot or later needs
  // no other version), with the document count and total length they make. Load reads that
  // into an empty index; false (the index left empty) when the bytes are not such an index.
  void Save(uint64_t snapshot, std::string* out) const;
  bool Load(std::string_view in);
  // The number of documents and their total length visible at `read_ts`.
  std::pair<uint64_t, uint64_t> Stats(uint64_t read_ts) const;

 private:
  struct Posting {
    uint64_t doc;
    uint64_t begin;
    uint64_t end;
    uint32_t tf;
    uint32_t len;
    bool VisibleAt(uint64_t ts) const { return begin <= ts && ts < end; }
  };
  struct Version {
    uint64_t begin;
    uint64_t end;
    uint32_t len;
  };
  struct DocState {
    std::vector<Version> versions;  // oldest first; the last may be live (end == kForever)
    std::vector<std::pair<uint32_t, uint32_t>> live;  // (term id, posting index) of the live one
  };
  struct StatPoint {
    uint64_t ts;
    uint64_t docs;
    uint64_t total_len;
  };
  // Per term: what lets a search skip the visibility checks (every posting live and begun at
  // or before the reader's time) and count df without a pass.
  struct TermInfo {
    uint64_t max_begin = 0;  // the latest posting's begin
    uint32_t ended = 0;      // postings with an end
  };

  static constexpr uint32_t kNoTerm = std::numeric_limits<uint32_t>::max();
  // The id of `term`, or kNoTerm. An open-addressing table of (hash tag, id) slots.
  uint32_t FindTerm(std::string_view term) const;
  uint32_t TermId(std::string_view term);  // adds it when new
  void GrowTable();
  void EndLive(uint64_t offset, uint64_t ts);
  void AddVersion(uint64_t offset, const std::vector<std::string>& terms, uint64_t ts);
  void PushStats(uint64_t ts, int64_t docs_delta, int64_t len_delta);
  std::pair<uint64_t, uint64_t> StatsLocked(uint64_t read_ts) const;
  const Version* VisibleVersion(uint64_t offset, uint64_t ts) const;

  mutable std::shared_mutex mu_;
  std::vector<uint64_t> slots_;  // (hash << 32) | (id + 1); 0: empty
  std::vector<std::string> terms_;
  std::vector<uint32_t> sorted_;  // term ids in text order (wildcard prefixes are ranges)
  std::vector<TermInfo> term_info_;
  std::vector<std::vector<Posting>> postings_;
  std::vector<DocState> docs_;  // by row offset
  std::vector<StatPoint> stats_{{0, 0, 0}};
  // What Prune has to look at: the earliest end of a posting or version still kept, the
  // number of ended postings, the rows with an ended version.
  uint64_t min_end_ = kForever;
  uint64_t ended_postings_ = 0;
  std::vector<uint64_t> ended_docs_;
};

}  // namespace graphdb::fts
