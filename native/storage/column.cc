#include "storage/column.h"

#include <algorithm>

#include "storage/value_codec.h"

namespace graphdb::storage {

PhysicalKind PhysicalKindOf(LogicalTypeId id) {
  switch (id) {
    case LogicalTypeId::kBool:
      return PhysicalKind::kBool;
    case LogicalTypeId::kInt8:
      return PhysicalKind::kInt8;
    case LogicalTypeId::kInt16:
      return PhysicalKind::kInt16;
    case LogicalTypeId::kInt32:
    case LogicalTypeId::kDate:
      return PhysicalKind::kInt32;
    case LogicalTypeId::kInt64:
    case LogicalTypeId::kSerial:
    case LogicalTypeId::kTimestamp:
    case LogicalTypeId::kTimestampTz:
    case LogicalTypeId::kTimestampNs:
    case LogicalTypeId::kTimestampMs:
    case LogicalTypeId::kTimestampSec:
      return PhysicalKind::kInt64;
    case LogicalTypeId::kUInt8:
      return PhysicalKind::kUInt8;
    case LogicalTypeId::kUInt16:
      return PhysicalKind::kUInt16;
    case LogicalTypeId::kUInt32:
      return PhysicalKind::kUInt32;
    case LogicalTypeId::kUInt64:
      return PhysicalKind::kUInt64;
    case LogicalTypeId::kFloat:
      return PhysicalKind::kFloat;
    case LogicalTypeId::kDouble:
      return PhysicalKind::kDouble;
    case LogicalTypeId::kInt128:
    case LogicalTypeId::kUuid:
      return PhysicalKind::kInt128;
    case LogicalTypeId::kInterval:
      return PhysicalKind::kInterval;
    case LogicalTypeId::kInternalId:
      return PhysicalKind::kInternalId;
    case LogicalTypeId::kString:
    case LogicalTypeId::kBlob:
      return PhysicalKind::kString;
    default:
      return PhysicalKind::kNested;
  }
}

uint32_t PhysicalWidth(PhysicalKind kind) {
  switch (kind) {
    case PhysicalKind::kBool:
    case PhysicalKind::kInt8:
    case PhysicalKind::kUInt8:
      return 1;
    case PhysicalKind::kInt16:
    case PhysicalKind::kUInt16:
      return 2;
    case PhysicalKind::kInt32:
    case PhysicalKind::kUInt32:
    case PhysicalKind::kFloat:
      return 4;
    case PhysicalKind::kInt64:
    case PhysicalKind::kUInt64:
    case PhysicalKind::kDouble:
      return 8;
    default:
      return 16;
  }
}

// ---------------------------------------------------------------------------------------------
// StringHeap

uint64_t StringHeap::Add(std::string_view s) {
  if (s.size() > kChunkSize / 4) {
    // A large string gets a chunk of its own; the current chunk keeps filling.
    Chunk chunk{std::unique_ptr<char[]>(new char[s.size()]), s.size()};
    std::memcpy(chunk.data.get(), s.data(), s.size());
    allocated_ += s.size();
    chunks_.push_back(std::move(chunk));
    return static_cast<uint64_t>(chunks_.size() - 1) << 32;
  }
  if (current_ == SIZE_MAX || used_ + s.size() > chunks_[current_].capacity) {
    // Chunks start small and double up to kChunkSize, so small tables stay small.
    size_t size = current_ == SIZE_MAX ? kFirstChunkSize
                                       : std::min(chunks_[current_].capacity * 2, kChunkSize);
    while (size < s.size()) size *= 2;
    chunks_.push_back(Chunk{std::unique_ptr<char[]>(new char[size]), size});
    allocated_ += size;
    current_ = chunks_.size() - 1;
    used_ = 0;
  }
  std::memcpy(chunks_[current_].data.get() + used_, s.data(), s.size());
  uint64_t pos = (static_cast<uint64_t>(current_) << 32) | used_;
  used_ += s.size();
  return pos;
}

void StringHeap::Clear() {
  chunks_.clear();
  current_ = SIZE_MAX;
  used_ = 0;
  allocated_ = 0;
}

// ---------------------------------------------------------------------------------------------
// Column

Column::Column(LogicalType type)
    : type_(std::move(type)), kind_(PhysicalKindOf(type_.id())), width_(PhysicalWidth(kind_)) {}

Column Column::Clone() const {
  Column copy(type_);
  Status s = copy.AppendColumn(*this);
  GRAPHDB_ASSERT(s.ok());
  return copy;
}

void Column::GrowTo(uint64_t rows) {
  if (rows <= capacity_) return;
  uint64_t cap = std::max<uint64_t>({rows, capacity_ * 2, 64});
  data_.resize(cap * width_);
  validity_.resize((cap + 63) / 64, 0);
  capacity_ = cap;
}

void Column::Reserve(uint64_t rows) { GrowTo(rows); }

uint8_t* Column::AppendSlot() {
  if (size_ == capacity_) GrowTo(size_ + 1);
  uint64_t row = size_++;
  SetValid(row);
  return data_.data() + row * width_;
}

void Column::AppendNull() {
  if (size_ == capacity_) GrowTo(size_ + 1);
  uint64_t row = size_++;
  ClearValid(row);
  std::memset(data_.data() + row * width_, 0, width_);
}

void Column::AppendNulls(uint64_t n) {
  GrowTo(size_ + n);
  for (uint64_t i = 0; i < n; ++i) AppendNull();
}

void Column::WriteStringSlot(uint8_t* slot, std::string_view s) {
  auto len = static_cast<uint32_t>(s.size());
  std::memcpy(slot, &len, 4);
  if (len <= kInlineStringBytes) {
    std::memset(slot + 4, 0, 12);
    if (len) std::memcpy(slot + 4, s.data(), len);
  } else {
    std::memcpy(slot + 4, s.data(), 4);
    uint64_t pos = heap_.Add(s);
    std::memcpy(slot + 8, &pos, 8);
  }
}

void Column::AppendString(std::string_view s) {
  GRAPHDB_ASSERT(kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested);
  WriteStringSlot(AppendSlot(), s);
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
      uint8_t b = v->GetBool() ? 1 : 0;
      std::memcpy(slot, &b, 1);
      break;
    }
    case PhysicalKind::kInt8: {
      auto x = static_cast<int8_t>(v->GetInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInt16: {
      auto x = static_cast<int16_t>(v->GetInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInt32: {
      auto x = static_cast<int32_t>(v->GetInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInt64: {
      int64_t x = v->GetInt();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kUInt8: {
      auto x = static_cast<uint8_t>(v->GetUInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kUInt16: {
      auto x = static_cast<uint16_t>(v->GetUInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kUInt32: {
      auto x = static_cast<uint32_t>(v->GetUInt());
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kUInt64: {
      uint64_t x = v->GetUInt();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kFloat: {
      float x = v->GetFloat();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kDouble: {
      double x = v->GetDouble();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInt128: {
      int128_t x = v->GetInt128();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInterval: {
      Interval x = v->GetInterval();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kInternalId: {
      InternalId x = v->GetId();
      std::memcpy(slot, &x, sizeof x);
      break;
    }
    case PhysicalKind::kString:
      WriteStringSlot(slot, v->GetString());
      break;
    case PhysicalKind::kNested:
      break;
  }
  SetValid(row);
  return Status::OK();
}

Status Column::Append(const Value& value) {
  if (value.is_null()) {
    AppendNull();
    return Status::OK();
  }
  GrowTo(size_ + 1);
  Status s = StoreValue(size_, value);
  if (!s.ok()) return s;
  ++size_;
  return Status::OK();
}

Status Column::AppendColumn(const Column& other) {
  if (other.type_ != type_) {
    return Status(ErrorCode::kInvalidRequest, "cannot append a " + other.type_.ToString() +
                                                  " column to a " + type_.ToString() + " column");
  }
  GrowTo(size_ + other.size_);
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    for (uint64_t i = 0; i < other.size_; ++i) {
      if (other.IsNull(i)) {
        AppendNull();
      } else {
        AppendString(other.GetString(i));
      }
    }
    return Status::OK();
  }
  if (other.size_ > 0) {
    std::memcpy(data_.data() + size_ * width_, other.data_.data(), other.size_ * width_);
  }
  uint64_t base = size_;
  if (base % 64 == 0) {
    size_t words = (other.size_ + 63) / 64;
    std::memcpy(validity_.data() + base / 64, other.validity_.data(), words * 8);
  } else {
    for (uint64_t i = 0; i < other.size_; ++i) {
      if (other.IsNull(i)) {
        ClearValid(base + i);
      } else {
        SetValid(base + i);
      }
    }
  }
  size_ += other.size_;
  return Status::OK();
}

void Column::Truncate(uint64_t rows) {
  if (rows >= size_) return;
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    for (uint64_t i = rows; i < size_; ++i) {
      if (!IsNull(i) && GetString(i).size() > kInlineStringBytes) garbage_ += GetString(i).size();
    }
  }
  size_ = rows;
}

Value Column::Get(uint64_t row) const {
  GRAPHDB_ASSERT(row < size_);
  if (IsNull(row)) return Value::Null(type_);
  LogicalTypeId id = type_.id();
  switch (kind_) {
    case PhysicalKind::kBool:
      return Value::Boolean(GetBool(row));
    case PhysicalKind::kInt8:
    case PhysicalKind::kInt16:
    case PhysicalKind::kInt32:
    case PhysicalKind::kInt64:
      return Value::Int(id, GetInt64(row));
    case PhysicalKind::kUInt8:
    case PhysicalKind::kUInt16:
    case PhysicalKind::kUInt32:
    case PhysicalKind::kUInt64:
      return Value::UInt(id, GetUInt64(row));
    case PhysicalKind::kFloat:
      return Value::Float(GetFixed<float>(row));
    case PhysicalKind::kDouble:
      return Value::Double(GetFixed<double>(row));
    case PhysicalKind::kInt128:
      return id == LogicalTypeId::kUuid ? Value::Uuid(GetInt128(row))
                                        : Value::Int128(GetInt128(row));
    case PhysicalKind::kInterval:
      return Value::IntervalValue(GetInterval(row));
    case PhysicalKind::kInternalId:
      return Value::Id(GetInternalId(row));
    case PhysicalKind::kString:
      return id == LogicalTypeId::kBlob ? Value::Blob(GetString(row))
                                        : Value::String(GetString(row));
    case PhysicalKind::kNested: {
      auto v = DecodeValueFromString(GetString(row), type_);
      GRAPHDB_ASSERT(v.ok());
      return std::move(v).value();
    }
  }
  return Value::Null(type_);
}

int64_t Column::GetInt64(uint64_t row) const {
  switch (kind_) {
    case PhysicalKind::kBool:
    case PhysicalKind::kUInt8:
      return GetFixed<uint8_t>(row);
    case PhysicalKind::kInt8:
      return GetFixed<int8_t>(row);
    case PhysicalKind::kInt16:
      return GetFixed<int16_t>(row);
    case PhysicalKind::kUInt16:
      return GetFixed<uint16_t>(row);
    case PhysicalKind::kInt32:
      return GetFixed<int32_t>(row);
    case PhysicalKind::kUInt32:
      return GetFixed<uint32_t>(row);
    case PhysicalKind::kInt64:
    case PhysicalKind::kUInt64:
      return GetFixed<int64_t>(row);
    default:
      GRAPHDB_ASSERT(false);
  }
  return 0;
}

double Column::GetDouble(uint64_t row) const {
  if (kind_ == PhysicalKind::kFloat) return GetFixed<float>(row);
  GRAPHDB_ASSERT(kind_ == PhysicalKind::kDouble);
  return GetFixed<double>(row);
}

Status Column::Set(uint64_t row, const Value& value) {
  GRAPHDB_ASSERT(row < size_);
  if (value.is_null()) {
    SetNull(row);
    return Status::OK();
  }
  bool had_heap_string = (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) &&
                         !IsNull(row) && GetString(row).size() > kInlineStringBytes;
  uint64_t old_len = had_heap_string ? GetString(row).size() : 0;
  Status s = StoreValue(row, value);
  if (s.ok()) garbage_ += old_len;
  return s;
}

void Column::SetNull(uint64_t row) {
  GRAPHDB_ASSERT(row < size_);
  if ((kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) && !IsNull(row)) {
    size_t len = GetString(row).size();
    if (len > kInlineStringBytes) garbage_ += len;
    std::memset(data_.data() + row * width_, 0, width_);
  }
  ClearValid(row);
}

void Column::SetString(uint64_t row, std::string_view s) {
  GRAPHDB_ASSERT(row < size_ && (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested));
  if (!IsNull(row)) {
    size_t len = GetString(row).size();
    if (len > kInlineStringBytes) garbage_ += len;
  }
  WriteStringSlot(data_.data() + row * width_, s);
  SetValid(row);
}

bool Column::NoNulls() const {
  uint64_t full = size_ / 64;
  for (uint64_t w = 0; w < full; ++w) {
    if (validity_[w] != ~0ULL) return false;
  }
  for (uint64_t row = full * 64; row < size_; ++row) {
    if (IsNull(row)) return false;
  }
  return true;
}

size_t Column::MemoryUsage() const {
  return data_.capacity() + validity_.capacity() * sizeof(uint64_t) + heap_.MemoryUsage();
}

Result<Column> MakeFilledColumn(const LogicalType& type, const Value& fill, uint64_t rows) {
  Column column(type);
  column.Reserve(rows);
  if (fill.is_null()) {
    column.AppendNulls(rows);
    return column;
  }
  Column one(type);
  Status s = one.Append(fill);
  if (!s.ok()) return s;
  if (column.kind() == PhysicalKind::kString || column.kind() == PhysicalKind::kNested) {
    std::string_view bytes = one.GetString(0);
    for (uint64_t r = 0; r < rows; ++r) column.AppendString(bytes);
  } else {
    for (uint64_t r = 0; r < rows; ++r) {
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
  out.PutVarint(size_);
  bool all_valid = NoNulls();
  bool all_null = !all_valid;
  if (all_null) {
    for (uint64_t row = 0; row < size_; ++row) {
      if (!IsNull(row)) {
        all_null = false;
        break;
      }
    }
  }
  size_t words = (size_ + 63) / 64;
  if (all_valid) {
    out.PutU8(0);
  } else if (all_null) {
    out.PutU8(1);
  } else {
    out.PutU8(2);
    // Bits past size_ may be stale: mask the last word.
    for (size_t w = 0; w < words; ++w) {
      uint64_t bits = validity_[w];
      if (w == words - 1 && size_ % 64) bits &= (1ULL << (size_ % 64)) - 1;
      out.PutU64(bits);
    }
  }
  if (kind_ == PhysicalKind::kString || kind_ == PhysicalKind::kNested) {
    if (all_null) return;
    for (uint64_t row = 0; row < size_; ++row) {
      if (!IsNull(row)) out.PutString(GetString(row));
    }
  } else {
    PutRawInPieces(out, data_.data(), size_ * width_);
  }
}

Result<Column> Column::Deserialize(catalog::BinaryReader& in, const LogicalType& type) {
  auto corrupt = [&type](const char* why) {
    return Status(ErrorCode::kCorruption,
                  std::string("corrupt ") + type.ToString() + " column: " + why);
  };
  Column col(type);
  uint8_t kind;
  uint64_t rows;
  uint8_t mode;
  if (!in.GetU8(&kind) || !in.GetVarint(&rows) || !in.GetU8(&mode)) return corrupt("truncated");
  if (kind != static_cast<uint8_t>(col.kind_)) return corrupt("physical kind mismatch");
  if (mode > 2) return corrupt("bad validity mode");
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
    std::fill(col.validity_.begin(), col.validity_.begin() + words, ~0ULL);
  } else if (mode == 2) {
    for (size_t w = 0; w < words; ++w) {
      if (!in.GetU64(&col.validity_[w])) return corrupt("truncated bitmap");
    }
  }
  if (col.kind_ == PhysicalKind::kString || col.kind_ == PhysicalKind::kNested) {
    for (uint64_t row = 0; row < rows; ++row) {
      if (mode == 1 || !((col.validity_[row >> 6] >> (row & 63)) & 1)) {
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
        if (col.data_[i] > 1) return corrupt("bad boolean");
      }
    }
  }
  col.size_ = rows;
  return col;
}

}  // namespace graphdb::storage
