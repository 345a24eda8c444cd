#include "duplicate_names.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/hash/hash.h"

namespace onnxopt::ir {

namespace {

struct Entry {
  uint64_t hash;
  size_t position;
  bool operator<(const Entry& other) const {
    return hash != other.hash ? hash < other.hash : position < other.position;
  }
};

// Sorts by (hash, position): a counting pass and a scatter into buckets by the hash's top bits,
// then each bucket (about 16 entries) by itself. Hashes are uniform, so the buckets are even;
// a comparison sort of the whole would cost log n passes over memory.
std::vector<Entry> sortedByHash(std::vector<Entry> entries) {
  const size_t count = entries.size();
  int bits = 0;
  while (bits < 16 && (size_t{1} << (bits + 4)) < count) ++bits;
  if (bits == 0) {
    std::sort(entries.begin(), entries.end());
    return entries;
  }
  const int shift = 64 - bits;
  std::vector<size_t> bucket_end(size_t{1} << bits, 0);
  for (const Entry& entry : entries) ++bucket_end[entry.hash >> shift];
  size_t total = 0;
  for (size_t& end : bucket_end) {
    total += end;
    end = total;
  }
  // Filled from each bucket's end backwards; iterating `entries` in reverse keeps positions
  // ascending inside a bucket.
  std::vector<Entry> sorted(count);
  for (size_t i = count; i > 0; --i) {
    const Entry& entry = entries[i - 1];
    sorted[--bucket_end[entry.hash >> shift]] = entry;
  }
  // bucket_end[b] now holds bucket b's start.
  for (size_t b = 0; b < bucket_end.size(); ++b) {
    const size_t end = b + 1 < bucket_end.size() ? bucket_end[b + 1] : count;
    std::sort(sorted.begin() + bucket_end[b], sorted.begin() + end);
  }
  return sorted;
}

}  // namespace

std::optional<std::pair<size_t, size_t>> findDuplicateName(absl::Span<const Value* const> values) {
  std::vector<Entry> unsorted(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    unsorted[i] = Entry{absl::HashOf(absl::string_view(values[i]->name())), i};
  }
  const std::vector<Entry> entries = sortedByHash(std::move(unsorted));
  std::optional<std::pair<size_t, size_t>> found;
  // Within a run of equal hashes (positions ascending), compare each name with the earlier ones.
  for (size_t run = 0; run < entries.size();) {
    size_t end = run + 1;
    while (end < entries.size() && entries[end].hash == entries[run].hash) ++end;
    for (size_t later = run + 1; later < end; ++later) {
      const size_t position = entries[later].position;
      if (found && position >= found->second) break;
      for (size_t earlier = run; earlier < later; ++earlier) {
        if (values[entries[earlier].position]->name() == values[position]->name()) {
          found = std::make_pair(entries[earlier].position, position);
          break;
        }
      }
    }
    run = end;
  }
  return found;
}

}  // namespace onnxopt::ir
