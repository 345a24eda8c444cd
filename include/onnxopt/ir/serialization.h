#pragma once

// Loading and saving: the only place (with the printer) where protobuf meets the IR.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// Told how far a load or save has got: `done` bytes of `total` (-1 while the total is not known).
// Called from the thread doing the work, once per buffer protobuf's stream takes (8 KiB to
// 1 MiB) and once at the end; onnx-opt draws its progress line with it. Unset, nothing is
// counted.
using ByteProgress = std::function<void(int64_t done, int64_t total)>;

struct LoadOptions {
  // Folder for external data of a model loaded from bytes or a ModelProto. Models loaded from a
  // file use the file's folder.
  std::string external_data_dir;
  // Read every external tensor at load time instead of on first use.
  bool load_external_data = false;
  // Bytes of the model parsed so far, of the file's or the buffer's size (external data, read
  // lazily, is not counted).
  ByteProgress progress;
};

struct SaveOptions {
  // A model whose serialized size would pass this limit (protobuf refuses messages of 2 GiB and
  // more) is saved with its largest initializers moved to external data next to the output.
  int64_t max_inline_bytes = (int64_t{1} << 31) - (int64_t{1} << 20);
  // A model that keeps its weights as external data (Model::keepsWeightsExternal) is saved
  // with every inline raw-data initializer of at least this many bytes moved to external data
  // too: the weights passes made (folded constants, fused Conv/Gemm weights) join the
  // exporter's, and a model of 1 GiB of weights does not turn into one protobuf over 2 GiB.
  // Smaller ones stay inline. 1024, as onnx.save_model's size_threshold.
  int64_t external_data_threshold = 1024;
  // File name (in the output's folder) for tensors that saving moves out of line; "" means
  // "<output file name>.data".
  std::string external_data_file;
  // saveModelToFile: bytes written so far, to the model file and its external data file. The
  // total is -1 while external data is being copied or moved out, and known once the model
  // file is being written.
  ByteProgress progress;
};

// Parses and imports. Errors name the file and what is wrong. Weights are moved, not copied.
ONNXOPT_API absl::StatusOr<std::unique_ptr<Model>> loadModelFromFile(const std::string& path,
                                                         const LoadOptions& options = {});
ONNXOPT_API absl::StatusOr<std::unique_ptr<Model>> loadModelFromBytes(absl::string_view bytes,
                                                          const LoadOptions& options = {});
// Reads the ONNX text syntax (onnx::OnnxParser of ONNX 1.12, the syntax printModel writes).
// Unlike a bare OnnxParser call, never throws or truncates: a number literal the parser cannot
// convert (1e999, an int64 out of range) or a NUL byte in the text is an InvalidArgument error.
ONNXOPT_API absl::StatusOr<onnx::ModelProto> parseModelText(absl::string_view text);
// parseModelText, then importModel.
ONNXOPT_API absl::StatusOr<std::unique_ptr<Model>> loadModelFromText(absl::string_view text,
                                                         const LoadOptions& options = {});
// Takes the proto's contents (it is left empty).
ONNXOPT_API absl::StatusOr<std::unique_ptr<Model>> importModel(onnx::ModelProto&& proto,
                                                   const LoadOptions& options = {});

// Writes atomically: to a temporary file in the destination folder, renamed into place once
// complete. External data goes next to the output, with locations relative to it.
ONNXOPT_API absl::Status saveModelToFile(const Model& model, const std::string& path,
                             const SaveOptions& options = {});
ONNXOPT_API absl::StatusOr<std::string> saveModelToBytes(const Model& model);
// Whether `path` could be written now, checked before any work that would be lost: its folder
// exists and is a folder we may write in, and `path` itself is not a folder (or is a device or
// pipe open for writing, or a file we may replace). The error names the path and what is wrong.
ONNXOPT_API absl::Status checkWritable(const std::string& path);
// Writes any file the way saveModelToFile does: atomically for regular files (a failure leaves
// the old file), in place for devices and pipes, through symlinks to their target.
ONNXOPT_API absl::Status writeFileAtomically(const std::string& path, absl::string_view contents);
// Removes the temporary files of the saves in progress (the file being written is a temporary
// until it is complete). Async-signal-safe: for a SIGINT/SIGTERM handler that then ends the
// process, as onnx-opt's does. A SIGKILL can leave one temporary file (`.<name>.tmpXXXXXX`,
// next to the output); the output itself is never partial.
ONNXOPT_API void removePendingFiles();
// A copy of the model as a proto (external tensors keep their references).
ONNXOPT_API absl::StatusOr<onnx::ModelProto> exportModel(const Model& model);
// The model as a proto, consuming it: weights stored as raw_data move into the proto instead of
// being copied (weights in typed fields such as float_data are copied).
ONNXOPT_API absl::StatusOr<onnx::ModelProto> exportModel(std::unique_ptr<Model> model);

}  // namespace onnxopt::ir
