#include "vector/distance.h"

#include <cmath>

#include "common/text.h"

namespace graphdb::vector {

// Function multiversioning (see distance.h): x86-64 Linux only, where the loader's IFUNC
// support picks the clone; elsewhere a plain function.
#if defined(__x86_64__) && defined(__linux__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define GRAPHDB_VECTOR_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define GRAPHDB_VECTOR_CLONES
#endif

namespace {

// Lanes of partial sums: 16 floats fill two AVX registers (four SSE ones), enough independent
// chains to hide the latency of the adds.
template <typename T>
constexpr size_t kLanes = 64 / sizeof(T);

// sum op(a[i], b[i]) over i < n, in kLanes independent partial sums.
template <typename T, typename Op>
inline T SumKernel(const T* __restrict a, const T* __restrict b, size_t n, Op op) {
  constexpr size_t L = kLanes<T>;
  T acc[L] = {};
  size_t i = 0;
  for (; i + L <= n; i += L) {
    for (size_t j = 0; j < L; ++j) acc[j] += op(a[i + j], b[i + j]);
  }
  T sum = 0;
  for (; i < n; ++i) sum += op(a[i], b[i]);
  for (size_t j = 0; j < L; ++j) sum += acc[j];
  return sum;
}

template <typename T>
inline T DotKernel(const T* a, const T* b, size_t n) {
  return SumKernel(a, b, n, [](T x, T y) { return x * y; });
}

template <typename T>
inline T L2SqKernel(const T* a, const T* b, size_t n) {
  return SumKernel(a, b, n, [](T x, T y) { return (x - y) * (x - y); });
}

template <typename T>
double DotRef(const T* a, const T* b, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  return sum;
}

template <typename T>
double L2SqRef(const T* a, const T* b, size_t n) {
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    double d = static_cast<double>(a[i]) - static_cast<double>(b[i]);
    sum += d * d;
  }
  return sum;
}

}  // namespace

GRAPHDB_VECTOR_CLONES float Dot(const float* a, const float* b, size_t n) {
  return DotKernel(a, b, n);
}
GRAPHDB_VECTOR_CLONES double Dot(const double* a, const double* b, size_t n) {
  return DotKernel(a, b, n);
}
GRAPHDB_VECTOR_CLONES float L2Sq(const float* a, const float* b, size_t n) {
  return L2SqKernel(a, b, n);
}
GRAPHDB_VECTOR_CLONES double L2Sq(const double* a, const double* b, size_t n) {
  return L2SqKernel(a, b, n);
}

double DotExact(const float* a, const float* b, size_t n) { return DotRef(a, b, n); }
double DotExact(const double* a, const double* b, size_t n) { return DotRef(a, b, n); }
double L2SqExact(const float* a, const float* b, size_t n) { return L2SqRef(a, b, n); }
double L2SqExact(const double* a, const double* b, size_t n) { return L2SqRef(a, b, n); }

template <typename T>
double ExactDistance(Metric metric, const T* a, const T* b, size_t n) {
  switch (metric) {
    case Metric::kCosine: {
      double na = std::sqrt(DotRef(a, a, n));
      double nb = std::sqrt(DotRef(b, b, n));
      if (na == 0 || nb == 0) return 1.0;
      return 1.0 - DotRef(a, b, n) / (na * nb);
    }
    case Metric::kL2: return std::sqrt(L2SqRef(a, b, n));
    case Metric::kL2Sq: return L2SqRef(a, b, n);
    case Metric::kDotProduct: return DotRef(a, b, n);
  }
  return 0;
}
template double ExactDistance<float>(Metric, const float*, const float*, size_t);
template double ExactDistance<double>(Metric, const double*, const double*, size_t);

bool ParseMetric(std::string_view name, Metric* metric) {
  static constexpr std::pair<std::string_view, Metric> kNames[] = {
      {"cosine", Metric::kCosine},
      {"l2", Metric::kL2},
      {"l2sq", Metric::kL2Sq},
      {"dotproduct", Metric::kDotProduct},
      {"dot_product", Metric::kDotProduct}};
  for (const auto& [n, m] : kNames) {
    if (EqualsIgnoreAsciiCase(name, n)) {
      *metric = m;
      return true;
    }
  }
  return false;
}

std::string_view MetricName(Metric metric) {
  switch (metric) {
    case Metric::kCosine: return "cosine";
    case Metric::kL2: return "l2";
    case Metric::kL2Sq: return "l2sq";
    case Metric::kDotProduct: return "dotproduct";
  }
  return "cosine";
}

}  // namespace graphdb::vector
