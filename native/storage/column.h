// Column: the values of one property for every row of a table, stored by dense row offset.
//
// Layout:
//   - fixed-width types live in one contiguous array of their natural width (BOOL and INT8: 1
//     byte, DATE: 4, TIMESTAMP*: 8, INT128/UUID/INTERVAL/INTERNAL_ID: 16 ...);
//   - STRING and BLOB use a 16-byte slot per row: strings of at most 12 bytes sit inline in the
//     slot, longer ones keep a 4-byte prefix in the slot and their bytes in a chunked string
//     heap (stable addresses; chunks grow from 1 KiB to 256 KiB);
//   - nested values (LIST, ARRAY, STRUCT, MAP, UNION) are encoded with ValueCodec and stored
//     like BLOBs; Get() decodes them back to the exact Value;
//   - a validity bitmap (1 bit per row, 1 = not NULL).
// Overwriting a long string leaves its old bytes in the heap as garbage (counted by
// heap_garbage_bytes()); serialization writes live bytes only, so a checkpoint compacts.
//
// Thread-safety (storage/shared_array.h): ONE writer thread may append, set and truncate while
// any number of threads read. Reads are atomic loads from a block that growth never frees
// while readers may hold it (FreeRetired() frees retired blocks under exclusive access), so a
// reader never races or touches freed memory. A reader racing with an overwrite of the same
// cell (Set*) may get a mix of the old and the new value; the MVCC layer decides which value a
// reader needs and re-checks after reading (see NodeTable::Set). Get(), ReadString() and
// StringEquals() are safe for such readers; GetString() returns a view into the cell itself
// for short strings and is for the writer thread or exclusive access only. Bulk operations
// (AppendColumn, Reserve of a column in use by readers is fine; Serialize, raw_data, Data,
// validity, move) need exclusive access or a column no reader can reach yet.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/binary_codec.h"
#include "common/assert.h"
#include "common/result.h"
#include "storage/shared_array.h"
#include "storage/table_file.h"
#include "types/logical_type.h"
#include "types/value.h"

namespace graphdb::storage {

// How a logical type is laid out in a column.
enum class PhysicalKind : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,  // INT32, DATE
  kInt64,  // INT64, SERIAL, TIMESTAMP*
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat,
  kDouble,
  kInt128,  // INT128, UUID
  kInterval,
  kInternalId,
  kString,  // STRING, BLOB
  kNested,  // LIST, ARRAY, STRUCT, MAP, UNION (encoded values in string slots)
};

PhysicalKind PhysicalKindOf(LogicalTypeId id);
// Bytes per row in the fixed-width array (16 for string slots).
uint32_t PhysicalWidth(PhysicalKind kind);

// An append-only arena of byte strings with stable addresses. Bytes are written once, before
// their position is published, and never change; chunks are freed only by Clear().
class StringHeap {
 public:
  static constexpr size_t kFirstChunkSize = 1024;
  static constexpr size_t kChunkSize = 256 * 1024;

  StringHeap() = default;
  StringHeap(StringHeap&&) noexcept = default;
  StringHeap& operator=(StringHeap&&) noexcept = default;

  // Copies `s` into the heap and returns its position (chunk << 32 | offset). Writer side.
  uint64_t Add(std::string_view s);
  // REQUIRES: `pos` came from Add.
  const char* At(uint64_t pos) const {
    return chunks_[pos >> 32].data + static_cast<uint32_t>(pos);
  }
  // The bytes at `pos` if [pos, pos + len) lies inside the written part of a chunk, else
  // nullptr (a position read torn from a cell being overwritten). Bytes below a chunk's
  // published fill were written before it, so reading them never races with the writer.
  const char* TryAt(uint64_t pos, uint64_t len) const {
    uint64_t chunk = pos >> 32;
    uint64_t offset = static_cast<uint32_t>(pos);
    if (chunk >= chunks_.size()) return nullptr;
    ChunkRef ref = chunks_[chunk];
    if (ref.data == nullptr || offset + len > ref.filled) return nullptr;
    return ref.data + offset;
  }
  size_t MemoryUsage() const { return allocated_ + chunks_.MemoryUsage(); }
  // Takes `size` bytes of strings at the start of `region` (a mapped string heap section of a
  // table file) as the first chunks, of 2^32 bytes each but the last: a position is then the
  // string's byte offset in the section. REQUIRES: an empty heap, exclusive access.
  void AdoptMapped(std::unique_ptr<env::MemoryRegion> region, uint64_t size);
  // REQUIRES: exclusive access.
  void Clear();
  void FreeRetired() { chunks_.FreeRetired(); }

