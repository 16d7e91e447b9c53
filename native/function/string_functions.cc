// String functions: case mapping, trimming, padding, substrings, search, regular expressions,
// splitting, levenshtein and hashing (md5, sha256).
//
// Character positions follow Kùzu: substr/left/right/extract/slice/size/reverse count
// (approximate) grapheme clusters, lpad/rpad and instr count code points, levenshtein bytes.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "common/interrupt.h"
#include "common/recent_list.h"
#include "common/regex.h"
#include "common/utf8.h"
#include "function/function_internal.h"

namespace graphdb::function::internal {

namespace {

using Args = const Value*;

std::string Joined(const std::vector<std::string_view>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < parts.size(); ++i) out.append(parts[i]);
  return out;
}

Value Str(std::string_view s) { return Value::String(s); }

// The graphemes (code points) of `s`, for functions that count or cut by character: a vector
// of 16 bytes a byte of text while the function runs, checked against the memory limit first.
// Short texts skip the check.
constexpr size_t kCheckedSplitBytes = 4096;
std::vector<std::string_view> Graphemes(FunctionContext& ctx, std::string_view s) {
  if (s.size() >= kCheckedSplitBytes) ChargeTransient(ctx, s.size() * sizeof(std::string_view));
  return SplitGraphemes(s);
}
std::vector<std::string_view> Codepoints(FunctionContext& ctx, std::string_view s) {
  if (s.size() >= kCheckedSplitBytes) ChargeTransient(ctx, s.size() * sizeof(std::string_view));
  return SplitCodepoints(s);
}

// The first occurrence of `pattern` in `s` from `from` (npos: none), in time linear in both:
// std::string_view::find may compare the whole pattern at every position, so a long pattern
// takes Knuth-Morris-Pratt (portable, unlike memmem, which Windows lacks).
size_t FindText(std::string_view s, std::string_view pattern, size_t from = 0) {
  if (from > s.size()) return std::string_view::npos;
  if (pattern.empty()) return from;
  if (pattern.size() <= 16) return s.find(pattern, from);
  // fail[i]: the length of the longest proper border of pattern[0..i].
  std::vector<size_t> fail(pattern.size(), 0);
  for (size_t i = 1, k = 0; i < pattern.size(); ++i) {
    while (k > 0 && pattern[i] != pattern[k]) k = fail[k - 1];
    if (pattern[i] == pattern[k]) ++k;
    fail[i] = k;
  }
  for (size_t i = from, k = 0; i < s.size(); ++i) {
    while (k > 0 && s[i] != pattern[k]) k = fail[k - 1];
    if (s[i] == pattern[k]) ++k;
    if (k == pattern.size()) return i + 1 - k;
  }
  return std::string_view::npos;
}

// The largest string repeat(), lpad() and rpad() build.
constexpr uint64_t kMaxBuiltStringBytes = (uint64_t{1} << 31) - 1;

// `count` copies of `unit` bytes: refused before anything is built, past the largest string
// (QUERY_RUNTIME) or past the statement's memory limit (RESOURCE_LIMIT: ChargeBuilt).
void CheckBuiltString(FunctionContext& ctx, const char* function, uint64_t unit, uint64_t count,
                      uint64_t extra = 0) {
  const bool too_long = unit != 0 && count > (kMaxBuiltStringBytes - extra) / unit;
  if (too_long) {
    ThrowRuntime(std::string("Runtime exception: ") + function +
                 "() would build a string of more than " + std::to_string(kMaxBuiltStringBytes) +
                 " bytes");
  }
  ChargeBuilt(ctx, StringBytes(unit * count + extra));
}

// ---- Case, trim, pad.

Value LowerExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(Utf8Lower(a[0].GetString()));
}
Value UpperExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(Utf8Upper(a[0].GetString()));
}
Value InitcapExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  std::string_view s = a[0].GetString();
  if (s.empty()) return Str("");
  auto g = Graphemes(ctx, s);
  std::string out = Utf8Title(g[0]);
  out += Utf8Lower(s.substr(g[0].size()));
  return Str(out);
}

