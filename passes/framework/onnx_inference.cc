#include "onnx_inference.h"

#include <memory>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "onnx/defs/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt::detail {
namespace {

// The input whose length libonnx takes as the output's rank, or -1.
int shapeInputOf(const std::string& op_type, const std::string& domain) {
  if (!domain.empty() && domain != "ai.onnx") return -1;
  if (op_type == "Expand" || op_type == "Reshape") return 1;
  if (op_type == "ConstantOfShape") return 0;
  if (op_type == "Resize") return 3;
  return -1;
}

bool hasAbsurdLength(onnx::InferenceContext& context, int input) {
  if (static_cast<size_t>(input) >= context.getNumInputs()) return false;
  const onnx::TypeProto* type = context.getInputType(static_cast<size_t>(input));
  if (!type || !type->has_tensor_type() || !type->tensor_type().has_shape()) return false;
  for (const auto& dim : type->tensor_type().shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() > kMaxRankFromShapeLength) return true;
  }
  return false;
}

// libonnx's registry, with the schemas of the ops above wrapped so that their inference first
// checks the shape input's length. Wrapped copies are made once per schema and live as long as
// the process, like the registry's own.
class GuardedRegistry final : public onnx::ISchemaRegistry {
 public:
  const onnx::OpSchema* GetSchema(const std::string& key, const int max_inclusive_version,
                                  const std::string& domain) const override {
    const onnx::OpSchema* schema = onnx::OpSchemaRegistry::Schema(key, max_inclusive_version, domain);
    const int shape_input = shapeInputOf(key, domain);
    if (!schema || shape_input < 0 || !schema->has_type_and_shape_inference_function()) return schema;
    std::lock_guard<std::mutex> lock(mutex_);
    std::unique_ptr<onnx::OpSchema>& guarded = guarded_[schema];
    if (!guarded) {
      guarded = std::make_unique<onnx::OpSchema>(*schema);
      guarded->TypeAndShapeInferenceFunction(
          [infer = schema->GetTypeAndShapeInferenceFunction(), shape_input](onnx::InferenceContext& context) {
            if (!hasAbsurdLength(context, shape_input)) infer(context);
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
