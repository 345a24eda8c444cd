#pragma once

// External-data plumbing shared by loading, saving and Tensor (not a public header).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/tensor.h"

namespace onnxopt::ir {

// Checks that the tensor's external data stays inside `base_dir` (no absolute location, no `..`,
// no symlink out), that the file exists and holds offset + length bytes, and that the length
// matches the tensor's dims and type.
absl::StatusOr<ExternalData> resolveExternalData(const onnx::TensorProto& tensor,
                                                 const std::string& base_dir);

// Reads `length` bytes at `offset` of `path` into `out`.
absl::Status readFileRange(const std::string& path, int64_t offset, int64_t length,
                           std::string* out);

}  // namespace onnxopt::ir
