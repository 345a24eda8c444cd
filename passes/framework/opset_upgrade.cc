#include "onnxopt/pass/opset_upgrade.h"

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "onnx/version_converter/convert.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/declarations.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "onnx_inference.h"

namespace onnxopt {
namespace {

bool isDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::optional<int64_t> defaultOpset(const onnx::ModelProto& model) {
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    if (isDefaultDomain(opset.domain())) return opset.version();
  }
  return std::nullopt;
}

// The IR version of the ONNX release that introduced `opset` (ONNX's docs/Versioning.md).
int64_t irVersionOf(int64_t opset) {
  if (opset <= 8) return 3;
  if (opset <= 11) return opset - 5;  // 9: 4, 10: 5, 11: 6
  if (opset <= 14) return 7;
  return 8;
}

// The converter's own tables, read through its protected members: which ops it knows and which
// steps it has adapters for. Building them registers every adapter, so there is one.
class AdapterTable : public onnx::version_conversion::DefaultVersionConverter {
 public:
  static const AdapterTable& get() {
    static const AdapterTable* table = new AdapterTable;
    return *table;
  }

  // Empty when every step from `from` to `to` of `op` has an adapter (or needs none); else why
  // not.
  std::string problem(const std::string& op, int64_t from, int64_t to) const {
    auto schemas = all_schemas.find(op);
    if (schemas == all_schemas.end()) return "ONNX 1.12 does not know the op";
    auto versions = schemas->second.find("");
    if (versions == schemas->second.end()) return "ONNX 1.12 does not know the op";
    auto adapters_of_op = adapters.find(op);
    for (int64_t v = from; v < to; ++v) {
      // The converter looks for an adapter where the op has a schema of version v + 1.
      if (versions->second.count(v + 1) == 0) continue;
      const std::string initial = onnx::OpSetID(v).toString();
      const std::string target = onnx::OpSetID(v + 1).toString();
      bool found = false;
      if (adapters_of_op != adapters.end()) {
        auto from_initial = adapters_of_op->second.find(initial);
        found = from_initial != adapters_of_op->second.end() &&
                from_initial->second.count(target) != 0;
      }
      if (!found) {
        return absl::StrCat("ONNX 1.12's version converter has no adapter from opset ", v, " to ",
                            v + 1);
      }
    }
    return "";
  }
};

std::string describeNode(const onnx::NodeProto& node) {
  const std::string op =
      absl::StrCat(node.domain(), node.domain().empty() ? "" : ".", node.op_type());
  if (!node.name().empty()) return absl::StrCat("node '", node.name(), "' (", op, ")");
  if (node.output_size() > 0) {
    return absl::StrCat("node with output '", node.output(0), "' (", op, ")");
  }
  return absl::StrCat("an unnamed ", op, " node without outputs");
}

template <typename Fn>
void forEachGraphProto(onnx::GraphProto& graph, Fn&& fn) {
  fn(graph);
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) forEachGraphProto(*attribute.mutable_g(), fn);
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) {
        forEachGraphProto(subgraph, fn);
      }
    }
  }
}

// The opset from which Resize has coordinate_transformation_mode and nearest_mode.
constexpr int64_t kResizeModesOpset = 11;

bool isResizeBeforeModes(const ir::Node& node) {
  return (node.opType() == "Resize" || node.opType() == "Upsample") &&
         isDefaultDomain(node.domain());
}

