#pragma once

// External-data plumbing shared by loading, saving and Tensor (not a public header).

#include <cstdint>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/tensor.h"

namespace onnxopt::ir {

// Checks that a tensor's external data stays inside `base_dir` (no absolute location, no `..`,
// no symlink out), that the file exists and holds offset + length bytes, and that the length
// matches the tensor's dims and type. The folder and each distinct file are resolved once
// (realpath, stat): a model's tensors mostly share one data file.
class ExternalDataResolver {
 public:
  explicit ExternalDataResolver(std::string base_dir) : base_dir_(std::move(base_dir)) {}
  const std::string& baseDir() const { return base_dir_; }

  absl::StatusOr<ExternalData> resolve(const onnx::TensorProto& tensor);

 private:
  // A data file's real path and size, or what is wrong with its location (the message names no
  // tensor: each tensor's error does).
  struct DataFile {
    std::string path;
    int64_t size = 0;
    std::string problem;
  };
  const DataFile& dataFile(const std::string& location);

  const std::string base_dir_;
  std::optional<absl::StatusOr<std::string>> real_base_dir_;
  absl::flat_hash_map<std::string, DataFile> data_files_;
};

// The canonical absolute path of `path` (realpath), or nullopt with errno set.
std::optional<std::string> realPathOf(const std::string& path);

// Reads `length` bytes at `offset` of `path` into `out`.
absl::Status readFileRange(const std::string& path, int64_t offset, int64_t length,
                           std::string* out);

}  // namespace onnxopt::ir
