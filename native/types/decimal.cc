#include "types/decimal.h"

#include <cctype>
#include <string>

#include "types/logical_type.h"

namespace graphdb {

int128_t DecimalPow10(uint32_t n) {
  int128_t v = 1;
  for (uint32_t i = 0; i < n; ++i) v *= 10;
  return v;
}

bool DecimalFits(int128_t unscaled, uint32_t precision) {
  int128_t bound = DecimalPow10(precision);
  return unscaled < bound && unscaled > -bound;
}

int128_t DecimalDivideRounded(int128_t v, uint32_t digits) {
  if (digits == 0) return v;
  if (digits > kMaxDecimalPrecision) return 0;  // |v| < 2^127 < 10^39 / 2
  int128_t d = DecimalPow10(digits);
  int128_t q = v / d;
  int128_t r = v % d;
  if (r < 0) r = -r;
  if (r >= d - r) q += v < 0 ? -1 : 1;
  return q;
}

bool DecimalMultiplyPow10(int128_t v, uint32_t digits, int128_t* out) {
  int128_t r = v;
  for (uint32_t i = 0; i < digits; ++i) {
    if (__builtin_mul_overflow(r, static_cast<int128_t>(10), &r)) return false;
  }
  *out = r;
  return true;
}

bool DecimalRescale(int128_t v, uint32_t from, uint32_t to, int128_t* out) {
  if (to >= from) return DecimalMultiplyPow10(v, to - from, out);
  *out = DecimalDivideRounded(v, from - to);
  return true;
}

DecimalParse ParseDecimalText(std::string_view text, uint32_t precision, uint32_t scale,
                              int128_t* out) {
  size_t i = 0, n = text.size();
  while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  while (n > i && std::isspace(static_cast<unsigned char>(text[n - 1]))) --n;
  bool negative = false;
  if (i < n && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string digits;  // all digits written, and where the point fell among them
  int64_t point = -1;
  for (; i < n; ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (c == '.' && point < 0) {
      point = static_cast<int64_t>(digits.size());
    } else {
      break;
    }
  }
  if (digits.empty()) return DecimalParse::kSyntax;
  int64_t exponent = 0;
  if (i < n && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < n && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= n) return DecimalParse::kSyntax;
    for (; i < n && text[i] >= '0' && text[i] <= '9'; ++i) {
      exponent = exponent * 10 + (text[i] - '0');
      if (exponent > 100000) return DecimalParse::kOutOfRange;
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != n) return DecimalParse::kSyntax;
  // The value is digits * 10^(exponent - fraction digits); unscaled, times 10^scale.
  int64_t fraction = point < 0 ? 0 : static_cast<int64_t>(digits.size()) - point;
  int64_t shift = exponent - fraction + static_cast<int64_t>(scale);
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    *out = 0;
    return DecimalParse::kOk;
  }
  digits.erase(0, first);
  const auto limit = static_cast<int64_t>(kMaxDecimalPrecision) + 1;
  int128_t unscaled = 0;
  if (shift >= 0) {
    if (static_cast<int64_t>(digits.size()) + shift > limit) return DecimalParse::kOutOfRange;
    for (char c : digits) unscaled = unscaled * 10 + (c - '0');
    if (!DecimalMultiplyPow10(unscaled, static_cast<uint32_t>(shift), &unscaled)) {
      return DecimalParse::kOutOfRange;
    }
  } else {
    // Keep all but the last -shift digits; the first dropped one rounds.
    int64_t keep = static_cast<int64_t>(digits.size()) + shift;
    if (keep > limit) return DecimalParse::kOutOfRange;
    for (int64_t k = 0; k < keep; ++k) unscaled = unscaled * 10 + (digits[k] - '0');
    if (keep >= 0 && digits[keep] >= '5') ++unscaled;
  }
  if (negative) unscaled = -unscaled;
  if (!DecimalFits(unscaled, precision)) return DecimalParse::kOutOfRange;
  *out = unscaled;
  return DecimalParse::kOk;
}

}  // namespace graphdb