// The nearest_mode a Resize or Upsample below opset 11 becomes at 11 and later, where ONNX 1.12's
// converter leaves the new defaults (half_pixel, round_prefer_floor) in place of the old
// behaviour that ONNX Runtime keeps for them: asymmetric coordinates, and a nearest pixel
// rounded down where an axis grows and up where it shrinks. "" for linear mode, which needs the
// coordinates alone. An error where one nearest_mode cannot say it: scales that are not
// constant, or that grow one axis and shrink another.
absl::StatusOr<std::string> nearestModeAtOpset11(const ir::Node& node) {
  const ir::Attribute* mode = node.attr("mode");
  if (mode != nullptr && mode->s() != "nearest") return std::string();
  std::optional<std::vector<double>> scales;
  if (const ir::Attribute* attribute = node.attr("scales")) {
    scales.emplace(attribute->floats().begin(), attribute->floats().end());
  } else if (node.numInputs() > 1 && node.input(1) != nullptr) {
    absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*node.input(1));
    if (!constant.ok()) return constant.status();
    if (*constant) scales = (*constant)->asDoubles();
  }
  if (!scales) {
    return absl::UnimplementedError(
        "its scales are not a constant, and ONNX Runtime rounds its nearest pixel down where "
        "it upsamples and up where it downsamples: no nearest_mode of opset 11 says which");
  }
  const bool grows = std::any_of(scales->begin(), scales->end(), [](double s) { return s > 1; });
  const bool shrinks = std::any_of(scales->begin(), scales->end(), [](double s) { return s < 1; });
  if (grows && shrinks) {
    return absl::UnimplementedError(
        "it upsamples one axis and downsamples another, which ONNX Runtime rounds down and up: "
        "no one nearest_mode of opset 11 does both");
  }
  return std::string(shrinks ? "ceil" : "floor");
}

// Why ONNX 1.12's converter would change what `node` computes under ONNX Runtime, where its
// adapters carry the node over as it is; "" where it would not.
std::string changedMeaning(const ir::Node& node, int64_t from, int64_t to,
                           const std::function<ShapeOracle&()>& shapes) {
  if (node.opType() == "Hardmax" && from < 13 && to >= 13) {
    const ir::Attribute* axis_attribute = node.attr("axis");
    const int64_t axis = axis_attribute != nullptr ? axis_attribute->i() : 1;
    const std::optional<int64_t> rank =
        node.input(0) != nullptr ? shapes().rankOf(*node.input(0)) : std::nullopt;
    if (!rank || (axis != -1 && axis != *rank - 1)) {
      return "below opset 13 Hardmax takes one maximum over its input flattened from `axis` on, "
             "from 13 one along `axis` alone, and ONNX 1.12's converter keeps the node as it is "
             "(the same only where `axis` is the last of a known rank)";
    }
  }
  if (node.opType() == "Dropout" && from < 12 && to >= 12 && node.numOutputs() > 1 &&
      node.output(1) != nullptr && (node.output(1)->hasUses() || node.output(1)->isGraphOutput())) {
    return "its mask is read, which ONNX Runtime gives all false below opset 12 and all true "
           "from 12";
  }
  return "";
}

absl::Status checkConvertible(ir::Model& model, int64_t from, int64_t to) {
  const AdapterTable& table = AdapterTable::get();
  absl::Status status;
  std::optional<ShapeOracle> oracle;
  const std::function<ShapeOracle&()> shapes = [&]() -> ShapeOracle& {
    if (!oracle) oracle.emplace(model);
    return *oracle;
  };
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    for (const ir::Node& node : graph) {
      if (!status.ok()) return;
      std::string problem =
          isDefaultDomain(node.domain())
              ? table.problem(node.opType(), from, to)
              : "the version converter converts only ops of the ONNX domain";
      if (problem.empty() && isDefaultDomain(node.domain())) {
        problem = changedMeaning(node, from, to, shapes);
      }
      if (problem.empty() && from < kResizeModesOpset && to >= kResizeModesOpset &&
          isResizeBeforeModes(node)) {
        const absl::StatusOr<std::string> nearest_mode = nearestModeAtOpset11(node);
        if (!nearest_mode.ok()) problem = std::string(nearest_mode.status().message());
      }
      if (!problem.empty()) {
        status = absl::UnimplementedError(absl::StrCat("cannot raise the opset from ", from,
                                                       " to ", to, ": ", ir::describe(node), ": ",
                                                       problem));
      }
    }
  });
  return status;
}