std::string_view TrimLeft(std::string_view s) {
  size_t b = 0;
  while (b < s.size() && s[b] == ' ') ++b;
  return s.substr(b);
}
std::string_view TrimRight(std::string_view s) {
  size_t e = s.size();
  while (e > 0 && s[e - 1] == ' ') --e;
  return s.substr(0, e);
}
Value TrimExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(TrimRight(TrimLeft(a[0].GetString())));
}
Value LtrimExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(TrimLeft(a[0].GetString()));
}
Value RtrimExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(TrimRight(a[0].GetString()));
}

template <bool kLeft>
Value PadExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  int64_t n = a[1].GetInt();
  if (n <= 0) return Str("");
  auto chars = Codepoints(ctx, a[0].GetString());
  auto size = static_cast<size_t>(n);
  if (chars.size() >= size) return Str(Joined(chars, 0, size));
  auto pad = Codepoints(ctx, a[2].GetString());
  if (pad.empty()) return a[0];
  // The fill is whole rounds of the pad plus a part of one: bounded by whole rounds.
  const uint64_t rounds = (size - chars.size()) / pad.size() + 1;
  CheckBuiltString(ctx, kLeft ? "lpad" : "rpad", a[2].GetString().size(), rounds,
                   a[0].GetString().size());
  std::string fill;
  uint64_t steps = 0;
  for (size_t i = 0; i < size - chars.size(); ++i) {
    fill.append(pad[i % pad.size()]);
    PollSteps(steps);
  }
  std::string s(a[0].GetString());
  return Str(kLeft ? fill + s : s + fill);
}

// ---- Substrings.

Value SubstrExec(Args a, size_t n, const LogicalType&, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  int64_t start = a[1].GetInt();
  int64_t len = n > 2 ? a[2].GetInt() : static_cast<int64_t>(g.size()) + 1;
  if (len <= 0) return Str("");
  int64_t begin = std::max<int64_t>(start, 1);
  int64_t end = start > INT64_MAX - len ? INT64_MAX : start + len - 1;
  end = std::min<int64_t>(end, static_cast<int64_t>(g.size()));
  if (begin > end) return Str("");
  return Str(Joined(g, static_cast<size_t>(begin - 1), static_cast<size_t>(end)));
}

Value LeftExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  int64_t n = a[1].GetInt();
  auto len = static_cast<int64_t>(g.size());
  int64_t count = n >= 0 ? std::min(n, len) : std::max<int64_t>(len + n, 0);
  return Str(Joined(g, 0, static_cast<size_t>(count)));
}

Value RightExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  int64_t n = a[1].GetInt();
  auto len = static_cast<int64_t>(g.size());
  int64_t count = n >= 0 ? std::min(n, len) : std::max<int64_t>(len + n, 0);
  return Str(Joined(g, static_cast<size_t>(len - count), g.size()));
}

Value RepeatExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  int64_t n = a[1].GetInt();
  std::string out;
  std::string_view s = a[0].GetString();
  // Nothing to repeat: done at once, whatever the count (a loop of 2^63 empty appends is not).
  if (n <= 0 || s.empty()) return Str(out);
  CheckBuiltString(ctx, "repeat", s.size(), static_cast<uint64_t>(n));
  const size_t total = s.size() * static_cast<uint64_t>(n);
  out.reserve(total);
  out.append(s);
  // Doubling what is built so far, a chunk at a time, polling the statement between chunks.
  constexpr size_t kChunk = size_t{16} << 20;
  while (out.size() < total) {
    out.append(out.data(), std::min({out.size(), total - out.size(), kChunk}));
    if (total > kChunk) CheckInterrupt();
  }
  return Str(out);
}

Value ReverseExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  std::string out;
  for (auto it = g.rbegin(); it != g.rend(); ++it) out.append(*it);
  return Str(out);
}

Value SizeExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(static_cast<int64_t>(CountGraphemes(a[0].GetString())));
}

Value ByteLengthExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Int64(static_cast<int64_t>(a[0].GetString().size()));
}

