// FrozenStringArrays: frozen JS arrays of strings, handed out again while the same strings
// come back. A result's column names and type names most often repeat those of a recent
// result (a query run in a loop), and building them afresh (a string and an element store
// per name) cost a good part of a point read. JS thread only; one per Node environment
// (AddonData), so connections share them.
#pragma once

#include <napi.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace graphdb::napi {

class FrozenStringArrays {
 public:
  // The frozen array of the `count` strings at(0)..at(count - 1) (each convertible to
  // std::string_view): the one made for the same strings by an earlier call while it is among
  // the kEntries most recently used, else a new one.
  template <typename At>
  Napi::Array Get(Napi::Env env, size_t count, const At& at) {
    for (size_t e = 0; e < entries_.size(); ++e) {
      if (!Matches(entries_[e].strings, count, at)) continue;
      if (e > 0) std::rotate(entries_.begin(), entries_.begin() + e, entries_.begin() + e + 1);
      return entries_.front().array.Value();
    }
    Entry entry;
    entry.strings.reserve(count);
    Napi::Array array = Napi::Array::New(env, count);
    for (size_t i = 0; i < count; ++i) {
      entry.strings.emplace_back(at(i));
      array.Set(static_cast<uint32_t>(i), Napi::String::New(env, entry.strings.back()));
    }
    array.Freeze();
    entry.array = Napi::Persistent(array);
    if (entries_.size() == kEntries) entries_.pop_back();
    entries_.insert(entries_.begin(), std::move(entry));
    return array;
  }

 private:
  static constexpr size_t kEntries = 8;

  struct Entry {
    std::vector<std::string> strings;
    Napi::Reference<Napi::Array> array;
  };

  template <typename At>
  static bool Matches(const std::vector<std::string>& strings, size_t count, const At& at) {
    if (strings.size() != count) return false;
    for (size_t i = 0; i < count; ++i) {
      if (std::string_view(strings[i]) != std::string_view(at(i))) return false;
    }
    return true;
  }

  std::vector<Entry> entries_;  // the most recently used first
};

}  // namespace graphdb::napi