// Small tensors of any type (shape, axes and pads operands, Range's scalars, Resize's scales)
// stay in the model for shape inference to read: a tensor set aside leaves a stub of its dims
// without data, whose first element libonnx 1.12's Range inference reads past the end.
constexpr int kKeptElements = 64;

bool keptForShapeInference(const onnx::TensorProto& tensor) {
  int64_t elements = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0 || dim > kKeptElements) return false;
    elements *= dim;
    if (elements > kKeptElements) return false;
  }
  return true;
}

// The initializers' data, taken out of a model for the conversion (the converter copies every
// tensor it is given, twice) and put back into the converted model by name.
class SetAside {
 public:
  void take(onnx::ModelProto& model) {
    // A name two graphs give an initializer could not say which one to put back: those stay in
    // the model, copied.
    absl::flat_hash_map<std::string, int> uses;
    forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
      for (const onnx::TensorProto& tensor : graph.initializer()) ++uses[tensor.name()];
    });
    forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
      for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
        if (uses[tensor.name()] != 1 || keptForShapeInference(tensor)) continue;
        onnx::TensorProto stub;
        stub.set_name(tensor.name());
        stub.set_data_type(tensor.data_type());
        *stub.mutable_dims() = tensor.dims();
        stub.Swap(&tensor);
        index_[stub.name()] = tensors_.size();
        tensors_.push_back(std::move(stub));
      }
    });
  }

  // Puts every tensor taken whose stub `model` still has back in place.
  void putBack(onnx::ModelProto& model) {
    forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
      for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
        auto it = index_.find(tensor.name());
        if (it == index_.end()) continue;
        onnx::TensorProto& original = tensors_[it->second];
        if (original.name().empty()) continue;  // put back already
        tensor.Swap(&original);
        original.Clear();
      }
    });
  }

 private:
  std::vector<onnx::TensorProto> tensors_;
  absl::flat_hash_map<std::string, size_t> index_;
};

// The declared types of a model's values (graph inputs, outputs, value_info), per graph in
// forEachGraphProto's order: names are per scope (a body may reuse an outer value's name for a
// value of another type). The converted model declares them again, so that shape inference,
// which the adapters need, adds nothing to the model and refines none of its declarations.
class Declarations {
 public:
  explicit Declarations(onnx::ModelProto& model) {
    forEachGraphProto(*model.mutable_graph(), [this](onnx::GraphProto& graph) {
      Scope& scope = scopes_.emplace_back();
      for (const onnx::ValueInfoProto& info : graph.input()) scope.types.emplace(info.name(), info.type());
      for (const onnx::ValueInfoProto& info : graph.output()) scope.types.emplace(info.name(), info.type());
      for (const onnx::ValueInfoProto& info : graph.value_info()) {
        scope.types.emplace(info.name(), info.type());
        scope.value_infos.insert(info.name());
      }
    });
  }

  // An error when `model` does not have the graphs the original had, in the same order.
  absl::Status restore(onnx::ModelProto& model) const {
    size_t next = 0;
    forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
      if (next++ >= scopes_.size()) return;
      const Scope& scope = scopes_[next - 1];
      for (auto* infos : {graph.mutable_input(), graph.mutable_output()}) {
        for (onnx::ValueInfoProto& info : *infos) {
          auto it = scope.types.find(info.name());
          if (it != scope.types.end()) *info.mutable_type() = it->second;
        }
      }
      auto* infos = graph.mutable_value_info();
      int kept = 0;
      for (int i = 0; i < infos->size(); ++i) {
        onnx::ValueInfoProto& info = *infos->Mutable(i);
        if (scope.value_infos.count(info.name()) == 0) continue;
        *info.mutable_type() = scope.types.at(info.name());
        if (kept != i) infos->SwapElements(kept, i);
        ++kept;
      }
      infos->DeleteSubrange(kept, infos->size() - kept);
    });
    if (next == scopes_.size()) return absl::OkStatus();
    return absl::InternalError(absl::StrCat("ONNX's version converter returned a model with ", next,
                                            " graphs where the original had ", scopes_.size()));
  }

 private:
  struct Scope {
    absl::flat_hash_map<std::string, onnx::TypeProto> types;
    absl::flat_hash_set<std::string> value_infos;
  };
  std::vector<Scope> scopes_;
};

}  // namespace