// ---- Concatenation.

Value ConcatExec(Args a, size_t n, const LogicalType&, FunctionContext& ctx) {
  uint64_t total = 0;
  for (size_t i = 0; i < n; ++i) total += a[i].is_null() ? 0 : a[i].GetString().size();
  ChargeBuilt(ctx, StringBytes(total));
  std::string out;
  out.reserve(total);
  for (size_t i = 0; i < n; ++i) {
    if (!a[i].is_null()) out.append(a[i].GetString());
  }
  return Str(out);
}

Value ConcatWsExec(Args a, size_t n, const LogicalType&, FunctionContext& ctx) {
  if (a[0].is_null()) return Value::Null(LogicalType::String());
  uint64_t total = 0;
  for (size_t i = 1; i < n; ++i) {
    if (!a[i].is_null()) total += a[0].GetString().size() + a[i].GetString().size();
  }
  ChargeBuilt(ctx, StringBytes(total));
  std::string out;
  bool first = true;
  for (size_t i = 1; i < n; ++i) {
    if (a[i].is_null()) continue;
    if (!first) out.append(a[0].GetString());
    out.append(a[i].GetString());
    first = false;
  }
  return Str(out);
}

// ---- Search.

Value ContainsExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(FindText(a[0].GetString(), a[1].GetString()) != std::string_view::npos);
}
Value StartsWithExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(a[0].GetString().starts_with(a[1].GetString()));
}
Value EndsWithExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(a[0].GetString().ends_with(a[1].GetString()));
}
Value InstrExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  std::string_view s = a[0].GetString();
  size_t pos = FindText(s, a[1].GetString());
  if (pos == std::string_view::npos) return Value::Int64(0);
  return Value::Int64(static_cast<int64_t>(Codepoints(ctx, s.substr(0, pos)).size()) + 1);
}

// Kùzu's: bytes, every length (no cap), time |x| * |y|, polling the statement every few
// thousand cells (two 300,000-byte texts take minutes: a time limit or a cancel ends them).
Value LevenshteinExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  std::string_view x = a[0].GetString(), y = a[1].GetString();
  ChargeTransient(ctx, 2 * (y.size() + 1) * sizeof(int64_t));
  uint64_t steps = 0;
  std::vector<int64_t> prev(y.size() + 1), cur(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) prev[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= x.size(); ++i) {
    cur[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= y.size(); ++j) {
      int64_t sub = prev[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    PollSteps(steps, y.size());
    std::swap(prev, cur);
  }
  return Value::Int64(prev[y.size()]);
}

// ---- Regular expressions (RE2 syntax, matched in linear time: common/regex.h).

// Patterns up to this size are kept compiled in a small per-thread cache (a WHERE clause tests
// every row against the same pattern).
constexpr size_t kMaxCachedPattern = 1024;
constexpr size_t kRegexCacheEntries = 16;

// The compiled `pattern`, valid until this thread's next call; an invalid pattern throws.
const regex::Regex& CompiledRegex(std::string_view pattern) {
  using Entry = std::pair<std::string, std::unique_ptr<const regex::Regex>>;
  thread_local std::vector<Entry> cache;
  thread_local std::unique_ptr<const regex::Regex> uncached;
  for (size_t i = 0; i < cache.size(); ++i) {
    if (cache[i].first == pattern) return *MoveToFront(cache, i).second;
  }
  auto compiled = regex::Regex::Compile(pattern);
  if (!compiled.ok()) ThrowRuntime(compiled.status().message());
  auto re = std::make_unique<const regex::Regex>(std::move(compiled).value());
  if (pattern.size() > kMaxCachedPattern) {
    uncached = std::move(re);
    return *uncached;
  }
  return *PushFront(cache, Entry(std::string(pattern), std::move(re)), kRegexCacheEntries).second;
}

// The start of the code point after byte `pos` (REQUIRES: pos < s.size()).
size_t NextCodepoint(std::string_view s, size_t pos) {
  DecodeUtf8(s, &pos);
  return pos;
}

Value RegexFullMatchExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(CompiledRegex(a[1].GetString()).FullMatch(a[0].GetString()));
}

