#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/proto_ptr.h"

namespace onnxopt::ir {

class ProtoImporter;

// Where the bytes of an external tensor live: a resolved path inside the model's folder.
struct ExternalData {
  std::string path;        // absolute, already checked to stay inside the model's folder
  std::string location;    // as written in the model, relative to the model's folder
  int64_t offset = 0;
  int64_t length = -1;     // -1: to the end of the file
};

// The product of the tensor's dims; InvalidArgument naming the tensor when a dim is negative or
// the product does not fit in int64.
ONNXOPT_API absl::StatusOr<int64_t> tensorElementCount(const onnx::TensorProto& tensor);
// Checks the dims (as above) and that inline data (raw_data, or the typed field of the tensor's
// type) holds exactly as many elements as the dims say; the error names the tensor, the field and
// both counts. The importer calls it for every initializer and tensor attribute, so a pass never
// reads past a tensor's data or trusts an absurd dim. Tensors of types this ONNX does not know
// are checked for their dims only; external data is checked by the loader.
ONNXOPT_API absl::Status checkTensorData(const onnx::TensorProto& tensor);

// A constant tensor (an initializer or a tensor attribute). The TensorProto parsed from the model
// is moved in, never copied; external data is not read until someone asks for the bytes.
class ONNXOPT_API Tensor {
 public:
  explicit Tensor(onnx::TensorProto&& proto);
  Tensor(onnx::TensorProto&& proto, ExternalData external);
  ~Tensor();

  int32_t dataType() const { return proto_->data_type(); }
  const google::protobuf::RepeatedField<int64_t>& dims() const { return proto_->dims(); }
  // Product of dims, or nullopt if it overflows int64 or a dim is negative.
  std::optional<int64_t> numElements() const;

  bool isExternal() const { return external_.has_value(); }
  const std::optional<ExternalData>& external() const { return external_; }
  // Reads external data into the tensor (raw_data); afterwards the tensor is inline.
  absl::Status loadExternalData();
  // Bytes [offset, offset + length) of the external data, read from the file alone; the tensor
  // stays external. OutOfRange when the range leaves the tensor's bytes; FailedPrecondition when
  // the tensor is not external.
  absl::StatusOr<std::string> readExternalBytes(int64_t offset, int64_t length) const;

  // The proto: name, dims, type and data (inline, or the external_data references).
  const onnx::TensorProto& proto() const { return *proto_; }
  onnx::TensorProto& mutableProto() { return *proto_; }

 private:
  friend class ProtoImporter;
  // Refers to `proto`, a message on `arena` (the model's), which it keeps alive.
  Tensor(ProtoPtr<onnx::TensorProto> proto, std::shared_ptr<google::protobuf::Arena> arena,
         std::optional<ExternalData> external);

  // A Tensor may outlive its model (it is shared), so it shares the arena its proto lives on.
  // Declared first: destroyed after the proto pointer.
  std::shared_ptr<google::protobuf::Arena> arena_;
  ProtoPtr<onnx::TensorProto> proto_;
  std::optional<ExternalData> external_;
};

}  // namespace onnxopt::ir