absl::Status checkTargetOpset(int64_t target_opset) {
  if (target_opset >= 1 && target_opset <= kMaxTargetOpset) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--target-opset ", target_opset, ": ONNX 1.12's version converter converts to opsets 1 to ",
      kMaxTargetOpset));
}

namespace {

// What onnx-opt's shape analysis knows of each graph's node outputs beyond what the model
// declares, as value_info entries per graph in the order forEachGraph() and
// forEachGraphProto() visit them (the export keeps it): ONNX 1.12's inference leaves some of
// them unknown (the output of a Reshape to a computed shape), and adapters need their rank
// (Softmax 12 -> 13) or dims (the Reshape that adapter adds writes -1 for each one not known).
// A declared dim the analysis does not know stays (declarations are legalized first: none
// contradicts a fact).
std::vector<std::vector<onnx::ValueInfoProto>> shapeHints(ir::Model& model, ShapeOracle& shapes) {
  std::vector<std::vector<onnx::ValueInfoProto>> hints;
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    std::vector<onnx::ValueInfoProto>& graph_hints = hints.emplace_back();
    for (const ir::Node& node : graph) {
      for (const ir::Value* output : node.outputs()) {
        if (output == nullptr) continue;
        const ir::Type& fact = shapes.inferredTypeOf(*output);
        if (fact.elemType() == 0 || !fact.shape()) continue;
        const ir::Type declared = output->type();
        ir::Shape dims = *fact.shape();
        bool adds = !declared.shape() || declared.shape()->size() != dims.size();
        for (size_t i = 0; !adds && i < dims.size(); ++i) {
          const ir::Dim& said = (*declared.shape())[i];
          if (!said.isKnown() && dims[i].isKnown()) adds = true;
          if (!dims[i].isKnown()) dims[i] = said;
        }
        if (!adds) continue;
        onnx::ValueInfoProto& hint = graph_hints.emplace_back();
        hint.set_name(output->name());
        ir::Type::tensor(fact.elemType(), std::move(dims)).writeTo(hint.mutable_type());
      }
    }
  });
  return hints;
}

// The opset before which Pad takes its pads and value as attributes.
constexpr int64_t kPadInputsOpset = 11;

std::string padMode(const onnx::NodeProto& pad) {
  for (const onnx::AttributeProto& attribute : pad.attribute()) {
    if (attribute.name() == "mode") return attribute.s();
  }
  return "constant";
}

bool isPad(const onnx::NodeProto& node) {
  return node.op_type() == "Pad" && isDefaultDomain(node.domain());
}

// What the conversion needs to know of the model that its protos do not say.
struct ConversionFacts {
  std::vector<std::vector<onnx::ValueInfoProto>> hints;  // see shapeHints()
  // The element type of each Pad's and Clip's input by the node's first output (0: not known),
  // per graph in the order forEachGraph() and forEachGraphProto() visit them (the export keeps
  // it), where the model is below opset 11: ONNX 1.12's Pad 10 -> 11 and Clip 10 -> 11 adapters
  // make the pad value and the bounds floats whatever the input's type.
  std::vector<absl::flat_hash_map<std::string, int32_t>> float_operand_input_types;
  // The nearest_mode of each Resize and Upsample below opset 11 by its first output ("" for
  // linear mode), per graph as float_operand_input_types: see nearestModeAtOpset11().
  std::vector<absl::flat_hash_map<std::string, std::string>> resize_nearest_modes;
};