Value RegexMatchesExec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Value::Boolean(CompiledRegex(a[1].GetString()).PartialMatch(a[0].GetString()));
}

// A regexp_replace replacement: text in which \0 to \9 stand for the groups of the match and
// \\ for one backslash (RE2's rewrite strings).
struct Rewrite {
  std::vector<std::pair<std::string_view, int>> pieces;  // literal text, then a group or -1
  int max_group = 0;
};

Rewrite ParseRewrite(std::string_view r, const regex::Regex& re) {
  Rewrite out;
  size_t literal = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] != '\\') continue;
    if (i + 1 < r.size() && r[i + 1] == '\\') {
      out.pieces.emplace_back(r.substr(literal, i + 1 - literal), -1);
      literal = ++i + 1;
    } else if (i + 1 < r.size() && r[i + 1] >= '0' && r[i + 1] <= '9') {
      int group = r[i + 1] - '0';
      if (group > re.NumberOfGroups()) {
        ThrowRuntime("regexp_replace: the replacement refers to group \\" + std::to_string(group) +
                     " but the pattern has " + std::to_string(re.NumberOfGroups()) +
                     " capture group" + (re.NumberOfGroups() == 1 ? "" : "s") + ".");
      }
      out.pieces.emplace_back(r.substr(literal, i - literal), group);
      out.max_group = std::max(out.max_group, group);
      literal = ++i + 1;
    } else {
      ThrowRuntime("regexp_replace: invalid replacement '" + std::string(r) +
                   "': a backslash must be followed by a group number 0-9 or another " +
                   "backslash.");
    }
  }
  out.pieces.emplace_back(r.substr(literal), -1);
  return out;
}

// Functions that build as they go charge their output every so many bytes.
constexpr size_t kChargeStep = 4096;

constexpr const char* kReplaceOptionError =
    "Binder exception: regex_replace can only support global replace option: g.";

// Replaces the first match, or with `global` every match, as RE2's Replace and GlobalReplace
// do: after a match, an empty match where it ended is skipped.
Value RegexReplaceExec(Args a, size_t n, const LogicalType&, FunctionContext& ctx) {
  bool global = false;
  if (n > 3) {
    if (a[3].is_null() || a[3].GetString() != "g") {
      Throw(ErrorCode::kQueryBinding, kReplaceOptionError);
    }
    global = true;
  }
  if (a[0].is_null() || a[1].is_null() || a[2].is_null()) {
    return Value::Null(LogicalType::String());
  }
  const regex::Regex& re = CompiledRegex(a[1].GetString());
  Rewrite rewrite = ParseRewrite(a[2].GetString(), re);
  std::string_view s = a[0].GetString();
  std::vector<int> groups(static_cast<size_t>(rewrite.max_group) + 1);
  for (size_t g = 0; g < groups.size(); ++g) groups[g] = static_cast<int>(g);
  std::vector<regex::Span> spans(groups.size());
  std::string out;
  size_t pos = 0;
  size_t last_end = regex::kNoPosition;
  size_t charged = 0;  // of out's size
  uint64_t steps = 0;
  while (pos <= s.size() && re.Match(s, pos, regex::Anchor::kUnanchored, groups, spans.data())) {
    PollSteps(steps);
    if (out.size() - charged >= kChargeStep) {
      ChargeBuilt(ctx, out.size() - charged);
      charged = out.size();
    }
    regex::Span m = spans[0];
    out.append(s.substr(pos, m.begin - pos));
    if (m.begin == m.end && m.begin == last_end) {
      if (m.begin == s.size()) break;
      pos = NextCodepoint(s, m.begin);
      out.append(s.substr(m.begin, pos - m.begin));
      continue;
    }
    for (const auto& [text, group] : rewrite.pieces) {
      out.append(text);
      if (group >= 0 && spans[static_cast<size_t>(group)].matched()) {
        const regex::Span& g = spans[static_cast<size_t>(group)];
        out.append(s.substr(g.begin, g.end - g.begin));
      }
    }
    pos = last_end = m.end;
    if (!global) break;
  }
  if (pos < s.size()) out.append(s.substr(pos));
  ChargeBuilt(ctx, StringBytes(out.size()) - std::min<uint64_t>(charged, StringBytes(out.size())));
  return Str(out);
}

