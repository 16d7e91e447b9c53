#include "exec/column_filter.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <thread>

#include "common/assert.h"
#include "common/status.h"
#include "exec/comparison.h"
#include "exec/expression_evaluator.h"
#include "exec/graph_store.h"

namespace graphdb::exec {

using planner::ColumnTestOp;
using storage::AtomicLoad;

namespace {

// How a test reads its column in one table.
enum class Read : uint8_t {
  kGeneric,   // evaluate the conjunct on the row
  kNever,     // a comparison with NULL (or a missing property): never TRUE
  kNullTest,  // IS [NOT] NULL on the validity bit (or a missing property: always NULL)
  kInteger,   // signed integers (GetInt64)
  kInt64,     // an INT64-wide column (GetFixed<int64_t>)
  kString,    // bytes
  kIntIn,     // IN: a signed integer (or temporal) cell among the list's (Test::in_ints)
  kStringIn,  // IN: a string cell among the list's (Test::in_strings)
};

bool IsStringTest(ColumnTestOp op) {
  return op == ColumnTestOp::kStartsWith || op == ColumnTestOp::kEndsWith ||
         op == ColumnTestOp::kContains;
}

// The six comparisons come first in ColumnTestOp, in Comparison's order.
static_assert(static_cast<int>(ColumnTestOp::kEq) == static_cast<int>(Comparison::kEq) &&
              static_cast<int>(ColumnTestOp::kNe) == static_cast<int>(Comparison::kNe) &&
              static_cast<int>(ColumnTestOp::kLt) == static_cast<int>(Comparison::kLt) &&
              static_cast<int>(ColumnTestOp::kLe) == static_cast<int>(Comparison::kLe) &&
              static_cast<int>(ColumnTestOp::kGt) == static_cast<int>(Comparison::kGt) &&
              static_cast<int>(ColumnTestOp::kGe) == static_cast<int>(Comparison::kGe));

template <typename T>
bool Holds(ColumnTestOp op, const T& a, const T& b) {
  return op <= ColumnTestOp::kGe && exec::Holds(static_cast<Comparison>(op), a, b);
}

bool HoldsForString(ColumnTestOp op, std::string_view s, std::string_view v) {
  switch (op) {
    case ColumnTestOp::kStartsWith: return s.substr(0, v.size()) == v;
    case ColumnTestOp::kEndsWith: return s.size() >= v.size() && s.substr(s.size() - v.size()) == v;
    case ColumnTestOp::kContains: return s.find(v) != std::string_view::npos;
    default: return Holds(op, s, v);
  }
}

// The mask of bytes [from, to) of a 16-byte string slot, as its two words.
void SlotMask(size_t from, size_t to, uint64_t mask[2]) {
  auto* bytes = reinterpret_cast<uint8_t*>(mask);
  std::memset(mask, 0, 16);
  for (size_t i = from; i < to && i < 16; ++i) bytes[i] = 0xFF;
}

// A string's image as a 16-byte string slot (storage::Column) holds it: its length, then up to
// 12 of its bytes; `equal`: the bytes `=` compares there (the length and the string's bytes
// inline, else the length and the first 4); `prefix`: the bytes a prefix test compares (the
// string's first bytes only).
struct SlotImage {
  uint64_t image[2] = {0, 0};
  uint64_t equal[2] = {0, 0};
  uint64_t prefix[2] = {0, 0};

  explicit SlotImage(std::string_view v) {
    const auto length = static_cast<uint32_t>(v.size());
    auto* bytes = reinterpret_cast<char*>(image);
    std::memcpy(bytes, &length, 4);
    std::memcpy(bytes + 4, v.data(), std::min<size_t>(v.size(), 12));
    SlotMask(0, 4 + std::min<size_t>(v.size(), 4), equal);
    if (v.size() <= storage::Column::kInlineStringBytes) SlotMask(0, 4 + v.size(), equal);
    SlotMask(4, 4 + std::min<size_t>(v.size(), 12), prefix);
  }

