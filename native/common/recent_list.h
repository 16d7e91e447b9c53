// Small most-recently-used lists kept in a vector, the most recent first: a connection's
// statement memo and prepared plans, the addon's frozen column arrays. They hold a handful of
// entries, which a linear search finds faster than any map.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

namespace graphdb {

// Moves items[i] to the front, keeping the order of the others, and returns it.
template <typename T>
T& MoveToFront(std::vector<T>& items, size_t i) {
  if (i > 0) std::rotate(items.begin(), items.begin() + i, items.begin() + i + 1);
  return items.front();
}

// Puts `item` at the front, first dropping the last item when `capacity` are held already, and
// returns it.
template <typename T>
T& PushFront(std::vector<T>& items, T item, size_t capacity) {
  if (items.size() >= capacity) items.pop_back();
  items.insert(items.begin(), std::move(item));
  return items.front();
}

}  // namespace graphdb