bool BindRegexReplace(const ScalarBindInput& in, BoundScalarFunction* fn, std::string* error) {
  fn->arg_types = {LogicalType::String(), LogicalType::String(), LogicalType::String()};
  fn->result_type = LogicalType::String();
  if (in.arg_types.size() < 4) return true;
  fn->arg_types.push_back(in.arg_types[3]);
  const Value* option = in.constant_args.size() > 3 ? in.constant_args[3] : nullptr;
  Id id = in.arg_types[3].id();
  if (id != Id::kString && id != Id::kAny) {
    std::string text = option ? option->ToString() : "The option";
    *error = "Binder exception: " + text + " has data type " + in.arg_types[3].ToString() +
             " but STRING was expected.";
    return false;
  }
  if (option && (option->is_null() || option->GetString() != "g")) {
    *error = kReplaceOptionError;
    return false;
  }
  return true;
}

// The group argument of regexp_extract(_all): 0 (the whole match) by default.
int GroupArg(Args a, size_t n, const regex::Regex& re, const char* function) {
  int64_t group = n > 2 ? a[2].GetInt() : 0;
  if (group < 0) ThrowRuntime("Group index must be non-negative.");
  if (group > re.NumberOfGroups()) {
    ThrowRuntime(std::string(function) + ": group " + std::to_string(group) +
                 " is out of range: the pattern has " + std::to_string(re.NumberOfGroups()) +
                 " capture group" + (re.NumberOfGroups() == 1 ? "" : "s") + ".");
  }
  return static_cast<int>(group);
}

Value SpanText(std::string_view s, const regex::Span& span) {
  return Str(span.matched() ? s.substr(span.begin, span.end - span.begin) : std::string_view());
}

// The given group of the first match; "" when nothing matches or the group took no part.
Value RegexExtractExec(Args a, size_t n, const LogicalType&, FunctionContext&) {
  const regex::Regex& re = CompiledRegex(a[1].GetString());
  int group = GroupArg(a, n, re, "regexp_extract");
  std::string_view s = a[0].GetString();
  regex::Span span;
  if (!re.Match(s, 0, regex::Anchor::kUnanchored, {&group, 1}, &span)) return Str("");
  return SpanText(s, span);
}

// Calls visit(match span, group span) for each successive match of `re` in `s`: a search
// resumes where the last match ended, one character later after an empty match.
template <typename Visit>
void ForEachMatch(std::string_view s, const regex::Regex& re, int group, Visit visit) {
  int groups[2] = {0, group};
  regex::Span spans[2];
  std::span<const int> wanted(groups, group == 0 ? 1 : 2);
  size_t pos = 0;
  uint64_t steps = 0;
  while (pos <= s.size() && re.Match(s, pos, regex::Anchor::kUnanchored, wanted, spans)) {
    PollSteps(steps);
    visit(spans[0], group == 0 ? spans[0] : spans[1]);
    if (spans[0].end > spans[0].begin) {
      pos = spans[0].end;
    } else if (spans[0].end < s.size()) {
      pos = NextCodepoint(s, spans[0].end);
    } else {
      break;
    }
  }
}

// Appends `piece` to a list being built, charging its slot and its text.
void PushPiece(FunctionContext& ctx, std::vector<Value>& out, std::string_view piece) {
  ChargeBuilt(ctx, sizeof(Value) + StringBytes(piece.size()));
  out.push_back(Str(piece));
}