  // Whether the non-NULL string cell of `row` (its slot `slot`, whose first word is `head`)
  // equals v, the string of this image.
  bool Equals(const storage::Column& column, uint64_t row, const uint64_t* slot, uint64_t head,
              std::string_view v) const {
    if (((head ^ image[0]) & equal[0]) != 0) return false;  // another length or first bytes
    if (v.size() <= storage::Column::kInlineStringBytes) {
      return ((AtomicLoad(slot + 1) ^ image[1]) & equal[1]) == 0;
    }
    char inline_bytes[storage::Column::kInlineStringBytes];
    return column.ReadString(row, inline_bytes) == v;
  }
};

// An IN list of at most this many strings is tested on each cell's slot image, element by
// element; a longer one by a binary search of the cell's string.
constexpr size_t kInImages = 16;

}  // namespace

bool IsTemporal(LogicalTypeId id) {
  return id == LogicalTypeId::kDate || LogicalType(id).IsTimestamp();
}

namespace {

// How an IN test (its value a list, not NULL) reads a column of type `have`: kStringIn or
// kIntIn when every element that is not NULL compares with the column's cells as
// a comparison would (a STRING with strings, a signed integer with signed integers, a
// temporal value with its own type), the elements then in `test`; else kGeneric.
template <typename Test>
Read InRead(LogicalTypeId have, Test& test) {
  const bool strings = have == LogicalTypeId::kString;
  const bool integers = IsSignedInteger(have);
  if (!strings && !integers && !IsTemporal(have)) return Read::kGeneric;
  test.in_ints.clear();
  test.in_strings.clear();
  for (const Value& e : test.value.children()) {
    if (e.is_null()) continue;
    const LogicalTypeId want = e.type_id();
    if (strings && want == LogicalTypeId::kString) {
      test.in_strings.emplace_back(e.GetString());
    } else if ((integers && IsSignedInteger(want)) || (!strings && !integers && want == have)) {
      test.in_ints.push_back(e.GetInt());
    } else {
      return Read::kGeneric;
    }
  }
  std::sort(test.in_ints.begin(), test.in_ints.end());
  std::sort(test.in_strings.begin(), test.in_strings.end());
  test.in_strings.erase(std::unique(test.in_strings.begin(), test.in_strings.end()),
                        test.in_strings.end());
  test.in_images.clear();
  if (test.in_strings.size() <= kInImages) {
    for (const std::string& e : test.in_strings) test.in_images.emplace_back(e);
  }
  return strings ? Read::kStringIn : Read::kIntIn;
}

}  // namespace

struct ColumnFilter::Test {
  bool is_test = false;  // the conjunct is a planner::ColumnTest
  planner::ColumnTest test{};
  Value value;                                  // per run
  std::vector<Read> reads;                      // per table
  std::vector<const storage::Column*> columns;  // per table
  // kString: the value as a string slot holds it.
  SlotImage image{std::string_view()};
  int64_t integer = 0;
  // IN: the list's values that are not NULL, sorted (NULLs match no cell); a short list's
  // strings' images (kInImages), else none.
  std::vector<int64_t> in_ints;
  std::vector<std::string> in_strings;
  std::vector<SlotImage> in_images;
  // Skip's statistics over this run: rows tested, rows kept.
  uint64_t seen = 0, kept = 0;

  // Whether the non-NULL string cell at `slot` holds against the value.
  bool StringHolds(const storage::Column& column, uint64_t row) const {
    const auto* slot = reinterpret_cast<const uint64_t*>(column.raw_data() + row * 16);
    const uint64_t head = AtomicLoad(slot);
    const auto length = static_cast<uint32_t>(head);
    const std::string_view v = value.GetString();
    const ColumnTestOp op = test.op;
    if (op == ColumnTestOp::kEq || op == ColumnTestOp::kNe) {
      return image.Equals(column, row, slot, head, v) == (op == ColumnTestOp::kEq);
    }
    if (op == ColumnTestOp::kStartsWith) {
      if (length < v.size() || ((head ^ image.image[0]) & image.prefix[0]) != 0) return false;
      if (v.size() <= 4) return true;
      if (length <= storage::Column::kInlineStringBytes) {
        return ((AtomicLoad(slot + 1) ^ image.image[1]) & image.prefix[1]) == 0;
      }
    } else if (op == ColumnTestOp::kEndsWith && length < v.size()) {
      return false;
    }
    char inline_bytes[storage::Column::kInlineStringBytes];
    return HoldsForString(op, column.ReadString(row, inline_bytes), v);
  }

