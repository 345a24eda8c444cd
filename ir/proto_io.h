#pragma once

// Internal: the importer and exporter behind serialization.h.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"

namespace onnxopt::ir {

// Moves the proto's contents into a new Model; external data resolves against `base_dir`.
absl::StatusOr<std::unique_ptr<Model>> importModelFrom(onnx::ModelProto& proto,
                                                       const LoadOptions& options,
                                                       std::string base_dir);

// Builds a ModelProto from the IR. In kLend mode the IR's protos (tensors, nodes, attributes,
// value infos) are swapped into the output instead of copied, which makes saving cost no copy of
// the weights; the destructor swaps them back, so the output must not outlive the exporter and
// the model must not be read meanwhile.
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

  void exportModel(const Model& model, onnx::ModelProto* out);
  // Gives back everything lent; the output proto is garbage afterwards.
  void restore();

 private:
  enum class LoanKind { kNode, kAttribute, kTensor, kValueInfo, kSparseTensor };
  struct Loan {
    LoanKind kind;
    google::protobuf::Message* out;
    google::protobuf::Message* ir;
  };

  void exportGraph(const Graph& graph, onnx::GraphProto* out);
  template <typename Message>
  void transfer(const Message& ir, Message* out, LoanKind kind);

  Mode mode_;
  TensorOverride tensor_override_;
  std::vector<Loan> loans_;
};

}  // namespace onnxopt::ir
