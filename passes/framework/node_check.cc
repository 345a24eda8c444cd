#include "onnxopt/rewrite/node_check.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnx/defs/schema.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

absl::Status malformed(const ir::Node& node, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(ir::describe(node), ": ", what));
}

// Whether the schema refuses an attribute it does not define. Its flag for accepting any is
// private to libonnx, so the schema's own verifier is asked, on a node that holds only that
// attribute and the fewest inputs and outputs the schema takes.
bool refusesUnknownAttribute(const onnx::OpSchema& schema, const ir::Node& node,
                             const ir::Attribute& attribute) {
  onnx::NodeProto probe;
  probe.set_op_type(node.opType());
  probe.set_domain(node.op().domain());
  for (int i = 0; i < schema.min_input(); ++i) probe.add_input("x");
  for (int i = 0; i < schema.min_output(); ++i) probe.add_output("y");
  onnx::AttributeProto* copy = probe.add_attribute();
  copy->set_name(attribute.name());
  copy->set_type(attribute.kind());
  try {
    schema.Verify(probe);
  } catch (const std::exception& error) {
    return absl::StrContains(error.what(), "Unrecognized attribute");
  }
  return false;
}

absl::Status checkArity(const onnx::OpSchema& schema, const ir::Node& node) {
  const auto range = [](int low, int high) {
    return high == std::numeric_limits<int>::max() ? absl::StrCat("at least ", low)
           : low == high                           ? absl::StrCat(low)
                                                   : absl::StrCat(low, " to ", high);
  };
  const int inputs = static_cast<int>(node.numInputs());
  if (inputs < schema.min_input() || inputs > schema.max_input()) {
    return malformed(node, absl::StrCat("has ", inputs, " inputs; ", node.opType(), "-",
                                        schema.SinceVersion(), " takes ",
                                        range(schema.min_input(), schema.max_input())));
  }
  const int outputs = static_cast<int>(node.numOutputs());
  if (outputs < schema.min_output() || outputs > schema.max_output()) {
    return malformed(node, absl::StrCat("has ", outputs, " outputs; ", node.opType(), "-",
                                        schema.SinceVersion(), " gives ",
                                        range(schema.min_output(), schema.max_output())));
  }
  return absl::OkStatus();
}

// The element type and rank a tensor value is declared with at the model's interface (graph
// input or initializer): what a runtime checks the node against before inferring anything.
// Read from the declaration Value::type() reads, without building the type: every load runs
// this for every input of every node.
struct Declared {
  int32_t elem_type;
  std::optional<int64_t> rank;
};

std::optional<Declared> declared(const ir::Value* value) {
  if (value == nullptr || !(value->isGraphInput() || value->isInitializer())) return std::nullopt;
  const onnx::TypeProto* proto = nullptr;
  if (value->valueInfo() != nullptr && value->valueInfo()->has_type()) {
    proto = &value->valueInfo()->type();
  } else if (value->inputInfo() != nullptr && value->inputInfo()->has_type()) {
    proto = &value->inputInfo()->type();
  }
  if (proto != nullptr) {
    if (!proto->has_tensor_type()) return std::nullopt;
    const onnx::TypeProto::Tensor& tensor = proto->tensor_type();
    return Declared{tensor.elem_type(), tensor.has_shape() ? std::optional<int64_t>(
                                                                 tensor.shape().dim_size())
                                                           : std::nullopt};
  }
  if (value->initializer()) {
    return Declared{value->initializer()->dataType(),
                    static_cast<int64_t>(value->initializer()->dims().size())};
  }
  return std::nullopt;
}

// Whether the formal parameter takes tensors of `elem_type`; the schema's type strings are
// compared once per (parameter, element type).
bool formalTakes(const onnx::OpSchema::FormalParameter& formal, int32_t elem_type) {
  thread_local absl::flat_hash_map<std::pair<const onnx::OpSchema::FormalParameter*, int32_t>, bool>
      known;
  const auto [entry, inserted] = known.try_emplace({&formal, elem_type}, false);
  if (inserted) {
    const std::string tensor_type = absl::StrCat("tensor(", ir::elemTypeName(elem_type), ")");
    const auto& allowed = formal.GetTypes();
    bool found = allowed.empty();
    for (const std::string* candidate : allowed) found |= *candidate == tensor_type;
    entry->second = found;
  }
  return entry->second;
}

absl::Status checkInputTypes(const onnx::OpSchema& schema, const ir::Node& node) {
  const std::vector<onnx::OpSchema::FormalParameter>& formals = schema.inputs();
  for (size_t i = 0; i < node.numInputs() && !formals.empty(); ++i) {
    const onnx::OpSchema::FormalParameter& formal = formals[std::min(i, formals.size() - 1)];
    const std::optional<Declared> type = declared(node.input(i));
    if (!type || type->elem_type == onnx::TensorProto::UNDEFINED) continue;
    if (!formalTakes(formal, type->elem_type)) {
      const std::string tensor_type =
          absl::StrCat("tensor(", ir::elemTypeName(type->elem_type), ")");
      return malformed(node, absl::StrCat("input ", i, " ('", node.input(i)->name(), "') is ",
                                          tensor_type, ", which ", node.opType(), "-",
                                          schema.SinceVersion(), " does not take there"));
    }
  }
  return absl::OkStatus();
}

