#include "onnxopt/pass/opset_upgrade.h"

#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "onnx/version_converter/convert.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/rewrite/shape_oracle.h"
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

absl::Status checkConvertible(onnx::ModelProto& model, int64_t from, int64_t to) {
  const AdapterTable& table = AdapterTable::get();
  absl::Status status;
  forEachGraphProto(*model.mutable_graph(), [&](onnx::GraphProto& graph) {
    for (const onnx::NodeProto& node : graph.node()) {
      if (!status.ok()) return;
      std::string problem;
      if (!isDefaultDomain(node.domain())) {
        problem = "the version converter converts only ops of the ONNX domain";
      } else {
        problem = table.problem(node.op_type(), from, to);
      }
      if (!problem.empty()) {
        status = absl::UnimplementedError(absl::StrCat("cannot raise the opset from ", from,
                                                       " to ", to, ": ", describeNode(node), ": ",
                                                       problem));
      }
    }
  });
  return status;
}

// Small INT64 tensors (shape, axes and pads operands) stay in the model for shape inference to
// read.
constexpr int kKeptInt64Elements = 64;

bool keptForShapeInference(const onnx::TensorProto& tensor) {
  if (tensor.data_type() != onnx::TensorProto::INT64) return false;
  int64_t elements = 1;
  for (int64_t dim : tensor.dims()) elements *= dim;
  return elements <= kKeptInt64Elements;
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

// The declared types of a model's values (graph inputs, outputs, value_info of every graph), by
// name: what the converted model declares again, so that shape inference, which the adapters
// need, adds nothing to the model and refines none of its declarations.
class Declarations {
 public:
  explicit Declarations(onnx::ModelProto& model) {
    forEachGraphProto(*model.mutable_graph(), [this](onnx::GraphProto& graph) {
      for (const onnx::ValueInfoProto& info : graph.input()) types_.emplace(info.name(), info.type());
      for (const onnx::ValueInfoProto& info : graph.output()) types_.emplace(info.name(), info.type());
      for (const onnx::ValueInfoProto& info : graph.value_info()) {
        types_.emplace(info.name(), info.type());
        value_infos_.insert(info.name());
      }
    });
  }

  void restore(onnx::ModelProto& model) const {
    forEachGraphProto(*model.mutable_graph(), [this](onnx::GraphProto& graph) {
      for (auto* infos : {graph.mutable_input(), graph.mutable_output()}) {
        for (onnx::ValueInfoProto& info : *infos) {
          auto it = types_.find(info.name());
          if (it != types_.end()) *info.mutable_type() = it->second;
        }
      }
      auto* infos = graph.mutable_value_info();
      int kept = 0;
      for (int i = 0; i < infos->size(); ++i) {
        onnx::ValueInfoProto& info = *infos->Mutable(i);
        if (value_infos_.count(info.name()) == 0) continue;
        *info.mutable_type() = types_.at(info.name());
        if (kept != i) infos->SwapElements(kept, i);
        ++kept;
      }
      infos->DeleteSubrange(kept, infos->size() - kept);
    });
  }

 private:
  absl::flat_hash_map<std::string, onnx::TypeProto> types_;
  absl::flat_hash_set<std::string> value_infos_;
};

}  // namespace

absl::Status checkTargetOpset(int64_t target_opset) {
  if (target_opset >= 1 && target_opset <= kMaxTargetOpset) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "--target-opset ", target_opset, ": ONNX 1.12's version converter converts to opsets 1 to ",
      kMaxTargetOpset));
}

namespace {

// What onnx-opt's shape analysis knows of the main graph's node outputs that the model declares
// no shape for, as value_info entries: ONNX 1.12's inference leaves some of them unknown (the
// output of a Reshape to a computed shape), and adapters need their rank (Softmax 12 -> 13).
std::vector<onnx::ValueInfoProto> shapeHints(ir::Model& model) {
  ShapeOracle shapes(model);
  std::vector<onnx::ValueInfoProto> hints;
  for (const ir::Node& node : model.graph()) {
    for (const ir::Value* output : node.outputs()) {
      if (output == nullptr || output->type().shape()) continue;
      const ir::Type& type = shapes.inferredTypeOf(*output);
      if (type.elemType() == 0 || !type.shape()) continue;
      onnx::ValueInfoProto& hint = hints.emplace_back();
      hint.set_name(output->name());
      type.writeTo(hint.mutable_type());
    }
  }
  return hints;
}

// Each hint as `graph`'s value_info entry of its name: the one declared without a shape takes
// the hint's type, the others are added.
void addHints(const std::vector<onnx::ValueInfoProto>& hints, onnx::GraphProto& graph) {
  absl::flat_hash_map<std::string, onnx::ValueInfoProto*> declared;
  for (onnx::ValueInfoProto& info : *graph.mutable_value_info()) declared.emplace(info.name(), &info);
  for (const onnx::ValueInfoProto& hint : hints) {
    auto it = declared.find(hint.name());
    if (it != declared.end()) {
      *it->second->mutable_type() = hint.type();
    } else {
      *graph.add_value_info() = hint;
    }
  }
}

// upgradeOpset() with `hints` given to the shape inference the adapters read (the converted
// model declares what the original did, the hints not).
absl::Status upgradeWithHints(onnx::ModelProto& model, int64_t target_opset,
                              const std::vector<onnx::ValueInfoProto>& hints) {
  if (absl::Status status = checkTargetOpset(target_opset); !status.ok()) return status;
  const std::optional<int64_t> from = defaultOpset(model);
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
  if (absl::Status status = checkConvertible(model, *from, target_opset); !status.ok()) {
    return status;
  }

  SetAside weights;
  weights.take(model);
  const Declarations declarations(model);
  onnx::ModelProto converted;
  std::string failure;
  try {
    // Some adapters need their input's rank (Softmax 12 -> 13), which exports seldom declare:
    // shape inference gives it, on a copy of the model without its weights.
    onnx::ModelProto probe = model;
    addHints(hints, *probe.mutable_graph());
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
  weights.putBack(converted);
  declarations.restore(converted);
  converted.set_ir_version(std::max<int64_t>(converted.ir_version(), irVersionOf(target_opset)));
  model.Swap(&converted);
  return absl::OkStatus();
}

}  // namespace

absl::Status upgradeOpset(onnx::ModelProto& model, int64_t target_opset) {
  return upgradeWithHints(model, target_opset, {});
}

absl::Status upgradeOpset(std::unique_ptr<ir::Model>& model, int64_t target_opset) {
  if (absl::Status status = checkTargetOpset(target_opset); !status.ok()) return status;
  const std::optional<int64_t> from = model->opsetVersion("");
  if (!from.has_value() || *from == target_opset) return absl::OkStatus();
  ir::LoadOptions load;
  load.external_data_dir = model->baseDir();
  const std::vector<onnx::ValueInfoProto> hints = shapeHints(*model);
  absl::StatusOr<onnx::ModelProto> proto = ir::exportModel(std::move(model));
  if (!proto.ok()) return proto.status();
  const absl::Status status = upgradeWithHints(*proto, target_opset, hints);
  absl::StatusOr<std::unique_ptr<ir::Model>> imported = ir::importModel(*std::move(proto), load);
  if (!imported.ok()) return imported.status();
  model = *std::move(imported);
  return status;
}

}  // namespace onnxopt
