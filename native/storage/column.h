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
// Thread-safety: none inside. Concurrent const calls are safe while nobody mutates; any
// mutation (Append*, Set*, Truncate, Reserve) needs exclusive access and may move the arrays,
// invalidating raw pointers and string_views of inline strings. Views of heap strings stay
// valid until the column is destroyed. Coordinating readers with writers is the caller's
// (MVCC layer's) job.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/binary_codec.h"
#include "common/assert.h"
#include "common/result.h"
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

// An append-only arena of byte strings with stable addresses.
class StringHeap {
 public:
  static constexpr size_t kFirstChunkSize = 1024;
  static constexpr size_t kChunkSize = 256 * 1024;

  // Copies `s` into the heap and returns its position (chunk << 32 | offset).
  uint64_t Add(std::string_view s);
  const char* At(uint64_t pos) const {
    return chunks_[pos >> 32].data.get() + static_cast<uint32_t>(pos);
  }
  size_t MemoryUsage() const { return allocated_; }
  void Clear();

 private:
  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t capacity = 0;
  };
  std::vector<Chunk> chunks_;
  size_t current_ = SIZE_MAX;  // chunk receiving small strings
  size_t used_ = 0;            // bytes used in the current chunk
  size_t allocated_ = 0;
};

class Column {
 public:
  static constexpr size_t kInlineStringBytes = 12;

  explicit Column(LogicalType type);
  Column(Column&&) noexcept = default;
  Column& operator=(Column&&) noexcept = default;
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;

  // A deep copy.
  Column Clone() const;

  const LogicalType& type() const { return type_; }
  PhysicalKind kind() const { return kind_; }
  uint32_t width() const { return width_; }
  uint64_t size() const { return size_; }

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
    std::memcpy(AppendSlot(), &v, sizeof v);
  }
  void AppendBool(bool v) { AppendFixed<uint8_t>(v ? 1 : 0); }
  // STRING/BLOB bytes, or an encoded nested value for kNested.
  void AppendString(std::string_view s);
  // Appends all rows of `other`, which must have the same type.
  Status AppendColumn(const Column& other);
  // Drops rows from the end so that size() == rows.
  void Truncate(uint64_t rows);

  // ---- Read ----
  bool IsNull(uint64_t row) const { return !((validity_[row >> 6] >> (row & 63)) & 1); }
  Value Get(uint64_t row) const;
  template <typename T>
  T GetFixed(uint64_t row) const {
    T v;
    std::memcpy(&v, data_.data() + row * sizeof(T), sizeof v);
    return v;
  }
  // Any signed integer kind, DATE, TIMESTAMP* (sign-extended); unsigned kinds reinterpret.
  int64_t GetInt64(uint64_t row) const;
  uint64_t GetUInt64(uint64_t row) const { return static_cast<uint64_t>(GetInt64(row)); }
  double GetDouble(uint64_t row) const;  // FLOAT or DOUBLE
  bool GetBool(uint64_t row) const { return data_[row] != 0; }
  int128_t GetInt128(uint64_t row) const { return GetFixed<int128_t>(row); }
  Interval GetInterval(uint64_t row) const { return GetFixed<Interval>(row); }
  InternalId GetInternalId(uint64_t row) const { return GetFixed<InternalId>(row); }
  // STRING/BLOB bytes or the encoded bytes of a nested value; "" for NULL.
  std::string_view GetString(uint64_t row) const {
    const char* slot = reinterpret_cast<const char*>(data_.data()) + row * 16;
    uint32_t len;
    std::memcpy(&len, slot, 4);
    if (len <= kInlineStringBytes) return std::string_view(slot + 4, len);
    uint64_t pos;
    std::memcpy(&pos, slot + 8, 8);
    return std::string_view(heap_.At(pos), len);
  }

  // ---- Write ----
  Status Set(uint64_t row, const Value& value);
  void SetNull(uint64_t row);
  template <typename T>
  void SetFixed(uint64_t row, T v) {
    GRAPHDB_ASSERT(sizeof(T) == width_);
    std::memcpy(data_.data() + row * sizeof(T), &v, sizeof v);
    SetValid(row);
  }
  void SetString(uint64_t row, std::string_view s);

  // ---- Raw access for vectorized scans (see the thread-safety note) ----
  const uint8_t* raw_data() const { return data_.data(); }
  template <typename T>
  const T* Data() const {
    return reinterpret_cast<const T*>(data_.data());
  }
  const uint64_t* validity() const { return validity_.data(); }
  // True when no row is NULL.
  bool NoNulls() const;

  // ---- Accounting ----
  size_t MemoryUsage() const;
  uint64_t heap_garbage_bytes() const { return garbage_; }

  // ---- Persistence (layout in docs/storage-format.md) ----
  void Serialize(catalog::BinaryWriter& out) const;
  static Result<Column> Deserialize(catalog::BinaryReader& in, const LogicalType& type);

 private:
  uint8_t* AppendSlot();
  void SetValid(uint64_t row) { validity_[row >> 6] |= 1ULL << (row & 63); }
  void ClearValid(uint64_t row) { validity_[row >> 6] &= ~(1ULL << (row & 63)); }
  void GrowTo(uint64_t rows);
  void WriteStringSlot(uint8_t* slot, std::string_view s);
  Status AppendCoerced(const Value& value);
  Status StoreValue(uint64_t row, const Value& value);

  LogicalType type_;
  PhysicalKind kind_;
  uint32_t width_;
  uint64_t size_ = 0;
  uint64_t capacity_ = 0;
  std::vector<uint8_t> data_;       // capacity_ * width_ bytes
  std::vector<uint64_t> validity_;  // ceil(capacity_ / 64) words
  StringHeap heap_;
  uint64_t garbage_ = 0;
};

// A column of `rows` copies of `fill` (NULLs when `fill` is NULL); errors if `fill` does not fit
// the type.
Result<Column> MakeFilledColumn(const LogicalType& type, const Value& fill, uint64_t rows);

}  // namespace graphdb::storage
