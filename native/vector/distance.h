// Distance kernels of the vector index: dot products and squared Euclidean distances over
// FLOAT and DOUBLE vectors, and the metrics of CREATE_VECTOR_INDEX built on them.
//
// The kernels are plain C++: each keeps a block of independent partial sums, so the compiler
// turns the inner loop into SIMD instructions without reassociating a floating-point sum (no
// -ffast-math needed). On x86-64 Linux with GCC or Clang they are also compiled for AVX2+FMA
// and the loader picks that copy on machines that have it (function multiversioning); every
// other target gets the portable build only.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace graphdb::vector {

// The metrics, with Kùzu's semantics: the smaller the distance, the nearer.
//   kCosine      1 - a.b / (|a| |b|)
//   kL2          |a - b|
//   kL2Sq        |a - b|^2
//   kDotProduct  a.b (as Kùzu ranks it: ascending)
enum class Metric : uint8_t { kCosine, kL2, kL2Sq, kDotProduct };

// The metric named `name` (cosine, l2, l2sq, dotproduct or dot_product; any case); false when
// unknown.
bool ParseMetric(std::string_view name, Metric* metric);
// The lower-case name of `metric`, as SHOW_INDEXES prints it.
std::string_view MetricName(Metric metric);

// sum a[i] * b[i] and sum (a[i] - b[i])^2 over i < n.
float Dot(const float* a, const float* b, size_t n);
double Dot(const double* a, const double* b, size_t n);
float L2Sq(const float* a, const float* b, size_t n);
double L2Sq(const double* a, const double* b, size_t n);

// The reference versions (one running sum in double, in order): what the tests compare the
// kernels with, and what the index reports as the final distance of a hit.
double DotExact(const float* a, const float* b, size_t n);
double DotExact(const double* a, const double* b, size_t n);
double L2SqExact(const float* a, const float* b, size_t n);
double L2SqExact(const double* a, const double* b, size_t n);

// The distance of `metric` between a and b, computed in double.
template <typename T>
double ExactDistance(Metric metric, const T* a, const T* b, size_t n);

}  // namespace graphdb::vector
