#include "exec/narrow_ints.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "exec/parallel_pipeline.h"

namespace graphdb::exec {
namespace {

// Rows a chunk of the passes over the column (a worker claims chunks).
constexpr uint64_t kChunkRows = uint64_t{1} << 16;
// A kept image serves while the rows appended since are at most 1 / kKeptRowsShare of n.
constexpr uint64_t kKeptRowsShare = 8;

template <typename T>
void Spread(const storage::Column& column, uint64_t begin, uint64_t end, int64_t* lo, int64_t* hi) {
  for (uint64_t row = begin; row < end; ++row) {
    if (column.IsNull(row)) continue;
    const int64_t v = column.GetFixed<T>(row);
    *lo = std::min(*lo, v);
    *hi = std::max(*hi, v);
  }
}

template <typename T>
void Fill(const storage::Column& column, uint64_t begin, uint64_t end, int64_t base, uint8_t* out) {
  for (uint64_t row = begin; row < end; ++row) {
    const int64_t v = column.GetFixed<T>(row);
    out[row] = column.IsNull(row) ? NarrowInts::kNull : static_cast<uint8_t>(v - base);
  }
}

// f.template operator()<T>() for the C++ type T of the column's cells.
template <typename F>
void ByKind(storage::PhysicalKind kind, const F& f) {
  switch (kind) {
    case storage::PhysicalKind::kInt8: return f.template operator()<int8_t>();
    case storage::PhysicalKind::kInt16: return f.template operator()<int16_t>();
    case storage::PhysicalKind::kInt32: return f.template operator()<int32_t>();
    default: return f.template operator()<int64_t>();
  }
}

}  // namespace

bool NarrowableKind(storage::PhysicalKind kind) {
  return kind == storage::PhysicalKind::kInt8 || kind == storage::PhysicalKind::kInt16 ||
         kind == storage::PhysicalKind::kInt32 || kind == storage::PhysicalKind::kInt64;
}

std::shared_ptr<const NarrowInts> NarrowImage(ExecContext& ctx, const storage::Column& column,
                                              uint64_t n, bool build, bool* made) {
  if (made != nullptr) *made = false;
  if (!NarrowableKind(column.kind())) return nullptr;
  n = std::min(n, column.size());
  auto kept = std::dynamic_pointer_cast<const NarrowInts>(column.FindDerived());
  if (kept != nullptr && kKeptRowsShare * (n - std::min(kept->rows(), n)) <= n) {
    return kept->narrow() ? kept : nullptr;
  }
  if (!build || n == 0) return nullptr;
  // Read before any row: what is kept is for the rows as they are now.
  const uint64_t changes = column.changes();
  const uint64_t chunks = (n + kChunkRows - 1) / kChunkRows;
  const auto kind = column.kind();
  std::vector<std::pair<int64_t, int64_t>> spreads(chunks, {INT64_MAX, INT64_MIN});
  ParallelPipeline::ForEach(ctx, chunks, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t chunk = begin; chunk < end; ++chunk) {
      auto& [lo, hi] = spreads[chunk];
      ByKind(kind, [&]<typename T>() {
        Spread<T>(column, chunk * kChunkRows, std::min(n, (chunk + 1) * kChunkRows), &lo, &hi);
      });
      ctx.CheckInterrupt();
    }
  });
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (const auto& [l, h] : spreads) {
    lo = std::min(lo, l);
    hi = std::max(hi, h);
  }
  if (lo > hi) lo = hi = 0;  // every row NULL
  // (hi - lo may not fit an int64: compared as unsigned.)
  if (static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) > uint64_t{NarrowInts::kMaxSpread}) {
    column.KeepDerived(changes, std::make_shared<NarrowInts>(nullptr, n, 0));
    return nullptr;
  }
  std::unique_ptr<uint8_t[]> bytes(new uint8_t[n]);
  ParallelPipeline::ForEach(ctx, chunks, [&](unsigned, uint64_t begin, uint64_t end) {
    for (uint64_t chunk = begin; chunk < end; ++chunk) {
      ByKind(kind, [&]<typename T>() {
        Fill<T>(column, chunk * kChunkRows, std::min(n, (chunk + 1) * kChunkRows), lo, bytes.get());
      });
      ctx.CheckInterrupt();
    }
  });
  auto image = std::make_shared<const NarrowInts>(std::move(bytes), n, lo);
  // Rows changed in place meanwhile: the image may not hold them (the reader finds the
  // table's versions and reads the column).
  if (column.changes() != changes) return nullptr;
  column.KeepDerived(changes, image);
  if (made != nullptr) *made = true;
  return image;
}

}  // namespace graphdb::exec
