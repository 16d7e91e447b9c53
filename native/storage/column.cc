#include "storage/column.h"

#include <algorithm>
#include <bit>

#include "storage/stamp_codec.h"
#include "storage/value_codec.h"

namespace graphdb::storage {

PhysicalKind PhysicalKindOf(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kBool: return PhysicalKind::kBool;
    case LogicalTypeId::kInt8: return PhysicalKind::kInt8;
    case LogicalTypeId::kInt16: return PhysicalKind::kInt16;
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kDate: return PhysicalKind::kInt32;
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec: return PhysicalKind::kInt64;
    case LogicalTypeId::kUInt8: return PhysicalKind::kUInt8;
    case LogicalTypeId::kUInt16: return PhysicalKind::kUInt16;
    case LogicalTypeId::kUInt32: return PhysicalKind::kUInt32;
    case LogicalTypeId::kUInt64: return PhysicalKind::kUInt64;
    case LogicalTypeId::kFloat: return PhysicalKind::kFloat;
    case LogicalTypeId::kDouble: return PhysicalKind::kDouble;
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kUuid:
    case LogicalTypeId::kDecimal:  // the unscaled value; the column's type has the scale
      return PhysicalKind::kInt128;
    case LogicalTypeId::kInterval: return PhysicalKind::kInterval;
    case LogicalTypeId::kInternalId: return PhysicalKind::kInternalId;
    case LogicalTypeId::kString:
    case LogicalTypeId::kJson:
    case LogicalTypeId::kBlob: return PhysicalKind::kString;
    default: return PhysicalKind::kNested;
  }
}

uint32_t PhysicalWidth(PhysicalKind kind) {
  switch (kind) {
    case PhysicalKind::kBool:
    case PhysicalKind::kInt8:
    case PhysicalKind::kUInt8: return 1;
    case PhysicalKind::kInt16:
    case PhysicalKind::kUInt16: return 2;
    case PhysicalKind::kInt32:
    case PhysicalKind::kUInt32:
    case PhysicalKind::kFloat: return 4;
    case PhysicalKind::kInt64:
    case PhysicalKind::kUInt64:
    case PhysicalKind::kDouble: return 8;
    default: return 16;
  }
}

// ---------------------------------------------------------------------------------------------
// StringHeap

size_t StringHeap::AddChunk(size_t size, std::string_view bytes) {
  std::unique_ptr<char[]> data(new char[size]);
  if (!bytes.empty()) std::memcpy(data.get(), bytes.data(), bytes.size());
  // Published with its fill: the bytes are in place before a reader can find the chunk.
  chunks_.push_back(ChunkRef{data.get(), bytes.size()});
  owned_.push_back(std::move(data));
  capacity_.push_back(size);
  allocated_ += size;
  return chunks_.size() - 1;
}

uint64_t StringHeap::Add(std::string_view s) {
  if (s.size() > kChunkSize / 4) {
    // A large string gets a chunk of its own; the current chunk keeps filling.
    return static_cast<uint64_t>(AddChunk(s.size(), s)) << 32;
  }
  if (current_ == SIZE_MAX || used_ + s.size() > capacity_[current_]) {
    // Chunks start small and double up to kChunkSize, so small tables stay small.
    size_t size = current_ == SIZE_MAX ? kFirstChunkSize
                                       : std::min<size_t>(capacity_[current_] * 2, kChunkSize);
    while (size < s.size()) size *= 2;
    current_ = AddChunk(size, {});
    used_ = 0;
  }
  std::memcpy(owned_[current_].get() + used_, s.data(), s.size());
  uint64_t pos = (static_cast<uint64_t>(current_) << 32) | used_;
  used_ += s.size();
  chunks_.Set(current_, ChunkRef{owned_[current_].get(), used_});
  return pos;
}

void StringHeap::AdoptMapped(std::unique_ptr<env::MemoryRegion> region, uint64_t size) {
  GRAPHDB_ASSERT(chunks_.empty());
  constexpr uint64_t kSpan = 1ULL << 32;
  for (uint64_t start = 0; start < size; start += kSpan) {
    const uint64_t filled = std::min(kSpan, size - start);
    chunks_.push_back(ChunkRef{region->data() + start, filled});
    owned_.emplace_back();
    capacity_.push_back(filled);  // full: new strings go to chunks of their own
  }
  mapped_ = std::move(region);
}