ConversionFacts conversionFacts(ir::Model& model, int64_t from) {
  ConversionFacts facts;
  ShapeOracle shapes(model);
  facts.hints = shapeHints(model, shapes);
  if (from >= kPadInputsOpset) return facts;
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    absl::flat_hash_map<std::string, int32_t>& types = facts.float_operand_input_types.emplace_back();
    absl::flat_hash_map<std::string, std::string>& modes = facts.resize_nearest_modes.emplace_back();
    for (const ir::Node& node : graph) {
      if (node.output(0) == nullptr) continue;
      if ((node.is("Pad") || node.is("Clip")) && node.input(0) != nullptr) {
        types[node.output(0)->name()] = shapes.elemTypeOf(*node.input(0));
      }
      if (isResizeBeforeModes(node)) {
        absl::StatusOr<std::string> nearest_mode = nearestModeAtOpset11(node);
        if (nearest_mode.ok()) modes[node.output(0)->name()] = *std::move(nearest_mode);
      }
    }
  });
  return facts;
}

// Pads below opset 11 in the form ONNX 1.12's Pad 10 -> 11 adapter reads: it asserts on a
// constant-mode Pad without `value` (the spec's default is 0), and keeps a `value` that another
// mode ignores, which Pad-11 does not define.
void spellOutPadValues(onnx::ModelProto& model) {
  forEachGraphProto(*model.mutable_graph(), [](onnx::GraphProto& graph) {
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (!isPad(node)) continue;
      const bool constant = padMode(node) == "constant";
      auto* attributes = node.mutable_attribute();
      auto value = std::find_if(attributes->begin(), attributes->end(),
                                [](const onnx::AttributeProto& a) { return a.name() == "value"; });
      if (constant && value == attributes->end()) {
        onnx::AttributeProto* zero = node.add_attribute();
        zero->set_name("value");
        zero->set_type(onnx::AttributeProto::FLOAT);
        zero->set_f(0.0f);
      } else if (!constant && value != attributes->end()) {
        attributes->erase(value);
      }
    }
  });
}

// The float operands the Pad 10 -> 11 and Clip 10 -> 11 adapters gave each converted node (a
// Pad's value, a Clip's bounds), in its input's type: written as a float16 or double where the
// input is one; a pad value of 0 is dropped (Pad-11's default). Unimplemented, naming the node,
// where that type is not known.
absl::Status retypeFloatOperands(onnx::ModelProto& model, const ConversionFacts& facts) {
  absl::Status status;
  size_t index = 0;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    if (index >= facts.float_operand_input_types.size()) return;
    const absl::flat_hash_map<std::string, int32_t>& input_types =
        facts.float_operand_input_types[index++];
    absl::flat_hash_map<std::string, onnx::NodeProto*> constants;
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (node.op_type() == "Constant" && node.output_size() == 1) constants[node.output(0)] = &node;
    }
    absl::flat_hash_set<std::string> dropped;
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (!status.ok() || node.output_size() == 0 || !isDefaultDomain(node.domain())) continue;
      const bool pad = node.op_type() == "Pad";
      if (!pad && node.op_type() != "Clip") continue;
      const auto type = input_types.find(node.output(0));
      if (type == input_types.end()) continue;
      for (int operand = pad ? 2 : 1; operand < std::min(node.input_size(), 3); ++operand) {
        const auto constant = constants.find(node.input(operand));
        if (constant == constants.end()) continue;
        onnx::TensorProto* value = constant->second->mutable_attribute(0)->mutable_t();
        if (value->data_type() != onnx::TensorProto::FLOAT || value->float_data_size() != 1) continue;
        const float number = value->float_data(0);
        if (pad && number == 0.0f) {
          node.mutable_input()->RemoveLast();
          dropped.insert(constant->first);
        } else if (type->second == onnx::TensorProto::FLOAT16) {
          value->clear_float_data();
          value->set_data_type(onnx::TensorProto::FLOAT16);
          value->add_int32_data(floatToHalf(number));
        } else if (type->second == onnx::TensorProto::DOUBLE) {
          value->clear_float_data();
          value->set_data_type(onnx::TensorProto::DOUBLE);
          value->add_double_data(number);
        } else if (type->second != onnx::TensorProto::FLOAT) {
          status = absl::UnimplementedError(absl::StrCat(
              "cannot raise the opset past 10: ", describeNode(node), ": ONNX 1.12's converter "
              "writes its ", pad ? "pad value" : "bounds", " as a float, and the type of its input "
              "is not known"));
        }
      }
    }
    if (dropped.empty()) return;
    auto* nodes = graph.mutable_node();
    nodes->erase(std::remove_if(nodes->begin(), nodes->end(),
                                [&](const onnx::NodeProto& n) {
                                  return n.op_type() == "Constant" && n.output_size() == 1 &&
                                         dropped.count(n.output(0)) != 0;
                                }),
                 nodes->end());
  });
  return status;
}

