#include "onnx_inference.h"

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "onnx/defs/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt::detail {
namespace {

bool hasAbsurdLength(onnx::InferenceContext& context, size_t input) {
  if (input >= context.getNumInputs()) return false;
  const onnx::TypeProto* type = context.getInputType(input);
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return false;
  for (const auto& dim : type->tensor_type().shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() > kMaxRankFromShapeLength) return true;
  }
  return false;
}

// libonnx divides each spatial size by its stride.
bool hasStrideBelowOne(onnx::InferenceContext& context) {
  const onnx::AttributeProto* strides = context.getAttribute("strides");
  if (strides == nullptr) return false;
  for (const int64_t stride : strides->ints()) {
    if (stride < 1) return true;
  }
  return false;
}

// libonnx takes a convolution's kernel shape from its weight's dims past the second when
// `kernel_shape` is absent, and reads that many strides, pads and dilations, which it sized by
// the input's rank.
bool hasWeightOfAnotherRank(onnx::InferenceContext& context, size_t weight) {
  if (context.getAttribute("kernel_shape") != nullptr || weight >= context.getNumInputs()) {
    return false;
  }
  const onnx::TypeProto* input_type = context.getInputType(0);
  const onnx::TypeProto* weight_type = context.getInputType(weight);
  for (const onnx::TypeProto* type : {input_type, weight_type}) {
    if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return false;
  }
  return input_type->tensor_type().shape().dim_size() !=
         weight_type->tensor_type().shape().dim_size();
}

using Hazard = bool (*)(onnx::InferenceContext&);

// What makes libonnx's inference of the op take the process down rather than fail; null for an
// op without such a hazard.
Hazard hazardOf(const std::string& op_type, const std::string& domain) {
  if (!domain.empty() && domain != "ai.onnx") return nullptr;
  if (op_type == "Expand" || op_type == "Reshape") {
    return [](onnx::InferenceContext& context) { return hasAbsurdLength(context, 1); };
  }
  if (op_type == "ConstantOfShape") {
    return [](onnx::InferenceContext& context) { return hasAbsurdLength(context, 0); };
  }
  if (op_type == "Resize") {
    return [](onnx::InferenceContext& context) { return hasAbsurdLength(context, 3); };
  }
  if (op_type == "Scan") {  // libonnx reads num_scan_inputs, which Scan requires, unchecked
    return [](onnx::InferenceContext& context) {
      return context.getAttribute("num_scan_inputs") == nullptr;
    };
  }
  if (op_type == "Conv" || op_type == "ConvInteger" || op_type == "ConvTranspose") {
    return [](onnx::InferenceContext& context) {
      return hasStrideBelowOne(context) || hasWeightOfAnotherRank(context, 1);
    };
  }
  if (op_type == "QLinearConv") {
    return [](onnx::InferenceContext& context) {
      return hasStrideBelowOne(context) || hasWeightOfAnotherRank(context, 3);
    };
  }
  for (const char* pooling : {"MaxPool", "AveragePool", "LpPool"}) {
    if (op_type == pooling) return hasStrideBelowOne;
  }
  return nullptr;
}

// libonnx's registry, with the schemas of the ops above wrapped so that their inference first
// checks for the hazard. Wrapped copies are made once per schema and live as long as the
// process, like the registry's own.
class GuardedRegistry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    const Hazard hazard = hazardOf(key, domain);
    if (!schema || !hazard || !schema->has_type_and_shape_inference_function()) return schema;
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<onnx::OpSchema>& guarded = guarded_[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      guarded->TypeAndShapeInferenceFunction(
          [infer = schema->GetTypeAndShapeInferenceFunction(), hazard](onnx::InferenceContext& context) {
            if (!hazard(context)) infer(context);
          });
    }
    return guarded.get();
  }

 private:
  mutable std::mutex mutex_;
  mutable absl::flat_hash_map<const onnx::OpSchema*, std::unique_ptr<onnx::OpSchema>> guarded_;
};

}  // namespace

void inferShapesGuarded(onnx::ModelProto& model, const onnx::ShapeInferenceOptions& options) {
  static const GuardedRegistry* const registry = new GuardedRegistry();
  onnx::shape_inference::InferShapes(model, registry, options);
}

namespace {

// `outer` is the number of types known around `graph`; `budget` what may still be copied.
size_t skipPast(onnx::GraphProto& graph, size_t outer, size_t& budget) {
  size_t skipped = 0;
  size_t known = outer + static_cast<size_t>(graph.input_size() + graph.initializer_size());
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    size_t subgraphs = 0;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      subgraphs += (attribute.has_g() ? 1 : 0) + static_cast<size_t>(attribute.graphs_size());
    }
    if (subgraphs > 0 && subgraphs * known > budget) {
      budget = 0;
      ++skipped;
      for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
        if (!attribute.has_g() && attribute.graphs_size() == 0) continue;
        attribute.set_name(attribute.name() + ".not_inferred");
        if (attribute.has_g()) attribute.mutable_g()->Clear();
        for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) subgraph.Clear();
      }
    } else if (subgraphs > 0) {
      budget -= subgraphs * known;
      for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
        if (attribute.has_g()) skipped += skipPast(*attribute.mutable_g(), known, budget);
        for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) {
          skipped += skipPast(subgraph, known, budget);
        }
      }
    }
    known += static_cast<size_t>(node.output_size());
  }
  return skipped;
}

}  // namespace

size_t skipSubgraphInferencePast(onnx::GraphProto& graph, size_t max_copied) {
  size_t budget = max_copied;
  return skipPast(graph, 0, budget);
}

}  // namespace onnxopt::detail