 private:
  struct ChunkRef {
    char* data;
    uint64_t filled;  // bytes written, published after them
  };
  // Adds a chunk of `size` bytes starting with `bytes`; returns its index.
  size_t AddChunk(size_t size, std::string_view bytes);
  SharedVector<ChunkRef> chunks_;               // readers index this
  std::vector<std::unique_ptr<char[]>> owned_;  // writer side: owns chunks_[i].data (or null)
  std::unique_ptr<env::MemoryRegion> mapped_;   // the chunks AdoptMapped took
  std::vector<size_t> capacity_;                // writer side: chunk sizes
  size_t current_ = SIZE_MAX;                   // chunk receiving small strings
  size_t used_ = 0;                             // bytes used in the current chunk
  size_t allocated_ = 0;
};

class Column {
 public:
  static constexpr size_t kInlineStringBytes = 12;
  // Filled fixed-width columns of at least this many rows take anonymous pages
  // (MakeFilledColumn), smaller ones the heap.
  static constexpr uint64_t kZeroPageRows = 1 << 16;

  explicit Column(LogicalType type);
  Column(Column&& other) noexcept;
  Column& operator=(Column&& other) noexcept;
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;

  // A deep copy.
  Column Clone() const;

  const LogicalType& type() const { return type_; }
  PhysicalKind kind() const { return kind_; }
  uint32_t width() const { return width_; }
  uint64_t size() const { return size_.load(std::memory_order_acquire); }

  void Reserve(uint64_t rows);

  // ---- Append ----
  // Converts compatible scalars (see CoerceValue); kInvalidRequest / kQueryRuntime on a value
  // that does not fit, leaving the column unchanged.
  Status Append(const Value& value);
  void AppendNull();
  void AppendNulls(uint64_t n);
  // Typed appends. REQUIRES: T has the column's physical width and representation.
  template <typename T>
  void AppendFixed(T v) {
    GRAPHDB_ASSERT(sizeof(T) == width_ && kind_ != PhysicalKind::kString &&
                   kind_ != PhysicalKind::kNested);
    uint64_t row = NextRow();
    AtomicStore(reinterpret_cast<T*>(data_.data() + row * sizeof(T)), v);
    SetValid(row);
    PublishRow(row);
  }
  void AppendBool(bool v) { AppendFixed<uint8_t>(v ? 1 : 0); }
  // STRING/BLOB bytes, or an encoded nested value for kNested.
  void AppendString(std::string_view s);
  // Appends all rows of `other`, which must have the same type.
  Status AppendColumn(const Column& other);
  // Drops rows from the end so that size() == rows.
  void Truncate(uint64_t rows);

