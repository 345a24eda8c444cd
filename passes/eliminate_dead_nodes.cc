// eliminate-dead-nodes: removes every node none of whose outputs is read (a graph output, or a
// node in a subgraph reading an outer value, is a reader), then every initializer nothing reads
// unless it is also a graph input (keep_initializers_as_inputs: part of the interface). Nodes
// with no outputs at all are dead too: ONNX nodes have no side effects. Subgraphs included.
//
// The greedy driver with no patterns is exactly this for nodes: it offers every node once,
// erases the dead ones and revisits the producers of what it erased, so the cost is linear.

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
    int64_t removed = 0;
    ir::forEachGraph(model.graph(), [&removed](ir::Graph& graph) {
      for (ir::Value* initializer : graph.initializers()) {
        if (initializer->hasUses() || initializer->isGraphInput()) continue;
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