// Gives each Resize that was below opset 11 the attributes that keep what it computed there
// (ConversionFacts::resize_nearest_modes).
void keepResizeModes(onnx::ModelProto& model, const ConversionFacts& facts) {
  size_t index = 0;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    if (index >= facts.resize_nearest_modes.size()) return;
    const absl::flat_hash_map<std::string, std::string>& modes = facts.resize_nearest_modes[index++];
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      if (node.op_type() != "Resize" || node.output_size() == 0) continue;
      const auto mode = modes.find(node.output(0));
      if (mode == modes.end()) continue;
      auto* attributes = node.mutable_attribute();
      attributes->erase(std::remove_if(attributes->begin(), attributes->end(),
                                       [](const onnx::AttributeProto& a) {
                                         return a.name() == "coordinate_transformation_mode" ||
                                                a.name() == "nearest_mode";
                                       }),
                        attributes->end());
      onnx::AttributeProto* coordinates = node.add_attribute();
      coordinates->set_name("coordinate_transformation_mode");
      coordinates->set_type(onnx::AttributeProto::STRING);
      coordinates->set_s("asymmetric");
      if (mode->second.empty()) continue;
      onnx::AttributeProto* nearest = node.add_attribute();
      nearest->set_name("nearest_mode");
      nearest->set_type(onnx::AttributeProto::STRING);
      nearest->set_s(mode->second);
    }
  });
}

// ONNX 1.12's Softmax 12 -> 13 adapter (also LogSoftmax's and Hardmax's) reshapes the result
// of a softmax over another axis than the last back to its input's dims, writing -1 for each
// dim its shape inference did not know: with two of them the Reshape it adds is invalid.
// Unimplemented, naming the node, for such a Reshape among the nodes the conversion added.
absl::Status checkAddedReshapes(onnx::ModelProto& model,
                                const std::vector<absl::flat_hash_set<std::string>>& original) {
  absl::Status status;
  size_t index = 0;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    const absl::flat_hash_set<std::string>& own = original[index++];
    absl::flat_hash_map<std::string, const onnx::TensorProto*> added_constants;
    for (const onnx::NodeProto& node : graph.node()) {
      if (node.op_type() == "Constant" && node.output_size() == 1 && node.attribute_size() == 1 &&
          own.count(node.output(0)) == 0) {
        added_constants[node.output(0)] = &node.attribute(0).t();
      }
    }
    for (const onnx::NodeProto& node : graph.node()) {
      if (!status.ok() || node.op_type() != "Reshape" || node.input_size() != 2) continue;
      const auto target = added_constants.find(node.input(1));
      if (target == added_constants.end()) continue;
      const auto& dims = target->second->int64_data();
      if (std::count(dims.begin(), dims.end(), -1) < 2) continue;
      status = absl::UnimplementedError(absl::StrCat(
          "cannot raise the opset past 12: the softmax with output '", node.output(0),
          "': ONNX 1.12's converter reshapes its result back to its input's dims, of which more "
          "than one is not known"));
    }
  });
  return status;
}

