// eliminate-common-subexpressions: a node that computes what an earlier node of its graph
// computes (same operator, attributes and inputs) goes; its readers read the earlier node's
// outputs. See docs/passes/eliminate-common-subexpressions.md.

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/node_check.h"

namespace onnxopt {
namespace {

struct Computation {
  const ir::Node* node;
  size_t hash;
};
struct ComputationHash {
  size_t operator()(const Computation& c) const { return c.hash; }
};
struct SameComputation {
  bool operator()(const Computation& a, const Computation& b) const {
    return a.hash == b.hash && sameComputation(*a.node, *b.node);
  }
};

// Whether the node may take part: deterministic, without subgraphs (a body's contents are not
// compared), and with every output present (an omitted output would make two keys equal that
// leave different outputs).
bool comparable(const ir::Node& node) {
  if (!isDeterministic(node) || node.hasSubgraphs()) return false;
  for (const ir::Value* output : node.outputs()) {
    if (output == nullptr) return false;
  }
  return true;
}

bool anyOutputIsGraphOutput(const ir::Node& node) {
  for (const ir::Value* output : node.outputs()) {
    if (output->isGraphOutput()) return true;
  }
  return false;
}

class EliminateCommonSubexpressions final : public Pass {
 public:
  EliminateCommonSubexpressions() : Pass("eliminate-common-subexpressions") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    int64_t removed = 0;
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) { removed += mergeIn(graph, context); });
    context.statistics().nodes_removed += removed;
    context.statistics().nodes_rewritten += removed;
    if (context.journal() != nullptr) context.journal()->account(model);
    return removed > 0;
  }

 private:
  // Each graph alone: two If branches never share a node, and a body's node is not merged with
  // an outer one. Nodes come producers first, so a merge makes the readers' keys equal too and
  // a whole repeated chain goes in one walk. Returns how many nodes went.
  static int64_t mergeIn(ir::Graph& graph, PassContext& context) {
    absl::flat_hash_set<Computation, ComputationHash, SameComputation> first_computing;
    first_computing.reserve(graph.numNodes());  // most nodes are distinct: no rehash on the way
    std::vector<ir::Node*> duplicates;
    for (ir::Node& node : graph) {
      ++context.statistics().nodes_visited;
      if (!comparable(node)) continue;
      // --no-check: a node that fails the check is left as it is, duplicates included.
      if (context.skipMalformedNodes() && !checkNode(node).ok()) continue;
      const auto [entry, inserted] = first_computing.insert({&node, computationHash(node)});
      // A graph output keeps its name and its producer: that node stays, and so does the other.
      if (inserted || anyOutputIsGraphOutput(node)) continue;
      ++context.statistics().nodes_matched;
      const ir::Node& original = *entry->node;
      for (size_t i = 0; i < node.numOutputs(); ++i) {
        replaceAllUsesRecorded(*node.output(i), *original.output(i), context);
      }
      duplicates.push_back(&node);
    }
    for (ir::Node* duplicate : duplicates) eraseNodeRecorded(*duplicate, context);
    return static_cast<int64_t>(duplicates.size());
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateCommonSubexpressionsPass() {
  return std::make_unique<EliminateCommonSubexpressions>();
}

}  // namespace onnxopt
