#include "onnxopt/ir/verifier.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "duplicate_names.h"

namespace onnxopt::ir {
namespace {

std::string describe(const Node& node) {
  return absl::StrCat("node '", node.name(), "' (", node.opType(), ")");
}

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
    // Names given since they were last found unique all went into the model's table as new.
    const uint64_t clashes = model.valueNameClashes();
    const bool names_known_unique =
        model.value_names_unique_at_.load(std::memory_order_relaxed) == clashes;
    Verifier verifier(/*check_names=*/!names_known_unique);
    absl::Status status = verifier.verifyGraph(model.graph(), nullptr);
    if (status.ok()) model.value_names_unique_at_.store(clashes, std::memory_order_relaxed);
    return status;
  }

  explicit Verifier(bool check_names) : check_names_(check_names) {}

  absl::Status verifyGraph(const Graph& graph, const DefinedValues* outer) {
    DefinedValues defined;
    defined.outer = outer;
    defined.graph = &graph;
    defined.defined.resize(graph.valueOrdinalBound());
    std::vector<const Value*> in_order;  // for the check of duplicate names
    if (check_names_) in_order.reserve(graph.valueOrdinalBound());
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
      if (check_names_) in_order.push_back(value);
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
    if (auto duplicate = check_names_ ? findDuplicateName(in_order) : std::nullopt) {
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
    }
    return absl::OkStatus();
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
              graphTooDeepMessage(subgraph->name(), node.name(), node.opType()));
        }
        ++nesting_;
        absl::Status status = verifyGraph(*subgraph, &defined);
        --nesting_;
        if (!status.ok()) return status;
      }
    }
    return absl::OkStatus();
  }

  const bool check_names_;
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

}  // namespace onnxopt::ir
