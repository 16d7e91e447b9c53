// FrozenStringArrays: frozen JS arrays of strings, handed out again while the same keys come
// back. A result's column names and type names most often repeat those of a recent result (a
// query run in a loop), and building them afresh (a string and an element store per name)
// cost a good part of a point read. JS thread only; one per Node environment (AddonData), so
// connections share them.
//
// `Key` is what a caller has in hand and what is compared: the column names themselves, or
// the column types, whose names are only formatted (Text) when an array is built, not to
// compare them. Two keys must be Same exactly when their Text is the same.
#pragma once

#include <napi.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/recent_list.h"
#include "types/logical_type.h"

namespace graphdb::napi {

// Column names: compared and shown as they are.
struct NameKeys {
  using Key = std::string;
  static bool Same(const std::string& a, const std::string& b) { return a == b; }
  static const std::string& Text(const std::string& key) { return key; }
};

// Column types: scalar types compare by id; nested ones by their text (LogicalType's ==
// ignores the case of field names, which the text shows).
struct TypeKeys {
  using Key = LogicalType;
  static bool Same(const LogicalType& a, const LogicalType& b) {
    return a.id() == b.id() && (!a.IsNested() || a.ToString() == b.ToString());
  }
  static std::string Text(const LogicalType& key) { return key.ToString(); }
};

template <typename Keys>
class FrozenStringArrays {
 public:
  using Key = typename Keys::Key;

  // The frozen array of the texts of `keys`: the one made for the same keys by an earlier
  // call while it is among the kEntries most recently used, else a new one.
  Napi::Array Get(Napi::Env env, const std::vector<Key>& keys) {
    for (size_t e = 0; e < entries_.size(); ++e) {
      if (!Matches(entries_[e].keys, keys)) continue;
      return MoveToFront(entries_, e).array.Value();
    }
    Entry entry;
    entry.keys = keys;
    Napi::Array array = Napi::Array::New(env, keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      array.Set(static_cast<uint32_t>(i), Napi::String::New(env, Keys::Text(keys[i])));
    }
    array.Freeze();
    entry.array = Napi::Persistent(array);
    PushFront(entries_, std::move(entry), kEntries);
    return array;
  }

 private:
  static constexpr size_t kEntries = 8;

  struct Entry {
    std::vector<Key> keys;
    Napi::Reference<Napi::Array> array;
  };

  static bool Matches(const std::vector<Key>& kept, const std::vector<Key>& keys) {
    if (kept.size() != keys.size()) return false;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!Keys::Same(kept[i], keys[i])) return false;
    }
    return true;
  }

  std::vector<Entry> entries_;  // the most recently used first
};

}  // namespace graphdb::napi
