#include "onnxopt/ir/name_table.h"

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace onnxopt::ir {
namespace {

constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;

// The word at `p`, its bytes read in little-endian order on every machine.
template <typename Word>
Word loadLittleEndian(const char* p) {
  Word word;
  std::memcpy(&word, p, sizeof word);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  if constexpr (sizeof(Word) == 8) {
    word = __builtin_bswap64(word);
  } else {
    word = __builtin_bswap32(word);
  }
#endif
  return word;
}

uint64_t byteAt(const char* p, size_t i) { return static_cast<unsigned char>(p[i]); }

// MurmurHash3's 64-bit finalizer: every input bit affects every output bit.
uint64_t avalanche(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// 0 marks a free slot; the one hash that is 0 is stored as 1 (at worst a name is passed over).
uint64_t nonZero(uint64_t hash) { return hash == 0 ? 1 : hash; }

}  // namespace

uint64_t NameTable::hashOf(absl::string_view name) {
  // Eight bytes at a time, each word mixed in before the next, the last word overlapping the one
  // before it: the words cover every byte, so names of one length differ in some word. Bytes are
  // read in little-endian order, so the hash is the same on every machine.
  const char* p = name.data();
  const size_t n = name.size();
  uint64_t h = n * kMultiplier;
  auto mix = [&h](uint64_t word) {
    h ^= word * 0x87c37b91114253d5ULL;
    h = ((h << 31) | (h >> 33)) * kMultiplier;
  };
  if (n >= 8) {
    for (size_t i = 0; i + 8 < n; i += 8) mix(loadLittleEndian<uint64_t>(p + i));
    mix(loadLittleEndian<uint64_t>(p + n - 8));
  } else if (n >= 4) {
    mix(loadLittleEndian<uint32_t>(p) |
        uint64_t{loadLittleEndian<uint32_t>(p + n - 4)} << 32);
  } else if (n > 0) {
    mix(byteAt(p, 0) | byteAt(p, n / 2) << 8 | byteAt(p, n - 1) << 16);
  }
  return nonZero(avalanche(h));
}

void NameTable::expect(size_t count) {
  size_t capacity = 16;
  while (capacity < 2 * count) capacity *= 2;
  if (capacity > slots_.size()) grow(capacity);
}

bool NameTable::contains(absl::string_view name) const {
  if (slots_.empty()) return false;
  const uint64_t hash = hashOf(name);
  const size_t mask = slots_.size() - 1;
  for (size_t i = firstSlot(hash);; i = (i + 1) & mask) {
    if (slots_[i] == hash) return true;
    if (slots_[i] == 0) return false;
  }
}

bool NameTable::insert(uint64_t hash) {
  if (4 * (size_ + 1) > 3 * slots_.size()) grow(slots_.empty() ? 16 : 2 * slots_.size());
  const size_t mask = slots_.size() - 1;
  for (size_t i = firstSlot(hash);; i = (i + 1) & mask) {
    if (slots_[i] == hash) return false;
    if (slots_[i] == 0) {
      slots_[i] = hash;
      ++size_;
      return true;
    }
  }
}

size_t NameTable::reserveAll(std::vector<uint64_t> hashes) {
  expect(size_ + hashes.size());
  size_t clashes = 0;
  // A large graph's names, inserted in the graph's order, would each miss the cache. Put in
  // buckets by their top bits first, they fill the table one small region after another, and the
  // scatter into buckets writes to only as many places at once as there are buckets.
  constexpr int kBucketBits = 10;
  if (hashes.size() < (size_t{4} << kBucketBits)) {
    for (uint64_t hash : hashes) clashes += insert(nonZero(hash)) ? 0 : 1;
    return clashes;
  }
  std::vector<size_t> next(size_t{1} << kBucketBits, 0);
  for (uint64_t hash : hashes) ++next[hash >> (64 - kBucketBits)];
  size_t start = 0;
  for (size_t& bucket : next) {
    const size_t count = bucket;
    bucket = start;
    start += count;
  }
  std::vector<uint64_t> bucketed(hashes.size());
  for (uint64_t hash : hashes) bucketed[next[hash >> (64 - kBucketBits)]++] = hash;
  for (uint64_t hash : bucketed) clashes += insert(nonZero(hash)) ? 0 : 1;
  return clashes;
}

void NameTable::grow(size_t capacity) {
  std::vector<uint64_t> old(capacity, 0);
  old.swap(slots_);
  shift_ = 64;
  for (size_t c = capacity; c > 1; c /= 2) --shift_;
  const size_t mask = capacity - 1;
  for (uint64_t hash : old) {
    if (hash == 0) continue;
    size_t i = firstSlot(hash);
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = hash;
  }
}

std::string NameTable::fresh(absl::string_view base) {
  const uint64_t base_hash = hashOf(base);
  std::string candidate;
  uint64_t hash = base_hash;
  if (insert(base_hash)) {
    candidate = std::string(base);
  } else {
    // Remembering the next suffix per base keeps repeated requests for one base linear overall.
    int64_t& suffix = next_suffix_[base_hash];
    do {
      candidate = absl::StrCat(base, "_", ++suffix);
      hash = hashOf(candidate);
    } while (!insert(hash));
  }
  constexpr size_t kFreshKept = 16;
  if (fresh_not_given_.size() == kFreshKept) fresh_not_given_.erase(fresh_not_given_.begin());
  fresh_not_given_.push_back(hash);
  return candidate;
}

bool NameTable::give(absl::string_view name) {
  const uint64_t hash = hashOf(name);
  if (insert(hash)) return true;
  auto it = std::find(fresh_not_given_.begin(), fresh_not_given_.end(), hash);
  if (it == fresh_not_given_.end()) return false;
  fresh_not_given_.erase(it);
  return true;
}

}  // namespace onnxopt::ir