Value RegexExtractAllExec(Args a, size_t n, const LogicalType& result, FunctionContext& ctx) {
  const regex::Regex& re = CompiledRegex(a[1].GetString());
  int group = GroupArg(a, n, re, "regexp_extract_all");
  std::string_view s = a[0].GetString();
  std::vector<Value> out;
  ChargeBuilt(ctx, sizeof(ValueHeap));
  ForEachMatch(s, re, group, [&](const regex::Span&, const regex::Span& g) {
    PushPiece(ctx, out, g.matched() ? s.substr(g.begin, g.end - g.begin) : std::string_view());
  });
  return Value::Nested(result, std::move(out));
}

// The pieces of the text between matches. An empty match splits between two characters, but
// not at the start of the text or where the previous match ended; an empty last piece is
// dropped unless nothing matched (then the text is the one piece).
Value RegexSplitExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  const regex::Regex& re = CompiledRegex(a[1].GetString());
  std::string_view s = a[0].GetString();
  std::vector<Value> out;
  ChargeBuilt(ctx, sizeof(ValueHeap));
  size_t piece = 0;
  size_t last_end = regex::kNoPosition;
  bool split = false;
  ForEachMatch(s, re, 0, [&](const regex::Span& m, const regex::Span&) {
    if (m.begin == m.end && (m.begin == 0 || m.begin == last_end || m.begin == s.size())) return;
    PushPiece(ctx, out, s.substr(piece, m.begin - piece));
    piece = last_end = m.end;
    split = true;
  });
  if (!split || piece < s.size()) PushPiece(ctx, out, s.substr(piece));
  return Value::Nested(result, std::move(out));
}

// ---- Splitting.

// The pieces of `s` between occurrences of `sep` (its characters when `sep` is empty), each
// charged as the view it takes while the function runs (ChargeTransient's check) and polled.
std::vector<std::string_view> SplitBy(FunctionContext& ctx, std::string_view s,
                                      std::string_view sep) {
  if (sep.empty()) return Graphemes(ctx, s);
  std::vector<std::string_view> parts;
  size_t start = 0;
  uint64_t steps = 0;
  while (true) {
    size_t pos = FindText(s, sep, start);
    if (pos == std::string_view::npos) break;
    if (parts.size() == parts.capacity() && parts.capacity() * sizeof(parts[0]) >= kChargeStep) {
      ChargeTransient(ctx, parts.capacity() * sizeof(parts[0]));
    }
    parts.push_back(s.substr(start, pos - start));
    PollSteps(steps);
    start = pos + sep.size();
  }
  parts.push_back(s.substr(start));
  return parts;
}

Value SplitExec(Args a, size_t, const LogicalType& result, FunctionContext& ctx) {
  auto parts = SplitBy(ctx, a[0].GetString(), a[1].GetString());
  ChargeBuilt(ctx, ListBytes(parts.size()));
  std::vector<Value> out;
  out.reserve(parts.size());
  for (auto part : parts) {
    if (part.size() > Value::kInlineStringBytes) ChargeBuilt(ctx, StringBytes(part.size()));
    out.push_back(Str(part));
  }
  return Value::Nested(result, std::move(out));
}

Value SplitPartExec(Args a, size_t, const LogicalType&, FunctionContext& ctx) {
  auto parts = SplitBy(ctx, a[0].GetString(), a[1].GetString());
  int64_t idx = a[2].GetInt();
  auto len = static_cast<int64_t>(parts.size());
  if (idx < 0) idx = len + idx + 1;
  if (idx < 1 || idx > len) return Str("");
  return Str(parts[static_cast<size_t>(idx - 1)]);
}

bool BindStringList(const ScalarBindInput&, BoundScalarFunction* fn, std::string*) {
  fn->result_type = LogicalType::List(LogicalType::String());
  return true;
}

// ---- Hashes.

std::string Hex(const uint8_t* bytes, size_t n) {
  std::string out;
  char buf[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", bytes[i]);
    out += buf;
  }
  return out;
}

uint32_t RotL(uint32_t x, int c) { return (x << c) | (x >> (32 - c)); }
uint32_t RotR(uint32_t x, int c) { return (x >> c) | (x << (32 - c)); }

