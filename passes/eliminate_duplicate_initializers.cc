// eliminate-duplicate-initializers: initializers of one graph with the same element type, dims
// and bytes become one; readers of the others read the first. See
// docs/passes/eliminate-duplicate-initializers.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/types/span.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// Reading a weight to compare it is worth it at any size; the cap only keeps an absurd
// declaration from being read.
constexpr int64_t kMaxCompareBytes = int64_t{1} << 40;

// An initializer with the hash of what decides whether it can equal another: first its element
// type and dims (alike ones only are read), then its elements. Sorted by (hash, position), equal
// hashes come together and the first of equal initializers in the graph comes first.
struct Candidate {
  size_t hash;
  size_t position;
  ir::Value* value;
  bool operator<(const Candidate& other) const {
    return std::tie(hash, position) < std::tie(other.hash, other.position);
  }
};

size_t signatureHash(const ir::Value& initializer) {
  const ir::Tensor& tensor = *initializer.initializer();
  return absl::HashOf(tensor.dataType(), absl::MakeConstSpan(tensor.dims()));
}

// Calls `visit` with each run of two or more candidates of one hash.
template <typename Visit>
void forEachRunOfEqualHashes(std::vector<Candidate>& candidates, Visit visit) {
  std::sort(candidates.begin(), candidates.end());
  for (auto first = candidates.begin(); first != candidates.end();) {
    auto last = std::find_if(first, candidates.end(),
                             [&](const Candidate& c) { return c.hash != first->hash; });
    if (last - first > 1) visit(absl::MakeSpan(&*first, last - first));
    first = last;
  }
}

// Its elements, or nullopt when they cannot be read as bytes (strings, segments, malformed or
// unreadable data): such initializers are left alone.
struct ReadInitializer {
  ir::Value* value;
  ConstantView view;
};
std::optional<ReadInitializer> readElements(ir::Value& initializer) {
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(initializer, kMaxCompareBytes);
  if (!view.ok() || !*view) return std::nullopt;
  std::string scratch;
  if (!elementBytes((*view)->proto(), &scratch)) return std::nullopt;
  return ReadInitializer{&initializer, *std::move(*view)};
}

std::optional<size_t> contentHash(ir::Value& initializer) {
  const std::optional<ReadInitializer> read = readElements(initializer);
  if (!read) return std::nullopt;
  std::string scratch;
  return absl::HashOf(*elementBytes(read->view.proto(), &scratch));
}

// Whether the initializer's value is fixed: a graph input's may be fed by the caller, and one
// training binds is updated by training. Neither is read through another, nor replaces another.
bool fixedValue(const ir::Value& initializer, const absl::flat_hash_set<std::string>& bound) {
  return !initializer.isGraphInput() && !initializer.isSparseInitializer() &&
         !(initializer.graph()->parentNode() == nullptr && bound.contains(initializer.name()));
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
  // Returns how many initializers it removed.
  static int64_t mergeDuplicates(ir::Graph& graph, const absl::flat_hash_set<std::string>& bound,
                                 PassContext& context) {
    std::vector<Candidate> alike;
    for (ir::Value* initializer : graph.initializers()) {
      if (fixedValue(*initializer, bound)) {
        alike.push_back({signatureHash(*initializer), alike.size(), initializer});
      }
    }
    // Elements are hashed one initializer at a time, and read again only to compare equal
    // hashes: external data is never all in memory at once.
    std::vector<Duplicate> duplicates;
    forEachRunOfEqualHashes(alike, [&](absl::Span<Candidate> run) {
      std::vector<Candidate> contents;
      for (const Candidate& candidate : run) {
        if (std::optional<size_t> hash = contentHash(*candidate.value)) {
          contents.push_back({*hash, candidate.position, candidate.value});
        }
      }
      forEachRunOfEqualHashes(contents, [&](absl::Span<Candidate> equal_hashes) {
        findDuplicates(equal_hashes, &duplicates);
      });
    });
    // In the graph's order, whatever the hashes (they differ between processes).
    std::sort(duplicates.begin(), duplicates.end());
    for (const Duplicate& duplicate : duplicates) {
      replaceAllUsesRecorded(*duplicate.value, *duplicate.original, context);
      graph.removeInitializer(duplicate.value);
    }
    return static_cast<int64_t>(duplicates.size());
  }

  struct Duplicate {
    size_t position;
    ir::Value* value;
    ir::Value* original;
    bool operator<(const Duplicate& other) const { return position < other.position; }
  };

  // Candidates of one content hash, in graph order.
  static void findDuplicates(absl::Span<const Candidate> candidates,
                             std::vector<Duplicate>* duplicates) {
    std::vector<ReadInitializer> kept;
    for (const Candidate& candidate : candidates) {
      std::optional<ReadInitializer> read = readElements(*candidate.value);
      if (!read) continue;
      const auto original = std::find_if(kept.begin(), kept.end(), [&](const ReadInitializer& k) {
        return sameTensorContents(k.view.proto(), read->view.proto());
      });
      // A graph output keeps its name, so it stays; it may still be the one others read.
      if (original == kept.end() || read->value->isGraphOutput()) {
        kept.push_back(*std::move(read));
        continue;
      }
      duplicates->push_back({candidate.position, read->value, original->value});
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateDuplicateInitializersPass() {
  return std::make_unique<EliminateDuplicateInitializers>();
}

}  // namespace onnxopt
