#include "onnxopt/ir/verifier.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "duplicate_names.h"
#include "onnxopt/ir/describe.h"

namespace onnxopt::ir {
namespace {

// Values defined so far in one graph, chained to the enclosing graphs' at the owning node. A
// flag per value ordinal rather than a set of pointers: on a graph of a million nodes a set is a
// cache miss per value defined and per operand read.
struct DefinedValues {
  const DefinedValues* outer = nullptr;
  const Graph* graph = nullptr;
  std::vector<bool> defined;  // by Value::ordinal()

  bool contains(const Value* value) const {
    for (const DefinedValues* scope = this; scope; scope = scope->outer) {
      if (value->graph() == scope->graph) {
        return scope->defined[value->ordinal()];
      }
    }
    return false;
  }
};

}  // namespace

class Verifier {
 public:
  static absl::Status verifyModel(const Model& model) {
    // Names are compared here, every time: the model's NameTable keeps hashes, not names, and
    // the verifier trusts no bookkeeping of the code it checks.
    return Verifier().verifyGraph(model.graph(), nullptr);
  }

  absl::Status verifyGraph(const Graph& graph, const DefinedValues* outer) {
    DefinedValues defined;
    defined.outer = outer;
    defined.graph = &graph;
    defined.defined.resize(graph.valueOrdinalBound());
    std::vector<const Value*> in_order;  // for the check of duplicate names
    in_order.reserve(graph.valueOrdinalBound());
    const std::string where = graph.parentNode()
                                  ? absl::StrCat(" in graph '", graph.name(), "' of ",
                                                 describe(*graph.parentNode()))
                                  : std::string();
    auto define = [&](const Value* value, absl::string_view what) -> absl::Status {
      if (value->graph() != &graph) {
        return absl::InternalError(absl::StrCat(what, " '", value->name(), "'", where,
                                                " belongs to another graph"));
      }
      defined.defined[value->ordinal()] = true;
      in_order.push_back(value);
      return checkUses(*value);
    };

    for (const Value* input : graph.inputs()) {
      if (absl::Status status = define(input, "graph input"); !status.ok()) return status;
    }
    for (const Value* initializer : graph.initializers()) {
      if (initializer->isGraphInput()) continue;
      if (absl::Status status = define(initializer, "initializer"); !status.ok()) return status;
    }

    // Finding subgraphs reads every node's attributes; most models have none to find.
    const bool may_nest = graph.model() == nullptr || graph.model()->numGraphs() > 1;
    const Node* previous = nullptr;
    size_t count = 0;
    for (const Node* node = graph.firstNode(); node; node = node->next()) {
      ++count;
      if (node->graph() != &graph || node->isErased() || node->prev() != previous) {
        return absl::InternalError(
            absl::StrCat(describe(*node), where, " is badly linked into its graph's node list"));
      }
      previous = node;
      for (size_t i = 0; i < node->numInputs(); ++i) {
        const Value* input = node->input(i);
        if (input == nullptr) continue;
        if (!defined.contains(input)) {
          return absl::InvalidArgumentError(absl::StrCat(
              describe(*node), where, ": input '", input->name(),
              "' is not defined before the node in this graph or an enclosing one"));
        }
        if (absl::Status status = checkReadableByName(graph, *input); !status.ok()) {
          return absl::InternalError(absl::StrCat(describe(*node), where, ": ", status.message()));
        }
        const uint32_t slot = node->input_use_slots_[i];
        if (slot >= input->uses().size() || !(input->uses()[slot] == Use(const_cast<Node*>(node), i))) {
          return absl::InternalError(absl::StrCat(describe(*node), where, ": input '",
                                                  input->name(), "' does not list this use"));
        }
      }
      if (may_nest) {
        if (absl::Status status = verifySubgraphs(*node, defined, where); !status.ok()) {
          return status;
        }
      }
      uint32_t used_outputs = 0;
      for (size_t i = 0; i < node->numOutputs(); ++i) {
        const Value* output = node->output(i);
        if (output == nullptr) continue;
        if (output->producer() != node || output->producerOutputIndex() != i) {
          return absl::InternalError(absl::StrCat(describe(*node), where, ": output '",
                                                  output->name(), "' names another producer"));
        }
        if (absl::Status status = define(output, "value"); !status.ok()) return status;
        used_outputs += output->hasUses() ? 1 : 0;
      }
      if (used_outputs != node->used_outputs_) {
        return absl::InternalError(absl::StrCat(describe(*node), where, ": ", used_outputs,
                                                " outputs are read, but the node counts ",
                                                node->used_outputs_));
      }
    }
    if (auto duplicate = findDuplicateName(in_order)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value name '", in_order[duplicate->second]->name(), "' is defined twice", where));
    }
    if (count != graph.numNodes() || previous != graph.lastNode()) {
      return absl::InternalError(absl::StrCat("the node list", where, " is badly linked"));
    }
    for (size_t i = 0; i < graph.outputs().size(); ++i) {
      const Value* output = graph.outputs()[i];
      if (output == nullptr || !defined.contains(output)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "graph output ", i, output ? absl::StrCat(" '", output->name(), "'") : std::string(),
            where, " is not defined in this graph or an enclosing one"));
      }
      if (absl::Status status = checkReadableByName(graph, *output); !status.ok()) {
        return absl::InternalError(absl::StrCat("graph output ", i, where, ": ", status.message()));
      }
    }
    return absl::OkStatus();
  }

  // A value of an enclosing graph is read by name once saved: no input or initializer of a
  // graph in between may have that name (Graph::shadowOf).
  static absl::Status checkReadableByName(const Graph& reader, const Value& value) {
    if (value.graph() == &reader) return absl::OkStatus();
    const Value* shadow = reader.shadowOf(value);
    if (shadow == nullptr) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(
        "'", value.name(), "' of an enclosing graph would be read as the ",
        shadow->isGraphInput() ? "input" : "initializer", " of that name of ",
        shadow->graph() == &reader ? std::string("this graph")
                                   : absl::StrCat("graph '", shadow->graph()->name(), "'")));
  }

 private:
  absl::Status verifySubgraphs(const Node& node, const DefinedValues& defined,
                               const std::string& where) {
    for (const Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        if (subgraph->parentNode() != &node) {
          return absl::InternalError(absl::StrCat("a subgraph of ", describe(node), where,
                                                  " does not know its parent node"));
        }
        if (nesting_ == kMaxGraphNesting) {
          return absl::InvalidArgumentError(
              graphTooDeepMessage(subgraph->name(), describe(node)));
        }
        ++nesting_;
        absl::Status status = verifyGraph(*subgraph, &defined);
        --nesting_;
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }

  int nesting_ = 0;  // of the graph being verified: 0 for the main graph

  // Every use a value lists must be an operand (or graph output) that really reads it.
  static absl::Status checkUses(const Value& value) {
    for (const Use& use : value.uses()) {
      const bool consistent =
          use.isGraphOutput()
              ? use.index() < use.graphOutputOf()->outputs().size() &&
                    use.graphOutputOf()->outputs()[use.index()] == &value
              : !use.user()->isErased() && use.user()->input(use.index()) == &value;
      if (!consistent) {
        return absl::InternalError(
            absl::StrCat("value '", value.name(), "' lists a use that does not read it"));
      }
    }
    return absl::OkStatus();
  }
};