// A Cast's `to` must be an element type its version produces: ONNX Runtime refuses the model
// otherwise (`to = 0`, a float8 type before Cast-19), and no pass may take such a Cast for a
// no-op.
absl::Status checkCastTarget(const onnx::OpSchema& schema, const ir::Node& node) {
  const ir::Attribute* to = node.attr("to");
  if (to == nullptr || to->kind() != onnx::AttributeProto::INT || schema.outputs().empty()) {
    return absl::OkStatus();
  }
  const int32_t target = ir::elemTypeFromAttribute(to->i());
  if (target != onnx::TensorProto::UNDEFINED && formalTakes(schema.outputs()[0], target)) {
    return absl::OkStatus();
  }
  return malformed(node, absl::StrCat("to = ", to->i(), " is not an element type ", node.opType(),
                                      "-", schema.SinceVersion(), " produces"));
}

std::optional<int64_t> declaredRank(const ir::Value* value) {
  const std::optional<Declared> type = declared(value);
  return type ? type->rank : std::nullopt;
}

absl::Status checkPerm(const ir::Node& node) {
  const ir::Attribute* perm = node.attr("perm");
  if (perm == nullptr || perm->kind() != onnx::AttributeProto::INTS) return absl::OkStatus();
  const std::vector<int64_t> axes(perm->ints().begin(), perm->ints().end());
  const std::optional<int64_t> rank = declaredRank(node.input(0));
  if ((!rank || *rank == static_cast<int64_t>(axes.size())) && isPermutation(axes)) {
    return absl::OkStatus();
  }
  return malformed(node, absl::StrCat("perm [", absl::StrJoin(axes, ","),
                                      "] is not a permutation of the input's ",
                                      rank ? absl::StrCat(*rank, " axes") : "axes"));
}

// Ops whose `axis` must index their first input, and whether axis == rank is allowed too.
struct AxisRule {
  const char* op;
  bool rank_inclusive;
};
constexpr AxisRule kAxisRules[] = {
    {"Concat", false},  {"Gather", false}, {"GatherElements", false}, {"Split", false},
    {"Softmax", false}, {"LogSoftmax", false}, {"Hardmax", false},   {"Flatten", true},
};

absl::Status checkAxis(const ir::Node& node) {
  // Most nodes have no axis: asking for it first spares them the op-type comparisons.
  const ir::Attribute* axis = node.attr("axis");
  if (axis == nullptr || axis->kind() != onnx::AttributeProto::INT) return absl::OkStatus();
  for (const AxisRule& rule : kAxisRules) {
    if (node.opType() != rule.op) continue;
    const std::optional<int64_t> rank = declaredRank(node.input(0));
    if (!rank) break;
    const int64_t high = rule.rank_inclusive ? *rank : *rank - 1;
    if (axis->i() < -*rank || axis->i() > high) {
      return malformed(node, absl::StrCat("axis ", axis->i(), " is outside [", -*rank, ", ", high,
                                          "] for its rank-", *rank, " input"));
    }
    break;
  }
  return absl::OkStatus();
}

absl::Status checkGraphNodes(const ir::Graph& graph);

}  // namespace

absl::Status checkNode(const ir::Node& node) {
  const onnx::OpSchema* schema = schemaOf(node);
  if (schema == nullptr) return absl::OkStatus();
  if (absl::Status status = checkAttributes(node); !status.ok()) return status;
  for (const ir::Attribute& attribute : node.attributes()) {
    if (schema->attributes().count(attribute.name()) == 0 &&
        refusesUnknownAttribute(*schema, node, attribute)) {
      return malformed(node, absl::StrCat("attribute '", attribute.name(), "' is not one ",
                                          node.opType(), "-", schema->SinceVersion(), " defines"));
    }
  }
  if (absl::Status status = checkArity(*schema, node); !status.ok()) return status;
  if (absl::Status status = checkInputTypes(*schema, node); !status.ok()) return status;
  if (node.is("Transpose")) {
    if (absl::Status status = checkPerm(node); !status.ok()) return status;
  }
  if (node.is("Cast")) {
    if (absl::Status status = checkCastTarget(*schema, node); !status.ok()) return status;
  }
  return checkAxis(node);
}

absl::Status checkNodeNeighbourhood(const ir::Node& node, int producer_hops) {
  if (absl::Status status = checkNode(node); !status.ok()) return status;
  std::vector<const ir::Node*> level = {&node};
  absl::flat_hash_set<const ir::Node*> seen = {&node};
  for (int hop = 0; hop < producer_hops && !level.empty(); ++hop) {
    std::vector<const ir::Node*> next;
    for (const ir::Node* reached : level) {
      for (const ir::Value* input : reached->inputs()) {
        if (input == nullptr || input->producer() == nullptr) continue;
        const ir::Node* producer = input->producer();
        if (!seen.insert(producer).second) continue;
        if (absl::Status status = checkNode(*producer); !status.ok()) return status;
        next.push_back(producer);
      }
    }
    level = std::move(next);
  }
  for (const ir::Value* output : node.outputs()) {
    if (output == nullptr) continue;
    for (const ir::Use& use : output->uses()) {
      if (use.user() == nullptr) continue;
      if (absl::Status status = checkNode(*use.user()); !status.ok()) return status;
    }
  }
  return absl::OkStatus();
}

namespace {

// Subgraphs nest no deeper than ir::checkGraphNesting allows, which loading checked.
absl::Status checkGraphNodes(const ir::Graph& graph) {
  for (const ir::Node& node : graph) {
    if (absl::Status status = checkNode(node); !status.ok()) return status;
    for (const ir::Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        if (absl::Status status = checkGraphNodes(*subgraph); !status.ok()) return status;
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status checkModelNodes(const ir::Model& model) {
  return checkGraphNodes(model.graph());
}

}  // namespace onnxopt