// The names of the values each graph defines (inputs, initializers, node outputs), per graph
// in forEachGraphProto's order.
std::vector<absl::flat_hash_set<std::string>> definedNames(onnx::ModelProto& model) {
  std::vector<absl::flat_hash_set<std::string>> names;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    absl::flat_hash_set<std::string>& defined = names.emplace_back();
    for (const onnx::ValueInfoProto& input : graph.input()) defined.insert(input.name());
    for (const onnx::TensorProto& initializer : graph.initializer()) defined.insert(initializer.name());
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& output : node.output()) defined.insert(output);
    }
  });
  return names;
}

// The converter names the values its adapters add by a count that each graph starts afresh, so
// an adapter's value in a body can take the name of one outside, which ONNX Runtime refuses
// (not single static assignment). Each added value whose name another graph defines is renamed
// where its graph defines and reads it (an adapter's value is read by the node it adapted).
// `original`: definedNames() of the model before the conversion, which has the same graphs.
void renameClashingAddedValues(onnx::ModelProto& model,
                               const std::vector<absl::flat_hash_set<std::string>>& original) {
  absl::flat_hash_set<std::string> taken;
  for (const auto& defined : original) taken.insert(defined.begin(), defined.end());
  int64_t next_suffix = 0;
  size_t index = 0;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    const absl::flat_hash_set<std::string>& own = original[index++];
    absl::flat_hash_map<std::string, std::string> renamed;
    auto define = [&](std::string* name) {
      if (name->empty() || own.count(*name) != 0 || taken.insert(*name).second) return;
      std::string fresh;
      do fresh = absl::StrCat("opset_upgrade_", next_suffix++); while (!taken.insert(fresh).second);
      renamed[*name] = fresh;
      *name = fresh;
    };
    for (onnx::TensorProto& initializer : *graph.mutable_initializer()) define(initializer.mutable_name());
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      for (std::string& output : *node.mutable_output()) define(&output);
    }
    if (renamed.empty()) return;
    auto rename = [&](std::string* name) {
      auto it = renamed.find(*name);
      if (it != renamed.end()) *name = it->second;
    };
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      for (std::string& input : *node.mutable_input()) rename(&input);
    }
    for (onnx::ValueInfoProto& output : *graph.mutable_output()) rename(output.mutable_name());
  });
}

// Each hint as its graph's value_info entry of its name: a declared entry takes the hint's
// type, the others are added.
void addHints(const std::vector<std::vector<onnx::ValueInfoProto>>& hints, onnx::ModelProto& model) {
  size_t index = 0;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    if (index >= hints.size()) return;
    absl::flat_hash_map<std::string, onnx::ValueInfoProto*> declared;
    for (onnx::ValueInfoProto& info : *graph.mutable_value_info()) declared.emplace(info.name(), &info);
    for (const onnx::ValueInfoProto& hint : hints[index++]) {
      auto it = declared.find(hint.name());
      if (it != declared.end()) {
        *it->second->mutable_type() = hint.type();
      } else {
        *graph.add_value_info() = hint;
      }
    }
  });
}

