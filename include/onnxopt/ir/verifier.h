#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// Checks the IR's invariants in every scope: use lists match operands and graph outputs, every
// operand is defined before its use (in this scope or an outer one), value names are unique per
// scope, nodes and values belong to the graph that lists them, and the node list is well linked.
// The first violation is returned, naming the node (ir::describe) or value.
ONNXOPT_API absl::Status verify(const Model& model);

// A subgraph (If/Loop/Scan body) output that ONNX Runtime cannot run, although ONNX allows it.
struct SubgraphOutputProblem {
  enum class Kind {
    // A value of an enclosing graph: ORT refuses the model ("Subgraph output ... is an outer
    // scope value").
    kOuterScopeValue,
    // The body's own graph input: ORT 1.30 loads it, but a Scan state passed through this way
    // comes out zeroed.
    kBodyInput,
  };

  // Pointers as the IR hands them out (Graph::parentNode() and friends are shallow-const), so
  // that a pass can repair what it finds.
  Graph* subgraph = nullptr;
  Node* owner = nullptr;  // subgraph->parentNode()
  size_t output_index = 0;
  std::string output_name;
  Kind kind = Kind::kOuterScopeValue;
};

// Every such output of every subgraph at any depth, outer graphs first, in model order. The main
// graph's outputs are not subgraph outputs (returning a graph input there is fine). O(size of the
// model); nothing to walk in a model without subgraphs. verify() accepts these models, since
// exporters write them; the PassManager uses this to catch a pass that introduces one.
ONNXOPT_API std::vector<SubgraphOutputProblem> findUnrunnableSubgraphOutputs(const Model& model);

// "output 0 'X' of graph 'then_graph' of node 'if_1' (If) is an outer-scope value".
ONNXOPT_API std::string describe(const SubgraphOutputProblem& problem);

}  // namespace onnxopt::ir
