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

// Groups the entries by the top bits of their hash (a counting pass, then a scatter), with about
// two entries per group, positions ascending within each. Hashes are uniform, so the groups are
// even; a comparison sort of the whole would cost log n passes over memory.
struct Grouped {
  std::vector<Entry> entries;
  std::vector<uint32_t> starts;  // group g is entries[starts[g], starts[g + 1])
};

Grouped groupedByHash(const std::vector<Entry>& entries) {
  const size_t count = entries.size();
  int bits = 0;
  while (bits < 24 && (size_t{1} << (bits + 1)) < count) ++bits;
  const int shift = 64 - bits;
  auto group_of = [shift, bits](uint64_t hash) -> size_t { return bits == 0 ? 0 : hash >> shift; };
  Grouped grouped;
  grouped.starts.assign((size_t{1} << bits) + 1, 0);
  for (const Entry& entry : entries) ++grouped.starts[group_of(entry.hash) + 1];
  for (size_t g = 1; g < grouped.starts.size(); ++g) grouped.starts[g] += grouped.starts[g - 1];
  std::vector<uint32_t> next(grouped.starts.begin(), grouped.starts.end() - 1);
  grouped.entries.resize(count);
  for (const Entry& entry : entries) grouped.entries[next[group_of(entry.hash)]++] = entry;
  return grouped;
}

}  // namespace

std::optional<std::pair<size_t, size_t>> findDuplicateName(absl::Span<const Value* const> values) {
  std::vector<Entry> unsorted(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    unsorted[i] = Entry{absl::HashOf(absl::string_view(values[i]->name())), i};
  }
  Grouped grouped = groupedByHash(unsorted);
  std::optional<std::pair<size_t, size_t>> found;
  for (size_t g = 0; g + 1 < grouped.starts.size(); ++g) {
    const auto begin = grouped.entries.begin() + grouped.starts[g];
    const auto end = grouped.entries.begin() + grouped.starts[g + 1];
    // A large group means many equal hashes (one name many times, or a crafted input): sorted,
    // each name is compared with the earlier ones of its own hash only.
    if (end - begin > 16) std::sort(begin, end);
    for (auto later = begin; later < end; ++later) {
      if (found && later->position >= found->second) continue;
      for (auto earlier = begin; earlier < later; ++earlier) {
        if (earlier->hash == later->hash &&
            values[earlier->position]->name() == values[later->position]->name()) {
          found = std::make_pair(earlier->position, later->position);
          break;
        }
      }
    }
  }
  return found;
}

}  // namespace onnxopt::ir
