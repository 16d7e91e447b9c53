#include "formats/gzip.h"

#include <array>
#include <cstdint>

namespace graphdb::formats {

namespace {

Status IoError(std::string message) {
  return Status(ErrorCode::kQueryRuntime, "IO exception: " + std::move(message));
}

// A canonical Huffman code: how many codes have each length, and the symbols ordered by code.
struct Huffman {
  std::array<uint16_t, 16> count{};
  std::array<uint16_t, 320> symbol{};
};

// Builds `h` from per-symbol code lengths; false when the lengths over-subscribe the code.
bool BuildHuffman(const uint8_t* lengths, int n, Huffman* h) {
  h->count.fill(0);
  for (int s = 0; s < n; ++s) ++h->count[lengths[s]];
  if (h->count[0] == n) return true;  // no codes: a valid (empty) code
  int left = 1;
  for (int len = 1; len < 16; ++len) {
    left <<= 1;
    left -= h->count[len];
    if (left < 0) return false;
  }
  std::array<uint16_t, 16> offset{};
  for (int len = 1; len < 15; ++len) offset[len + 1] = offset[len] + h->count[len];
  for (int s = 0; s < n; ++s) {
    if (lengths[s] != 0) h->symbol[offset[lengths[s]]++] = static_cast<uint16_t>(s);
  }
  return true;
}

class Inflater {
 public:
  // Appends to `out`, whose bytes from `member_start` on are this member's (back-references
  // may not reach before them).
  // `limit`: the most bytes `out` may hold; more is refused as corrupt (a decompression bomb).
  Inflater(std::string_view in, std::string* out, size_t member_start, size_t limit)
      : in_(in), out_(out), member_start_(member_start), limit_(limit) {}

  // Inflates one DEFLATE stream from the current position; false (with why()) on bad data.
  bool Run() {
    bool last = false;
    while (!last) {
      if (!Bits(1, &bits_)) return false;
      last = bits_ != 0;
      uint32_t type;
      if (!Bits(2, &type)) return false;
      bool ok = type == 0   ? Stored()
                : type == 1 ? Fixed()
                : type == 2 ? Dynamic()
                            : Fail("bad block type");
      if (!ok) return false;
    }
    return true;
  }
  // The byte after the stream (the stream ends on a byte boundary for what follows).
  size_t position() const { return pos_; }
  const std::string& why() const { return why_; }

