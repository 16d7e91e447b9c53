// Binary comparisons that typed operators test on column values themselves, without the
// expression evaluator: the fused aggregation's filters (exec/scan_aggregate.cc) and the hash
// join's residuals (exec/hash_join.cc). Which scalar function a comparison is, its mirror
// image, and its test on two values.
#pragma once

#include <cstdint>
#include <string_view>

namespace graphdb::exec {

enum class Comparison : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// The comparison that the scalar function `name` is (an operator, or its function name as the
// registry aliases it: `less_than` for `<`), else false.
inline bool ComparisonNamed(std::string_view name, Comparison* out) {
  static constexpr struct {
    std::string_view name;
    Comparison cmp;
  } kNames[] = {
      {"=", Comparison::kEq},  {"equals", Comparison::kEq},
      {"<>", Comparison::kNe}, {"not_equals", Comparison::kNe},
      {"<", Comparison::kLt},  {"less_than", Comparison::kLt},
      {"<=", Comparison::kLe}, {"less_than_equals", Comparison::kLe},
      {">", Comparison::kGt},  {"greater_than", Comparison::kGt},
      {">=", Comparison::kGe}, {"greater_than_equals", Comparison::kGe},
  };
  for (const auto& entry : kNames) {
    if (entry.name == name) {
      *out = entry.cmp;
      return true;
    }
  }
  return false;
}

// `a cmp b` written as `b Mirrored(cmp) a`.
inline Comparison Mirrored(Comparison cmp) {
  switch (cmp) {
    case Comparison::kLt: return Comparison::kGt;
    case Comparison::kLe: return Comparison::kGe;
    case Comparison::kGt: return Comparison::kLt;
    case Comparison::kGe: return Comparison::kLe;
    default: return cmp;
  }
}

// Whether `a cmp b` holds.
template <typename T>
bool Holds(Comparison cmp, const T& a, const T& b) {
  switch (cmp) {
    case Comparison::kEq: return a == b;
    case Comparison::kNe: return a != b;
    case Comparison::kLt: return a < b;
    case Comparison::kLe: return a <= b;
    case Comparison::kGt: return a > b;
    case Comparison::kGe: return a >= b;
  }
  return false;
}

}  // namespace graphdb::exec
