#include "formats/npy_reader.h"

#include <cstring>
#include <limits>

namespace graphdb::formats {

using storage::Column;

namespace {

Status NpyError(const std::string& name, const std::string& detail) {
  return Status(ErrorCode::kQueryRuntime,
                "Copy exception: Error in npy file " + name + ": " + detail);
}

// The text of `key`'s value in the header dictionary ("{'descr': '<i8', ...}").
bool HeaderValue(const std::string& header, const std::string& key, std::string* out) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) return false;
  at = header.find(':', at);
  if (at == std::string::npos) return false;
  ++at;
  while (at < header.size() && header[at] == ' ') ++at;
  if (at >= header.size()) return false;
  size_t end;
  if (header[at] == '\'') {
    end = header.find('\'', at + 1);
    if (end == std::string::npos) return false;
    *out = header.substr(at + 1, end - at - 1);
    return true;
  }
  if (header[at] == '(') {
    end = header.find(')', at);
    if (end == std::string::npos) return false;
    *out = header.substr(at + 1, end - at - 1);
    return true;
  }
  end = header.find_first_of(",}", at);
  if (end == std::string::npos) return false;
  *out = header.substr(at, end - at);
  return true;
}

struct Parsed {
  NpyArray array;
  char kind = 0;  // 'b', 'i', 'u' or 'f'
  size_t width = 0;
  size_t data_offset = 0;
};

Result<Parsed> ParseHeader(const std::string& bytes, const std::string& name) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
    return NpyError(name, "not a .npy file (no \\x93NUMPY magic).");
  }
  const auto major = static_cast<uint8_t>(bytes[6]);
  size_t header_len;
  size_t header_start;
  if (major == 1) {
    header_len =
        static_cast<uint8_t>(bytes[8]) | (static_cast<size_t>(static_cast<uint8_t>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return NpyError(name, "truncated header.");
    header_len = 0;
    for (int i = 3; i >= 0; --i)
      header_len = (header_len << 8) | static_cast<uint8_t>(bytes[8 + i]);
    header_start = 12;
  } else {
    return NpyError(name, "unsupported format version " + std::to_string(major) + ".");
  }
  if (header_start + header_len > bytes.size()) return NpyError(name, "truncated header.");
  std::string header = bytes.substr(header_start, header_len);
  std::string descr, fortran, shape;
  if (!HeaderValue(header, "descr", &descr) || !HeaderValue(header, "fortran_order", &fortran) ||
      !HeaderValue(header, "shape", &shape)) {
    return NpyError(name, "the header lacks descr, fortran_order or shape.");
  }
  if (fortran.find("True") != std::string::npos) {
    return NpyError(name, "Fortran-order arrays are not supported.");
  }
  Parsed parsed;
  parsed.data_offset = header_start + header_len;
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' && descr[0] != '=')) {
    return NpyError(name, "unsupported element type '" + descr + "' (little-endian only).");
  }
  parsed.kind = descr[1];
  parsed.width = static_cast<size_t>(std::atoi(descr.c_str() + 2));
  using Id = LogicalTypeId;
  Id id = Id::kAny;
  switch (parsed.kind) {
    case 'b':
      if (parsed.width == 1) id = Id::kBool;
      break;
    case 'i':
      id = parsed.width == 1   ? Id::kInt8
           : parsed.width == 2 ? Id::kInt16
           : parsed.width == 4 ? Id::kInt32
           : parsed.width == 8 ? Id::kInt64
                               : Id::kAny;
      break;
    case 'u':
      id = parsed.width == 1   ? Id::kUInt8
           : parsed.width == 2 ? Id::kUInt16
           : parsed.width == 4 ? Id::kUInt32
           : parsed.width == 8 ? Id::kUInt64
                               : Id::kAny;
      break;
    case 'f':
      id = parsed.width == 4 ? Id::kFloat : parsed.width == 8 ? Id::kDouble : Id::kAny;
      break;
    default: break;
  }
  if (id == Id::kAny) return NpyError(name, "unsupported element type '" + descr + "'.");
  parsed.array.element = LogicalType(id);
  size_t pos = 0;
  while (pos < shape.size()) {
    size_t end = shape.find(',', pos);
    if (end == std::string::npos) end = shape.size();
    std::string dim = shape.substr(pos, end - pos);
    size_t first = dim.find_first_not_of(' ');
    if (first != std::string::npos) {
      dim = dim.substr(first, dim.find_last_not_of(' ') - first + 1);
      char* stop = nullptr;
      unsigned long long v = std::strtoull(dim.c_str(), &stop, 10);
      if (stop == dim.c_str() || *stop != '\0') return NpyError(name, "bad shape (" + shape + ").");
      parsed.array.shape.push_back(v);
    }
    pos = end + 1;
  }
  if (parsed.array.shape.empty()) return NpyError(name, "a scalar array has no rows.");
  uint64_t values = 1;
  for (uint64_t d : parsed.array.shape) {
    if (d != 0 && values > std::numeric_limits<uint64_t>::max() / d / parsed.width) {
      return NpyError(name, "the shape is too large.");
    }
    values *= d;
  }
  if (parsed.data_offset + values * parsed.width > bytes.size()) {
    return NpyError(name, "the file holds fewer values than its shape (" + shape + ") says.");
  }
  return parsed;
}