std::string Md5(std::string_view input) {
  static constexpr uint32_t kShift[64] = {
      7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 7,  12, 17, 22, 5,  9,  14, 20, 5,  9,
      14, 20, 5,  9,  14, 20, 5,  9,  14, 20, 4,  11, 16, 23, 4,  11, 16, 23, 4,  11, 16, 23,
      4,  11, 16, 23, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21, 6,  10, 15, 21};
  uint32_t k[64];
  for (int i = 0; i < 64; ++i) {
    k[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(i + 1.0)) * 4294967296.0));
  }
  uint32_t h[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  std::string msg(input);
  uint64_t bit_len = static_cast<uint64_t>(input.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56) msg += '\0';
  for (int i = 0; i < 8; ++i) msg += static_cast<char>((bit_len >> (8 * i)) & 0xff);
  for (size_t off = 0; off < msg.size(); off += 64) {
    uint32_t w[16];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(msg.data() + off + 4 * i);
      w[i] = p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    for (int i = 0; i < 64; ++i) {
      uint32_t f;
      int g;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) % 16;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) % 16;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) % 16;
      }
      uint32_t tmp = d;
      d = c;
      c = b;
      b = b + RotL(a + f + k[i] + w[g], static_cast<int>(kShift[i]));
      a = tmp;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
  }
  uint8_t out[16];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h[i] >> (8 * j));
  }
  return Hex(out, 16);
}

