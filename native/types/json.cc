#include "types/json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "common/utf8.h"

namespace graphdb {

JsonNode JsonNode::Bool(bool v) {
  JsonNode n;
  n.kind = Kind::kBool;
  n.b = v;
  return n;
}
JsonNode JsonNode::Int(int64_t v) {
  JsonNode n;
  n.kind = Kind::kInt;
  n.i = v;
  return n;
}
JsonNode JsonNode::UInt(uint64_t v) {
  if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Int(static_cast<int64_t>(v));
  }
  JsonNode n;
  n.kind = Kind::kUInt;
  n.u = v;
  return n;
}
JsonNode JsonNode::Double(double v) {
  JsonNode n;
  n.kind = Kind::kDouble;
  n.d = v;
  return n;
}
JsonNode JsonNode::String(std::string v) {
  JsonNode n;
  n.kind = Kind::kString;
  n.str = std::move(v);
  return n;
}
JsonNode JsonNode::Array(std::vector<JsonNode> items) {
  JsonNode n;
  n.kind = Kind::kArray;
  n.items = std::move(items);
  return n;
}
JsonNode JsonNode::Object() {
  JsonNode n;
  n.kind = Kind::kObject;
  return n;
}

void JsonNode::Add(std::string key, JsonNode value) {
  keys.push_back(std::move(key));
  items.push_back(std::move(value));
}

const JsonNode* JsonNode::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] == key) return &items[i];
  }
  return nullptr;
}

namespace {

// Recursive descent over the text; `build` false only checks it.
class Reader {
 public:
  Reader(std::string_view text, bool build) : text_(text), build_(build) {}

  bool Read(JsonNode* out, std::string* error) {
    SkipSpace();
    if (!Value(out, 0)) return Fail(error);
    SkipSpace();
    if (pos_ != text_.size()) {
      error_ = "unexpected content after the document";
      return Fail(error);
    }
    return true;
  }

  bool ReadAt(size_t* pos, JsonNode* out, std::string* error) {
    pos_ = *pos;
    SkipSpace();
    bool ok = Value(out, 0);
    *pos = pos_;
    return ok || Fail(error);
  }

 private:
  bool Fail(std::string* error) {
    if (error) *error = error_ + " at byte " + std::to_string(pos_);
    return false;
  }
  bool Error(const char* what) {
    error_ = what;
    return false;
  }
  void SkipSpace() {
    while (pos_ < text_.size()) {
      char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }
  bool Literal(const char* word) {
    size_t n = std::strlen(word);
    if (text_.compare(pos_, n, word) != 0) return Error("invalid literal");
    pos_ += n;
    return true;
  }

  bool Value(JsonNode* out, uint32_t depth) {
    if (pos_ >= text_.size()) return Error("unexpected end of the document");
    switch (text_[pos_]) {
      case '{': return ObjectValue(out, depth + 1);
      case '[': return ArrayValue(out, depth + 1);
      case '"': {
        std::string s;
        if (!StringValue(build_ ? &s : nullptr)) return false;
        if (build_) *out = JsonNode::String(std::move(s));
        return true;
      }
      case 't':
        if (!Literal("true")) return false;
        if (build_) *out = JsonNode::Bool(true);
        return true;
      case 'f':
        if (!Literal("false")) return false;
        if (build_) *out = JsonNode::Bool(false);
        return true;
      case 'n':
        if (!Literal("null")) return false;
        if (build_) *out = JsonNode::Null();
        return true;
      default: return NumberValue(out);
    }
  }

  // The members of an object or the elements of an array, up to `close` (the opening bracket
  // is the current character): `element` reads one.
  template <typename Element>
  bool Container(char close, uint32_t depth, Element element) {
    if (depth > kMaxJsonDepth) return Error("the document is nested too deeply");
    ++pos_;  // { or [
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == close) {
      ++pos_;
      return true;
    }
    for (;;) {
      SkipSpace();
      if (!element()) return false;
      SkipSpace();
      if (pos_ >= text_.size()) return Error("unexpected end of the document");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == close) {
        ++pos_;
        return true;
      }
      return Error(close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }

  bool ObjectValue(JsonNode* out, uint32_t depth) {
    if (build_) *out = JsonNode::Object();
    return Container('}', depth, [&] {
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("expected a member name");
      std::string key;
      if (!StringValue(build_ ? &key : nullptr)) return false;
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':') return Error("expected ':'");
      ++pos_;
      SkipSpace();
      JsonNode value;
      if (!Value(&value, depth)) return false;
      if (build_) out->Add(std::move(key), std::move(value));
      return true;
    });
  }