  // Whether the non-NULL string cell of `row` is among the IN list's (in_images).
  bool InImages(const storage::Column& column, uint64_t row) const {
    const auto* slot = reinterpret_cast<const uint64_t*>(column.raw_data() + row * 16);
    const uint64_t head = AtomicLoad(slot);
    for (size_t i = 0; i < in_images.size(); ++i) {
      if (in_images[i].Equals(column, row, slot, head, in_strings[i])) return true;
    }
    return false;
  }

  // Whether row `row` of table `t` passes this test; reads[t] is neither kGeneric nor kNever.
  bool Typed(size_t t, uint64_t row) const {
    const storage::Column* column = columns[t];
    switch (reads[t]) {
      case Read::kNullTest: {
        const bool null = column == nullptr || column->IsNull(row);
        return test.op == ColumnTestOp::kIsNull ? null : !null;
      }
      case Read::kInteger:
        return !column->IsNull(row) && Holds(test.op, column->GetInt64(row), integer);
      case Read::kInt64:
        return !column->IsNull(row) && Holds(test.op, column->GetFixed<int64_t>(row), integer);
      case Read::kString: return !column->IsNull(row) && StringHolds(*column, row);
      case Read::kIntIn:
        return !column->IsNull(row) &&
               std::binary_search(in_ints.begin(), in_ints.end(), column->GetInt64(row));
      case Read::kStringIn: {
        if (column->IsNull(row)) return false;
        if (!in_images.empty()) return InImages(*column, row);
        char inline_bytes[storage::Column::kInlineStringBytes];
        const std::string_view s = column->ReadString(row, inline_bytes);
        return std::binary_search(in_strings.begin(), in_strings.end(), s,
                                  std::less<std::string_view>());
      }
      default: return false;
    }
  }
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
  store_ = &store;
  block_table_ = SIZE_MAX;
  decided_ = kNoRow;
  blocks_ = 0;
  table_ptrs_.clear();
  for (uint64_t t : tables_) table_ptrs_.push_back(&store.node_table(t));
  for (Test& test : tests_) {
    test.reads.assign(tables_.size(), Read::kGeneric);
    test.columns.assign(tables_.size(), nullptr);
    test.seen = test.kept = 0;
    if (!test.is_test) continue;
    const ColumnTestOp op = test.test.op;
    const bool null_test = op == ColumnTestOp::kIsNull || op == ColumnTestOp::kIsNotNull;
    test.value = null_test ? Value() : Evaluate(*test.test.value, ctx);
    if (test.value.type_id() == LogicalTypeId::kString && !test.value.is_null()) {
      test.image = SlotImage(test.value.GetString());
    }
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
      if (op == ColumnTestOp::kIn) {
        test.reads[t] = InRead(have, test);
        continue;
      }
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
        test.integer = test.value.GetInt();
      }
    }
  }
  // The typed prefix of each table: up to its first conjunct evaluated on the row. A test
  // that never holds stays in it (Skip keeps no row).
  prefix_.assign(tables_.size(), {});
  for (size_t t = 0; t < tables_.size(); ++t) {
    for (size_t i = 0; i < tests_.size() && tests_[i].reads[t] != Read::kGeneric; ++i) {
      prefix_[t].push_back(i);
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
  // The row Skip just found every test keeps, nothing written since: decided.
  if (offset == decided_ && table == block_table_ && Writes() == block_writes_ &&
      table_ptrs_[table]->versions().empty()) {
    return true;
  }
  bool read_cells = false;
  bool framed = false;
  bool pass = true;
  for (size_t i = 0; i < tests_.size() && pass; ++i) {
    const Test& test = tests_[i];
    switch (test.reads[table]) {
      case Read::kGeneric:
        if (!framed) {
          ctx.frame[slot_] = Value::Id({tables_[table], offset});
          framed = true;
        }
        pass = EvaluatePredicate(*predicates_[i], ctx);
        break;
      case Read::kNever: pass = false; break;
      default:
        read_cells = true;
        pass = test.Typed(table, offset);
        break;
    }
  }
  // Cells read before a writer's old value entered the versions: decide the row as the
  // generic path would, through the store.
  if (read_cells && !table_ptrs_[table]->versions().empty()) return Generic(ctx, table, offset);
  return pass;
}

uint64_t ColumnFilter::Writes() const { return store_->undo_log().entries().size(); }

void ColumnFilter::ReadBlock(size_t table) {
  decided_ = kNoRow;  // (decided before the writes that made this read again)
  const auto rows = static_cast<uint32_t>(block_end_ - block_begin_);
  sel_.resize(kBlockRows);
  uint32_t* sel = sel_.data();
  size_t n = rows;
  bool dense = true;
  // Keeps the rows of the selection (all of the block while dense) for which pass(row) holds.
  auto keep = [&](auto&& pass) {
    size_t k = 0;
    if (dense) {
      for (uint32_t i = 0; i < rows; ++i) {
        sel[k] = i;
        k += pass(block_begin_ + i) ? 1 : 0;
      }
    } else {
      for (size_t j = 0; j < n; ++j) {
        const uint32_t i = sel[j];
        sel[k] = i;
        k += pass(block_begin_ + i) ? 1 : 0;
      }
    }
    dense = false;
    n = k;
  };
  for (size_t index : prefix_[table]) {
    if (n == 0) break;
    Test& test = tests_[index];
    const size_t before = n;
    const storage::Column* column = test.columns[table];
    const Read read = test.reads[table];
    if (read == Read::kNever) {
      n = 0;
    } else if (read == Read::kNullTest && column == nullptr) {
      if (test.test.op == ColumnTestOp::kIsNotNull) n = 0;
    } else if (read == Read::kNullTest) {
      const uint64_t* validity = column->validity();
      const bool want = test.test.op == ColumnTestOp::kIsNotNull;
      keep([&](uint64_t row) { return storage::Column::ValidBit(validity, row) == want; });
    } else if (read == Read::kInt64) {
      const uint64_t* validity = column->validity();
      const auto* data = reinterpret_cast<const int64_t*>(column->raw_data());
      const int64_t k = test.integer;
      switch (test.test.op) {
        case ColumnTestOp::kEq:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) == k;
          });
          break;
        case ColumnTestOp::kNe:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) != k;
          });
          break;
        case ColumnTestOp::kLt:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) < k;
          });
          break;
        case ColumnTestOp::kLe:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) <= k;
          });
          break;
        case ColumnTestOp::kGt:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) > k;
          });
          break;
        default:
          keep([&](uint64_t r) {
            return storage::Column::ValidBit(validity, r) && AtomicLoad(data + r) >= k;
          });
          break;
      }
    } else if (read == Read::kString &&
               (test.test.op == ColumnTestOp::kEq || test.test.op == ColumnTestOp::kStartsWith)) {
      // The slot's first word alone rejects most rows: tested inline.
      const uint64_t* validity = column->validity();
      const auto* slots = reinterpret_cast<const uint64_t*>(column->raw_data());
      const uint64_t image = test.image.image[0];
      const uint64_t mask =
          test.test.op == ColumnTestOp::kEq ? test.image.equal[0] : test.image.prefix[0];
      const uint32_t length = static_cast<uint32_t>(test.value.GetString().size());
      const bool eq = test.test.op == ColumnTestOp::kEq;
      keep([&](uint64_t r) {
        const uint64_t head = AtomicLoad(slots + 2 * r);
        if (((head ^ image) & mask) != 0 || (!eq && static_cast<uint32_t>(head) < length)) {
          return false;
        }
        return storage::Column::ValidBit(validity, r) && test.StringHolds(*column, r);
      });
    } else if (read == Read::kStringIn && !test.in_images.empty()) {
      const uint64_t* validity = column->validity();
      keep([&](uint64_t r) {
        return storage::Column::ValidBit(validity, r) && test.InImages(*column, r);
      });
    } else {
      keep([&](uint64_t row) { return test.Typed(table, row); });
    }
    test.seen += before;
    test.kept += n;
  }
  if (dense) {  // no test ran: every row
    for (uint32_t i = 0; i < rows; ++i) sel[i] = i;
  }
  kept_ = n;
  cursor_ = 0;
  // Every few blocks, the tests that kept the smallest share of their rows go first.
  if (++blocks_ % 8 == 0 && prefix_[table].size() > 1) {
    std::stable_sort(prefix_[table].begin(), prefix_[table].end(), [this](size_t a, size_t b) {
      const Test& x = tests_[a];
      const Test& y = tests_[b];
      // x.kept / x.seen < y.kept / y.seen, without dividing (an untested test counts as 1).
      const unsigned __int128 lx = x.seen ? x.kept : 1, ly = y.seen ? y.kept : 1;
      return lx * (y.seen ? y.seen : 1) < ly * (x.seen ? x.seen : 1);
    });
  }
}