void StringHeap::Clear() {
  chunks_.clear();
  owned_.clear();
  mapped_.reset();
  capacity_.clear();
  current_ = SIZE_MAX;
  used_ = 0;
  allocated_ = 0;
}

// ---------------------------------------------------------------------------------------------
// Column

Column::Column(LogicalType type)
    : type_(std::move(type)), kind_(PhysicalKindOf(type_.id())), width_(PhysicalWidth(kind_)) {}

Column::Column(Column&& other) noexcept
    : type_(std::move(other.type_)), kind_(other.kind_), width_(other.width_) {
  TakeStorage(other);
}

Column& Column::operator=(Column&& other) noexcept {
  type_ = std::move(other.type_);
  kind_ = other.kind_;
  width_ = other.width_;
  TakeStorage(other);
  return *this;
}

void Column::TakeStorage(Column& other) {
  size_.store(other.size_.load(std::memory_order_relaxed), std::memory_order_release);
  capacity_ = std::exchange(other.capacity_, 0);
  data_ = std::move(other.data_);
  validity_ = std::move(other.validity_);
  heap_ = std::move(other.heap_);
  garbage_ = std::exchange(other.garbage_, 0);
  other.size_.store(0, std::memory_order_release);
  Changed();
  other.Changed();
}

Column Column::Clone() const {
  Column copy(type_);
  Status s = copy.AppendColumn(*this);
  GRAPHDB_ASSERT(s.ok());
  return copy;
}

void Column::GrowTo(uint64_t rows) {
  if (rows <= capacity_) return;
  uint64_t cap = std::max<uint64_t>({rows, capacity_ * 2, 64});
  // Rows past size_ may hold truncated rows that a reader bounded by an older size still
  // reads (as invisible rows): copy up to the old capacity, not just the size.
  data_.Grow(cap * width_, capacity_ * width_, shared_);
  validity_.Grow((cap + 63) / 64, (capacity_ + 63) / 64, shared_);
  capacity_ = cap;
}

void Column::Reserve(uint64_t rows) { GrowTo(rows); }

void Column::FreeRetired() {
  data_.FreeRetired();
  validity_.FreeRetired();
  heap_.FreeRetired();
}

void Column::ZeroSlot(uint64_t row) {
  uint8_t* slot = data_.data() + row * width_;
  switch (width_) {
    case 1: AtomicStore<uint8_t>(slot, 0); break;
    case 2: AtomicStore<uint16_t>(reinterpret_cast<uint16_t*>(slot), 0); break;
    case 4: AtomicStore<uint32_t>(reinterpret_cast<uint32_t*>(slot), 0); break;
    default:
      for (uint32_t i = 0; i < width_; i += 8) {
        AtomicStore<uint64_t>(reinterpret_cast<uint64_t*>(slot + i), 0);
      }
  }
}

uint64_t Column::NextRow() {
  uint64_t row = size_.load(std::memory_order_relaxed);
  if (row == capacity_) GrowTo(row + 1);
  return row;
}

void Column::AppendNull() {
  uint64_t row = NextRow();
  ClearValid(row);
  ZeroSlot(row);
  PublishRow(row);
}

void Column::AppendNulls(uint64_t n) {
  GrowTo(size_.load(std::memory_order_relaxed) + n);
  for (uint64_t i = 0; i < n; ++i) AppendNull();
}

void Column::WriteStringSlot(uint8_t* slot, std::string_view s) {
  // Built in a local copy, then stored as two 8-byte words: length and prefix, then the rest
  // of an inline string or the heap position of a long one (whose bytes are in the heap
  // before the position is stored).
  uint64_t words[2] = {0, 0};
  auto len = static_cast<uint32_t>(s.size());
  auto* bytes = reinterpret_cast<char*>(words);
  std::memcpy(bytes, &len, 4);
  if (len <= kInlineStringBytes) {
    if (len) std::memcpy(bytes + 4, s.data(), len);
  } else {
    std::memcpy(bytes + 4, s.data(), 4);
    uint64_t pos = heap_.Add(s);
    std::memcpy(bytes + 8, &pos, 8);
  }
  AtomicStore(reinterpret_cast<uint64_t*>(slot) + 1, words[1]);
  AtomicStore(reinterpret_cast<uint64_t*>(slot), words[0]);
}

