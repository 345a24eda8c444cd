#pragma once

// Internal: the importer and exporter behind serialization.h.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"

namespace onnxopt::ir {

// checkWireTypes for a message with unknown fields: reflection, which costs more than the
// rest of a node's import, is asked only then.
absl::Status checkUnknownFieldWireTypes(const google::protobuf::Message& message,
                                        absl::FunctionRef<std::string()> what);

// InvalidArgument naming `what()` (the element the message is) when one of the message's own
// fields could not be read as its declared type: a wrong wire type, or an enum value ONNX does
// not list. `what` is called only then. Such a field is kept as an unknown field, so a message
// without any is fine.
template <typename GeneratedMessage>
absl::Status checkWireTypes(const GeneratedMessage& message,
                            absl::FunctionRef<std::string()> what) {
  if (message.unknown_fields().field_count() == 0) return absl::OkStatus();
  return checkUnknownFieldWireTypes(message, what);
}

// A new Model, and an empty ModelProto on the model's arena to parse into: then hand both to
// importModelFrom, so that the IR refers to the parsed messages where they are.
std::pair<std::unique_ptr<Model>, onnx::ModelProto*> newModelToParse();

// Imports `proto` into `model`: either the ModelProto of newModelToParse() or a heap ModelProto
// that the model then owns. The IR keeps the messages themselves (no copies, no swaps).
// External data resolves against `base_dir`.
absl::StatusOr<std::unique_ptr<Model>> importModelFrom(std::unique_ptr<Model> model,
                                                       onnx::ModelProto* proto,
                                                       const LoadOptions& options,
                                                       std::string base_dir);

// Assembles a ModelProto from the IR's own messages. The IR keeps every message it does not model
// in a residue (a NodeProto without inputs, outputs and attributes; a GraphProto without nodes,
// inputs, ...); lending puts the pieces back into those residues by pointer
// (UnsafeArenaAddAllocated: operand names are the Values' own strings, nothing is copied), and
// restore() (or the destructor) takes them out again (UnsafeArenaExtractSubrange). Meanwhile the
// model must not be read or changed, and the lent proto must not outlive the exporter. kCopy
// mode lends, copies the result into the output, and gives back at once.
class ProtoExporter {
 public:
  enum class Mode { kCopy, kLend };
  // Returns the proto to write for an initializer instead of the IR's own, or null.
  using TensorOverride = std::function<const onnx::TensorProto*(const Value&)>;

  explicit ProtoExporter(Mode mode, TensorOverride tensor_override = nullptr)
      : mode_(mode), tensor_override_(std::move(tensor_override)) {}
  ProtoExporter(const ProtoExporter&) = delete;
  ProtoExporter& operator=(const ProtoExporter&) = delete;
  ~ProtoExporter() { restore(); }

  // `out` gets a copy of the model's own fields and (kLend) the lent graph, or (kCopy) a copy.
  void exportModel(const Model& model, onnx::ModelProto* out);
  // The model's own ModelProto with its graph lent in (kLend only): serialize it, then restore().
  const onnx::ModelProto& lend(const Model& model);
  // Gives back everything lent; the lent proto is garbage afterwards.
  void restore();

 private:
  onnx::GraphProto* lendGraph(const Graph& graph);

  Mode mode_;
  TensorOverride tensor_override_;
  onnx::ModelProto* graph_lent_to_ = nullptr;
  std::vector<onnx::GraphProto*> lent_graphs_;
  std::vector<onnx::NodeProto*> lent_nodes_;
  std::vector<onnx::AttributeProto*> lent_attributes_;
  // Tensors shared by several initializers (lent once), and the copies written for the others.
  absl::flat_hash_set<const onnx::TensorProto*> shared_tensors_;
  std::vector<std::unique_ptr<onnx::TensorProto>> copies_;
};

}  // namespace onnxopt::ir
