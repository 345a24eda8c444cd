// eliminate-duplicate-initializers: initializers of one graph with the same element type, dims
// and bytes become one; readers of the others read the first. See
// docs/passes/eliminate-duplicate-initializers.md.

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// Reading a weight to compare it is worth it at any size; the cap only keeps an absurd
// declaration from being read.
constexpr int64_t kMaxCompareBytes = int64_t{1} << 40;

size_t signatureHash(const ir::Value& initializer) {
  const ir::Tensor& tensor = *initializer.initializer();
  return absl::HashOf(tensor.dataType(), absl::MakeConstSpan(tensor.dims()));
}

// A view of its elements, or nullopt when they cannot be read (segments, malformed or
// unreadable data): such initializers are left alone.
std::optional<ConstantView> readElements(const ir::Value& initializer) {
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(initializer, kMaxCompareBytes);
  if (!view.ok()) return std::nullopt;
  return *std::move(view);
}

// What hashOfElements hashes of each end of an initializer's bytes: 64 of them first, then, for
// the initializers alike there, all.
constexpr size_t kEndBytes = 64;
constexpr size_t kAllBytes = std::numeric_limits<size_t>::max();

// A hash of the initializer's size and the first and last `end_bytes` of its elements (all of
// them when they are fewer than twice that); nullopt when they cannot be read (segments, data
// of another size than the dims', unreadable external data) or have no bytes (strings): such
// initializers are left alone. The ends of external data are read from the file alone: a
// model's weights are told apart without reading them.
std::optional<size_t> hashOfElements(const ir::Value& initializer, size_t end_bytes) {
  const ir::Tensor& tensor = *initializer.initializer();
  if (tensor.isExternal() && !tensor.proto().has_segment() &&
      ir::elemTypeSize(tensor.dataType()) > 0 &&
      static_cast<uint64_t>(tensor.external()->length) / 2 >= end_bytes) {
    const int64_t size = tensor.external()->length;
    const auto end = static_cast<int64_t>(end_bytes);
    const absl::StatusOr<std::string> head = tensor.readExternalBytes(0, end);
    const absl::StatusOr<std::string> tail = tensor.readExternalBytes(size - end, end);
    if (!head.ok() || !tail.ok()) return std::nullopt;
    return absl::HashOf(static_cast<size_t>(size), absl::string_view(*head),
                        absl::string_view(*tail));
  }
  if (tensor.proto().has_segment()) return std::nullopt;
  // A hash only sorts initializers into runs: inline bytes are hashed as they are, and an
  // initializer is checked (readElements) before another reads it.
  std::optional<ConstantView> external;
  if (tensor.isExternal()) {
    external = readElements(initializer);
    if (!external) return std::nullopt;
  }
  std::string scratch;
  const std::optional<absl::string_view> bytes =
      elementBytes(external ? external->proto() : tensor.proto(), &scratch);
  if (!bytes) return std::nullopt;
  if (bytes->size() / 2 < end_bytes) return absl::HashOf(*bytes);
  return absl::HashOf(bytes->size(), bytes->substr(0, end_bytes),
                      bytes->substr(bytes->size() - end_bytes));
}

// Calls fn with each run of two or more equal hashes among `keyed` ((hash, position) pairs), in
// position order within the run. Equal hashes are rare (trained weights differ), so only the
// entries whose hash repeats are sorted.
template <typename Fn>
void forEachRunOfEqualHashes(const std::vector<std::pair<size_t, size_t>>& keyed, Fn&& fn) {
  absl::flat_hash_map<size_t, int> with_hash;
  with_hash.reserve(keyed.size());
  for (const auto& [hash, position] : keyed) ++with_hash[hash];
  std::vector<std::pair<size_t, size_t>> repeated;
  for (const auto& entry : keyed) {
    if (with_hash[entry.first] >= 2) repeated.push_back(entry);
  }
  std::sort(repeated.begin(), repeated.end());
  for (size_t begin = 0, end = 0; begin < repeated.size(); begin = end) {
    end = begin + 1;
    while (end < repeated.size() && repeated[end].first == repeated[begin].first) ++end;
    fn(absl::MakeConstSpan(repeated).subspan(begin, end - begin));
  }
}

