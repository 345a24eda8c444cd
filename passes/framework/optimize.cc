// The one-call API (include/onnxopt/onnxopt.h): load, run a PassManager, save.

#include "onnxopt/onnxopt.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace onnxopt {
namespace {

const PassRegistry& registryOf(const OptimizeOptions& options) {
  return options.registry ? *options.registry : PassRegistry::global();
}

ir::LoadOptions loadOptionsOf(const OptimizeOptions& options) {
  ir::LoadOptions load;
  load.external_data_dir = options.external_data_dir;
  return load;
}

absl::Status verifyInput(const ir::Model& model) {
  absl::Status status = ir::verify(model);
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat("invalid model: ", status.message()));
}

// ---- Export into the caller's proto without copying the weights ----
//
// ir::exportModel copies every tensor, and the IR offers no export that consumes the model. The
// model is ours and dies right after, so: take the tensors (initializers, TENSOR and TENSORS
// attributes, in every graph) out of the IR, export the rest (a copy of everything but the
// weights), then swap the tensors into the places the export made for them. Both walks visit
// tensors in the exporter's order (nodes, their attributes, the attributes' subgraphs; then the
// initializers); the second checks that the exported proto has the IR's shape and names, and
// anything unexpected puts the tensors back and falls back to the copying export.

struct TakenTensor {
  onnx::TensorProto* ir_slot = nullptr;  // where it came from in the IR
  const ir::Value* initializer = nullptr;  // for initializers: the value naming it
  int alias_of = -1;   // an initializer sharing the tensor of an earlier one: copied from it
  onnx::TensorProto tensor;
};

void takeTensors(ir::Graph& graph, std::vector<TakenTensor>& taken,
                 absl::flat_hash_map<const ir::Tensor*, int>& seen) {
  auto take = [&taken](onnx::TensorProto* slot, const ir::Value* initializer) {
    TakenTensor& entry = taken.emplace_back();
    entry.ir_slot = slot;
    entry.initializer = initializer;
    entry.tensor.Swap(slot);
  };
  for (ir::Node& node : graph) {
    for (ir::Attribute& attribute : node.mutableAttributes()) {
      onnx::AttributeProto& proto = attribute.mutableProto();
      if (proto.has_t()) take(proto.mutable_t(), nullptr);
      for (onnx::TensorProto& tensor : *proto.mutable_tensors()) take(&tensor, nullptr);
      for (auto& subgraph : attribute.mutableGraphs()) takeTensors(*subgraph, taken, seen);
    }
  }
  for (ir::Value* value : graph.initializers()) {
    if (!value->isInitializer()) continue;  // sparse initializers export separately
    ir::Tensor* tensor = value->initializer().get();
    auto [it, inserted] = seen.try_emplace(tensor, static_cast<int>(taken.size()));
    if (inserted) {
      take(&tensor->mutableProto(), value);
    } else {
      TakenTensor& entry = taken.emplace_back();
      entry.initializer = value;
      entry.alias_of = it->second;
    }
  }
}

// The exported places of the tensors takeTensors() took, in the same order; false if the
// exported graph does not mirror the IR.
bool findExportedTensors(ir::Graph& graph, onnx::GraphProto& out,
                         std::vector<onnx::TensorProto*>& slots) {
  if (static_cast<size_t>(out.node_size()) != graph.numNodes()) return false;
  int node_index = 0;
  for (ir::Node& node : graph) {
    onnx::NodeProto& node_out = *out.mutable_node(node_index++);
    if (node_out.op_type() != node.opType() ||
        static_cast<size_t>(node_out.attribute_size()) != node.attributes().size()) {
      return false;
    }
    int attribute_index = 0;
    for (ir::Attribute& attribute : node.mutableAttributes()) {
      onnx::AttributeProto& attribute_out = *node_out.mutable_attribute(attribute_index++);
      if (attribute_out.name() != attribute.name()) return false;
      if (attribute_out.has_t()) slots.push_back(attribute_out.mutable_t());
      for (onnx::TensorProto& tensor : *attribute_out.mutable_tensors()) slots.push_back(&tensor);
      auto& subgraphs = attribute.mutableGraphs();
      if (attribute_out.type() == onnx::AttributeProto::GRAPHS) {
        if (static_cast<size_t>(attribute_out.graphs_size()) != subgraphs.size()) return false;
        for (size_t i = 0; i < subgraphs.size(); ++i) {
          if (!findExportedTensors(*subgraphs[i], *attribute_out.mutable_graphs(static_cast<int>(i)),
                                   slots)) {
            return false;
          }
        }
      } else if (!subgraphs.empty()) {
        if (subgraphs.size() != 1 || !attribute_out.has_g()) return false;
        if (!findExportedTensors(*subgraphs.front(), *attribute_out.mutable_g(), slots)) {
          return false;
        }
      }
    }
  }
  int initializer_index = 0;
  for (ir::Value* value : graph.initializers()) {
    if (!value->isInitializer()) continue;
    if (initializer_index >= out.initializer_size()) return false;
    onnx::TensorProto* tensor_out = out.mutable_initializer(initializer_index++);
    if (tensor_out->name() != value->name()) return false;
    slots.push_back(tensor_out);
  }
  return initializer_index == out.initializer_size();
}

