// eliminate-common-subexpressions: a node that computes what an earlier node of its graph
// computes (same operator, attributes and inputs) goes; its readers read the earlier node's
// outputs. See docs/passes/eliminate-common-subexpressions.md.

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/node_check.h"

namespace onnxopt {
namespace {

// What determines a node's outputs, as bytes: op, domain, the identity of each input (omitted
// ones included), the output count, and the attributes in name order. Nodes with equal keys
// compute the same outputs.
std::string keyOf(const ir::Node& node) {
  std::string key;
  const auto append = [&key](const auto& field) {
    key.append(reinterpret_cast<const char*>(&field), sizeof(field));
  };
  append(&node.op());  // OpNames are interned: one per op type and domain
  append(node.numOutputs());
  append(node.numInputs());
  for (const ir::Value* input : node.inputs()) append(input);
  std::vector<const ir::Attribute*> attributes;
  for (const ir::Attribute& attribute : node.attributes()) attributes.push_back(&attribute);
  std::sort(attributes.begin(), attributes.end(),
            [](const ir::Attribute* a, const ir::Attribute* b) { return a->name() < b->name(); });
  for (const ir::Attribute* attribute : attributes) {
    // The doc string says nothing about what the node computes.
    onnx::AttributeProto canonical = attribute->proto();
    canonical.clear_doc_string();
    const std::string bytes = canonical.SerializeAsString();
    append(bytes.size());
    key += bytes;
  }
  return key;
}

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
    absl::flat_hash_map<std::string, ir::Node*> first_with_key;
    std::vector<ir::Node*> duplicates;
    for (ir::Node& node : graph) {
      ++context.statistics().nodes_visited;
      if (!comparable(node)) continue;
      // --no-check: a node that fails the check is left as it is, duplicates included.
      if (context.skipMalformedNodes() && !checkNode(node).ok()) continue;
      const auto [entry, inserted] = first_with_key.try_emplace(keyOf(node), &node);
      // A graph output keeps its name and its producer: that node stays, and so does the other.
      if (inserted || anyOutputIsGraphOutput(node)) continue;
      ++context.statistics().nodes_matched;
      const ir::Node& original = *entry->second;
      for (size_t i = 0; i < node.numOutputs(); ++i) replaceAllUsesRecorded(*node.output(i), *original.output(i), context);
      duplicates.push_back(&node);
    }
    for (ir::Node* duplicate : duplicates) graph.eraseNode(duplicate);
    return static_cast<int64_t>(duplicates.size());
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateCommonSubexpressionsPass() {
  return std::make_unique<EliminateCommonSubexpressions>();
}

}  // namespace onnxopt