uint64_t ColumnFilter::Skip(ExecContext& ctx, size_t table, uint64_t offset, uint64_t end) {
  if (prefix_[table].empty()) return offset;
  const storage::NodeTable& t = *table_ptrs_[table];
  const uint64_t start = offset;
  while (offset < end) {
    if (table != block_table_ || offset < block_begin_ || offset >= block_end_ ||
        Writes() != block_writes_) {
      block_table_ = table;
      block_begin_ = offset;
      block_end_ = std::min<uint64_t>(end, offset + kBlockRows);
      block_writes_ = Writes();
      ReadBlock(table);
    }
    // Cells read while a writer kept old values: nothing is skipped (Passes decides).
    if (!t.versions().empty()) break;
    // A scan that starts over (for its next input row) goes back in the block.
    if (cursor_ > 0 && block_begin_ + sel_[cursor_ - 1] >= offset) cursor_ = 0;
    while (cursor_ < kept_ && block_begin_ + sel_[cursor_] < offset) ++cursor_;
    if (cursor_ < kept_) {
      offset = std::min(end, block_begin_ + sel_[cursor_]);
      // Kept by every test (all of them typed, in the prefix): Passes need not test it again.
      if (offset < end && prefix_[table].size() == tests_.size()) decided_ = offset;
      break;
    }
    offset = std::min(end, block_end_);
  }
  if (offset > start) ctx.ChargeWork(offset - start);
  return offset;
}

