#pragma once

// Loading and saving: the only place (with the printer) where protobuf meets the IR.

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

struct LoadOptions {
  // Folder for external data of a model loaded from bytes or a ModelProto. Models loaded from a
  // file use the file's folder.
  std::string external_data_dir;
  // Read every external tensor at load time instead of on first use.
  bool load_external_data = false;
};

struct SaveOptions {
  // A model whose serialized size would pass this limit (protobuf refuses messages of 2 GiB and
  // more) is saved with its largest initializers moved to external data next to the output.
  int64_t max_inline_bytes = (int64_t{1} << 31) - (int64_t{1} << 20);
  // File name (in the output's folder) for tensors that saving moves out of line; "" means
  // "<output file name>.data".
  std::string external_data_file;
};

// Parses and imports. Errors name the file and what is wrong. Weights are moved, not copied.
absl::StatusOr<std::unique_ptr<Model>> loadModelFromFile(const std::string& path,
                                                         const LoadOptions& options = {});
absl::StatusOr<std::unique_ptr<Model>> loadModelFromBytes(absl::string_view bytes,
                                                          const LoadOptions& options = {});
// Reads the ONNX text syntax (onnx::OnnxParser of ONNX 1.12, the syntax printModel writes).
// Unlike a bare OnnxParser call, never throws or truncates: a number literal the parser cannot
// convert (1e999, an int64 out of range) or a NUL byte in the text is an InvalidArgument error.
absl::StatusOr<onnx::ModelProto> parseModelText(absl::string_view text);
// parseModelText, then importModel.
absl::StatusOr<std::unique_ptr<Model>> loadModelFromText(absl::string_view text,
                                                         const LoadOptions& options = {});
// Takes the proto's contents (it is left empty).
absl::StatusOr<std::unique_ptr<Model>> importModel(onnx::ModelProto&& proto,
                                                   const LoadOptions& options = {});

// Writes atomically: to a temporary file in the destination folder, renamed into place once
// complete. External data goes next to the output, with locations relative to it.
absl::Status saveModelToFile(const Model& model, const std::string& path,
                             const SaveOptions& options = {});
absl::StatusOr<std::string> saveModelToBytes(const Model& model);
// Writes any file the way saveModelToFile does: atomically for regular files (a failure leaves
// the old file), in place for devices and pipes, through symlinks to their target.
absl::Status writeFileAtomically(const std::string& path, absl::string_view contents);
// A copy of the model as a proto (external tensors keep their references).
absl::StatusOr<onnx::ModelProto> exportModel(const Model& model);
// The model as a proto, consuming it: weights stored as raw_data move into the proto instead of
// being copied (weights in typed fields such as float_data are copied).
absl::StatusOr<onnx::ModelProto> exportModel(std::unique_ptr<Model> model);

}  // namespace onnxopt::ir
