// eliminate-common-subexpressions: a node that computes what an earlier node of its graph
// computes (same operator, attributes and inputs) goes; its readers read the earlier node's
// outputs. See docs/passes/eliminate-common-subexpressions.md.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/node_check.h"

namespace onnxopt {
namespace {

// An attribute's value: kinds whose value is a few fields are compared field by field, and the
// rest (tensors, graphs, type protos) by their serialized proto. The doc string says nothing about
// what the node computes.
std::string canonicalBytes(const ir::Attribute& attribute) {
  onnx::AttributeProto canonical = attribute.proto();
  canonical.clear_doc_string();
  return canonical.SerializeAsString();
}

bool isPlainKind(ir::Attribute::Kind kind) {
  switch (kind) {
    case onnx::AttributeProto::INT:
    case onnx::AttributeProto::FLOAT:
    case onnx::AttributeProto::STRING:
    case onnx::AttributeProto::INTS:
    case onnx::AttributeProto::FLOATS:
    case onnx::AttributeProto::STRINGS: return true;
    default: return false;
  }
}

// Floats compare by their bits, as their serialized form would: -0.0 is not 0.0, and NaN is
// itself.
uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

size_t hashOf(const ir::Attribute& attribute) {
  size_t hash = absl::HashOf(attribute.name(), static_cast<int>(attribute.kind()));
  switch (attribute.kind()) {
    case onnx::AttributeProto::INT: return absl::HashOf(hash, attribute.i());
    case onnx::AttributeProto::FLOAT: return absl::HashOf(hash, bitsOf(attribute.f()));
    case onnx::AttributeProto::STRING: return absl::HashOf(hash, attribute.s());
    case onnx::AttributeProto::INTS:
      for (int64_t i : attribute.ints()) hash = absl::HashOf(hash, i);
      return hash;
    case onnx::AttributeProto::FLOATS:
      for (float f : attribute.floats()) hash = absl::HashOf(hash, bitsOf(f));
      return hash;
    case onnx::AttributeProto::STRINGS:
      for (const std::string& str : attribute.proto().strings()) hash = absl::HashOf(hash, str);
      return hash;
    default: return absl::HashOf(hash, canonicalBytes(attribute));
  }
}

bool sameValue(const ir::Attribute& a, const ir::Attribute& b) {
  if (a.name() != b.name() || a.kind() != b.kind()) return false;
  if (!isPlainKind(a.kind())) return canonicalBytes(a) == canonicalBytes(b);
  const onnx::AttributeProto& pa = a.proto();
  const onnx::AttributeProto& pb = b.proto();
  if (pa.i() != pb.i() || bitsOf(pa.f()) != bitsOf(pb.f()) || pa.s() != pb.s()) return false;
  if (!std::equal(pa.ints().begin(), pa.ints().end(), pb.ints().begin(), pb.ints().end())) {
    return false;
  }
  if (!std::equal(pa.floats().begin(), pa.floats().end(), pb.floats().begin(), pb.floats().end(),
                  [](float x, float y) { return bitsOf(x) == bitsOf(y); })) {
    return false;
  }
  return std::equal(pa.strings().begin(), pa.strings().end(), pb.strings().begin(),
                    pb.strings().end());
}

// What determines a node's outputs: op, domain, the identity of each input (omitted ones
// included), the output count, and the attributes whatever their order. Equal nodes compute
// the same outputs.
size_t computationHash(const ir::Node& node) {
  size_t hash = absl::HashOf(&node.op(), node.numOutputs(), node.numInputs());  // OpNames are interned
  for (const ir::Value* input : node.inputs()) hash = absl::HashOf(hash, input);
  size_t attributes = 0;  // a sum: the same whatever the order
  for (const ir::Attribute& attribute : node.attributes()) attributes += hashOf(attribute);
  return absl::HashOf(hash, attributes);
}

bool sameComputation(const ir::Node& a, const ir::Node& b) {
  if (&a.op() != &b.op() || a.numOutputs() != b.numOutputs() ||
      !std::equal(a.inputs().begin(), a.inputs().end(), b.inputs().begin(), b.inputs().end())) {
    return false;
  }
  if (a.attributes().size() != b.attributes().size()) return false;
  for (const ir::Attribute& attribute : a.attributes()) {
    const ir::Attribute* other = b.attr(attribute.name());
    if (other == nullptr || !sameValue(attribute, *other)) return false;
  }
  return true;
}

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
    for (ir::Node* duplicate : duplicates) graph.eraseNode(duplicate);
    return static_cast<int64_t>(duplicates.size());
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateCommonSubexpressionsPass() {
  return std::make_unique<EliminateCommonSubexpressions>();
}

}  // namespace onnxopt
