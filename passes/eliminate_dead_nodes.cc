// eliminate-dead-nodes: removes every node no graph output or live node reads (in any scope: no
// ONNX node has side effects), then every initializer nothing reads, unless it is a graph input
// or training info binds it. The greedy driver without patterns is exactly this, in linear time.

#include "absl/container/flat_hash_set.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/pattern_pass.h"

namespace onnxopt {
namespace {

class EliminateDeadNodes final : public PatternPass {
 public:
  EliminateDeadNodes() : PatternPass("eliminate-dead-nodes") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    absl::StatusOr<bool> changed = PatternPass::run(model, context);
    if (!changed.ok()) return changed.status();
    // After the nodes: an initializer may have been read only by nodes that are now gone.
    const absl::flat_hash_set<std::string> bound = initializersBoundByTrainingInfo(model);
    int64_t removed = 0;
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
      for (ir::Value* initializer : graph.initializers()) {
        if (initializer->hasUses() || initializer->isGraphInput() ||
            (graph.parentNode() == nullptr && bound.contains(initializer->name()))) {
          continue;
        }
        graph.removeInitializer(initializer);
        ++removed;
      }
    });
    context.statistics().initializers_removed += removed;
    // No pattern reads an initializer nothing reads: later rounds need not revisit anything.
    if (context.journal() != nullptr) context.journal()->account(model);
    return *changed || removed > 0;
  }

 private:
  void populatePatterns(RewritePatternSet&) const override {}
};

}  // namespace

std::unique_ptr<Pass> createEliminateDeadNodesPass() {
  return std::make_unique<EliminateDeadNodes>();
}

}  // namespace onnxopt