absl::Status verify(const Model& model) { return Verifier::verifyModel(model); }

std::vector<SubgraphOutputProblem> findUnrunnableSubgraphOutputs(const Model& model) {
  std::vector<SubgraphOutputProblem> problems;
  if (model.numGraphs() == 1) return problems;
  // Breadth first with an explicit queue: no recursion however deep the model nests, and outer
  // graphs come first.
  std::vector<Graph*> queue;
  auto enqueueSubgraphs = [&queue](const Graph& graph) {
    for (const Node& node : graph) {
      for (const Attribute& attribute : node.attributes()) {
        for (const auto& subgraph : attribute.graphs()) queue.push_back(subgraph.get());
      }
    }
  };
  enqueueSubgraphs(model.graph());
  for (size_t next = 0; next < queue.size(); ++next) {
    Graph& subgraph = *queue[next];
    enqueueSubgraphs(subgraph);
    for (size_t i = 0; i < subgraph.outputs().size(); ++i) {
      const Value* output = subgraph.outputs()[i];
      if (output == nullptr) continue;  // verify() reports it
      using Kind = SubgraphOutputProblem::Kind;
      std::optional<Kind> kind;
      if (output->graph() != &subgraph) {
        kind = Kind::kOuterScopeValue;
      } else if (output->isGraphInput()) {
        kind = Kind::kBodyInput;
      }
      if (kind) problems.push_back({&subgraph, subgraph.parentNode(), i, output->name(), *kind});
    }
  }
  return problems;
}

std::string describe(const SubgraphOutputProblem& problem) {
  const bool outer = problem.kind == SubgraphOutputProblem::Kind::kOuterScopeValue;
  return absl::StrCat("output ", problem.output_index, " '", problem.output_name, "' of graph '",
                      problem.subgraph->name(), "' of ", describe(*problem.owner), " is ",
                      outer ? "an outer-scope value" : "the graph's own input");
}

}  // namespace onnxopt::ir
