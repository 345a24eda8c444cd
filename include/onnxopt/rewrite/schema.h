#pragma once

// What ONNX's operator schemas say about a node at its model's opset: the schema itself, type
// constraints, and attributes read under one policy. libonnx (ONNX 1.12) holds the schemas up to
// opset 17; for opsets 18 to kNewestKnownOpset a table of the operators that changed there says
// when its opset-17 schema still holds. Beyond that nothing is known.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnx {
class OpSchema;
}  // namespace onnx

namespace onnxopt {

// The newest default-domain opset whose operator versions onnx-opt knows.
inline constexpr int64_t kNewestKnownOpset = 23;

// The version of the node's domain the model imports; nullopt when it imports none.
ONNXOPT_API std::optional<int64_t> opsetOf(const ir::Node& node);

// The node's schema at its opset, or null when it is not known: an op ONNX does not define at
// that opset, an opset the model does not import, or a default-domain op that got a new version
// after opset 17 (libonnx's newest) at or below the model's opset, or any opset beyond
// kNewestKnownOpset. Other domains are known up to the newest version libonnx has of them.
// Callers that need the schema decline when it is null.
ONNXOPT_API const onnx::OpSchema* schemaOf(const ir::Node& node);

// The version of the operator's definition the node follows (its schema's since_version): 13 for
// a ReduceSum at opset 18, 18 for a ReduceMean there. Known without a schema for the ops that
// changed in opsets 18 to kNewestKnownOpset; nullopt when not known.
ONNXOPT_API std::optional<int64_t> sinceVersionOf(const ir::Node& node);

// Whether the schema's type constraint `type_param` ("T", "T1", ...) allows tensors of
// `elem_type`; false when the schema or the constraint is not known.
ONNXOPT_API bool elemTypeAllowed(const ir::Node& node, absl::string_view type_param,
                                 int32_t elem_type);

// The element type the schema gives output `output_index` of a default-domain node without
// subgraphs: the one type its formal output allows, or that of an input of the same type
// parameter (homogeneous parameters only) whose element type `input_elem` knows. 0 otherwise.
ONNXOPT_API int32_t elemTypeFromSchema(const ir::Node& node, size_t output_index,
                                       absl::FunctionRef<int32_t(size_t)> input_elem);

// Attribute access, one policy for every pass: an attribute present with a kind other than the
// one ONNX defines for it (the schema's when known, else the kind asked for), or a required
// attribute missing, is an InvalidArgument naming the node (ir::describe), the attribute, the
// kind found and the kind ONNX defines. Asking for a kind other than the schema's is a bug of
// the caller: an Internal error. Absent optional attributes read as nullopt (or the default).
ONNXOPT_API absl::StatusOr<std::optional<int64_t>> getInt(const ir::Node& node,
                                                          absl::string_view name);
ONNXOPT_API absl::StatusOr<int64_t> getIntOr(const ir::Node& node, absl::string_view name,
                                             int64_t default_value);
ONNXOPT_API absl::StatusOr<std::optional<float>> getFloat(const ir::Node& node,
                                                          absl::string_view name);
ONNXOPT_API absl::StatusOr<float> getFloatOr(const ir::Node& node, absl::string_view name,
                                             float default_value);
ONNXOPT_API absl::StatusOr<std::optional<std::string>> getString(const ir::Node& node,
                                                                 absl::string_view name);
ONNXOPT_API absl::StatusOr<std::string> getStringOr(const ir::Node& node, absl::string_view name,
                                                    absl::string_view default_value);
ONNXOPT_API absl::StatusOr<std::optional<std::vector<int64_t>>> getInts(const ir::Node& node,
                                                                        absl::string_view name);
ONNXOPT_API absl::StatusOr<std::optional<std::vector<float>>> getFloats(const ir::Node& node,
                                                                        absl::string_view name);
// Null when absent. The tensor belongs to the node's attribute and may hold external-data
// references: readConstant reads a Constant's value.
ONNXOPT_API absl::StatusOr<const onnx::TensorProto*> getTensor(const ir::Node& node,
                                                               absl::string_view name);

// Every attribute the schema defines has the kind it defines, and every required one is there
// (OK when there is no schema). Attributes the schema does not define are not looked at: no
// rewrite reads them, and runtimes ignore them.
ONNXOPT_API absl::Status checkAttributes(const ir::Node& node);

}  // namespace onnxopt
