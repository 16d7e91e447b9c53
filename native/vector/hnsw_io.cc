// Hnsw::Save / Hnsw::Load (declared in vector/hnsw.h): the graph's logical content, read and
// written through the per-entry accessors (Vec, Links and the per-entry members), so that the
// memory layout may change without changing the format. Layout (little-endian, docs/
// storage-format.md "Index files"):
//
//   u32 dim, u8 sizeof(T), u8 metric, u32 mu, u32 ml
//   u32 slots, u32 entry point (kNone: none), i32 max level
//   per slot: u8 free; when not free: u64 row offset, u64 begin_ts, u8 level, dim x T vector,
//             T 1/|v| (cosine only), then for each level 0..level: u32 count, count x u32
//
// Only current versions matter to a reader at the snapshot or later: an entry visible at the
// snapshot is saved as current (end kForever), any other as ended at 0, still linking the
// graph until the first Prune takes it out.
#include <algorithm>

#include "exec/secondary_index.h"
#include "vector/hnsw.h"

namespace graphdb::vector {

using exec::AppendFixed;
using exec::ReadFixed;

template <typename T>
void Hnsw<T>::Save(uint64_t snapshot, std::string* out) const {
  auto lock = ReadLock();
  const auto slots = static_cast<uint32_t>(offset_.size());
  AppendFixed<uint32_t>(out, dim_);
  AppendFixed<uint8_t>(out, sizeof(T));
  AppendFixed<uint8_t>(out, static_cast<uint8_t>(params_.metric));
  AppendFixed<uint32_t>(out, params_.mu);
  AppendFixed<uint32_t>(out, params_.ml);
  AppendFixed<uint32_t>(out, slots);
  AppendFixed<uint32_t>(out, entry_);
  AppendFixed<int32_t>(out, max_level_);
  size_t per_entry = 1 + 8 + 8 + 1 + dim_ * sizeof(T) + sizeof(T) + 4 * (params_.ml + 1);
  out->reserve(out->size() + static_cast<size_t>(slots) * per_entry);
  for (uint32_t e = 0; e < slots; ++e) {
    AppendFixed<uint8_t>(out, free_slot_[e]);
    if (free_slot_[e]) continue;
    const Span& span = span_[e];
    const bool visible = span.begin <= snapshot && snapshot < span.end;
    AppendFixed<uint64_t>(out, offset_[e]);
    AppendFixed<uint64_t>(out, visible ? span.begin : kForever);  // kForever: ended (see above)
    AppendFixed<uint8_t>(out, level_[e]);
    out->append(reinterpret_cast<const char*>(Vec(e)), dim_ * sizeof(T));
    if (cosine_) AppendFixed<T>(out, InvNormOf(e));
    for (int level = 0; level <= static_cast<int>(level_[e]); ++level) {
      const uint32_t* links = Links(e, level);
      out->append(reinterpret_cast<const char*>(links), (links[0] + 1) * sizeof(uint32_t));
    }
  }
}

template <typename T>
bool Hnsw<T>::Load(std::string_view in) {
  auto lock = WriteLock();
  if (!offset_.empty()) return false;
  catalog::BinaryReader r(in);
  uint32_t dim, mu, ml, slots, entry;
  uint8_t size, metric;
  int32_t max_level;
  if (!ReadFixed(r, &dim) || !ReadFixed(r, &size) || !ReadFixed(r, &metric) || !ReadFixed(r, &mu) ||
      !ReadFixed(r, &ml) || !ReadFixed(r, &slots) || !ReadFixed(r, &entry) ||
      !ReadFixed(r, &max_level)) {
    return false;
  }
  if (dim != dim_ || size != sizeof(T) || metric != static_cast<uint8_t>(params_.metric) ||
      mu != params_.mu || ml != params_.ml || max_level < -1 || max_level > 15 ||
      (entry == kNone) != (max_level < 0) || (entry != kNone && entry >= slots)) {
    return false;
  }
  // Each slot takes at least one byte: a count beyond the bytes left is damage, not a size to
  // allocate.
  if (slots > r.remaining()) return false;
  auto fail = [&] {
    Grow(0);
    free_.clear();
    current_.clear();
    current_count_ = ended_count_ = 0;
    visible_from_ = kForever;
    return false;
  };
  Grow(slots);
  for (uint32_t e = 0; e < slots; ++e) {
    uint8_t is_free;
    if (!ReadFixed(r, &is_free) || is_free > 1) return fail();
    free_slot_[e] = is_free;
    if (is_free) {
      span_[e] = {kForever, 0};
      level_[e] = 0;
      Links(e, 0)[0] = 0;
      free_.push_back(e);
      continue;
    }
    uint64_t offset, begin;
    uint8_t level;
    if (!ReadFixed(r, &offset) || !ReadFixed(r, &begin) || !ReadFixed(r, &level) || level > 15 ||
        static_cast<int>(level) > max_level || offset >= (uint64_t{1} << 48)) {
      return fail();
    }
    offset_[e] = offset;
    span_[e] = begin == kForever ? Span{0, 0} : Span{begin, kForever};
    level_[e] = level;
    upper_[e].assign(static_cast<size_t>(level) * (params_.mu + 1), 0);
    if (!r.GetRaw(MutableVec(e), dim_ * sizeof(T))) return fail();
    if (cosine_ && !ReadFixed(r, &InvNormOf(e))) return fail();
    for (int l = 0; l <= static_cast<int>(level); ++l) {
      uint32_t* links = Links(e, l);
      if (!ReadFixed(r, &links[0]) || links[0] > MaxDegree(l)) return fail();
      if (!r.GetRaw(links + 1, links[0] * sizeof(uint32_t))) return fail();
      for (uint32_t i = 1; i <= links[0]; ++i) {
        if (links[i] >= slots) return fail();
      }
    }
    if (span_[e].end == kForever) {
      if (current_.size() <= offset) current_.resize(offset + 1, kNone);
      if (current_[offset] != kNone) return fail();  // two current versions of a row
      current_[offset] = e;
      ++current_count_;
    } else {
      ++ended_count_;
    }
  }
  if (!r.done()) return fail();
  if (entry != kNone && (free_slot_[entry] || level_[entry] != max_level)) return fail();
  // A link to a freed slot would make a search read an empty entry.
  for (uint32_t e = 0; e < slots; ++e) {
    if (free_slot_[e]) continue;
    for (int l = 0; l <= static_cast<int>(level_[e]); ++l) {
      const uint32_t* links = Links(e, l);
      for (uint32_t i = 1; i <= links[0]; ++i) {
        if (free_slot_[links[i]] || static_cast<int>(level_[links[i]]) < l) return fail();
      }
    }
  }
  entry_ = entry;
  max_level_ = max_level;
  // Searches skip span reads at snapshots from the newest entry's begin on, while every entry
  // is current (AllCurrent); an empty graph leaves it to the first insert (NoteBegin).
  visible_from_ = kForever;
  if (current_count_ > 0) {
    uint64_t newest = 0;
    for (uint32_t e = 0; e < slots; ++e) {
      if (!free_slot_[e] && span_[e].end == kForever) newest = std::max(newest, span_[e].begin);
    }
    visible_from_ = newest;
  }
  return true;
}

template void Hnsw<float>::Save(uint64_t, std::string*) const;
template void Hnsw<double>::Save(uint64_t, std::string*) const;
template bool Hnsw<float>::Load(std::string_view);
template bool Hnsw<double>::Load(std::string_view);

}  // namespace graphdb::vector