  bool ArrayValue(JsonNode* out, uint32_t depth) {
    if (build_) *out = JsonNode::Array();
    return Container(']', depth, [&] {
      JsonNode value;
      if (!Value(&value, depth)) return false;
      if (build_) out->Push(std::move(value));
      return true;
    });
  }

  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > text_.size()) return Error("invalid \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char c = text_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return Error("invalid \\u escape");
      }
    }
    *cp = v;
    return true;
  }

  bool StringValue(std::string* out) {
    ++pos_;  // "
    size_t run = pos_;
    auto flush = [&] {
      if (out) out->append(text_.substr(run, pos_ - run));
    };
    while (pos_ < text_.size()) {
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        std::string_view raw = text_.substr(run, pos_ - run);
        if (!IsValidUtf8(raw)) return Error("invalid UTF-8 in a string");
        flush();
        ++pos_;
        return true;
      }
      if (c < 0x20) return Error("control character in a string");
      if (c != '\\') {
        ++pos_;
        continue;
      }
      std::string_view raw = text_.substr(run, pos_ - run);
      if (!IsValidUtf8(raw)) return Error("invalid UTF-8 in a string");
      flush();
      if (++pos_ >= text_.size()) return Error("unexpected end of the document");
      char e = text_[pos_++];
      char plain = 0;
      switch (e) {
        case '"': plain = '"'; break;
        case '\\': plain = '\\'; break;
        case '/': plain = '/'; break;
        case 'b': plain = '\b'; break;
        case 'f': plain = '\f'; break;
        case 'n': plain = '\n'; break;
        case 'r': plain = '\r'; break;
        case 't': plain = '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!Hex4(&cp)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {  // a high surrogate: its low one must follow
            uint32_t low = 0;
            if (pos_ + 2 > text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') {
              return Error("unpaired surrogate in a \\u escape");
            }
            pos_ += 2;
            if (!Hex4(&low)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return Error("unpaired surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Error("unpaired surrogate in a \\u escape");
          }
          if (out) AppendUtf8(*out, cp);
          break;
        }
        default: return Error("invalid escape in a string");
      }
      if (plain != 0 && out) out->push_back(plain);
      run = pos_;
    }
    return Error("unterminated string");
  }

  bool NumberValue(JsonNode* out) {
    const size_t start = pos_;
    auto digit = [&](size_t p) { return p < text_.size() && text_[p] >= '0' && text_[p] <= '9'; };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (!digit(pos_)) return Error("invalid value");
    if (text_[pos_] == '0') {
      ++pos_;
      if (digit(pos_)) return Error("leading zero in a number");
    } else {
      while (digit(pos_)) ++pos_;
    }
    bool integral = true;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (!digit(pos_)) return Error("invalid number");
      while (digit(pos_)) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (!digit(pos_)) return Error("invalid number");
      while (digit(pos_)) ++pos_;
    }
    if (!build_) return true;
    const char* first = text_.data() + start;
    const char* last = text_.data() + pos_;
    if (integral) {
      if (*first == '-') {
        int64_t v = 0;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec == std::errc() && p == last) {
          *out = JsonNode::Int(v);
          return true;
        }
      } else {
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(first, last, v);
        if (ec == std::errc() && p == last) {
          *out = JsonNode::UInt(v);
          return true;
        }
      }
    }
    double d = 0;
    auto [p, ec] = std::from_chars(first, last, d);
    if (ec == std::errc::result_out_of_range) {
      d = (*first == '-') ? -std::numeric_limits<double>::infinity()
                          : std::numeric_limits<double>::infinity();
    } else if (ec != std::errc() || p != last) {
      return Error("invalid number");
    }
    *out = JsonNode::Double(d);
    return true;
  }

  std::string_view text_;
  bool build_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace

bool ParseJson(std::string_view text, JsonNode* out, std::string* error) {
  return Reader(text, true).Read(out, error);
}

bool ParseJsonValueAt(std::string_view text, size_t* pos, JsonNode* out, std::string* error) {
  return Reader(text, true).ReadAt(pos, out, error);
}

bool IsValidJson(std::string_view text) {
  JsonNode unused;
  return Reader(text, false).Read(&unused, nullptr);
}

void WriteJsonString(std::string_view text, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    const char* esc = nullptr;
    switch (c) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\b': esc = "\\b"; break;
      case '\f': esc = "\\f"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      default: break;
    }
    if (esc == nullptr && c >= 0x20) continue;
    out->append(text.substr(run, i - run));
    if (esc) {
      out->append(esc);
    } else {
      out->append("\\u00");
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    }
    run = i + 1;
  }
  out->append(text.substr(run));
  out->push_back('"');
}

void WriteJsonDouble(double v, std::string* out) {
  if (!std::isfinite(v)) {
    out->append("null");
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string_view text(buf, static_cast<size_t>(end - buf));
  out->append(text);
  // A double stays a double when read back: 3.0, not 3.
  if (text.find_first_of(".e") == std::string_view::npos) out->append(".0");
}

void WriteJson(const JsonNode& node, std::string* out) {
  switch (node.kind) {
    case JsonNode::Kind::kNull: out->append("null"); return;
    case JsonNode::Kind::kBool: out->append(node.b ? "true" : "false"); return;
    case JsonNode::Kind::kInt: out->append(std::to_string(node.i)); return;
    case JsonNode::Kind::kUInt: out->append(std::to_string(node.u)); return;
    case JsonNode::Kind::kDouble: WriteJsonDouble(node.d, out); return;
    case JsonNode::Kind::kString: WriteJsonString(node.str, out); return;
    case JsonNode::Kind::kArray:
      out->push_back('[');
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i) out->push_back(',');
        WriteJson(node.items[i], out);
      }
      out->push_back(']');
      return;
    case JsonNode::Kind::kObject:
      out->push_back('{');
      for (size_t i = 0; i < node.items.size(); ++i) {
        if (i) out->push_back(',');
        WriteJsonString(node.keys[i], out);
        out->push_back(':');
        WriteJson(node.items[i], out);
      }
      out->push_back('}');
      return;
  }
}

std::string WriteJson(const JsonNode& node) {
  std::string out;
  WriteJson(node, &out);
  return out;
}

}  // namespace graphdb