// Whether the initializer's value is fixed: a graph input's may be fed by the caller, and one
// training binds is updated by training. Neither is read through another, nor replaces another.
bool fixedValue(const ir::Value& initializer, const absl::flat_hash_set<std::string>& bound) {
  return !initializer.isGraphInput() && !initializer.isSparseInitializer() &&
         !(!bound.empty() && initializer.graph()->parentNode() == nullptr &&
           bound.contains(initializer.name()));
}

class EliminateDuplicateInitializers final : public Pass {
 public:
  EliminateDuplicateInitializers() : Pass("eliminate-duplicate-initializers") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    const absl::flat_hash_set<std::string> bound = initializersBoundByTrainingInfo(model);
    int64_t removed = 0;
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
      removed += mergeDuplicates(graph, bound, context);
    });
    context.statistics().initializers_removed += removed;
    if (context.journal() != nullptr) context.journal()->account(model);
    return removed > 0;
  }

 private:
  // Returns how many initializers it removed. Within a run of equal contents the first in graph
  // order is the one the others read, whatever the hashes (they differ between processes).
  static int64_t mergeDuplicates(ir::Graph& graph, const absl::flat_hash_set<std::string>& bound,
                                 PassContext& context) {
    const std::vector<ir::Value*> initializers = graph.initializers();
    std::vector<std::pair<size_t, size_t>> fixed;  // (position, hash of type and dims)
    fixed.reserve(initializers.size());
    absl::flat_hash_map<size_t, int> with_signature;
    for (size_t position = 0; position < initializers.size(); ++position) {
      if (!fixedValue(*initializers[position], bound)) continue;
      fixed.emplace_back(position, signatureHash(*initializers[position]));
      ++with_signature[fixed.back().second];
    }
    // Only initializers of a shared type and dims are read, one at a time (external data is
    // never all in memory at once), and only their ends are hashed: trained weights differ
    // there, so the whole bytes are hashed only where the ends are alike.
    std::vector<std::pair<size_t, size_t>> by_ends;  // (hash of type, dims and ends, position)
    for (const auto& [position, signature] : fixed) {
      if (with_signature[signature] < 2) continue;
      if (std::optional<size_t> hash = hashOfElements(*initializers[position], kEndBytes)) {
        by_ends.emplace_back(absl::HashOf(signature, *hash), position);
      }
    }
    std::vector<std::pair<size_t, ir::Value*>> duplicates;  // (duplicate's position, original)
    forEachRunOfEqualHashes(by_ends, [&](absl::Span<const std::pair<size_t, size_t>> alike) {
      std::vector<std::pair<size_t, size_t>> by_bytes;  // (hash of the bytes, position)
      for (const auto& [ends, position] : alike) {
        if (std::optional<size_t> hash = hashOfElements(*initializers[position], kAllBytes)) {
          by_bytes.emplace_back(*hash, position);
        }
      }
      forEachRunOfEqualHashes(by_bytes, [&](absl::Span<const std::pair<size_t, size_t>> same) {
        absl::InlinedVector<ir::Value*, 2> kept;
        for (const auto& [hash, position] : same) {
          ir::Value* initializer = initializers[position];
          const std::optional<ConstantView> read = readElements(*initializer);
          ir::Value* original = nullptr;
          for (ir::Value* candidate : kept) {
            const std::optional<ConstantView> other = readElements(*candidate);
            if (read && other && sameTensorContents(other->proto(), read->proto())) {
              original = candidate;
              break;
            }
          }
          // A graph output keeps its name, so it stays; it may still be the one others read.
          if (original == nullptr || initializer->isGraphOutput()) {
            kept.push_back(initializer);
          } else {
            duplicates.emplace_back(position, original);
          }
        }
      });
    });
    std::sort(duplicates.begin(), duplicates.end());
    for (const auto& [position, original] : duplicates) {
      replaceAllUsesRecorded(*initializers[position], *original, context);
      graph.removeInitializer(initializers[position]);
    }
    return static_cast<int64_t>(duplicates.size());
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateDuplicateInitializersPass() {
  return std::make_unique<EliminateDuplicateInitializers>();
}

}  // namespace onnxopt
