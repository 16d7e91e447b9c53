// BinaryWriter / BinaryReader: the little-endian byte encoding shared by the catalog and the
// storage files (fixed-width integers, LEB128 varints, zigzag signed varints, length-prefixed
// strings). Readers never read past their input: every getter returns false instead, which
// callers turn into a CORRUPTION status.
//
// Thread-safety: plain value types; one thread per object.
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace graphdb::catalog {

class BinaryWriter {
 public:
  // Receives buffered bytes in order when the buffer passes the flush threshold or on Flush().
  using Sink = std::function<void(std::string_view)>;

  BinaryWriter() = default;
  explicit BinaryWriter(Sink sink, size_t flush_threshold = 1 << 20)
      : sink_(std::move(sink)), flush_threshold_(flush_threshold) {}

  void PutU8(uint8_t v) {
    buf_.push_back(static_cast<char>(v));
    MaybeFlush();
  }
  void PutU32(uint32_t v) { PutRaw(&v, sizeof v); }
  void PutU64(uint64_t v) { PutRaw(&v, sizeof v); }
  void PutDouble(double v) { PutRaw(&v, sizeof v); }
  void PutVarint(uint64_t v) {
    char tmp[10];
    size_t n = 0;
    while (v >= 0x80) {
      tmp[n++] = static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    tmp[n++] = static_cast<char>(v);
    PutRaw(tmp, n);
  }
  void PutSignedVarint(int64_t v) {
    PutVarint((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void PutString(std::string_view s) {
    PutVarint(s.size());
    PutRaw(s.data(), s.size());
  }
  void PutRaw(const void* data, size_t n) {
    buf_.append(static_cast<const char*>(data), n);
    MaybeFlush();
  }

  // Hands everything buffered to the sink (no-op without a sink).
  void Flush() {
    if (sink_ && !buf_.empty()) {
      sink_(buf_);
      flushed_ += buf_.size();
      buf_.clear();
    }
  }
  // Total bytes written so far, flushed or not.
  uint64_t size() const { return flushed_ + buf_.size(); }
  // The unflushed bytes (all bytes when there is no sink).
  const std::string& buffer() const { return buf_; }
  std::string Release() { return std::move(buf_); }

 private:
  void MaybeFlush() {
    if (sink_ && buf_.size() >= flush_threshold_) Flush();
  }

  std::string buf_;
  Sink sink_;
  size_t flush_threshold_ = 0;
  uint64_t flushed_ = 0;
};

class BinaryReader {
 public:
  explicit BinaryReader(std::string_view data) : data_(data) {}

  bool GetU8(uint8_t* v) {
    if (pos_ >= data_.size()) return false;
    *v = static_cast<uint8_t>(data_[pos_++]);
    return true;
  }
  bool GetU32(uint32_t* v) { return GetRaw(v, sizeof *v); }
  bool GetU64(uint64_t* v) { return GetRaw(v, sizeof *v); }
  bool GetDouble(double* v) { return GetRaw(v, sizeof *v); }
  bool GetVarint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= data_.size()) return false;
      auto byte = static_cast<uint8_t>(data_[pos_++]);
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *v = result;
        return true;
      }
    }
    return false;
  }
  bool GetSignedVarint(int64_t* v) {
    uint64_t u;
    if (!GetVarint(&u)) return false;
    *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
    return true;
  }
  // A varint-length-prefixed string; the view points into the reader's input.
  bool GetStringView(std::string_view* s) {
    uint64_t n;
    if (!GetVarint(&n) || n > remaining()) return false;
    *s = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }
  bool GetString(std::string* s) {
    std::string_view view;
    if (!GetStringView(&view)) return false;
    s->assign(view);
    return true;
  }
  bool GetRaw(void* out, size_t n) {
    if (n > remaining()) return false;
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  // A view of the next `n` bytes without copying.
  bool GetView(size_t n, std::string_view* out) {
    if (n > remaining()) return false;
    *out = data_.substr(pos_, n);
    pos_ += n;
    return true;
  }

  size_t remaining() const { return data_.size() - pos_; }
  size_t position() const { return pos_; }
  bool done() const { return pos_ == data_.size(); }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

}  // namespace graphdb::catalog