// Element `i` of the data as a value of the file's element type.
Value Element(const Parsed& p, const char* data, uint64_t i) {
  const char* at = data + i * p.width;
  auto load = [at](auto v) {
    std::memcpy(&v, at, sizeof(v));
    return v;
  };
  using Id = LogicalTypeId;
  switch (p.array.element.id()) {
    case Id::kBool: return Value::Boolean(*at != 0);
    case Id::kInt8: return Value::Int(Id::kInt8, load(int8_t{}));
    case Id::kInt16: return Value::Int(Id::kInt16, load(int16_t{}));
    case Id::kInt32: return Value::Int(Id::kInt32, load(int32_t{}));
    case Id::kInt64: return Value::Int(Id::kInt64, load(int64_t{}));
    case Id::kUInt8: return Value::UInt(Id::kUInt8, load(uint8_t{}));
    case Id::kUInt16: return Value::UInt(Id::kUInt16, load(uint16_t{}));
    case Id::kUInt32: return Value::UInt(Id::kUInt32, load(uint32_t{}));
    case Id::kUInt64: return Value::UInt(Id::kUInt64, load(uint64_t{}));
    case Id::kFloat: return Value::Float(load(float{}));
    default: return Value::Double(load(double{}));
  }
}

// `v` (an element) as a value of the numeric or BOOL type `type`, if it fits exactly enough
// (floats narrow, integers must be in range).
bool ConvertElement(const Value& v, const LogicalType& type, Value* out) {
  using Id = LogicalTypeId;
  const Id from = v.type_id();
  const bool from_float = from == Id::kFloat || from == Id::kDouble;
  const bool from_unsigned =
      v.type().IsInteger() && !from_float &&
      (from == Id::kUInt8 || from == Id::kUInt16 || from == Id::kUInt32 || from == Id::kUInt64);
  double as_double = from == Id::kFloat ? v.GetFloat() : from == Id::kDouble ? v.GetDouble() : 0;
  if (type.id() == from) {
    *out = v;
    return true;
  }
  switch (type.id()) {
    case Id::kFloat:
      *out = Value::Float(from_float      ? static_cast<float>(as_double)
                          : from_unsigned ? static_cast<float>(v.GetUInt())
                                          : static_cast<float>(v.GetInt()));
      return from != Id::kBool;
    case Id::kDouble:
      *out = Value::Double(from_float      ? as_double
                           : from_unsigned ? static_cast<double>(v.GetUInt())
                                           : static_cast<double>(v.GetInt()));
      return from != Id::kBool;
    case Id::kBool: return false;
    default: break;
  }
  if (!type.IsInteger() || from_float || from == Id::kBool) return false;
  // Range check through 128-bit arithmetic.
  int128_t x = from_unsigned ? static_cast<int128_t>(v.GetUInt()) : v.GetInt();
  int128_t lo, hi;
  switch (type.id()) {
    case Id::kInt8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      break;
    case Id::kInt16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      break;
    case Id::kInt32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      break;
    case Id::kInt64:
    case Id::kSerial:
      lo = INT64_MIN;
      hi = INT64_MAX;
      break;
    case Id::kUInt8:
      lo = 0;
      hi = UINT8_MAX;
      break;
    case Id::kUInt16:
      lo = 0;
      hi = UINT16_MAX;
      break;
    case Id::kUInt32:
      lo = 0;
      hi = UINT32_MAX;
      break;
    case Id::kUInt64:
      lo = 0;
      hi = UINT64_MAX;
      break;
    default: return false;
  }
  if (x < lo || x > hi) return false;
  if (type.id() == Id::kUInt8 || type.id() == Id::kUInt16 || type.id() == Id::kUInt32 ||
      type.id() == Id::kUInt64) {
    *out = Value::UInt(type.id(), static_cast<uint64_t>(x));
  } else {
    *out = Value::Int(type.id() == Id::kSerial ? Id::kInt64 : type.id(), static_cast<int64_t>(x));
  }
  return true;
}

}  // namespace