// Exports `model` into `out`, moving the weights; `model` must not be used afterwards.
absl::Status exportConsuming(ir::Model& model, onnx::ModelProto& out) {
  std::vector<TakenTensor> taken;
  absl::flat_hash_map<const ir::Tensor*, int> seen;
  takeTensors(model.graph(), taken, seen);
  auto give_back = [&taken] {
    for (TakenTensor& entry : taken) {
      if (entry.ir_slot) entry.ir_slot->Swap(&entry.tensor);
    }
  };

  absl::StatusOr<onnx::ModelProto> exported = ir::exportModel(model);
  if (!exported.ok()) {
    give_back();
    return exported.status();
  }
  std::vector<onnx::TensorProto*> slots;
  slots.reserve(taken.size());
  if (!exported->has_graph() ||
      !findExportedTensors(model.graph(), *exported->mutable_graph(), slots) ||
      slots.size() != taken.size()) {
    // Not the exporter this code knows: copy instead.
    give_back();
    exported = ir::exportModel(model);
    if (!exported.ok()) return exported.status();
    out = *std::move(exported);
    return absl::OkStatus();
  }
  for (size_t i = 0; i < taken.size(); ++i) {
    TakenTensor& entry = taken[i];
    if (entry.alias_of >= 0) {
      slots[i]->CopyFrom(*slots[static_cast<size_t>(entry.alias_of)]);
    } else {
      slots[i]->Swap(&entry.tensor);
    }
    if (entry.initializer && slots[i]->name() != entry.initializer->name()) {
      slots[i]->set_name(entry.initializer->name());
    }
  }
  out.Swap(&*exported);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::string> expandPipeline(const std::string& pipeline,
                                           const PassRegistry& registry) {
  if (!absl::StartsWith(pipeline, "-")) return pipeline;
  absl::StatusOr<std::string> named = registry.namedPipeline(absl::string_view(pipeline).substr(1));
  if (named.ok()) return named;
  std::vector<std::string> names;
  for (const NamedPipeline& entry : registry.namedPipelines()) {
    names.push_back(absl::StrCat("-", entry.name));
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown named pipeline '", pipeline, "'; valid ones: ",
                   names.empty() ? "(none)" : absl::StrJoin(names, ", "),
                   ", or pipeline text such as 'eliminate-dead-nodes'"));
}

absl::StatusOr<PassManager> makePassManager(const std::string& pipeline,
                                            const OptimizeOptions& options) {
  const PassRegistry& registry = registryOf(options);
  absl::StatusOr<std::string> text = expandPipeline(pipeline, registry);
  if (!text.ok()) return text.status();
  PassManagerOptions manager_options;
  manager_options.verify_each = options.verify_each;
  manager_options.fixed_point = options.fixed_point;
  manager_options.max_fixed_point_rounds = options.max_fixed_point_rounds;
  manager_options.require_convergence = options.require_convergence;
  manager_options.debug_sink = options.debug_sink;
  PassManager manager(std::move(manager_options));
  if (absl::Status status = manager.addPipeline(*text, registry); !status.ok()) return status;
  return manager;
}

namespace {

absl::Status runManager(PassManager& manager, ir::Model& model, const OptimizeOptions& options) {
  absl::StatusOr<PipelineReport> report = manager.run(model);
  if (!report.ok()) return report.status();
  if (options.report) *options.report = *std::move(report);
  return absl::OkStatus();
}

}  // namespace

absl::Status optimizeModel(ir::Model& model, const std::string& pipeline,
                           const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  return runManager(*manager, model, options);
}

absl::Status optimize(onnx::ModelProto& model, const std::string& pipeline,
                      const OptimizeOptions& options) {
  // The pipeline first: a bad one leaves the caller's model alone.
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();

  absl::StatusOr<std::unique_ptr<ir::Model>> loaded =
      ir::importModel(std::move(model), loadOptionsOf(options));
  if (!loaded.ok()) return loaded.status();
  ir::Model& ir_model = **loaded;
  // Whatever happens now, the caller gets the model back: optimized, or (when a pass failed)
  // valid and equivalent to the input, or (when it fails verification) as it came.
  absl::Status status = verifyInput(ir_model);
  if (status.ok()) status = runManager(*manager, ir_model, options);
  absl::Status exported = exportConsuming(ir_model, model);
  return status.ok() ? exported : status;
}

absl::Status optimizeFile(const std::string& input_path, const std::string& output_path,
                          const std::string& pipeline, const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded = ir::loadModelFromFile(input_path);
  if (!loaded.ok()) return loaded.status();
  if (absl::Status status = verifyInput(**loaded); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(input_path, ": ", status.message()));
  }
  if (absl::Status status = runManager(*manager, **loaded, options); !status.ok()) {
    return absl::Status(status.code(), absl::StrCat(input_path, ": ", status.message()));
  }
  return ir::saveModelToFile(**loaded, output_path, options.save);
}

absl::StatusOr<std::string> optimizeBytes(std::string_view bytes, const std::string& pipeline,
                                          const OptimizeOptions& options) {
  absl::StatusOr<PassManager> manager = makePassManager(pipeline, options);
  if (!manager.ok()) return manager.status();
  absl::StatusOr<std::unique_ptr<ir::Model>> loaded = ir::loadModelFromBytes(
      absl::string_view(bytes.data(), bytes.size()), loadOptionsOf(options));
  if (!loaded.ok()) return loaded.status();
  if (absl::Status status = verifyInput(**loaded); !status.ok()) return status;
  if (absl::Status status = runManager(*manager, **loaded, options); !status.ok()) return status;
  return ir::saveModelToBytes(**loaded);
}

}  // namespace onnxopt