 private:
  bool TooLarge() {
    return Fail("it holds more than the " + std::to_string(limit_) + " bytes expected");
  }
  bool Fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
  }
  bool Bits(int need, uint32_t* out) {
    uint64_t value = bit_buf_;
    while (bit_count_ < need) {
      if (pos_ >= in_.size()) return Fail("unexpected end of data");
      value |= static_cast<uint64_t>(static_cast<unsigned char>(in_[pos_++])) << bit_count_;
      bit_count_ += 8;
    }
    bit_buf_ = value >> need;
    bit_count_ -= need;
    *out = static_cast<uint32_t>(value & ((1ull << need) - 1));
    return true;
  }
  bool Decode(const Huffman& h, int* symbol) {
    int code = 0, first = 0, index = 0;
    for (int len = 1; len < 16; ++len) {
      uint32_t bit;
      if (!Bits(1, &bit)) return false;
      code |= static_cast<int>(bit);
      int count = h.count[len];
      if (code - count < first) {
        *symbol = h.symbol[index + (code - first)];
        return true;
      }
      index += count;
      first += count;
      first <<= 1;
      code <<= 1;
    }
    return Fail("bad Huffman code");
  }
  bool Stored() {
    bit_buf_ = 0;
    bit_count_ = 0;  // to the byte boundary
    if (pos_ + 4 > in_.size()) return Fail("unexpected end of data");
    auto byte = [this](size_t i) {
      return static_cast<unsigned>(static_cast<unsigned char>(in_[i]));
    };
    unsigned len = byte(pos_) | (byte(pos_ + 1) << 8);
    unsigned nlen = byte(pos_ + 2) | (byte(pos_ + 3) << 8);
    pos_ += 4;
    if (len != (~nlen & 0xFFFF)) return Fail("stored block length mismatch");
    if (pos_ + len > in_.size()) return Fail("unexpected end of data");
    if (len > limit_ - out_->size()) return TooLarge();
    out_->append(in_.substr(pos_, len));
    pos_ += len;
    return true;
  }
  bool Codes(const Huffman& lengths, const Huffman& distances) {
    static const uint16_t kLenBase[] = {3,  4,  5,  6,   7,   8,   9,   10,  11, 13,
                                        15, 17, 19, 23,  27,  31,  35,  43,  51, 59,
                                        67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t kLenExtra[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                        2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    static const uint16_t kDistBase[] = {
        1,   2,   3,   4,   5,   7,    9,    13,   17,   25,   33,   49,   65,    97,    129,
        193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577};
    static const uint8_t kDistExtra[] = {0, 0, 0, 0, 1, 1, 2, 2,  3,  3,  4,  4,  5,  5,  6,
                                         6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13};
    while (true) {
      int symbol;
      if (!Decode(lengths, &symbol)) return false;
      if (symbol < 256) {
        if (out_->size() >= limit_) return TooLarge();
        out_->push_back(static_cast<char>(symbol));
        continue;
      }
      if (symbol == 256) return true;
      symbol -= 257;
      if (symbol >= 29) return Fail("bad length symbol");
      uint32_t extra;
      if (!Bits(kLenExtra[symbol], &extra)) return false;
      size_t len = kLenBase[symbol] + extra;
      int dist_symbol;
      if (!Decode(distances, &dist_symbol)) return false;
      if (dist_symbol >= 30) return Fail("bad distance symbol");
      if (!Bits(kDistExtra[dist_symbol], &extra)) return false;
      size_t dist = kDistBase[dist_symbol] + extra;
      if (dist > out_->size() - member_start_) return Fail("distance too far back");
      size_t from = out_->size() - dist;
      if (len > limit_ - out_->size()) return TooLarge();
      for (size_t i = 0; i < len; ++i) out_->push_back((*out_)[from + i]);
    }
  }
  bool Fixed() {
    static const std::pair<Huffman, Huffman> codes = [] {
      std::array<uint8_t, 288> lengths{};
      for (int s = 0; s < 144; ++s) lengths[s] = 8;
      for (int s = 144; s < 256; ++s) lengths[s] = 9;
      for (int s = 256; s < 280; ++s) lengths[s] = 7;
      for (int s = 280; s < 288; ++s) lengths[s] = 8;
      std::pair<Huffman, Huffman> out;
      BuildHuffman(lengths.data(), 288, &out.first);
      std::array<uint8_t, 30> dist;
      dist.fill(5);
      BuildHuffman(dist.data(), 30, &out.second);
      return out;
    }();
    return Codes(codes.first, codes.second);
  }
  bool Dynamic() {
    static const uint8_t kOrder[19] = {16, 17, 18, 0, 8,  7, 9,  6, 10, 5,
                                       11, 4,  12, 3, 13, 2, 14, 1, 15};
    uint32_t nlen, ndist, ncode;
    if (!Bits(5, &nlen) || !Bits(5, &ndist) || !Bits(4, &ncode)) return false;
    nlen += 257;
    ndist += 1;
    ncode += 4;
    if (nlen > 286 || ndist > 30) return Fail("bad code counts");
    std::array<uint8_t, 320> lengths{};
    for (uint32_t i = 0; i < ncode; ++i) {
      uint32_t v;
      if (!Bits(3, &v)) return false;
      lengths[kOrder[i]] = static_cast<uint8_t>(v);
    }
    Huffman code_lengths;
    if (!BuildHuffman(lengths.data(), 19, &code_lengths)) return Fail("bad code lengths code");
    lengths.fill(0);
    uint32_t i = 0;
    while (i < nlen + ndist) {
      int symbol;
      if (!Decode(code_lengths, &symbol)) return false;
      if (symbol < 16) {
        lengths[i++] = static_cast<uint8_t>(symbol);
        continue;
      }
      uint8_t repeat_value = 0;
      uint32_t repeat;
      if (symbol == 16) {
        if (i == 0) return Fail("repeat with no previous length");
        repeat_value = lengths[i - 1];
        if (!Bits(2, &repeat)) return false;
        repeat += 3;
      } else if (symbol == 17) {
        if (!Bits(3, &repeat)) return false;
        repeat += 3;
      } else {
        if (!Bits(7, &repeat)) return false;
        repeat += 11;
      }
      if (i + repeat > nlen + ndist) return Fail("too many code lengths");
      while (repeat--) lengths[i++] = repeat_value;
    }
    if (lengths[256] == 0) return Fail("no end-of-block code");
    Huffman literal, distance;
    if (!BuildHuffman(lengths.data(), static_cast<int>(nlen), &literal) ||
        !BuildHuffman(lengths.data() + nlen, static_cast<int>(ndist), &distance)) {
      return Fail("bad literal or distance code");
    }
    return Codes(literal, distance);
  }

  std::string_view in_;
  std::string* out_;
  size_t member_start_;
  size_t limit_;
  size_t pos_ = 0;
  uint64_t bit_buf_ = 0;
  int bit_count_ = 0;
  uint32_t bits_ = 0;
  std::string why_;
};

}  // namespace

// CRC-32 (IEEE 802.3, reflected 0xEDB88320), as gzip stores it.
uint32_t GzipCrc32(std::string_view data) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char b : data) crc = table[(crc ^ b) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

bool LooksGzipped(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

Result<std::string> Gunzip(std::string_view bytes, std::string_view name, size_t max_size) {
  std::string out;
  size_t pos = 0;
  auto byte = [&bytes](size_t i) {
    return static_cast<unsigned>(static_cast<unsigned char>(bytes[i]));
  };
  if (bytes.empty()) return IoError("Input is not a GZIP stream.");
  bool first = true;
  while (pos < bytes.size()) {
    if (!first && bytes.size() - pos < 10) break;  // trailing padding after the last member
    if (bytes.size() - pos < 10 || !LooksGzipped(bytes.substr(pos))) {
      if (!first) break;
      return IoError("Input is not a GZIP stream.");
    }
    if (byte(pos + 2) != 8) return IoError("Unsupported GZIP compression method.");
    const unsigned flags = byte(pos + 3);
    if (flags & 0xE0) return IoError("Unsupported GZIP archive.");
    size_t at = pos + 10;
    auto truncated = [&] { return IoError("Input is not a GZIP stream."); };
    if (flags & 0x04) {  // FEXTRA
      if (at + 2 > bytes.size()) return truncated();
      size_t extra = byte(at) | (byte(at + 1) << 8);
      at += 2 + extra;
    }
    for (unsigned flag : {0x08u, 0x10u}) {  // FNAME, FCOMMENT: zero-terminated
      if (!(flags & flag)) continue;
      while (at < bytes.size() && bytes[at] != '\0') ++at;
      ++at;
    }
    if (flags & 0x02) at += 2;  // FHCRC
    if (at > bytes.size()) return truncated();
    const size_t member_start = out.size();
    Inflater inflater(bytes.substr(at), &out, member_start, max_size);
    if (!inflater.Run()) {
      return IoError("Corrupt GZIP data in " + std::string(name) + ": " + inflater.why() + ".");
    }
    at += inflater.position();
    if (at + 8 > bytes.size()) {
      return IoError("Corrupt GZIP data in " + std::string(name) + ": missing trailer.");
    }
    uint32_t crc = byte(at) | (byte(at + 1) << 8) | (byte(at + 2) << 16) | (byte(at + 3) << 24);
    uint32_t size =
        byte(at + 4) | (byte(at + 5) << 8) | (byte(at + 6) << 16) | (byte(at + 7) << 24);
    std::string_view member(out.data() + member_start, out.size() - member_start);
    if (GzipCrc32(member) != crc || static_cast<uint32_t>(member.size()) != size) {
      return IoError("Corrupt GZIP data in " + std::string(name) + ": checksum mismatch.");
    }
    pos = at + 8;
    first = false;
  }
  return out;
}

}  // namespace graphdb::formats
