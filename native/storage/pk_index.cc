#include "storage/pk_index.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "storage/value_codec.h"

namespace graphdb::storage {

namespace {

inline uint64_t Rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

inline uint64_t MixBlock(uint64_t k) {
  k *= 0x87c37b91114253d5ULL;
  k = Rotl(k, 31);
  k *= 0x4cf5ad432745937fULL;
  return k;
}

inline uint64_t Finalize(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb3fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

bool IsIntegerPath(PhysicalKind kind) {
  switch (kind) {
    case PhysicalKind::kString:
    case PhysicalKind::kNested:
    case PhysicalKind::kInt128:
    case PhysicalKind::kInterval:
    case PhysicalKind::kInternalId:
      return false;
    default:
      return true;
  }
}

constexpr double kMaxLoad = 0.7;

}  // namespace

uint64_t HashBytes(std::string_view bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xff51afd7ed558ccdULL);
  while (n >= 8) {
    uint64_t k;
    std::memcpy(&k, p, 8);
    h ^= MixBlock(k);
    h = Rotl(h, 27) * 5 + 0x52dce729;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    uint64_t k = 0;
    std::memcpy(&k, p, n);
    h ^= MixBlock(k);
  }
  return Finalize(h);
}

PrimaryKeyIndex::PrimaryKeyIndex(const Column* keys)
    : keys_(keys), integer_keys_(IsIntegerPath(keys->kind())) {}

uint64_t PrimaryKeyIndex::KeyBitsOf(const Column& column, uint64_t offset) {
  switch (column.kind()) {
    case PhysicalKind::kFloat: {
      float f = column.GetFixed<float>(offset);
      if (f == 0.0f) f = 0.0f;  // -0 and +0 are the same key
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
    case PhysicalKind::kDouble: {
      double d = column.GetFixed<double>(offset);
      if (d == 0.0) d = 0.0;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return bits;
    }
    default:
      return static_cast<uint64_t>(column.GetInt64(offset));
  }
}

std::optional<uint64_t> PrimaryKeyIndex::FindKeyOf(const Column& other, uint64_t row) const {
  if (other.IsNull(row) || other.kind() != keys_->kind()) return std::nullopt;
  if (integer_keys_) return FindInteger(KeyBitsOf(other, row));
  if (keys_->kind() == PhysicalKind::kInt128) return FindInt128(other.GetInt128(row));
  return FindString(other.GetString(row));
}

bool PrimaryKeyIndex::IsNanKey(uint64_t offset) const {
  switch (keys_->kind()) {
    case PhysicalKind::kFloat:
      return std::isnan(keys_->GetFixed<float>(offset));
    case PhysicalKind::kDouble:
      return std::isnan(keys_->GetFixed<double>(offset));
    default:
      return false;
  }
}

uint64_t PrimaryKeyIndex::TagOf(uint64_t offset) const {
  if (integer_keys_) return KeyBitsOf(*keys_, offset);
  if (keys_->kind() == PhysicalKind::kInt128) {
    int128_t v = keys_->GetInt128(offset);
    return HashBytes(std::string_view(reinterpret_cast<const char*>(&v), sizeof v));
  }
  return HashBytes(keys_->GetString(offset));
}

bool PrimaryKeyIndex::KeyEquals(uint64_t a, uint64_t b) const {
  if (keys_->kind() == PhysicalKind::kInt128) return keys_->GetInt128(a) == keys_->GetInt128(b);
  return keys_->GetString(a) == keys_->GetString(b);
}

template <typename Eq>
std::optional<uint64_t> PrimaryKeyIndex::Probe(uint64_t tag, Eq&& eq) const {
  if (slots_.empty()) return std::nullopt;
  uint64_t i = HashOfTag(tag) & mask_;
  while (true) {
    const Slot& s = slots_[i];
    if (s.offset == kEmpty) return std::nullopt;
    if (s.tag == tag && eq(s.offset)) return s.offset;
    i = (i + 1) & mask_;
  }
}

void PrimaryKeyIndex::InsertSlot(Slot slot) {
  uint64_t i = HashOfTag(slot.tag) & mask_;
  while (slots_[i].offset != kEmpty) i = (i + 1) & mask_;
  slots_[i] = slot;
  ++size_;
}

void PrimaryKeyIndex::Reserve(uint64_t keys) {
  auto needed = static_cast<uint64_t>(static_cast<double>(keys) / kMaxLoad) + 1;
  uint64_t cap = std::bit_ceil(std::max<uint64_t>(needed, 16));
  if (cap <= slots_.size()) return;
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(cap, Slot{0, kEmpty});
  mask_ = cap - 1;
  size_ = 0;
  for (const Slot& s : old) {
    if (s.offset != kEmpty) InsertSlot(s);
  }
}

void PrimaryKeyIndex::Grow() { Reserve(std::max<uint64_t>(size_ * 2, 16)); }

bool PrimaryKeyIndex::Insert(uint64_t offset) {
  GRAPHDB_ASSERT(!keys_->IsNull(offset));
  if (IsNanKey(offset)) return true;  // NaN equals nothing: never a duplicate, never found
  uint64_t tag = TagOf(offset);
  std::optional<uint64_t> existing;
  if (integer_keys_) {
    existing = Probe(tag, [](uint64_t) { return true; });
  } else {
    existing = Probe(tag, [&](uint64_t o) { return KeyEquals(o, offset); });
  }
  if (existing) return false;
  if (static_cast<double>(size_ + 1) > kMaxLoad * static_cast<double>(slots_.size())) Grow();
  InsertSlot(Slot{tag, offset});
  return true;
}

bool PrimaryKeyIndex::Erase(uint64_t offset) {
  if (slots_.empty()) return false;
  uint64_t tag = TagOf(offset);
  uint64_t i = HashOfTag(tag) & mask_;
  while (true) {
    if (slots_[i].offset == kEmpty) return false;
    if (slots_[i].offset == offset) break;
    i = (i + 1) & mask_;
  }
  // Backward-shift deletion: pull later entries of the cluster into the hole when their home
  // slot does not lie cyclically in (hole, position].
  uint64_t hole = i;
  uint64_t j = i;
  while (true) {
    j = (j + 1) & mask_;
    if (slots_[j].offset == kEmpty) break;
    uint64_t home = HashOfTag(slots_[j].tag) & mask_;
    bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole].offset = kEmpty;
  --size_;
  return true;
}

void PrimaryKeyIndex::Clear() {
  slots_.clear();
  mask_ = 0;
  size_ = 0;
}

bool PrimaryKeyIndex::Rebuild(uint64_t rows, const std::vector<bool>& live) {
  Clear();
  uint64_t count = rows;
  if (!live.empty()) {
    count = 0;
    for (uint64_t r = 0; r < rows; ++r) count += live[r];
  }
  Reserve(count);
  for (uint64_t r = 0; r < rows; ++r) {
    if (!live.empty() && !live[r]) continue;
    if (!Insert(r)) return false;
  }
  return true;
}

std::optional<uint64_t> PrimaryKeyIndex::FindInteger(uint64_t key_bits) const {
  return Probe(key_bits, [](uint64_t) { return true; });
}

std::optional<uint64_t> PrimaryKeyIndex::FindString(std::string_view key) const {
  if (keys_->kind() != PhysicalKind::kString) return std::nullopt;
  return Probe(HashBytes(key), [&](uint64_t o) { return keys_->GetString(o) == key; });
}

std::optional<uint64_t> PrimaryKeyIndex::FindInt128(int128_t key) const {
  if (keys_->kind() != PhysicalKind::kInt128) return std::nullopt;
  uint64_t tag = HashBytes(std::string_view(reinterpret_cast<const char*>(&key), sizeof key));
  return Probe(tag, [&](uint64_t o) { return keys_->GetInt128(o) == key; });
}

std::optional<uint64_t> PrimaryKeyIndex::Find(const Value& key) const {
  if (key.is_null()) return std::nullopt;
  const Value* v = &key;
  Value coerced;
  if (key.type_id() != keys_->type().id()) {
    auto c = CoerceValue(key, keys_->type());
    if (!c.ok()) return std::nullopt;
    coerced = std::move(*c);
    v = &coerced;
  }
  switch (keys_->kind()) {
    case PhysicalKind::kString:
      return FindString(v->GetString());
    case PhysicalKind::kInt128:
      return FindInt128(v->GetInt128());
    case PhysicalKind::kFloat: {
      float f = v->GetFloat();
      if (std::isnan(f)) return std::nullopt;
      if (f == 0.0f) f = 0.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return FindInteger(bits);
    }
    case PhysicalKind::kDouble: {
      double d = v->GetDouble();
      if (std::isnan(d)) return std::nullopt;
      if (d == 0.0) d = 0.0;
      uint64_t bits;
      std::memcpy(&bits, &d, 8);
      return FindInteger(bits);
    }
    case PhysicalKind::kUInt8:
    case PhysicalKind::kUInt16:
    case PhysicalKind::kUInt32:
    case PhysicalKind::kUInt64:
      return FindInteger(v->GetUInt());
    case PhysicalKind::kBool:
      return FindInteger(v->GetBool() ? 1 : 0);
    case PhysicalKind::kInterval:
    case PhysicalKind::kInternalId:
    case PhysicalKind::kNested:
      return std::nullopt;
    default:
      return FindInteger(static_cast<uint64_t>(v->GetInt()));
  }
}

}  // namespace graphdb::storage
