#include "onnxopt/ir/tensor.h"

#include <climits>

#include "absl/strings/str_cat.h"
#include "external_data.h"

namespace onnxopt::ir {

Tensor::Tensor(onnx::TensorProto&& proto) { proto_.Swap(&proto); }

Tensor::Tensor(onnx::TensorProto&& proto, ExternalData external)
    : external_(std::move(external)) {
  proto_.Swap(&proto);
}

std::optional<int64_t> Tensor::numElements() const {
  int64_t elements = 1;
  for (int64_t dim : proto_.dims()) {
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
    return absl::Status(read.code(), absl::StrCat("tensor '", proto_.name(), "': ", read.message()));
  }
  proto_.set_raw_data(std::move(bytes));
  proto_.clear_external_data();
  proto_.clear_data_location();
  external_.reset();
  return absl::OkStatus();
}

}  // namespace onnxopt::ir