uint64_t NpyArray::row_width() const {
  uint64_t width = 1;
  for (size_t i = 1; i < shape.size(); ++i) width *= shape[i];
  return width;
}

LogicalType NpyArray::RowType() const {
  if (shape.size() <= 1) return element;
  return LogicalType::Array(element, static_cast<uint32_t>(row_width()));
}

Result<NpyArray> ReadNpyHeader(env::FileSystem* fs, const std::string& path,
                               const std::string& name) {
  auto bytes = env::ReadFileToString(fs, path);
  if (!bytes.ok()) return bytes.status();
  auto parsed = ParseHeader(*bytes, name);
  if (!parsed.ok()) return parsed.status();
  return parsed->array;
}

Result<Column> ReadNpyColumn(env::FileSystem* fs, const std::string& path, const std::string& name,
                             const LogicalType& type) {
  auto bytes = env::ReadFileToString(fs, path);
  if (!bytes.ok()) return bytes.status();
  auto parsed = ParseHeader(*bytes, name);
  if (!parsed.ok()) return parsed.status();
  const Parsed& p = *parsed;
  const char* data = bytes->data() + p.data_offset;
  const uint64_t rows = p.array.rows();
  const uint64_t width = p.array.row_width();
  const bool nested = type.id() == LogicalTypeId::kList || type.id() == LogicalTypeId::kArray;
  if (p.array.shape.size() > 1 && !nested) {
    return NpyError(name, "its rows of " + std::to_string(width) +
                              " values cannot be copied into " + type.ToString() + ".");
  }
  if (nested && type.id() == LogicalTypeId::kArray && type.array_size() != width) {
    return NpyError(name, "its rows of " + std::to_string(width) + " values do not fit " +
                              type.ToString() + ".");
  }
  const LogicalType& element = nested ? type.child() : type;
  Column column(type);
  column.Reserve(rows);
  auto convert = [&](uint64_t i, Value* out) -> Status {
    Value v = Element(p, data, i);
    if (!ConvertElement(v, element, out)) {
      return NpyError(name, "the value " + v.ToString() + " (" + p.array.element.ToString() +
                                ") cannot be copied into " + element.ToString() + ".");
    }
    return Status::OK();
  };
  for (uint64_t r = 0; r < rows; ++r) {
    Value v;
    if (nested) {
      std::vector<Value> children(width);
      for (uint64_t k = 0; k < width; ++k) {
        Status s = convert(r * width + k, &children[k]);
        if (!s.ok()) return s;
      }
      v = Value::Nested(type, std::move(children));
    } else {
      Status s = convert(r, &v);
      if (!s.ok()) return s;
    }
    Status s = column.Append(v);
    if (!s.ok()) return s;
  }
  return column;
}

}  // namespace graphdb::formats