  // ---- Read ----
  // Starts loading the cell of `row` (its bytes and its validity bit) into the cache: a hint
  // that never faults, so the reads of several cells miss at once rather than in turn.
  void Prefetch(uint64_t row) const {
    __builtin_prefetch(data_.data() + row * width_);
    __builtin_prefetch(validity_.data() + (row >> 6));
  }
  bool IsNull(uint64_t row) const { return !ValidBit(validity_.data(), row); }
  // The bit of `row` in a validity array (validity()): set when the row holds a value. For
  // loops that hold the array themselves instead of asking the column per row.
  static bool ValidBit(const uint64_t* validity, uint64_t row) {
    return (AtomicLoad(validity + (row >> 6)) >> (row & 63)) & 1;
  }
  // The value of a cell; a NULL value when `row` holds NULL, or (readers racing with a
  // writer only) when the bytes read do not decode.
  Value Get(uint64_t row) const;
  template <typename T>
  T GetFixed(uint64_t row) const {
    return AtomicLoad(reinterpret_cast<const T*>(data_.data() + row * sizeof(T)));
  }
  // Any signed integer kind, DATE, TIMESTAMP* (sign-extended); unsigned kinds reinterpret.
  int64_t GetInt64(uint64_t row) const;
  uint64_t GetUInt64(uint64_t row) const { return static_cast<uint64_t>(GetInt64(row)); }
  double GetDouble(uint64_t row) const;  // FLOAT or DOUBLE
  bool GetBool(uint64_t row) const { return AtomicLoad(data_.data() + row) != 0; }
  int128_t GetInt128(uint64_t row) const { return GetFixed<int128_t>(row); }
  Interval GetInterval(uint64_t row) const { return GetFixed<Interval>(row); }
  InternalId GetInternalId(uint64_t row) const { return GetFixed<InternalId>(row); }
  // STRING/BLOB bytes or the encoded bytes of a nested value; "" for NULL. Short strings are
  // viewed in place: for the writer thread or exclusive access (see the thread-safety note).
  std::string_view GetString(uint64_t row) const {
    const uint8_t* slot = data_.data() + row * 16;
    uint64_t head = AtomicLoad(reinterpret_cast<const uint64_t*>(slot));
    auto len = static_cast<uint32_t>(head);
    if (len <= kInlineStringBytes)
      return std::string_view(reinterpret_cast<const char*>(slot) + 4, len);
    uint64_t pos = AtomicLoad(reinterpret_cast<const uint64_t*>(slot + 8));
    // Checked: a slot of a mapped file is not validated when the file opens.
    const char* bytes = heap_.TryAt(pos, len);
    return bytes ? std::string_view(bytes, len) : std::string_view();
  }
  // The same for any reader: short strings are copied into `inline_bytes`, long ones viewed in
  // the heap (whose bytes never change). A reader racing with an overwrite may get a mix of
  // two values' bytes, never memory outside the column.
  std::string_view ReadString(uint64_t row, char (&inline_bytes)[kInlineStringBytes]) const;
  // The byte length of a STRING/BLOB cell (0 for NULL), without its bytes; a reader racing with
  // an overwrite may get either value's, as ReadString.
  uint32_t StringLength(uint64_t row) const {
    return static_cast<uint32_t>(
        AtomicLoad(reinterpret_cast<const uint64_t*>(data_.data() + row * 16)));
  }
  // The first 8 bytes of a STRING/BLOB cell as a big-endian number (zeros past its end) as far
  // as its slot holds them, without the string heap: all 8 of a string of at most
  // kInlineStringBytes, the first 4 of a longer one (the low 32 bits 0). `*known` gets the mask
  // of the bits read. Meaningless for NULL. Any reader, as ReadString.
  uint64_t StringHead(uint64_t row, uint64_t* known) const {
    // Without branches: columns mix lengths on both sides of the inline limit, and a scan
    // calling this for every row would mispredict on them.
    const auto* slot = reinterpret_cast<const uint64_t*>(data_.data() + row * 16);
    const uint64_t w0 = AtomicLoad(slot);
    const uint64_t w1 = AtomicLoad(slot + 1);
    const auto len = static_cast<uint32_t>(w0);
    // The slot's bytes 4..11: the first 8 of an inline string, the first 4 of a longer one.
    const uint64_t head = (__builtin_bswap64(w0) << 32) | (__builtin_bswap64(w1) >> 32);
    // Masks from comparisons (all ones or zero), which compilers keep free of branches.
    const uint64_t long_string = 0 - static_cast<uint64_t>(len > kInlineStringBytes);
    const uint64_t at_least_8 = 0 - static_cast<uint64_t>(len >= 8);
    *known = ~(long_string & 0xFFFFFFFFULL);
    const uint64_t short_mask = ~(~0ULL >> (8 * (len & 7)));  // the first len bytes, len < 8
    return head & *known & (at_least_8 | short_mask);
  }
  bool StringEquals(uint64_t row, std::string_view s) const {
    char buf[kInlineStringBytes];
    return ReadString(row, buf) == s;
  }

  // ---- Write ----
  Status Set(uint64_t row, const Value& value);
  void SetNull(uint64_t row);
  template <typename T>
  void SetFixed(uint64_t row, T v) {
    GRAPHDB_ASSERT(sizeof(T) == width_);
    AtomicStore(reinterpret_cast<T*>(data_.data() + row * sizeof(T)), v);
    SetValid(row);
    Changed();
  }
  void SetString(uint64_t row, std::string_view s);

  // ---- Changes and derived data ----
  // How many times a row the column holds was changed in place: a cell set, rows truncated
  // (their offsets may be filled again), the contents moved in or out. Appends leave it: a
  // reader that read rows [0, n) finds them as they were while it holds. The writer counts a
  // change after it wrote it, so a reader that loads changes() before it reads rows, and finds
  // the same number later, read what the rows still hold.
  uint64_t changes() const { return changes_.load(std::memory_order_acquire); }
  // Data a reader computed from the rows and keeps for the readers after it (exec's dictionary
  // codes of a string column): dropped as soon as the rows change.
  class Derived {
   public:
    virtual ~Derived() = default;
    virtual size_t MemoryUsage() const = 0;
  };
  // What KeepDerived kept, while changes() is still the number it was computed at; else null.
  // Thread-safe.
  std::shared_ptr<const Derived> FindDerived() const;
  // Keeps `data`, computed from the rows after changes() read `changes`, in place of what was
  // kept; nothing when the rows changed since. Thread-safe.
  void KeepDerived(uint64_t changes, std::shared_ptr<const Derived> data) const;