// upgradeOpset() of the exported model: `facts.hints` given to the shape inference the
// adapters read (the converted model declares what the original did, the hints not).
absl::Status upgradeWithFacts(onnx::ModelProto& model, int64_t target_opset,
                              const ConversionFacts& facts) {
  const std::optional<int64_t> from = defaultOpset(model);
  SetAside weights;
  weights.take(model);
  const Declarations declarations(model);
  onnx::ModelProto converted;
  std::string failure;
  try {
    // Some adapters need their input's rank (Softmax 12 -> 13), which exports seldom declare:
    // shape inference gives it, on a copy of the model without its weights.
    onnx::ModelProto probe = model;
    addHints(facts.hints, probe);
    if (*from < kPadInputsOpset && target_opset >= kPadInputsOpset) spellOutPadValues(probe);
    try {
      detail::inferShapesGuarded(probe, onnx::ShapeInferenceOptions(false, 0, true));
    } catch (const std::exception&) {
      // Without the shapes, the adapters that need them fail below and say so.
    }
    converted = onnx::version_conversion::ConvertVersion(probe, static_cast<int>(target_opset));
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "unknown exception";
  }
  if (!failure.empty()) {
    weights.putBack(model);
    return absl::InternalError(absl::StrCat("ONNX's version converter failed to raise the opset from ",
                                            *from, " to ", target_opset, ": ", failure));
  }
  const std::vector<absl::flat_hash_set<std::string>> original_names = definedNames(model);
  absl::Status status = declarations.restore(converted);
  if (status.ok()) status = checkAddedReshapes(converted, original_names);
  if (status.ok()) status = retypeFloatOperands(converted, facts);
  if (!status.ok()) {
    weights.putBack(model);
    return status;
  }
  if (target_opset >= kResizeModesOpset) keepResizeModes(converted, facts);
  renameClashingAddedValues(converted, original_names);
  weights.putBack(converted);
  converted.set_ir_version(std::max<int64_t>(converted.ir_version(), irVersionOf(target_opset)));
  model.Swap(&converted);
  return absl::OkStatus();
}

}  // namespace

absl::Status upgradeOpset(onnx::ModelProto& model, int64_t target_opset) {
  if (absl::Status status = checkTargetOpset(target_opset); !status.ok()) return status;
  const std::optional<int64_t> from = defaultOpset(model);
  if (!from.has_value() || *from == target_opset) return absl::OkStatus();
  absl::StatusOr<std::unique_ptr<ir::Model>> imported = ir::importModel(std::move(model));
  if (!imported.ok()) return imported.status();
  const absl::Status status = upgradeOpset(*imported, target_opset);
  absl::StatusOr<onnx::ModelProto> exported = ir::exportModel(*std::move(imported));
  if (!exported.ok()) return exported.status();
  model = *std::move(exported);
  return status;
}

absl::Status upgradeOpset(std::unique_ptr<ir::Model>& model, int64_t target_opset) {
  if (absl::Status status = checkTargetOpset(target_opset); !status.ok()) return status;
  const std::optional<int64_t> from = model->opsetVersion("");
  if (!from.has_value() || *from == target_opset) return absl::OkStatus();
  if (*from > target_opset) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--target-opset ", target_opset, " is below the model's opset ", *from,
        " (onnx-opt raises opsets, it does not lower them)"));
  }
  if (*from < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the model imports the ONNX domain at opset ", *from));
  }
  if (absl::Status status = checkConvertible(*model, *from, target_opset); !status.ok()) {
    return status;
  }
  ir::LoadOptions load;
  load.external_data_dir = model->baseDir();
  // The adapters read declared shapes (Softmax 12 -> 13 reshapes back to one), and the
  // converted nodes let ONNX Runtime's inference know more or less than the original's did (a
  // Split's sizes as a Constant input are not read): a stale declaration would be built into
  // the model, or fail it. A converted model keeps only the declared sizes the facts prove, as
  // a model a pipeline changed does.
  {
    std::optional<ShapeOracle> shapes;
    legalizeDeclarations(
        *model,
        [&]() -> ShapeOracle& {
          if (!shapes) shapes.emplace(*model);
          return *shapes;
        },
        [](const ir::Value&, absl::string_view, const ir::Type&, const ir::Type&) {},
        UnprovenSizes::kDrop);
  }
  const ConversionFacts facts = conversionFacts(*model, *from);
  absl::StatusOr<onnx::ModelProto> proto = ir::exportModel(std::move(model));
  if (!proto.ok()) return proto.status();
  const absl::Status status = upgradeWithFacts(*proto, target_opset, facts);
  absl::StatusOr<std::unique_ptr<ir::Model>> imported = ir::importModel(*std::move(proto), load);
  if (!imported.ok()) return imported.status();
  model = *std::move(imported);
  return status;
}

}  // namespace onnxopt