bool ColumnFilter::Decides(size_t table) const { return prefix_[table].size() == tests_.size(); }

size_t ColumnFilter::Block(ExecContext& ctx, size_t table, uint64_t offset, uint64_t end,
                           const uint32_t** rows, uint64_t* block_end) {
  GRAPHDB_ASSERT(Decides(table));
  block_table_ = table;
  block_begin_ = offset;
  block_end_ = std::min<uint64_t>(end, offset + kBlockRows);
  block_writes_ = Writes();
  ReadBlock(table);
  ctx.ChargeWork(block_end_ - offset);
  *rows = sel_.data();
  *block_end = block_end_;
  return kept_;
}

void ColumnFilter::Mark(ExecContext& ctx, size_t table, uint64_t begin, uint64_t end,
                        uint64_t* words) {
  std::fill(words + begin / 64, words + (end + 63) / 64, 0);
  NodeRowVisibility visible(*store_, *table_ptrs_[table], end);
  for (uint64_t row = begin; row < end; ++row) {
    row = Skip(ctx, table, row, end);
    if (row >= end) break;
    ctx.ChargeWork();
    if (visible(row) && Passes(ctx, table, row)) {
      words[row / 64] |= uint64_t{1} << (row % 64);
    }
  }
}

void SharedChunks::Run(ExecContext& ctx, const std::function<void(uint64_t)>& body) {
  for (uint64_t chunk; !done() && (chunk = next_.fetch_add(1)) < chunks_;) {
    try {
      body(chunk);
    } catch (...) {
      failed_.store(true, std::memory_order_release);
      done_.fetch_add(1, std::memory_order_acq_rel);
      throw;
    }
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
  while (!done() && !failed()) {
    ctx.CheckInterrupt();
    std::this_thread::yield();
  }
  if (failed()) {
    ctx.CheckInterrupt();
    ThrowRuntime("Runtime exception: the statement stopped while another thread failed.");
  }
}

NodeBits::NodeBits(uint64_t rows)
    : rows_(rows), words_((rows + 63) / 64, 0), chunks_((rows + kChunkRows - 1) / kChunkRows) {}

void NodeBits::Build(ExecContext& ctx, ColumnFilter& filter) {
  chunks_.Run(ctx, [&](uint64_t chunk) {
    const uint64_t begin = chunk * kChunkRows;
    filter.Mark(ctx, 0, begin, std::min(rows_, begin + kChunkRows), words_.data());
  });
}

}  // namespace graphdb::exec