  // ---- Raw access (exclusive access only, see the thread-safety note) ----
  const uint8_t* raw_data() const { return data_.data(); }
  template <typename T>
  const T* Data() const {
    return reinterpret_cast<const T*>(data_.data());
  }
  const uint64_t* validity() const { return validity_.data(); }
  // True when no row is NULL.
  bool NoNulls() const;

  // ---- Accounting ----
  // Includes retired blocks.
  size_t MemoryUsage() const;
  // Frees the blocks growth retired. REQUIRES: exclusive access.
  void FreeRetired();
  // From now on readers may reach this column (it belongs to a table): growth retires old
  // blocks instead of freeing them. Columns being built (a COPY's input) free them at once.
  // The flag stays with the column object, not with moved contents.
  void MarkShared() { shared_ = true; }
  uint64_t heap_garbage_bytes() const { return garbage_; }

  // ---- Persistence (layout in docs/storage-format.md) ----
  void Serialize(catalog::BinaryWriter& out) const;
  static Result<Column> Deserialize(catalog::BinaryReader& in, const LogicalType& type);
  // Format version 3: the descriptor names sections that hold the arrays as they are in
  // memory (bitmap, fixed-width values or string slots, string heap), which loading maps.
  void SerializeMapped(TableSink& out) const;
  static Result<Column> DeserializeMapped(catalog::BinaryReader& in, const SectionSource& sections,
                                          const LogicalType& type);

 private:
  // Writer side: single-writer read-modify-write of a validity word.
  void SetValid(uint64_t row) {
    uint64_t* w = validity_.data() + (row >> 6);
    AtomicStore(w, AtomicLoad(w) | (1ULL << (row & 63)));
  }
  void ClearValid(uint64_t row) {
    uint64_t* w = validity_.data() + (row >> 6);
    AtomicStore(w, AtomicLoad(w) & ~(1ULL << (row & 63)));
  }
  void GrowTo(uint64_t rows);
  // Appending: the row to write (room made for it), then, once it is written, its publication
  // to readers (size_ covers it).
  uint64_t NextRow();
  // Counts a change of rows already written (after it: see changes()). An atomic increment:
  // writers of different rows may count at once, and the count must never go back.
  void Changed() { changes_.fetch_add(1, std::memory_order_release); }
  void PublishRow(uint64_t row) { size_.store(row + 1, std::memory_order_release); }
  void TakeStorage(Column& other);  // the move operations' common part
  friend Result<Column> MakeFilledColumn(const LogicalType& type, const Value& fill, uint64_t rows);
  // `rows` copies of `one`'s single value (NULL when `one` is empty or NULL), fixed-width
  // kinds, in anonymous regions: zero bytes are written by nobody.
  Status FillFixedInRegions(const Column& one, uint64_t rows);
  // Persistence: kCorruption "corrupt <type> column: why"; the kind, row count and validity
  // mode that start either form of a column.
  static Status CorruptColumn(const LogicalType& type, const std::string& why);
  Status ReadHeader(catalog::BinaryReader& in, uint64_t* rows, uint8_t* mode) const;
  void ZeroSlot(uint64_t row);
  void WriteStringSlot(uint8_t* slot, std::string_view s);
  Status AppendCoerced(const Value& value);
  Status StoreValue(uint64_t row, const Value& value);

  LogicalType type_;
  PhysicalKind kind_;
  uint32_t width_;
  std::atomic<uint64_t> size_{0};
  uint64_t capacity_ = 0;            // rows; writer side
  SharedBuffer<uint8_t> data_;       // capacity_ * width_ bytes
  SharedBuffer<uint64_t> validity_;  // ceil(capacity_ / 64) words
  StringHeap heap_;
  uint64_t garbage_ = 0;
  bool shared_ = false;
  std::atomic<uint64_t> changes_{0};
  // What KeepDerived kept and the changes() it was computed at (guarded by derived_mu_).
  mutable std::mutex derived_mu_;
  mutable std::shared_ptr<const Derived> derived_;
  mutable uint64_t derived_changes_ = 0;
};

// A column of `rows` copies of `fill` (NULLs when `fill` is NULL); errors if `fill` does not fit
// the type.
Result<Column> MakeFilledColumn(const LogicalType& type, const Value& fill, uint64_t rows);

}  // namespace graphdb::storage
