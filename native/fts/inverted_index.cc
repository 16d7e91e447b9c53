#include "fts/inverted_index.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

#include "common/interrupt.h"
#include "exec/secondary_index.h"

namespace graphdb::fts {
namespace {

// Per-thread scratch of Search: a dense score accumulator by row offset, reset after use
// through the list of rows it touched, so a query allocates nothing once warm.
struct Scratch {
  std::vector<double> score;
  std::vector<uint32_t> hits;  // matched distinct terms, for conjunctive queries
  std::vector<uint64_t> touched;
  std::vector<ScoredDoc> entries;  // the sparse mode's contributions, doc by doc once sorted
  void Ensure(size_t n) {
    if (score.size() < n) {
      score.resize(n, 0.0);
      hits.resize(n, 0);
    }
  }
};

// Counts each term id's occurrences: (id, tf) pairs, ids ascending.
void CountTerms(std::vector<uint32_t>* ids, std::vector<std::pair<uint32_t, uint32_t>>* out) {
  std::sort(ids->begin(), ids->end());
  out->clear();
  for (size_t i = 0; i < ids->size();) {
    size_t j = i;
    while (j < ids->size() && (*ids)[j] == (*ids)[i]) ++j;
    out->emplace_back((*ids)[i], static_cast<uint32_t>(j - i));
    i = j;
  }
}

uint32_t HashTerm(std::string_view term) {
  // FNV-1a, folded: terms are short.
  uint64_t h = 1469598103934665603ull;
  for (char c : term) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return static_cast<uint32_t>(h ^ (h >> 32));
}

}  // namespace

uint32_t InvertedIndex::FindTerm(std::string_view term) const {
  if (slots_.empty()) return kNoTerm;
  const uint32_t h = HashTerm(term);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    uint64_t slot = slots_[i];
    if (slot == 0) return kNoTerm;
    if (static_cast<uint32_t>(slot >> 32) == h) {
      auto id = static_cast<uint32_t>(slot) - 1;
      if (terms_[id] == term) return id;
    }
  }
}

