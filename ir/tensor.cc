#include "onnxopt/ir/tensor.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "external_data.h"

namespace onnxopt::ir {

// Tensors made from a caller's proto own a heap copy of it (a Swap: no bytes copied, unless the
// caller's proto lives on an arena).
Tensor::Tensor(onnx::TensorProto&& proto) : proto_(new onnx::TensorProto) { proto_->Swap(&proto); }

Tensor::Tensor(onnx::TensorProto&& proto, ExternalData external)
    : proto_(new onnx::TensorProto), external_(std::move(external)) {
  proto_->Swap(&proto);
}

Tensor::Tensor(ProtoPtr<onnx::TensorProto> proto, std::shared_ptr<google::protobuf::Arena> arena,
               std::optional<ExternalData> external)
    : arena_(std::move(arena)), proto_(std::move(proto)), external_(std::move(external)) {}

std::optional<int64_t> Tensor::numElements() const {
  int64_t elements = 1;
  for (int64_t dim : proto_->dims()) {
    if (dim < 0 || (dim > 0 && elements > INT64_MAX / dim)) return std::nullopt;
    elements *= dim;
  }
  return elements;
}

absl::Status Tensor::loadExternalData() {
  if (!external_) return absl::OkStatus();
  std::string bytes;
  absl::Status read = readFileRange(external_->path, external_->offset, external_->length, &bytes);
  if (!read.ok()) {
    return absl::Status(read.code(), absl::StrCat("tensor '", proto_->name(), "': ", read.message()));
  }
  proto_->set_raw_data(std::move(bytes));
  proto_->clear_external_data();
  proto_->clear_data_location();
  external_.reset();
  return absl::OkStatus();
}

}  // namespace onnxopt::ir
