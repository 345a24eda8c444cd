#pragma once

// The one way passes read a constant: an initializer that no caller can override, or the output
// of a Constant node, in any of its attribute forms, with external data read on demand and a
// size cap, without copying the model's bytes.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

// Whether `v` is a constant: an initializer that is not also a graph input (a caller could feed
// those), or the output of a Constant node of the default domain. Sparse initializers are not.
ONNXOPT_API bool isConstant(const ir::Value& v);

// The main-graph initializers a training_info entry updates or initializes, by name: training
// changes them, and their names are part of the model's training interface.
ONNXOPT_API absl::flat_hash_set<std::string> initializersBoundByTrainingInfo(const ir::Model& model);

class ConstantView;

inline constexpr int64_t kDefaultConstantReadLimit = 64 << 20;

// Reads the constant `v` holds (a ConstantView, below). nullopt when `v` is not a constant
// (isConstant), is sparse (a sparse initializer, a Constant's sparse_value), has segmented data
// or an element type without a known size, or its data would take more than `max_bytes` (judged
// from its dims and type, strings by their lengths, before any external data is read). An
// error, naming the value and the node or tensor, when its external data cannot be read, a
// Constant node's attributes are malformed (no value attribute, more than one, or one of the
// wrong kind), or its inline data does not match its dims.
ONNXOPT_API absl::StatusOr<std::optional<ConstantView>> readConstant(
    const ir::Value& v, int64_t max_bytes = kDefaultConstantReadLimit);

// The one element of the constant `v` holds, as a double (a scalar operand: a ratio, a Clip
// bound); nullopt when readConstant gives nothing or the constant has more or fewer elements or
// is not numeric. Errors as readConstant's.
ONNXOPT_API absl::StatusOr<std::optional<double>> readConstantScalar(const ir::Value& v);

// A constant's tensor, read. Copying or moving a view is cheap: it shares what it refers to. For
// an initializer it points at the ir::Tensor's proto and keeps the Tensor alive; for a Constant
// node's `value` attribute it points at the attribute (valid while the node keeps it); only the
// other attribute forms (value_float(s), value_int(s), value_string(s)) and external data, once
// loaded, are held in a proto of its own. The data is always inline.
class ONNXOPT_API ConstantView {
 public:
  int32_t elemType() const { return proto_->data_type(); }
  absl::Span<const int64_t> dims() const {
    return absl::Span<const int64_t>(proto_->dims().data(), proto_->dims_size());
  }
  int64_t rank() const { return proto_->dims_size(); }
  // Checked when the constant was read: the dims are not negative and their product fits.
  int64_t numElements() const { return num_elements_; }
  // The tensor: name, type, dims, and its data in raw_data or the typed field.
  const onnx::TensorProto& proto() const { return *proto_; }

  // The elements of an integer or bool tensor, exactly (nullopt for other types, for uint64
  // values above INT64_MAX, and for malformed data).
  std::optional<std::vector<int64_t>> asInts() const;
  // The elements of a numeric tensor as doubles, exactly: float16 and bfloat16 decoded; nullopt
  // when a 64-bit integer has no exact double (2^53 + 1 has none), for strings, complex types
  // and malformed data.
  std::optional<std::vector<double>> asDoubles() const;
  // Whether every element equals `value` exactly, compared in the tensor's own type (NaN equals
  // nothing; an integer tensor equals no fractional value). False for a tensor of no elements,
  // so that "all ones" never holds vacuously, and for strings, complex types and malformed data.
  bool allEqualTo(double value) const;

 private:
  friend absl::StatusOr<std::optional<ConstantView>> readConstant(const ir::Value& v,
                                                                  int64_t max_bytes);
  ConstantView(std::shared_ptr<const void> owner, const onnx::TensorProto* proto,
               int64_t num_elements)
      : owner_(std::move(owner)), proto_(proto), num_elements_(num_elements) {}

  std::shared_ptr<const void> owner_;  // what proto_ lives in, when the view must keep it alive
  const onnx::TensorProto* proto_;
  int64_t num_elements_;
};

// The elements of a constant of integer type and rank 0 or 1 (shape, axes, pads operands);
// nullopt otherwise. Errors as readConstant.
ONNXOPT_API absl::StatusOr<std::optional<std::vector<int64_t>>> readConstantInts(
    const ir::Value& v);

}  // namespace onnxopt