std::string Sha256(std::string_view input) {
  static constexpr uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg(input);
  uint64_t bit_len = static_cast<uint64_t>(input.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56) msg += '\0';
  for (int i = 7; i >= 0; --i) msg += static_cast<char>((bit_len >> (8 * i)) & 0xff);
  for (size_t off = 0; off < msg.size(); off += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
      const auto* p = reinterpret_cast<const uint8_t*>(msg.data() + off + 4 * i);
      w[i] = (static_cast<uint32_t>(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
    }
    for (int i = 16; i < 64; ++i) {
      uint32_t s0 = RotR(w[i - 15], 7) ^ RotR(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = RotR(w[i - 2], 17) ^ RotR(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t v[8];
    std::copy(h, h + 8, v);
    for (int i = 0; i < 64; ++i) {
      uint32_t s1 = RotR(v[4], 6) ^ RotR(v[4], 11) ^ RotR(v[4], 25);
      uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      uint32_t s0 = RotR(v[0], 2) ^ RotR(v[0], 13) ^ RotR(v[0], 22);
      uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      uint32_t t2 = s0 + maj;
      for (int j = 7; j > 0; --j) v[j] = v[j - 1];
      v[4] += t1;
      v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; ++i) h[i] += v[i];
  }
  uint8_t out[32];
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(h[i] >> (24 - 8 * j));
  }
  return Hex(out, 32);
}

Value Md5Exec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(Md5(a[0].GetString()));
}
Value Sha256Exec(Args a, size_t, const LogicalType&, FunctionContext&) {
  return Str(Sha256(a[0].GetString()));
}

// The character (grapheme) at 1-based `idx` of a[0] (negative: from the end), clamping an index
// before the start to the first character; past the end: "" or, with `clamp_end`, the last.
Value StringCharAt(const Value* a, bool clamp_end, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  int64_t idx = a[1].GetInt();
  auto len = static_cast<int64_t>(g.size());
  if (idx == 0 || len == 0 || (idx > len && !clamp_end)) return Str("");
  int64_t pos = idx > 0 ? std::min(idx, len) - 1 : std::max<int64_t>(len + idx, 0);
  return Str(g[static_cast<size_t>(pos)]);
}

}  // namespace

Value StringExtractExec(const Value* a, size_t, const LogicalType&, FunctionContext& ctx) {
  return StringCharAt(a, false, ctx);
}

Value StringArrayExtractExec(const Value* a, size_t, const LogicalType&, FunctionContext& ctx) {
  return StringCharAt(a, true, ctx);
}

Value StringSliceExec(const Value* a, size_t, const LogicalType&, FunctionContext& ctx) {
  auto g = Graphemes(ctx, a[0].GetString());
  size_t from, to;
  SliceRange(static_cast<int64_t>(g.size()), a[1].GetInt(), a[2].GetInt(), &from, &to);
  return Str(Joined(g, from, to));
}

void RegisterStringFunctions(RegistryBuilder& r) {
  const Id S = Id::kString, I = Id::kInt64;
  r.Add("lower", {S}, S, LowerExec);
  r.Alias("lcase", "lower");
  r.Alias("tolower", "lower");
  r.Add("upper", {S}, S, UpperExec);
  r.Alias("ucase", "upper");
  r.Alias("toupper", "upper");
  r.Add("initcap", {S}, S, InitcapExec);
  r.Add("trim", {S}, S, TrimExec);
  r.Add("ltrim", {S}, S, LtrimExec);
  r.Add("rtrim", {S}, S, RtrimExec);
  r.Add("lpad", {S, I, S}, S, PadExec<true>);
  r.Add("rpad", {S, I, S}, S, PadExec<false>);
  r.Add("substr", {S, I, I}, S, SubstrExec);
  r.Add("substr", {S, I}, S, SubstrExec);
  r.Alias("substring", "substr");
  r.Add("left", {S, I}, S, LeftExec);
  r.Add("right", {S, I}, S, RightExec);
  r.Add("repeat", {S, I}, S, RepeatExec);
  r.Add("reverse", {S}, S, ReverseExec);
  r.Add("length", {S}, I, SizeExec);
  r.Add("strlen", {S}, I, ByteLengthExec);
  r.Add("octet_length", {S}, I, ByteLengthExec);
  r.Add("octet_length", {Id::kBlob}, I, ByteLengthExec);
  auto& concat = r.Add("concat", {S}, S, ConcatExec);
  concat.variadic = true;
  concat.propagates_nulls = false;
  auto& concat_ws = r.Add("concat_ws", {S, S}, S, ConcatWsExec);
  concat_ws.variadic = true;
  concat_ws.propagates_nulls = false;
  r.Add("contains", {S, S}, Id::kBool, ContainsExec);
  r.Add("starts_with", {S, S}, Id::kBool, StartsWithExec);
  r.Alias("prefix", "starts_with");
  r.Add("ends_with", {S, S}, Id::kBool, EndsWithExec);
  r.Alias("suffix", "ends_with");
  r.Add("instr", {S, S}, I, InstrExec);
  r.Alias("strpos", "instr");
  r.Alias("position", "instr");
  r.Add("levenshtein", {S, S}, I, LevenshteinExec);
  r.Add("=~", {S, S}, Id::kBool, RegexFullMatchExec);
  r.Alias("regexp_full_match", "=~");
  r.Add("regexp_matches", {S, S}, Id::kBool, RegexMatchesExec);
  r.Add("regexp_replace", {S, S, S}, S, RegexReplaceExec).bind = BindRegexReplace;
  auto& replace4 = r.Add("regexp_replace", {S, S, S, Id::kAny}, S, RegexReplaceExec);
  replace4.bind = BindRegexReplace;
  replace4.propagates_nulls = false;
  r.Add("regexp_extract", {S, S}, S, RegexExtractExec);
  r.Add("regexp_extract", {S, S, I}, S, RegexExtractExec);
  r.Add("regexp_extract_all", {S, S}, Id::kList, RegexExtractAllExec).bind = BindStringList;
  r.Add("regexp_extract_all", {S, S, I}, Id::kList, RegexExtractAllExec).bind = BindStringList;
  r.Add("regexp_split_to_array", {S, S}, Id::kList, RegexSplitExec).bind = BindStringList;
  r.Add("string_split", {S, S}, Id::kList, SplitExec).bind = BindStringList;
  r.Alias("split", "string_split");
  r.Alias("str_split", "string_split");
  r.Alias("string_to_array", "string_split");
  r.Add("split_part", {S, S, I}, S, SplitPartExec);
  r.Add("md5", {S}, S, Md5Exec);
  r.Add("sha256", {S}, S, Sha256Exec);
}

}  // namespace graphdb::function::internal
