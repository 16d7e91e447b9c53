// DECIMAL arithmetic on the unscaled INT128 (a DECIMAL(p, s) value v stands for v / 10^s, with
// |v| < 10^p): the helpers shared by the function library (casts, operators) and storage
// (CSV text, stored values). Rounding is half away from zero wherever digits are dropped.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "types/value.h"

namespace graphdb {

// 10^n, n <= 38.
int128_t DecimalPow10(uint32_t n);
// |unscaled| < 10^precision.
bool DecimalFits(int128_t unscaled, uint32_t precision);
// v / 10^digits, rounded half away from zero.
int128_t DecimalDivideRounded(int128_t v, uint32_t digits);
// v * 10^digits; false on INT128 overflow.
bool DecimalMultiplyPow10(int128_t v, uint32_t digits, int128_t* out);
// v, held at scale `from`, at scale `to` (rounding when `to` < `from`); false on overflow.
bool DecimalRescale(int128_t v, uint32_t from, uint32_t to, int128_t* out);

enum class DecimalParse : uint8_t { kOk, kSyntax, kOutOfRange };
// Text ("-12.5", "1e3", " 7 ") as the unscaled value of a DECIMAL(precision, scale).
DecimalParse ParseDecimalText(std::string_view text, uint32_t precision, uint32_t scale,
                              int128_t* out);

}  // namespace graphdb