std::string_view Column::ReadString(uint64_t row, char (&inline_bytes)[kInlineStringBytes]) const {
  const auto* slot = reinterpret_cast<const uint64_t*>(data_.data() + row * 16);
  uint64_t words[2] = {AtomicLoad(slot), AtomicLoad(slot + 1)};
  auto len = static_cast<uint32_t>(words[0]);
  if (len <= kInlineStringBytes) {
    if constexpr (std::endian::native == std::endian::little) {
      // The bytes after the length, shifted out of the two words: copied from the words in
      // memory at offset 4, the load spans both stores and waits for them (a stall that was
      // most of this function's time in a string-keyed hash join's build).
      const uint64_t head = (words[0] >> 32) | (words[1] << 32);
      const auto tail = static_cast<uint32_t>(words[1] >> 32);
      std::memcpy(inline_bytes, &head, 8);
      std::memcpy(inline_bytes + 8, &tail, 4);
    } else {
      std::memcpy(inline_bytes, reinterpret_cast<const char*>(words) + 4, kInlineStringBytes);
    }
    return std::string_view(inline_bytes, len);
  }
  const char* bytes = heap_.TryAt(words[1], len);
  return bytes ? std::string_view(bytes, len) : std::string_view();
}

void Column::AppendString(std::string_view s) {
  GRAPHDB_ASSERT(kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested);
  uint64_t row = NextRow();
  WriteStringSlot(data_.data() + row * 16, s);
  SetValid(row);
  PublishRow(row);
}

