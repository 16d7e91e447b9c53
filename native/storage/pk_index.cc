#include "storage/pk_index.h"

#include <algorithm>
#include <atomic>
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
    case PhysicalKind::kInternalId: return false;
    default: return true;
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
    default: return static_cast<uint64_t>(column.GetInt64(offset));
  }
}

std::optional<uint64_t> PrimaryKeyIndex::FindKeyOf(const Column& other, uint64_t row) const {
  if (other.IsNull(row) || other.kind() != keys_->kind()) return std::nullopt;
  if (integer_keys_) return FindInteger(KeyBitsOf(other, row));
  if (keys_->kind() == PhysicalKind::kInt128) return FindInt128(other.GetInt128(row));
  return FindString(other.GetString(row));
}

PrimaryKeyIndex::Block* PrimaryKeyIndex::HomeSlotOf(const Column& other, uint64_t row,
                                                    uint64_t* slot) const {
  if (!integer_keys_ || other.kind() != keys_->kind() || other.IsNull(row)) return nullptr;
  Block* b = block_.load(std::memory_order_acquire);
  if (b != nullptr) *slot = HashOfTag(KeyBitsOf(other, row)) & b->mask;
  return b;
}

void PrimaryKeyIndex::PrefetchSlotOf(const Column& other, uint64_t row) const {
  uint64_t i;
  const Block* b = HomeSlotOf(other, row, &i);
  if (b != nullptr) __builtin_prefetch(&b->FirstWord(i));
}

void PrimaryKeyIndex::PrefetchCandidateOf(const Column& other, uint64_t row) const {
  uint64_t i;
  const Block* b = HomeSlotOf(other, row, &i);
  if (b == nullptr) return;
  uint64_t tag;
  const uint64_t offset = b->LoadOffset(i, std::memory_order_relaxed, &tag);
  // The home slot's row is the candidate nearly always (probes are short at 70% load); a hint
  // past the column's end or on a stale slot loads a harmless line or nothing.
  if (offset == kEmpty || offset == kTombstone || offset >= keys_->size()) return;
  keys_->Prefetch(offset);
}

