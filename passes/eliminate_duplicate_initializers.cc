// eliminate-duplicate-initializers: initializers of one graph with the same element type, dims
// and bytes become one; readers of the others read the first. See
// docs/passes/eliminate-duplicate-initializers.md.

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// Reading a weight to compare it is worth it at any size; the cap only keeps an absurd
// declaration from being read.
constexpr int64_t kMaxCompareBytes = int64_t{1} << 40;

// Element type and dims: only initializers alike in these are read and compared.
using Signature = std::tuple<int32_t, std::vector<int64_t>>;

Signature signatureOf(const ir::Value& initializer) {
  const ir::Tensor& tensor = *initializer.initializer();
  return {tensor.dataType(), std::vector<int64_t>(tensor.dims().begin(), tensor.dims().end())};
}

// An initializer read once, with the hash of its elements.
struct ReadInitializer {
  ir::Value* value;
  ConstantView view;
  size_t hash;
};

// Nullopt when the elements cannot be read as bytes (strings, segments, malformed or unreadable
// data): such initializers are left alone.
std::optional<ReadInitializer> readWithHash(ir::Value& initializer) {
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(initializer, kMaxCompareBytes);
  if (!view.ok() || !*view) return std::nullopt;
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes((*view)->proto(), &scratch);
  if (!bytes) return std::nullopt;
  const size_t hash = absl::HashOf(*bytes);
  return ReadInitializer{&initializer, *std::move(*view), hash};
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
    int64_t removed = 0;
    // Groups in the graph's order, so that the first of equal initializers is the one kept.
    absl::flat_hash_map<Signature, size_t> group_of;
    std::vector<std::vector<ir::Value*>> groups;
    for (ir::Value* initializer : graph.initializers()) {
      if (!fixedValue(*initializer, bound)) continue;
      const auto [entry, inserted] = group_of.try_emplace(signatureOf(*initializer), groups.size());
      if (inserted) groups.emplace_back();
      groups[entry->second].push_back(initializer);
    }
    for (const std::vector<ir::Value*>& members : groups) {
      if (members.size() < 2) continue;
      absl::flat_hash_map<size_t, std::vector<ReadInitializer>> kept_by_hash;
      for (ir::Value* member : members) {
        std::optional<ReadInitializer> read = readWithHash(*member);
        if (!read) continue;
        std::vector<ReadInitializer>& kept = kept_by_hash[read->hash];
        ir::Value* original = nullptr;
        for (const ReadInitializer& candidate : kept) {
          if (sameTensorContents(candidate.view.proto(), read->view.proto())) {
            original = candidate.value;
            break;
          }
        }
        // A graph output keeps its name, so it stays; it may still be the one others read.
        if (original == nullptr || member->isGraphOutput()) {
          kept.push_back(*std::move(read));
          continue;
        }
        replaceAllUsesRecorded(*member, *original, context);
        graph.removeInitializer(member);
        ++removed;
      }
    }
    return removed;
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateDuplicateInitializersPass() {
  return std::make_unique<EliminateDuplicateInitializers>();
}

}  // namespace onnxopt