Status Column::StoreValue(uint64_t row, const Value& value) {
  uint8_t* slot = data_.data() + row * width_;
  if (kind_ == PhysicalKind::kNested) {
    auto bytes = EncodeValueToString(value, type_);
    if (!bytes.ok()) return bytes.status();
    WriteStringSlot(slot, *bytes);
    SetValid(row);
    return Status::OK();
  }
  Value coerced;
  const Value* v = &value;
  if (value.type_id() != type_.id()) {
    auto c = CoerceValue(value, type_);
    if (!c.ok()) return c.status();
    coerced = std::move(*c);
    v = &coerced;
  }
  switch (kind_) {
    case PhysicalKind::kBool: {
      AtomicStore<uint8_t>(slot, v->GetBool() ? 1 : 0);
      break;
    }
    case PhysicalKind::kInt8: {
      auto x = static_cast<int8_t>(v->GetInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInt16: {
      auto x = static_cast<int16_t>(v->GetInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInt32: {
      auto x = static_cast<int32_t>(v->GetInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInt64: {
      int64_t x = v->GetInt();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kUInt8: {
      auto x = static_cast<uint8_t>(v->GetUInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kUInt16: {
      auto x = static_cast<uint16_t>(v->GetUInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kUInt32: {
      auto x = static_cast<uint32_t>(v->GetUInt());
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kUInt64: {
      uint64_t x = v->GetUInt();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kFloat: {
      float x = v->GetFloat();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kDouble: {
      double x = v->GetDouble();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInt128: {
      int128_t x = v->GetInt128();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInterval: {
      Interval x = v->GetInterval();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kInternalId: {
      InternalId x = v->GetId();
      AtomicStore(reinterpret_cast<decltype(x)*>(slot), x);
      break;
    }
    case PhysicalKind::kString: WriteStringSlot(slot, v->GetString()); break;
    case PhysicalKind::kNested: break;
  }
  SetValid(row);
  return Status::OK();
}

Status Column::Append(const Value& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  const uint64_t row = NextRow();
  Status s = StoreValue(row, value);
  if (!s.ok()) return s;
  PublishRow(row);
  return Status::OK();
}

Status Column::AppendColumn(const Column& other) {
  if (other.type_ != type_) {
    return Status(ErrorCode::kInvalidRequest, "cannot append a " + other.type_.ToString() +
                                                  " column to a " + type_.ToString() + " column");
  }
  const uint64_t base = size_.load(std::memory_order_relaxed);
  const uint64_t n = other.size();
  GrowTo(base + n);
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    for (uint64_t i = 0; i < n; ++i) {
      if (other.IsNull(i)) {
        AppendNull();
      } else {
        AppendString(other.GetString(i));
      }
    }
    return Status::OK();
  }
  // Bulk copies: the rows are past size_, so no reader of this column reads them yet.
  if (n > 0) std::memcpy(data_.data() + base * width_, other.data_.data(), n * width_);
  if (base % 64 == 0) {
    size_t words = (n + 63) / 64;
    std::memcpy(validity_.data() + base / 64, other.validity_.data(), words * 8);
  } else {
    for (uint64_t i = 0; i < n; ++i) {
      if (other.IsNull(i)) {
        ClearValid(base + i);
      } else {
        SetValid(base + i);
      }
    }
  }
  size_.store(base + n, std::memory_order_release);
  return Status::OK();
}

void Column::Truncate(uint64_t rows) {
  const uint64_t size = size_.load(std::memory_order_relaxed);
  if (rows >= size) return;
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    for (uint64_t i = rows; i < size; ++i) {
      if (!IsNull(i) && GetString(i).size() > kInlineStringBytes) garbage_ += GetString(i).size();
    }
  }
  size_.store(rows, std::memory_order_release);
  Changed();
}

Value Column::Get(uint64_t row) const {
  if (IsNull(row)) return Value::Null(type_);
  LogicalTypeId id = type_.id();
  switch (kind_) {
    case PhysicalKind::kBool: return Value::Boolean(GetBool(row));
    case PhysicalKind::kInt8:
    case PhysicalKind::kInt16:
    case PhysicalKind::kInt32:
    case PhysicalKind::kInt64: return Value::Int(id, GetInt64(row));
    case PhysicalKind::kUInt8:
    case PhysicalKind::kUInt16:
    case PhysicalKind::kUInt32:
    case PhysicalKind::kUInt64: return Value::UInt(id, GetUInt64(row));
    case PhysicalKind::kFloat: return Value::Float(GetFixed<float>(row));
    case PhysicalKind::kDouble: return Value::Double(GetFixed<double>(row));
    case PhysicalKind::kInt128:
      if (id == LogicalTypeId::kDecimal) {
        return Value::Decimal(GetInt128(row), type_.precision(), type_.scale());
      }
      return id == LogicalTypeId::kUuid ? Value::Uuid(GetInt128(row))
                                        : Value::Int128(GetInt128(row));
    case PhysicalKind::kInterval: return Value::IntervalValue(GetInterval(row));
    case PhysicalKind::kInternalId: return Value::Id(GetInternalId(row));
    case PhysicalKind::kString: {
      char buf[kInlineStringBytes];
      std::string_view bytes = ReadString(row, buf);
      if (id == LogicalTypeId::kJson) return Value::Json(bytes);
      return id == LogicalTypeId::kBlob ? Value::Blob(bytes) : Value::String(bytes);
    }
    case PhysicalKind::kNested: {
      char buf[kInlineStringBytes];
      // Bytes validated when they were stored; only a reader racing with an overwrite can
      // read a mix that does not decode, and the MVCC layer replaces what it read then.
      auto v = DecodeValueFromString(ReadString(row, buf), type_);
      if (!v.ok()) return Value::Null(type_);
      return std::move(v).value();
    }
  }
  return Value::Null(type_);
}

int64_t Column::GetInt64(uint64_t row) const {
  switch (kind_) {
    case PhysicalKind::kBool:
    case PhysicalKind::kUInt8: return GetFixed<uint8_t>(row);
    case PhysicalKind::kInt8: return GetFixed<int8_t>(row);
    case PhysicalKind::kInt16: return GetFixed<int16_t>(row);
    case PhysicalKind::kUInt16: return GetFixed<uint16_t>(row);
    case PhysicalKind::kInt32: return GetFixed<int32_t>(row);
    case PhysicalKind::kUInt32: return GetFixed<uint32_t>(row);
    case PhysicalKind::kInt64:
    case PhysicalKind::kUInt64: return GetFixed<int64_t>(row);
    default: GRAPHDB_ASSERT(false);
  }
  return 0;
}

double Column::GetDouble(uint64_t row) const {
  if (kind_ == PhysicalKind::kFloat) return GetFixed<float>(row);
  GRAPHDB_ASSERT(kind_ == PhysicalKind::kDouble);
  return GetFixed<double>(row);
}

Status Column::Set(uint64_t row, const Value& value) {
  GRAPHDB_ASSERT(row < size_.load(std::memory_order_relaxed));
  if (value.is_null()) {
    SetNull(row);
    return Status::OK();
  }
  bool had_heap_string = (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) &&
                         !IsNull(row) && GetString(row).size() > kInlineStringBytes;
  uint64_t old_len = had_heap_string ? GetString(row).size() : 0;
  Status s = StoreValue(row, value);
  if (s.ok()) garbage_ += old_len;
  Changed();
  return s;
}

void Column::SetNull(uint64_t row) {
  GRAPHDB_ASSERT(row < size_.load(std::memory_order_relaxed));
  if ((kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) && !IsNull(row)) {
    size_t len = GetString(row).size();
    if (len > kInlineStringBytes) garbage_ += len;
    ZeroSlot(row);
  }
  ClearValid(row);
  Changed();
}

void Column::SetString(uint64_t row, std::string_view s) {
  GRAPHDB_ASSERT(row < size_.load(std::memory_order_relaxed) &&
                 (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested));
  if (!IsNull(row)) {
    size_t len = GetString(row).size();
    if (len > kInlineStringBytes) garbage_ += len;
  }
  WriteStringSlot(data_.data() + row * width_, s);
  SetValid(row);
  Changed();
}

bool Column::NoNulls() const {
  const uint64_t size = this->size();
  const uint64_t* validity = validity_.data();
  uint64_t full = size / 64;
  for (uint64_t w = 0; w < full; ++w) {
    if (AtomicLoad(validity + w) != ~0ULL) return false;
  }
  for (uint64_t row = full * 64; row < size; ++row) {
    if (IsNull(row)) return false;
  }
  return true;
}

size_t Column::MemoryUsage() const {
  size_t derived = 0;
  {
    std::lock_guard<std::mutex> lock(derived_mu_);
    if (derived_ != nullptr) derived = derived_->MemoryUsage();
  }
  return data_.MemoryUsage() + validity_.MemoryUsage() + heap_.MemoryUsage() + derived;
}

std::shared_ptr<const Column::Derived> Column::FindDerived() const {
  const uint64_t now = changes();
  std::lock_guard<std::mutex> lock(derived_mu_);
  if (derived_ != nullptr && derived_changes_ != now) derived_.reset();  // stale: let it go
  return derived_;
}

void Column::KeepDerived(uint64_t changes, std::shared_ptr<const Derived> data) const {
  if (changes != this->changes()) return;
  std::lock_guard<std::mutex> lock(derived_mu_);
  derived_ = std::move(data);
  derived_changes_ = changes;
}

Status Column::FillFixedInRegions(const Column& one, uint64_t rows) {
  const uint64_t capacity = MappedCapacity(rows);
  const uint64_t word_capacity = (capacity + 63) / 64;
  auto data = env::MemoryRegion::Anonymous(capacity * width_);
  if (!data.ok()) return data.status();
  auto validity = env::MemoryRegion::Anonymous(word_capacity * 8);
  if (!validity.ok()) return validity.status();
  data_.Adopt(std::move(*data), capacity * width_, 0);
  validity_.Adopt(std::move(*validity), word_capacity, 0);
  capacity_ = capacity;
  if (one.size() == 1 && !one.IsNull(0)) {
    std::fill(validity_.data(), validity_.data() + (rows + 63) / 64, ~0ULL);
    const uint8_t* value = one.data_.data();
    if (std::any_of(value, value + width_, [](uint8_t b) { return b != 0; })) {
      for (uint64_t r = 0; r < rows; ++r) std::memcpy(data_.data() + r * width_, value, width_);
    }
  }
  size_.store(rows, std::memory_order_release);
  return Status::OK();
}

Result<Column> MakeFilledColumn(const LogicalType& type, const Value& fill, uint64_t rows) {
  Column column(type);
  const bool strings =
      column.kind() == PhysicalKind::kString || column.kind() == PhysicalKind::kNested;
  Column one(type);
  if (!fill.is_null()) {
    Status s = one.Append(fill);
    if (!s.ok()) return s;
  }
  if (!strings && rows >= Column::kZeroPageRows) {
    // Anonymous pages: a NULL or zero fill (ALTER ADD ... DEFAULT 0, or a constant column of a
    // table being opened) costs no memory and no time per row until rows are written.
    Status s = column.FillFixedInRegions(one, rows);
    if (!s.ok()) return s;
    return column;
  }
  column.Reserve(rows);
  if (fill.is_null()) {
    column.AppendNulls(rows);
    return column;
  }
  Status s;
  if (strings) {
    std::string_view bytes = one.GetString(0);
    for (uint64_t r = 0; r < rows; ++r) column.AppendString(bytes);
  } else {
    // A block of copies appended whole, as often as it fits (a bulk copy each, since the block
    // is a multiple of 64 rows long), then the rest row by row: ALTER ADD ... DEFAULT over
    // millions of rows costs a few copies of the column, not a call per row.
    constexpr uint64_t kBlockRows = 4096;
    Column block(type);
    uint64_t left = rows;
    if (rows >= kBlockRows) {
      block.Reserve(kBlockRows);
      for (uint64_t r = 0; r < kBlockRows; ++r) {
        s = block.AppendColumn(one);
        GRAPHDB_ASSERT(s.ok());
      }
      for (; left >= kBlockRows; left -= kBlockRows) {
        s = column.AppendColumn(block);
        GRAPHDB_ASSERT(s.ok());
      }
    }
    for (; left > 0; --left) {
      s = column.AppendColumn(one);
      GRAPHDB_ASSERT(s.ok());
    }
  }
  return column;
}

// ---------------------------------------------------------------------------------------------
// Persistence: u8 kind | varint rows | u8 validity mode (0 all valid, 1 all NULL, 2 bitmap) |
// [bitmap words] | fixed kinds: rows * width raw bytes; string kinds: for each non-NULL row a
// varint length and the bytes.

namespace {

constexpr size_t kRawPiece = 1 << 20;

void PutRawInPieces(catalog::BinaryWriter& out, const void* data, size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    size_t piece = std::min(n, kRawPiece);
    out.PutRaw(p, piece);
    p += piece;
    n -= piece;
  }
}

}  // namespace

void Column::Serialize(catalog::BinaryWriter& out) const {
  out.PutU8(static_cast<uint8_t>(kind_));
  const uint64_t size = size_.load(std::memory_order_relaxed);
  out.PutVarint(size);
  bool all_valid = NoNulls();
  bool all_null = !all_valid;
  if (all_null) {
    for (uint64_t row = 0; row < size; ++row) {
      if (!IsNull(row)) {
        all_null = false;
        break;
      }
    }
  }
  size_t words = (size + 63) / 64;
  if (all_valid) {
    out.PutU8(0);
  } else if (all_null) {
    out.PutU8(1);
  } else {
    out.PutU8(2);
    // Bits past size_ may be stale: mask the last word.
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = validity_.data()[w];
      if (w == words - 1 && size % 64) bits &= (1ULL << (size % 64)) - 1;
      out.PutU64(bits);
    }
  }
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    if (all_null) return;
    for (uint64_t row = 0; row < size; ++row) {
      if (!IsNull(row)) out.PutString(GetString(row));
    }
  } else {
    PutRawInPieces(out, data_.data(), size * width_);
  }
}

Status Column::CorruptColumn(const LogicalType& type, const std::string& why) {
  return Status(ErrorCode::kCorruption, "corrupt " + type.ToString() + " column: " + why);
}

Status Column::ReadHeader(catalog::BinaryReader& in, uint64_t* rows, uint8_t* mode) const {
  uint8_t kind;
  if (!in.GetU8(&kind) || !in.GetVarint(rows) || !in.GetU8(mode)) {
    return CorruptColumn(type_, "truncated");
  }
  if (kind != static_cast<uint8_t>(kind_)) return CorruptColumn(type_, "physical kind mismatch");
  if (*mode > 2) return CorruptColumn(type_, "bad validity mode");
  return Status::OK();
}

Result<Column> Column::Deserialize(catalog::BinaryReader& in, const LogicalType& type) {
  auto corrupt = [&type](const char* why) { return CorruptColumn(type, why); };
  Column col(type);
  uint64_t rows;
  uint8_t mode;
  if (Status s = col.ReadHeader(in, &rows, &mode); !s.ok()) return s;
  // Bound the allocation by the input before making it: fixed-width rows are all present in
  // the data; string rows cost a byte each when valid, a bit each in a bitmap. All-NULL string
  // columns cost nothing per row, so their row count is bounded by the caller (the table).
  bool strings = col.kind_ == PhysicalKind::kString || col.kind_ == PhysicalKind::kNested;
  if (!strings && rows > in.remaining() / col.width_) return corrupt("row count exceeds data");
  if (strings && mode == 0 && rows > in.remaining()) return corrupt("row count exceeds data");
  if (strings && mode == 2 && rows / 8 > in.remaining()) return corrupt("row count exceeds data");
  if (rows > (1ULL << 40)) return corrupt("row count too large");
  col.GrowTo(rows);
  size_t words = (rows + 63) / 64;
  if (mode == 0) {
    std::fill(col.validity_.data(), col.validity_.data() + words, ~0ULL);
  } else if (mode == 2) {
    for (size_t w = 0; w < words; ++w) {
      if (!in.GetU64(&col.validity_.data()[w])) return corrupt("truncated bitmap");
    }
  }
  if (col.kind_ == PhysicalKind::kString || col.kind_ == PhysicalKind::kNested) {
    for (uint64_t row = 0; row < rows; ++row) {
      if (mode == 1 || !((col.validity_.data()[row >> 6] >> (row & 63)) & 1)) {
        std::memset(col.data_.data() + row * 16, 0, 16);
        continue;
      }
      std::string_view s;
      if (!in.GetStringView(&s)) return corrupt("truncated string data");
      if (col.kind_ == PhysicalKind::kNested) {
        auto v = DecodeValueFromString(s, type);
        if (!v.ok()) return corrupt("undecodable nested value");
      }
      col.WriteStringSlot(col.data_.data() + row * 16, s);
    }
  } else {
    size_t bytes = rows * col.width_;
    if (bytes > in.remaining()) return corrupt("truncated data");
    if (bytes && !in.GetRaw(col.data_.data(), bytes)) return corrupt("truncated data");
    if (col.kind_ == PhysicalKind::kBool) {
      for (size_t i = 0; i < rows; ++i) {
        if (col.data_.data()[i] > 1) return corrupt("bad boolean");
      }
    }
  }
  col.size_.store(rows, std::memory_order_release);
  return col;
}

// ---------------------------------------------------------------------------------------------
// Persistence, format version 3: u8 kind | varint rows | u8 validity mode | [mode 2: varint
// bitmap section] | [mode != 1: fixed kinds: varint values section; string kinds: varint slots
// section, varint heap section]. Sections hold the in-memory arrays: ceil(rows / 64) validity
// words (bits past the last row clear), rows * width value bytes, rows 16-byte string slots
// (NULL rows zero; a long string's position is its byte offset in the heap section, which puts
// no string across a 2^32 boundary), and the live long strings' bytes.

namespace {

constexpr uint64_t kHeapSpan = 1ULL << 32;

// Where a long string of `len` bytes goes in a heap section that holds `*used` bytes so far
// (no string crosses a 2^32 boundary: a position is chunk << 32 | offset in the chunk).
uint64_t PlaceInHeap(uint64_t* used, uint64_t len) {
  if ((*used % kHeapSpan) + len > kHeapSpan) *used += kHeapSpan - *used % kHeapSpan;
  const uint64_t pos = *used;
  *used += len;
  return pos;
}

}  // namespace

void Column::SerializeMapped(TableSink& out) const {
  catalog::BinaryWriter& d = out.descriptor();
  d.PutU8(static_cast<uint8_t>(kind_));
  const uint64_t size = size_.load(std::memory_order_relaxed);
  d.PutVarint(size);
  const bool all_valid = NoNulls();
  bool all_null = !all_valid;
  for (uint64_t row = 0; all_null && row < size; ++row) all_null = IsNull(row);
  const size_t words = (size + 63) / 64;
  if (all_valid) {
    d.PutU8(0);
  } else if (all_null) {
    d.PutU8(1);
  } else {
    d.PutU8(2);
    out.BeginSection();
    // Bits past size_ may be stale: mask the last word.
    if (words > 1) out.Append(validity_.data(), (words - 1) * 8);
    uint64_t last = validity_.data()[words - 1];
    if (size % 64) last &= (1ULL << (size % 64)) - 1;
    out.Append(&last, 8);
    d.PutVarint(out.EndSection());
  }
  if (all_null) return;
  if (kind_ != PhysicalKind::kString && kind_ != PhysicalKind::kNested) {
    d.PutVarint(out.Section(data_.data(), size * width_));
    return;
  }
  // Slots, with long strings placed in a compacted heap; then the heap in the same order.
  constexpr uint64_t kPiece = 4096;
  std::vector<uint64_t> slots;
  uint64_t used = 0;
  out.BeginSection();
  for (uint64_t row = 0; row < size; row += kPiece) {
    const uint64_t n = std::min(kPiece, size - row);
    slots.assign(2 * n, 0);
    for (uint64_t i = 0; i < n; ++i) {
      if (IsNull(row + i)) continue;
      const std::string_view str = GetString(row + i);
      std::memcpy(&slots[2 * i], data_.data() + (row + i) * 16, 16);
      if (str.size() > kInlineStringBytes) slots[2 * i + 1] = PlaceInHeap(&used, str.size());
    }
    out.Append(slots.data(), n * 16);
  }
  d.PutVarint(out.EndSection());
  static const char kZeros[4096] = {};
  uint64_t placed = 0;
  out.BeginSection();
  for (uint64_t row = 0; row < size; ++row) {
    if (IsNull(row)) continue;
    const std::string_view str = GetString(row);
    if (str.size() <= kInlineStringBytes) continue;
    const uint64_t before = placed;
    const uint64_t pos = PlaceInHeap(&placed, str.size());
    for (uint64_t gap = pos - before; gap > 0;) {
      const uint64_t n = std::min<uint64_t>(gap, sizeof kZeros);
      out.Append(kZeros, n);
      gap -= n;
    }
    out.Append(str.data(), str.size());
  }
  d.PutVarint(out.EndSection());
}

Result<Column> Column::DeserializeMapped(catalog::BinaryReader& in, const SectionSource& sections,
                                         const LogicalType& type) {
  auto corrupt = [&type](const std::string& why) { return CorruptColumn(type, why); };
  Column col(type);
  uint64_t rows;
  uint8_t mode;
  if (Status s = col.ReadHeader(in, &rows, &mode); !s.ok()) return s;
  if (rows > (1ULL << 40)) return corrupt("row count too large");
  // Every section is checked against the row count before it is mapped.
  auto section = [&](uint64_t bytes, const char* what) -> Result<uint64_t> {
    uint64_t i;
    if (!in.GetVarint(&i)) return corrupt("truncated");
    if (i >= sections.num_sections()) return corrupt(std::string("no ") + what + " section");
    if (bytes != UINT64_MAX && sections.section_length(i) != bytes) {
      return corrupt(std::string(what) + " section does not match the row count");
    }
    return i;
  };
  const uint64_t capacity = MappedCapacity(rows);
  const uint64_t words = (rows + 63) / 64;
  const uint64_t word_capacity = (capacity + 63) / 64;
  if (mode == 2) {
    auto i = section(words * 8, "validity");
    if (!i.ok()) return i.status();
    auto region = sections.MapSection(*i, word_capacity * 8);
    if (!region.ok()) return region.status();
    col.validity_.Adopt(std::move(*region), word_capacity, words * 8);
  } else {
    auto region = env::MemoryRegion::Anonymous(word_capacity * 8);
    if (!region.ok()) return region.status();
    col.validity_.Adopt(std::move(*region), word_capacity, 0);
    if (mode == 0) std::fill(col.validity_.data(), col.validity_.data() + words, ~0ULL);
  }
  const bool strings = col.kind_ == PhysicalKind::kString || col.kind_ == PhysicalKind::kNested;
  if (mode == 1) {
    auto region = env::MemoryRegion::Anonymous(capacity * col.width_);
    if (!region.ok()) return region.status();
    col.data_.Adopt(std::move(*region), capacity * col.width_, 0);
  } else {
    auto i = section(rows * col.width_, strings ? "string slot" : "value");
    if (!i.ok()) return i.status();
    auto region = sections.MapSection(*i, capacity * col.width_);
    if (!region.ok()) return region.status();
    col.data_.Adopt(std::move(*region), capacity * col.width_, rows * col.width_);
    if (strings) {
      auto h = section(UINT64_MAX, "string heap");
      if (!h.ok()) return h.status();
      const uint64_t heap_bytes = sections.section_length(*h);
      auto heap = sections.MapSection(*h, heap_bytes);
      if (!heap.ok()) return heap.status();
      col.heap_.AdoptMapped(std::move(*heap), heap_bytes);
    }
  }
  col.capacity_ = capacity;
  col.size_.store(rows, std::memory_order_release);
  return col;
}

}  // namespace graphdb::storage