void InvertedIndex::GrowTable() {
  std::vector<uint64_t> old = std::move(slots_);
  slots_.assign(std::max<size_t>(1024, old.size() * 2), 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    size_t i = (slot >> 32) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

uint32_t InvertedIndex::TermId(std::string_view term) {
  if ((terms_.size() + 1) * 2 > slots_.size()) GrowTable();
  const uint32_t h = HashTerm(term);
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    uint64_t slot = slots_[i];
    if (slot == 0) break;
    if (static_cast<uint32_t>(slot >> 32) == h) {
      auto id = static_cast<uint32_t>(slot) - 1;
      if (terms_[id] == term) return id;
    }
  }
  auto id = static_cast<uint32_t>(terms_.size());
  terms_.emplace_back(term);
  term_info_.emplace_back();
  postings_.emplace_back();
  slots_[i] = (static_cast<uint64_t>(h) << 32) | (id + 1);
  return id;
}

void InvertedIndex::PushStats(uint64_t ts, int64_t docs_delta, int64_t len_delta) {
  // The point for `ts` (a copy of the one before when new); it and every later point change.
  auto it = std::lower_bound(stats_.begin(), stats_.end(), ts,
                             [](const StatPoint& p, uint64_t t) { return p.ts < t; });
  if (it == stats_.end() || it->ts != ts) {
    StatPoint p = it == stats_.begin() ? StatPoint{ts, 0, 0} : *(it - 1);
    p.ts = ts;
    it = stats_.insert(it, p);
  }
  for (; it != stats_.end(); ++it) {
    it->docs = static_cast<uint64_t>(static_cast<int64_t>(it->docs) + docs_delta);
    it->total_len = static_cast<uint64_t>(static_cast<int64_t>(it->total_len) + len_delta);
  }
}

void InvertedIndex::EndLive(uint64_t offset, uint64_t ts) {
  if (offset >= docs_.size()) return;
  DocState& d = docs_[offset];
  if (d.versions.empty() || d.versions.back().end != kForever) return;
  for (auto [term, index] : d.live) {
    postings_[term][index].end = ts;
    ++term_info_[term].ended;
  }
  ended_postings_ += d.live.size();
  d.live.clear();
  d.versions.back().end = ts;
  min_end_ = std::min(min_end_, ts);
  if (d.versions.size() == 1) ended_docs_.push_back(offset);  // else listed already
  PushStats(ts, -1, -static_cast<int64_t>(d.versions.back().len));
}

void InvertedIndex::AddVersion(uint64_t offset, const std::vector<std::string>& terms,
                               uint64_t ts) {
  if (offset >= docs_.size()) docs_.resize(offset + 1);
  std::vector<uint32_t> ids;
  ids.reserve(terms.size());
  for (const std::string& t : terms) ids.push_back(TermId(t));
  std::vector<std::pair<uint32_t, uint32_t>> counted;
  CountTerms(&ids, &counted);
  auto len = static_cast<uint32_t>(terms.size());
  DocState& d = docs_[offset];
  d.versions.push_back({ts, kForever, len});
  d.live.reserve(counted.size());
  for (auto [term, tf] : counted) {
    auto& list = postings_[term];
    d.live.emplace_back(term, static_cast<uint32_t>(list.size()));
    list.push_back({offset, ts, kForever, tf, len});
    term_info_[term].max_begin = std::max(term_info_[term].max_begin, ts);
  }
  PushStats(ts, 1, len);
}

void InvertedIndex::Put(uint64_t offset, const std::vector<std::string>& terms, uint64_t ts) {
  std::unique_lock lock(mu_);
  EndLive(offset, ts);
  size_t known = terms_.size();
  AddVersion(offset, terms, ts);
  for (auto id = static_cast<uint32_t>(known); id < terms_.size(); ++id) {
    auto at = std::lower_bound(sorted_.begin(), sorted_.end(), terms_[id],
                               [&](uint32_t x, const std::string& t) { return terms_[x] < t; });
    sorted_.insert(at, id);
  }
}

void InvertedIndex::Remove(uint64_t offset, uint64_t ts) {
  std::unique_lock lock(mu_);
  EndLive(offset, ts);
}

void InvertedIndex::Build(std::vector<DocTerms> docs) {
  std::unique_lock lock(mu_);
  // Stats points in commit order; postings appended in the given order stay sorted by row
  // when the rows come in order.
  std::stable_sort(docs.begin(), docs.end(),
                   [](const DocTerms& a, const DocTerms& b) { return a.begin_ts < b.begin_ts; });
  for (DocTerms& doc : docs) {
    if (doc.terms.empty()) continue;
    EndLive(doc.offset, doc.begin_ts);
    AddVersion(doc.offset, doc.terms, doc.begin_ts);
  }
  while (sorted_.size() < terms_.size()) sorted_.push_back(static_cast<uint32_t>(sorted_.size()));
  std::sort(sorted_.begin(), sorted_.end(),
            [&](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
}

void InvertedIndex::Prune(uint64_t oldest) {
  std::unique_lock lock(mu_);
  // Keep the last stats point at or before `oldest` and every later one.
  size_t first = 0;
  while (first + 1 < stats_.size() && stats_[first + 1].ts <= oldest) ++first;
  stats_.erase(stats_.begin(), stats_.begin() + static_cast<ptrdiff_t>(first));
  if (min_end_ > oldest) return;  // nothing ended early enough (the common case: O(1))
  // Drop the ended postings of the terms that have some, renumbering the live postings that
  // move (their documents point at them).
  uint64_t min_end = kForever;
  for (uint32_t term = 0; term < postings_.size(); ++term) {
    if (term_info_[term].ended == 0) continue;
    auto& list = postings_[term];
    size_t out = 0;
    uint32_t ended = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      const Posting p = list[i];
      if (p.end <= oldest) continue;
      if (p.end != kForever) {
        ++ended;
        min_end = std::min(min_end, p.end);
      } else if (out != i) {
        for (auto& [t, index] : docs_[p.doc].live) {
          if (t == term) index = static_cast<uint32_t>(out);
        }
      }
      list[out++] = p;
    }
    ended_postings_ -= list.size() - out;
    list.resize(out);
    term_info_[term].ended = ended;
  }
  // Drop the ended versions of the documents that have some.
  size_t keep = 0;
  for (uint64_t offset : ended_docs_) {
    auto& v = docs_[offset].versions;
    v.erase(std::remove_if(v.begin(), v.end(), [&](const Version& x) { return x.end <= oldest; }),
            v.end());
    bool still = false;
    for (const Version& x : v) {
      if (x.end != kForever) {
        still = true;
        min_end = std::min(min_end, x.end);
      }
    }
    if (still) ended_docs_[keep++] = offset;
  }
  ended_docs_.resize(keep);
  min_end_ = min_end;
}

const InvertedIndex::Version* InvertedIndex::VisibleVersion(uint64_t offset, uint64_t ts) const {
  if (offset >= docs_.size()) return nullptr;
  for (const Version& v : docs_[offset].versions) {
    if (v.begin <= ts && ts < v.end) return &v;
  }
  return nullptr;
}

std::pair<uint64_t, uint64_t> InvertedIndex::Stats(uint64_t read_ts) const {
  std::shared_lock lock(mu_);
  return StatsLocked(read_ts);
}

std::pair<uint64_t, uint64_t> InvertedIndex::StatsLocked(uint64_t read_ts) const {
  read_ts = std::min(read_ts, kForever - 1);
  auto it = std::upper_bound(stats_.begin(), stats_.end(), read_ts,
                             [](uint64_t ts, const StatPoint& p) { return ts < p.ts; });
  if (it == stats_.begin()) return {0, 0};
  --it;
  return {it->docs, it->total_len};
}

std::vector<ScoredDoc> InvertedIndex::Search(const QueryTerms& query, uint64_t read_ts,
                                             const OwnDocs& own,
                                             const SearchOptions& options) const {
  std::vector<ScoredDoc> result;
  if (query.unique_count == 0) return result;
  read_ts = std::min(read_ts, kForever - 1);  // live postings end at kForever
  std::shared_lock lock(mu_);
  auto [n, total] = StatsLocked(read_ts);
  const auto& changed = own.changed;
  auto is_changed = [&](uint64_t offset) {
    return !changed.empty() && std::binary_search(changed.begin(), changed.end(), offset);
  };
  // The collection as this statement sees it.
  for (uint64_t offset : changed) {
    if (const Version* v = VisibleVersion(offset, read_ts)) {
      --n;
      total -= v->len;
    }
  }
  for (const auto& doc : own.docs) {
    ++n;
    total += doc.terms.size();
  }
  if (n == 0) return result;
  // The matched terms: exact terms, and the index's terms a pattern matches (distinct).
  std::vector<uint32_t> matched;
  for (const std::string& t : query.exact) {
    uint32_t id = FindTerm(t);
    if (id != kNoTerm) matched.push_back(id);
  }
  for (size_t p = 0; p < query.patterns.size(); ++p) {
    // The terms that start with the pattern's literal prefix (all of them for none): a range
    // of the sorted terms.
    const std::string& prefix = query.pattern_prefixes[p];
    auto first =
        std::lower_bound(sorted_.begin(), sorted_.end(), prefix,
                         [&](uint32_t id, const std::string& x) { return terms_[id] < x; });
    const std::string& suffix = query.pattern_suffixes[p];
    for (auto it = first; it != sorted_.end() && terms_[*it].starts_with(prefix); ++it) {
      const std::string& term = terms_[*it];
      if (term.ends_with(suffix) && query.patterns[p]->FullMatch(term)) matched.push_back(*it);
    }
  }
  std::sort(matched.begin(), matched.end());
  matched.erase(std::unique(matched.begin(), matched.end()), matched.end());
  // The own documents' matched terms, by text: (doc index, term text, tf).
  struct OwnHit {
    size_t doc;
    std::string_view term;
    uint32_t tf;
  };
  std::vector<OwnHit> own_hits;
  for (size_t i = 0; i < own.docs.size(); ++i) {
    std::vector<std::string_view> terms(own.docs[i].terms.begin(), own.docs[i].terms.end());
    std::sort(terms.begin(), terms.end());
    for (size_t a = 0; a < terms.size();) {
      size_t b = a;
      while (b < terms.size() && terms[b] == terms[a]) ++b;
      bool hit = std::find(query.exact.begin(), query.exact.end(), terms[a]) != query.exact.end();
      for (size_t p = 0; !hit && p < query.patterns.size(); ++p) {
        hit = query.patterns[p]->FullMatch(terms[a]);
      }
      if (hit) own_hits.push_back({i, terms[a], static_cast<uint32_t>(b - a)});
      a = b;
    }
  }
  const double k = options.k;
  const double b = options.b;
  const double avgdl = static_cast<double>(total) / static_cast<double>(n);
  auto weight = [&](double idf, uint32_t tf, uint32_t len) {
    double tfd = tf;
    return idf * (tfd * (k + 1) / (tfd + k * (1 - b + b * (static_cast<double>(len) / avgdl))));
  };
  auto idf_of = [&](uint64_t df) {
    double dfd = static_cast<double>(df);
    return std::log10((static_cast<double>(n) - dfd + 0.5) / (dfd + 0.5) + 1);
  };

  thread_local Scratch scratch;
  scratch.touched.clear();
  // Leaves the accumulator zeroed however the search ends (an interrupt throws).
  struct Reset {
    Scratch& s;
    ~Reset() {
      for (uint64_t doc : s.touched) {
        s.score[doc] = 0;
        s.hits[doc] = 0;
      }
      s.touched.clear();
      s.entries.clear();
    }
  } reset{scratch};
  uint64_t max_doc = docs_.size();
  for (const auto& doc : own.docs) max_doc = std::max(max_doc, doc.offset + 1);
  // A selective query (few postings for the table's size) collects its contributions and sorts
  // them; a broad one adds them up in a dense per-row accumulator.
  uint64_t volume = own_hits.size();
  for (uint32_t term : matched) volume += postings_[term].size();
  const bool sparse = volume * 8 < max_doc;
  if (!sparse) scratch.Ensure(max_doc);
  // Terms only the own documents hold (not in the dictionary) also count as matched terms.
  std::vector<std::string_view> own_only;
  for (const OwnHit& h : own_hits) {
    if (FindTerm(h.term) == kNoTerm) own_only.push_back(h.term);
  }
  std::sort(own_only.begin(), own_only.end());
  own_only.erase(std::unique(own_only.begin(), own_only.end()), own_only.end());

  auto score_own = [&](std::string_view term, uint64_t committed_df) {
    uint64_t df = committed_df;
    for (const OwnHit& h : own_hits) df += h.term == term;
    return df;
  };
  auto add = [&](uint64_t doc, double s) {
    if (sparse) {
      scratch.entries.push_back({doc, s});
      return;
    }
    if (scratch.hits[doc] == 0) scratch.touched.push_back(doc);
    scratch.score[doc] += s;
    ++scratch.hits[doc];
  };
  for (uint32_t term : matched) {
    const auto& list = postings_[term];
    const TermInfo& info = term_info_[term];
    // Every posting live, begun by the reader's time, none replaced by the statement's own
    // rows: no check per posting.
    const bool all = info.ended == 0 && info.max_begin <= read_ts && changed.empty();
    uint64_t df = 0;
    if (all) {
      df = list.size();
    } else {
      for (const Posting& p : list) {
        if (p.VisibleAt(read_ts) && !is_changed(p.doc)) ++df;
      }
    }
    df = score_own(terms_[term], df);
    if (df == 0) continue;
    CheckInterrupt();
    const double idf = idf_of(df);
    const double k1 = idf * (k + 1);
    const double norm0 = k * (1 - b);
    const double norm1 = k * b / avgdl;
    auto w = [&](const Posting& p) {
      double tf = p.tf;
      return k1 * tf / (tf + norm0 + norm1 * static_cast<double>(p.len));
    };
    if (all) {
      for (const Posting& p : list) add(p.doc, w(p));
    } else {
      for (const Posting& p : list) {
        if (p.VisibleAt(read_ts) && !is_changed(p.doc)) add(p.doc, w(p));
      }
    }
    for (const OwnHit& h : own_hits) {
      if (h.term == terms_[term]) {
        add(own.docs[h.doc].offset,
            weight(idf, h.tf, static_cast<uint32_t>(own.docs[h.doc].terms.size())));
      }
    }
  }
  for (std::string_view term : own_only) {
    double idf = idf_of(score_own(term, 0));
    for (const OwnHit& h : own_hits) {
      if (h.term == term) {
        add(own.docs[h.doc].offset,
            weight(idf, h.tf, static_cast<uint32_t>(own.docs[h.doc].terms.size())));
      }
    }
  }
  auto better = [](const ScoredDoc& a, const ScoredDoc& b) {
    return a.score > b.score || (a.score == b.score && a.offset < b.offset);
  };
  // Top k: a heap of the best k so far, its worst on top.
  auto offer = [&](uint64_t doc, double score, uint32_t hits) {
    if (options.conjunctive && hits != query.unique_count) return;
    ScoredDoc d{doc, score};
    if (options.top == 0) {
      result.push_back(d);
    } else if (result.size() < options.top) {
      result.push_back(d);
      std::push_heap(result.begin(), result.end(), better);
    } else if (better(d, result.front())) {
      std::pop_heap(result.begin(), result.end(), better);
      result.back() = d;
      std::push_heap(result.begin(), result.end(), better);
    }
  };
  if (sparse) {
    // Stable: a row's contributions are summed in term order, as the dense mode sums them.
    auto& e = scratch.entries;
    std::stable_sort(e.begin(), e.end(),
                     [](const ScoredDoc& a, const ScoredDoc& b) { return a.offset < b.offset; });
    for (size_t i = 0; i < e.size();) {
      double score = 0;
      uint32_t hits = 0;
      size_t j = i;
      for (; j < e.size() && e[j].offset == e[i].offset; ++j) {
        score += e[j].score;
        ++hits;
      }
      offer(e[i].offset, score, hits);
      i = j;
    }
  } else {
    if (options.top == 0) result.reserve(scratch.touched.size());
    for (uint64_t doc : scratch.touched) offer(doc, scratch.score[doc], scratch.hits[doc]);
  }
  if (options.top != 0) std::sort_heap(result.begin(), result.end(), better);
  return result;
}

using exec::AppendFixed;
using exec::ReadFixed;

// Layout (little-endian): u64 documents, then per document u64 row offset, u64 begin_ts, u32
// length; u32 terms, then per term u32 size, its bytes, u32 postings, then per posting u64 row
// offset, u32 tf. A posting's begin and length are its document's.
void InvertedIndex::Save(uint64_t snapshot, std::string* out) const {
  std::shared_lock lock(mu_);
  snapshot = std::min(snapshot, kForever - 1);
  uint64_t docs = 0;
  for (uint64_t offset = 0; offset < docs_.size(); ++offset)
    docs += VisibleVersion(offset, snapshot) != nullptr;
  AppendFixed<uint64_t>(out, docs);
  for (uint64_t offset = 0; offset < docs_.size(); ++offset) {
    const Version* v = VisibleVersion(offset, snapshot);
    if (v == nullptr) continue;
    AppendFixed<uint64_t>(out, offset);
    AppendFixed<uint64_t>(out, v->begin);
    AppendFixed<uint32_t>(out, v->len);
  }
  const size_t count_at = out->size();
  AppendFixed<uint32_t>(out, 0);
  uint32_t terms = 0;
  for (uint32_t term = 0; term < terms_.size(); ++term) {
    uint32_t visible = 0;
    for (const Posting& p : postings_[term]) visible += p.VisibleAt(snapshot);
    if (visible == 0) continue;
    ++terms;
    AppendFixed<uint32_t>(out, static_cast<uint32_t>(terms_[term].size()));
    out->append(terms_[term]);
    AppendFixed<uint32_t>(out, visible);
    for (const Posting& p : postings_[term]) {
      if (!p.VisibleAt(snapshot)) continue;
      AppendFixed<uint64_t>(out, p.doc);
      AppendFixed<uint32_t>(out, p.tf);
    }
  }
  std::memcpy(out->data() + count_at, &terms, sizeof(terms));
}

bool InvertedIndex::Load(std::string_view in) {
  std::unique_lock lock(mu_);
  if (!terms_.empty() || !docs_.empty()) return false;
  auto fail = [&] {
    slots_.clear();
    terms_.clear();
    sorted_.clear();
    term_info_.clear();
    postings_.clear();
    docs_.clear();
    stats_ = {{0, 0, 0}};
    return false;
  };
  catalog::BinaryReader r(in);
  uint64_t docs;
  // 20 bytes a document: a count beyond the bytes is damage, not a size to allocate.
  if (!ReadFixed(r, &docs) || docs > r.remaining() / 20) return false;
  uint64_t total = 0;
  uint64_t last = 0;
  for (uint64_t i = 0; i < docs; ++i) {
    uint64_t offset, begin;
    uint32_t len;
    if (!ReadFixed(r, &offset) || !ReadFixed(r, &begin) || !ReadFixed(r, &len)) return fail();
    if ((i > 0 && offset <= last) || offset >= (uint64_t{1} << 40) || begin == kForever)
      return fail();
    last = offset;
    if (offset >= docs_.size()) docs_.resize(offset + 1);
    docs_[offset].versions.push_back({begin, kForever, len});
    total += len;
  }
  uint32_t terms;
  if (!ReadFixed(r, &terms)) return fail();
  std::vector<uint64_t> counted(docs_.size(), 0);  // each document's term occurrences
  for (uint32_t t = 0; t < terms; ++t) {
    uint32_t size, postings;
    std::string_view text;
    if (!ReadFixed(r, &size) || !r.GetView(size, &text)) return fail();
    if (FindTerm(text) != kNoTerm) return fail();
    const uint32_t id = TermId(text);
    if (!ReadFixed(r, &postings) || postings > r.remaining() / 12) return fail();
    auto& list = postings_[id];
    list.reserve(postings);
    for (uint32_t i = 0; i < postings; ++i) {
      uint64_t doc;
      uint32_t tf;
      if (!ReadFixed(r, &doc) || !ReadFixed(r, &tf) || tf == 0 || doc >= docs_.size() ||
          docs_[doc].versions.empty()) {
        return fail();
      }
      DocState& d = docs_[doc];
      if (!d.live.empty() && d.live.back().first == id) return fail();  // twice in one term
      const Version& v = d.versions.back();
      d.live.emplace_back(id, static_cast<uint32_t>(list.size()));
      list.push_back({doc, v.begin, kForever, tf, v.len});
      term_info_[id].max_begin = std::max(term_info_[id].max_begin, v.begin);
      counted[doc] += tf;
    }
  }
  if (!r.done()) return fail();
  for (uint64_t offset = 0; offset < docs_.size(); ++offset) {
    if (!docs_[offset].versions.empty() && counted[offset] != docs_[offset].versions.back().len) {
      return fail();
    }
  }
  sorted_.resize(terms_.size());
  for (uint32_t id = 0; id < sorted_.size(); ++id) sorted_[id] = id;
  std::sort(sorted_.begin(), sorted_.end(),
            [&](uint32_t a, uint32_t b) { return terms_[a] < terms_[b]; });
  stats_ = {{0, docs, total}};
  return true;
}

uint64_t InvertedIndex::MemoryBytes() const {
  std::shared_lock lock(mu_);
  uint64_t bytes = sizeof(*this);
  for (const auto& t : terms_) bytes += t.capacity() + sizeof(std::string);
  bytes += slots_.capacity() * sizeof(uint64_t) + term_info_.capacity() * sizeof(TermInfo) +
           sorted_.capacity() * sizeof(uint32_t);
  for (const auto& list : postings_) bytes += list.capacity() * sizeof(Posting) + sizeof(list);
  for (const auto& d : docs_) {
    bytes += sizeof(DocState) + d.versions.capacity() * sizeof(Version) +
             d.live.capacity() * sizeof(std::pair<uint32_t, uint32_t>);
  }
  bytes += stats_.capacity() * sizeof(StatPoint);
  return bytes;
}

}  // namespace graphdb::fts
