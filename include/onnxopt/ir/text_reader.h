#pragma once

// onnx-opt's own reader of the text syntax its printer writes (printer.h): ONNX's text syntax
// with the names, literals and forms ONNX 1.12's OnnxParser cannot read (quoted names, escaped
// strings, NaN and infinities, float16/bfloat16 bit patterns, empty lists, node names, external
// data references). readModelText(printModel(m, full)) gives back m, up to where tensor
// elements are stored (raw_data or a typed field) and scalar fields set to their default value.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"

namespace onnxopt::ir {

// Errors are InvalidArgument and start with "line L, column C: " where the text is wrong. A
// tensor printed as a summary ("{...}", printModel's form for large tensors) is an error: the
// text holds no values for it.
ONNXOPT_API absl::StatusOr<onnx::ModelProto> readModelText(absl::string_view text);

// Reads a text file (readModelText) and imports it. External data locations are relative to
// the file's folder. Errors start with the path.
ONNXOPT_API absl::StatusOr<std::unique_ptr<Model>> loadModelFromTextFile(
    const std::string& path, const LoadOptions& options = {});

}  // namespace onnxopt::ir
