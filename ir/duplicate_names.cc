#include "duplicate_names.h"

#include <algorithm>
#include <vector>

#include "absl/hash/hash.h"

namespace onnxopt::ir {

std::optional<std::pair<size_t, size_t>> findDuplicateName(absl::Span<const Value* const> values) {
  struct Entry {
    size_t hash;
    size_t position;
  };
  std::vector<Entry> entries(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    entries[i] = Entry{absl::HashOf(absl::string_view(values[i]->name())), i};
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return a.hash != b.hash ? a.hash < b.hash : a.position < b.position;
  });
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