bool PrimaryKeyIndex::IsNanKey(uint64_t offset) const {
  switch (keys_->kind()) {
    case PhysicalKind::kFloat: return std::isnan(keys_->GetFixed<float>(offset));
    case PhysicalKind::kDouble: return std::isnan(keys_->GetFixed<double>(offset));
    default: return false;
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

// ---- Slot access ----
// Every slot field of a block that readers may see is accessed atomically (std::atomic_ref), so
// the writer filling or erasing a slot never races with a reader probing it.

namespace {

inline uint64_t LoadField(uint64_t& field, std::memory_order order) {
  return std::atomic_ref<uint64_t>(field).load(order);
}

inline void StoreField(uint64_t& field, uint64_t value, std::memory_order order) {
  std::atomic_ref<uint64_t>(field).store(value, order);
}

// Slots needed to hold `keys` keys within the load bound (a power of two, at least 16).
uint64_t CapacityFor(uint64_t keys) {
  auto needed = static_cast<uint64_t>(static_cast<double>(keys) / kMaxLoad) + 1;
  return std::bit_ceil(std::max<uint64_t>(needed, 16));
}

}  // namespace

PrimaryKeyIndex::Block::Block(uint64_t capacity, bool compact_form)
    : mask(capacity - 1), compact(compact_form),
      heap(new uint64_t[compact_form ? capacity : 2 * capacity]),
      slots(reinterpret_cast<Slot*>(heap.get())), words(heap.get()) {
  if (compact) {
    for (uint64_t i = 0; i < capacity; ++i) words[i] = kEmptyWord;
  } else {
    for (uint64_t i = 0; i < capacity; ++i) slots[i] = Slot{0, kEmpty};
  }
}

PrimaryKeyIndex::Block::Block(std::unique_ptr<env::MemoryRegion> mapped, uint64_t capacity,
                              bool compact_form)
    : mask(capacity - 1), compact(compact_form), region(std::move(mapped)),
      slots(reinterpret_cast<Slot*>(region->data())),
      words(reinterpret_cast<uint64_t*>(region->data())) {}

uint64_t PrimaryKeyIndex::Block::LoadOffset(uint64_t i, std::memory_order order,
                                            uint64_t* tag) const {
  if (compact) {
    const uint64_t w = LoadField(words[i], order);
    *tag = static_cast<uint32_t>(w);
    const uint64_t o = w >> 32;
    return o == kCompactEmpty ? kEmpty : o == kCompactTombstone ? kTombstone : o;
  }
  const uint64_t o = LoadField(slots[i].offset, order);
  // The tag is read after the offset (acquire) that published it.
  *tag = LoadField(slots[i].tag, std::memory_order_relaxed);
  return o;
}

bool PrimaryKeyIndex::CompactFits(uint64_t offset) const {
  return std::max(offset + 1, keys_->size()) <= kCompactTombstone;
}

PrimaryKeyIndex::~PrimaryKeyIndex() { delete block_.load(std::memory_order_relaxed); }

uint64_t PrimaryKeyIndex::capacity() const {
  const Block* b = block_.load(std::memory_order_acquire);
  return b == nullptr ? 0 : b->mask + 1;
}

uint32_t PrimaryKeyIndex::slot_bytes() const {
  const Block* b = block_.load(std::memory_order_acquire);
  return b == nullptr ? 0 : static_cast<uint32_t>(b->SlotBytes());
}

size_t PrimaryKeyIndex::MemoryUsage() const {
  // A block loaded here stays allocated even if the writer retires it meanwhile.
  const Block* b = block_.load(std::memory_order_acquire);
  return (b == nullptr ? 0 : b->Bytes()) + retired_bytes_.load(std::memory_order_relaxed);
}

template <typename Eq>
std::optional<uint64_t> PrimaryKeyIndex::Probe(uint64_t tag, Eq&& eq) const {
  // Acquire pairs with the release in Rehash(): every slot written before the block was
  // published is visible. The block is never freed while readers may run (see FreeRetired).
  Block* b = block_.load(std::memory_order_acquire);
  if (b == nullptr) return std::nullopt;
  const uint64_t hash = HashOfTag(tag);
  // Slots never return to kEmpty and at least 30% of them stay empty, so the probe ends at an
  // empty slot; the bound only guards the loop.
  uint64_t i = hash & b->mask;
  if (b->compact) {
    const uint64_t fragment = Fragment(hash);
    for (uint64_t n = 0; n <= b->mask; ++n, i = (i + 1) & b->mask) {
      // Acquire pairs with the release store of the word in FillSlot().
      const uint64_t w = LoadField(b->words[i], std::memory_order_acquire);
      const uint64_t offset = w >> 32;
      if (offset == kCompactEmpty) return std::nullopt;
      if (offset == kCompactTombstone) continue;
      if (static_cast<uint32_t>(w) == fragment && eq(offset)) return offset;
    }
    return std::nullopt;
  }
  for (uint64_t n = 0; n <= b->mask; ++n, i = (i + 1) & b->mask) {
    Slot& s = b->slots[i];
    // Acquire pairs with the release store of `offset` in FillSlot(): seeing the offset
    // means seeing the tag stored before it (the tag of a slot never changes afterwards).
    uint64_t offset = LoadField(s.offset, std::memory_order_acquire);
    if (offset == kEmpty) return std::nullopt;
    if (offset == kTombstone) continue;
    // `eq` verifies against the key column: the entry may be stale (erased, its row truncated
    // and re-appended with another key) by the time we look at the column.
    if (LoadField(s.tag, std::memory_order_relaxed) == tag && eq(offset)) return offset;
  }
  return std::nullopt;
}

void PrimaryKeyIndex::FillSlot(Block* block, uint64_t tag, uint64_t offset, uint64_t hash) {
  uint64_t i = hash & block->mask;
  uint64_t ignored;
  // The bound only matters for a damaged mapped block without an empty slot.
  for (uint64_t n = 0; block->LoadOffset(i, std::memory_order_relaxed, &ignored) != kEmpty;
       ++n, i = (i + 1) & block->mask) {
    if (n > block->mask) return;
  }
  if (block->compact) {
    StoreField(block->words[i], offset << 32 | Fragment(hash), std::memory_order_release);
    return;
  }
  // Tag first, then the offset with release: a reader that sees the offset sees the tag.
  StoreField(block->slots[i].tag, tag, std::memory_order_relaxed);
  StoreField(block->slots[i].offset, offset, std::memory_order_release);
}

void PrimaryKeyIndex::Rehash(uint64_t capacity, bool compact) {
  Block* old = block_.load(std::memory_order_relaxed);  // the writer's own last store
  auto fresh = std::make_unique<Block>(capacity, compact);
  if (old != nullptr) {
    const uint64_t rows = keys_->size();
    for (uint64_t i = 0; i <= old->mask; ++i) {
      uint64_t tag;
      uint64_t offset = old->LoadOffset(i, std::memory_order_relaxed, &tag);
      if (offset == kEmpty || offset == kTombstone) continue;
      // A compact slot keeps a fragment only: the tag comes from the key column (a damaged
      // mapped slot naming no row is dropped).
      if (old->compact) {
        if (offset >= rows) continue;
        tag = TagOf(offset);
      }
      FillSlot(fresh.get(), tag, offset, HashOfTag(tag));
    }
  }
  // Publish the complete block. Release pairs with the acquire in Probe(): a reader that gets
  // the new pointer sees all of its slots. Readers still probing `old` keep using it, so it
  // is retired, not freed; it holds every key that is live now, and a key erased later only
  // shows up there as a stale entry.
  block_.store(fresh.release(), std::memory_order_release);
  tombstones_ = 0;
  if (old != nullptr) {
    retired_bytes_.fetch_add(old->Bytes(), std::memory_order_relaxed);
    retired_.emplace_back(old);
  }
}

void PrimaryKeyIndex::Reserve(uint64_t keys) {
  uint64_t cap = CapacityFor(keys);
  if (cap <= capacity()) return;
  Rehash(cap, CompactFits(keys_->size()));
}

void PrimaryKeyIndex::PrepareInserts(uint64_t first, uint64_t count) {
  Block* b = block_.load(std::memory_order_relaxed);
  if (b == nullptr || b->region == nullptr) return;  // heap blocks have no such faults
  for (uint64_t r = first; r < first + count; ++r) {
    if (keys_->IsNull(r) || IsNanKey(r)) continue;
    uint64_t& word = b->FirstWord(HashOfTag(TagOf(r)) & b->mask);
    std::atomic_ref<uint64_t>(word).fetch_add(0, std::memory_order_relaxed);
  }
}

bool PrimaryKeyIndex::Insert(uint64_t offset) {
  GRAPHDB_ASSERT(!keys_->IsNull(offset));
  if (IsNanKey(offset)) return true;  // NaN equals nothing: never a duplicate, never found
  uint64_t tag = TagOf(offset);
  uint64_t hash = HashOfTag(tag);
  Block* b = block_.load(std::memory_order_relaxed);
  if (b != nullptr) {
    // A duplicate may sit anywhere in the chain up to the first empty slot: tombstones do not
    // end it. (The writer reads its own stores, so relaxed loads see the current state.)
    const uint64_t want = b->compact ? Fragment(hash) : tag;
    const uint64_t rows = keys_->size();
    for (uint64_t i = hash & b->mask, n = 0; n <= b->mask; i = (i + 1) & b->mask, ++n) {
      uint64_t slot_tag;
      uint64_t o = b->LoadOffset(i, std::memory_order_relaxed, &slot_tag);
      if (o == kEmpty) break;
      if (o == kTombstone || slot_tag != want || o >= rows) continue;
      // A wide slot's tag is the integer key itself; anything else is checked on the column.
      if (integer_keys_ ? (!b->compact || KeyBitsOf(*keys_, o) == tag) : KeyEquals(o, offset)) {
        return false;
      }
    }
  }
  uint64_t live = size_.load(std::memory_order_relaxed);
  uint64_t cap = b == nullptr ? 0 : b->mask + 1;
  const bool fits = CompactFits(offset);
  if (static_cast<double>(live + tombstones_ + 1) > kMaxLoad * static_cast<double>(cap) ||
      (b != nullptr && b->compact && !fits)) {
    // Grow when the live keys need it (the old growth policy), otherwise just drop the
    // tombstones into a fresh block of the same size (wide once an offset outgrows the
    // compact form). Never shrinks.
    Rehash(std::max(cap, CapacityFor(std::max<uint64_t>(live * 2, 16))), fits);
    b = block_.load(std::memory_order_relaxed);
  }
  FillSlot(b, tag, offset, hash);
  size_.store(live + 1, std::memory_order_relaxed);
  return true;
}

bool PrimaryKeyIndex::Erase(uint64_t offset) {
  Block* b = block_.load(std::memory_order_relaxed);
  if (b == nullptr) return false;
  uint64_t tag = TagOf(offset);
  for (uint64_t i = HashOfTag(tag) & b->mask, n = 0;; i = (i + 1) & b->mask, ++n) {
    if (n > b->mask) return false;
    uint64_t slot_tag;
    uint64_t o = b->LoadOffset(i, std::memory_order_relaxed, &slot_tag);
    if (o == kEmpty) return false;
    if (o != offset) continue;
    // No key moves, so a concurrent probe for another key cannot miss it. The tag stays; a
    // reader that loaded the offset just before may still return it (a stale entry). Release:
    // a reader that misses the key because of the tombstone then sees what the writer did
    // before the erase (NodeTable::Delete records the delete's stamp first, and a lookup that
    // misses consults it).
    if (b->compact) {
      StoreField(b->words[i], kCompactTombstone << 32 | slot_tag, std::memory_order_release);
    } else {
      StoreField(b->slots[i].offset, kTombstone, std::memory_order_release);
    }
    size_.store(size_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    ++tombstones_;
    return true;
  }
}

void PrimaryKeyIndex::Clear() {
  delete block_.exchange(nullptr, std::memory_order_relaxed);
  FreeRetired();
  size_.store(0, std::memory_order_relaxed);
  tombstones_ = 0;
}

void PrimaryKeyIndex::FreeRetired() {
  retired_.clear();
  retired_bytes_.store(0, std::memory_order_relaxed);
}

void PrimaryKeyIndex::SerializeMapped(TableSink& out) const {
  catalog::BinaryWriter& d = out.descriptor();
  const Block* b = block_.load(std::memory_order_acquire);
  const uint64_t capacity = b == nullptr ? 0 : b->mask + 1;
  d.PutVarint(capacity);
  d.PutVarint(size_.load(std::memory_order_relaxed));
  d.PutVarint(tombstones_);
  if (capacity == 0) return;
  const bool packed = out.format_version() >= kFirstPackedFormatVersion;
  const bool compact = packed && CompactFits(0);
  if (packed) d.PutU8(compact ? sizeof(uint64_t) : sizeof(Slot));
  if (compact == b->compact) {
    d.PutVarint(out.Section(b->compact ? static_cast<const void*>(b->words) : b->slots,
                            capacity * b->SlotBytes()));
    return;
  }
  // The other form, slot by slot at the same positions (both forms probe from the same hash).
  out.BeginSection();
  std::vector<uint64_t> piece;
  const uint64_t rows = keys_->size();
  for (uint64_t i = 0; i < capacity; ++i) {
    uint64_t tag;
    uint64_t offset = b->LoadOffset(i, std::memory_order_relaxed, &tag);
    if (offset != kEmpty && offset != kTombstone && offset >= rows) offset = kTombstone;
    if (compact) {
      // From wide: the fragment of the tag's hash.
      const uint64_t word_offset = offset == kEmpty       ? kCompactEmpty
                                   : offset == kTombstone ? kCompactTombstone
                                                          : offset;
      const uint64_t fragment = offset >= kTombstone ? 0 : Fragment(HashOfTag(tag));
      piece.push_back(word_offset << 32 | fragment);
    } else {
      // From compact: the tag from the key column.
      piece.push_back(offset >= kTombstone ? 0 : TagOf(offset));
      piece.push_back(offset);
    }
    if (piece.size() >= 65536) {
      out.Append(piece.data(), piece.size() * sizeof(uint64_t));
      piece.clear();
    }
  }
  out.Append(piece.data(), piece.size() * sizeof(uint64_t));
  d.PutVarint(out.EndSection());
}

Status PrimaryKeyIndex::LoadMapped(catalog::BinaryReader& in, const SectionSource& sections) {
  auto bad = [](const std::string& why) {
    return Status(ErrorCode::kCorruption, "bad primary-key index: " + why);
  };
  uint64_t capacity;
  uint64_t live;
  uint64_t tombstones;
  if (!in.GetVarint(&capacity) || !in.GetVarint(&live) || !in.GetVarint(&tombstones)) {
    return bad("truncated");
  }
  Clear();
  if (capacity == 0) {
    if (live != 0 || tombstones != 0) return bad("keys without slots");
    return Status::OK();
  }
  uint8_t slot_bytes = sizeof(Slot);  // version 3: always wide
  if (sections.format_version() >= kFirstPackedFormatVersion && !in.GetU8(&slot_bytes)) {
    return bad("truncated");
  }
  if (slot_bytes != sizeof(Slot) && slot_bytes != sizeof(uint64_t)) {
    return bad("slots of " + std::to_string(slot_bytes) + " bytes");
  }
  const bool compact = slot_bytes == sizeof(uint64_t);
  uint64_t section;
  if (!in.GetVarint(&section)) return bad("truncated");
  if (!std::has_single_bit(capacity) || capacity > (1ULL << 42) ||
      static_cast<double>(live + tombstones) > kMaxLoad * static_cast<double>(capacity)) {
    return bad("impossible capacity " + std::to_string(capacity));
  }
  // A compact index must be able to name every row (its key column is loaded before it).
  if (compact && !CompactFits(0)) return bad("compact slots cannot name every row");
  if (section >= sections.num_sections() ||
      sections.section_length(section) != capacity * slot_bytes) {
    return bad("slot section does not match the capacity");
  }
  auto region = sections.MapSection(section, capacity * slot_bytes);
  if (!region.ok()) return region.status();
  block_.store(new Block(std::move(*region), capacity, compact), std::memory_order_release);
  size_.store(live, std::memory_order_relaxed);
  tombstones_ = tombstones;
  return Status::OK();
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

// Every candidate is checked against the key column (after a bounds check): a lookup never
// returns an offset whose row does not hold the searched key.

std::optional<uint64_t> PrimaryKeyIndex::FindInteger(uint64_t key_bits) const {
  if (!integer_keys_) return std::nullopt;
  return Probe(key_bits,
               [&](uint64_t o) { return o < keys_->size() && KeyBitsOf(*keys_, o) == key_bits; });
}

std::optional<uint64_t> PrimaryKeyIndex::FindString(std::string_view key) const {
  if (keys_->kind() != PhysicalKind::kString) return std::nullopt;
  return Probe(HashBytes(key),
               [&](uint64_t o) { return o < keys_->size() && keys_->StringEquals(o, key); });
}

std::optional<uint64_t> PrimaryKeyIndex::FindInt128(int128_t key) const {
  if (keys_->kind() != PhysicalKind::kInt128) return std::nullopt;
  uint64_t tag = HashBytes(std::string_view(reinterpret_cast<const char*>(&key), sizeof key));
  return Probe(tag, [&](uint64_t o) { return o < keys_->size() && keys_->GetInt128(o) == key; });
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
    case PhysicalKind::kString: return FindString(v->GetString());
    case PhysicalKind::kInt128: return FindInt128(v->GetInt128());
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
    case PhysicalKind::kUInt64: return FindInteger(v->GetUInt());
    case PhysicalKind::kBool: return FindInteger(v->GetBool() ? 1 : 0);
    case PhysicalKind::kInterval:
    case PhysicalKind::kInternalId:
    case PhysicalKind::kNested: return std::nullopt;
    default: return FindInteger(static_cast<uint64_t>(v->GetInt()));
  }
}

}  // namespace graphdb::storage
