// Settings of a number of microseconds read from environment variables (GRAPHDB_WORKER_SPIN_US,
// GRAPHDB_INLINE_TIME_US): a whole number from 0 to a maximum, anything else named on stderr.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace graphdb {

// The value `text` (null: unset) of the setting `name`: unset or empty gives `fallback`;
// anything but a whole number from 0 to `max` gives `fallback` and sets *problem to a message
// naming the variable and the value.
inline uint32_t ParseMicrosSetting(std::string_view name, const char* text, uint32_t fallback,
                                   uint32_t max, std::string* problem) {
  if (text == nullptr || *text == '\0') return fallback;
  uint64_t value = 0;
  const char* p = text;
  for (; *p >= '0' && *p <= '9' && value <= max; ++p) value = value * 10 + (*p - '0');
  if (*p != '\0' || value > max) {
    *problem = std::string(name) + "='" + text +
               "' is not a whole number of microseconds from 0 to " + std::to_string(max) +
               "; using " + std::to_string(fallback);
    return fallback;
  }
  return static_cast<uint32_t>(value);
}

// The environment variable `name` parsed by ParseMicrosSetting; a wrong value is named on
// stderr as a warning.
inline uint32_t ReadMicrosSetting(const char* name, uint32_t fallback, uint32_t max) {
  std::string problem;
  const uint32_t value = ParseMicrosSetting(name, std::getenv(name), fallback, max, &problem);
  if (!problem.empty()) std::fprintf(stderr, "graphdb: warning: %s\n", problem.c_str());
  return value;
}

}  // namespace graphdb
