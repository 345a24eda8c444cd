#pragma once

// The evaluator's internals, shared by the kernel files: the tensor kernels compute on, the
// context a kernel gets, element-type dispatch, broadcasting, and the kernel table.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/eval/evaluator.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/type.h"

namespace onnxopt::eval {

// float16 and bfloat16 elements as stored: their bits. Kernels that compute on them widen to
// float (halfToFloat, bfloat16ToFloat) and round back once (floatToHalf, floatToBfloat16), as
// ONNX Runtime's CPU kernels do.
struct Float16 {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

// The product of `dims`, 1 for none: the element count of a tensor of those dims.
int64_t product(absl::Span<const int64_t> dims);

// A tensor during evaluation. Fixed-size elements are packed in `bytes` in their C++ type
// (bool as one byte 0/1, float16/bfloat16 as Float16/BFloat16); strings are in `strings`.
struct EvalTensor {
  int32_t elem_type = onnx::TensorProto::UNDEFINED;
  std::vector<int64_t> dims;
  std::string bytes;
  std::vector<std::string> strings;

  int64_t numElements() const { return product(dims); }
  template <typename T>
  const T* data() const {
    return reinterpret_cast<const T*>(bytes.data());
  }
  template <typename T>
  T* mutableData() {
    return reinterpret_cast<T*>(bytes.data());
  }
};

// "[d0,d1,...]": dims as the evaluator's messages show them.
std::string dimsText(absl::Span<const int64_t> dims);

// Size in bytes of one element of `elem_type` in EvalTensor::bytes; 0 for strings and types the
// evaluator does not compute on (complex, float8, int4, ...).
int64_t elementSize(int32_t elem_type);

// Decodes a TensorProto (raw_data or the typed field) into an EvalTensor; InvalidArgument when
// the data does not match the dims, Unimplemented for element types the evaluator does not know.
absl::StatusOr<EvalTensor> fromProto(const onnx::TensorProto& proto);
// Encodes an EvalTensor as a TensorProto (raw_data; string_data for strings), without a name.
onnx::TensorProto toProto(const EvalTensor& tensor);

class KernelContext {
 public:
  KernelContext(const ir::Node& node, int64_t since_version,
                absl::Span<const EvalTensor* const> inputs, const EvalLimits& limits)
      : node_(node), since_version_(since_version), inputs_(inputs), limits_(limits) {}

  const ir::Node& node() const { return node_; }
  // The version of the operator's definition the node follows (13 for ReduceSum at opset 17).
  int64_t sinceVersion() const { return since_version_; }
  size_t numInputs() const { return inputs_.size(); }
  // Null when the input is omitted (or beyond the node's inputs).
  const EvalTensor* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  // Input `i`; InvalidArgument naming it when it is omitted.
  absl::StatusOr<const EvalTensor*> requiredInput(size_t i) const;
  const EvalLimits& limits() const { return limits_; }

  // A zero-filled tensor of `elem_type` and `dims`; ResourceExhausted when it would exceed
  // limits().max_output_bytes, InvalidArgument when a dim is negative or the product overflows.
  // Checked before anything is allocated.
  absl::StatusOr<EvalTensor> allocate(int32_t elem_type, absl::Span<const int64_t> dims) const;
  // The element count allocate() would give, with its checks, for an output that reuses data.
  absl::StatusOr<int64_t> outputElements(int32_t elem_type, absl::Span<const int64_t> dims) const;

  // Errors naming the node: Unimplemented (the kernel does not handle this exactly) and
  // InvalidArgument (the inputs are ones the op rejects).
  absl::Status unimplemented(absl::string_view why) const;
  absl::Status invalid(absl::string_view why) const;

 private:
  const ir::Node& node_;
  int64_t since_version_;
  absl::Span<const EvalTensor* const> inputs_;
  const EvalLimits& limits_;
};

// The element types an operator version takes for type parameter `param` when libonnx has no
// schema for it (versions after opset 17), as ONNX's docs/Changelog.md lists them; nullopt when
// the caller does not know the version.
using TypesAfterLibonnx = std::optional<std::vector<int32_t>> (*)(absl::string_view op_type,
                                                                  int64_t since_version,
                                                                  absl::string_view param);
// For the data-movement ops, whose versions after opset 17 take every tensor type.
inline constexpr TypesAfterLibonnx kEveryTypeAfterLibonnx = nullptr;

// OK when the node's operator version allows `elem_type` for `param` (its schema up to opset 17,
// `after_libonnx` beyond); InvalidArgument naming the type and the parameter otherwise,
// Unimplemented when `after_libonnx` does not know the version.
absl::Status checkElemType(const KernelContext& ctx, absl::string_view param, int32_t elem_type,
                           TypesAfterLibonnx after_libonnx);

// What a kernel returns: its outputs, or why it does not fold.
using Outputs = absl::StatusOr<std::vector<EvalTensor>>;
using KernelFn = Outputs (*)(const KernelContext&);

// The outputs of a kernel with one output.
Outputs singleOutput(absl::StatusOr<EvalTensor> output);

// One kernel: the op (default domain) and the range of operator versions (since_version values)
// it implements, both ends included.
struct KernelEntry {
  const char* op_type;
  int64_t min_version;
  int64_t max_version;
  KernelFn fn;
};

// Each kernel file lists its kernels; evaluator.cc puts them in one table.
absl::Span<const KernelEntry> movementKernels();     // kernels_movement.cc
absl::Span<const KernelEntry> elementwiseKernels();  // kernels_elementwise.cc
absl::Span<const KernelEntry> reductionKernels();    // kernels_reduction.cc

// Calls f(T{}) with T the C++ element type of `elem_type`: float, double, Float16, BFloat16,
// int8_t ... int64_t, uint8_t ... uint64_t, bool, std::string. Unimplemented (naming the type)
// for anything else. `Types` restricts the set: dispatchType<kNumeric>(...).
enum TypeSet : uint32_t {
  kFloating = 1,         // float, double, Float16, BFloat16
  kSignedInt = 2,        // int8_t .. int64_t
  kUnsignedInt = 4,      // uint8_t .. uint64_t
  kBool = 8,
  kString = 16,
  kInteger = kSignedInt | kUnsignedInt,
  kNumeric = kFloating | kInteger,
  kAllTypes = kNumeric | kBool | kString,
};
template <uint32_t Types, typename F>
absl::Status dispatchType(const KernelContext& ctx, int32_t elem_type, F&& f);  // defined below

// numpy-style broadcasting of two or more shapes; InvalidArgument naming both dims when they
// do not broadcast.
absl::StatusOr<std::vector<int64_t>> broadcastDims(const KernelContext& ctx,
                                                   absl::Span<const std::vector<int64_t>> shapes);
// The strides with which a row-major tensor of `in_dims`, broadcast numpy-style to `out_dims`,
// is read along each axis of `out_dims`: 0 where it is broadcast.
std::vector<int64_t> broadcastStrides(absl::Span<const int64_t> in_dims,
                                      absl::Span<const int64_t> out_dims);
// For each element of a tensor of `out_dims` (row-major), the index of the element it reads in
// a tensor of `in_dims` broadcast to `out_dims`.
std::vector<int64_t> broadcastIndex(absl::Span<const int64_t> in_dims,
                                    absl::Span<const int64_t> out_dims);

// Normalizes an axis in [-rank, rank) to [0, rank); InvalidArgument otherwise.
absl::StatusOr<int64_t> normalizeAxis(const KernelContext& ctx, int64_t axis, int64_t rank);
// The elements of an integer tensor (int32 or int64) as int64; InvalidArgument for other types.
absl::StatusOr<std::vector<int64_t>> readInts(const KernelContext& ctx, const EvalTensor& t);

template <uint32_t Types, typename F>
absl::Status dispatchType(const KernelContext& ctx, int32_t elem_type, F&& f) {
  using onnx::TensorProto;
  switch (elem_type) {
    case TensorProto::FLOAT:
      if constexpr ((Types & kFloating) != 0) return f(float{});
      break;
    case TensorProto::DOUBLE:
      if constexpr ((Types & kFloating) != 0) return f(double{});
      break;
    case TensorProto::FLOAT16:
      if constexpr ((Types & kFloating) != 0) return f(Float16{});
      break;
    case TensorProto::BFLOAT16:
      if constexpr ((Types & kFloating) != 0) return f(BFloat16{});
      break;
    case TensorProto::INT8:
      if constexpr ((Types & kSignedInt) != 0) return f(int8_t{});
      break;
    case TensorProto::INT16:
      if constexpr ((Types & kSignedInt) != 0) return f(int16_t{});
      break;
    case TensorProto::INT32:
      if constexpr ((Types & kSignedInt) != 0) return f(int32_t{});
      break;
    case TensorProto::INT64:
      if constexpr ((Types & kSignedInt) != 0) return f(int64_t{});
      break;
    case TensorProto::UINT8:
      if constexpr ((Types & kUnsignedInt) != 0) return f(uint8_t{});
      break;
    case TensorProto::UINT16:
      if constexpr ((Types & kUnsignedInt) != 0) return f(uint16_t{});
      break;
    case TensorProto::UINT32:
      if constexpr ((Types & kUnsignedInt) != 0) return f(uint32_t{});
      break;
    case TensorProto::UINT64:
      if constexpr ((Types & kUnsignedInt) != 0) return f(uint64_t{});
      break;
    case TensorProto::BOOL:
      if constexpr ((Types & kBool) != 0) return f(bool{});
      break;
    case TensorProto::STRING:
      if constexpr ((Types & kString) != 0) return f(std::string{});
      break;
    default:
      break;
  }
  return ctx.unimplemented(
      absl::StrCat("no kernel for element type ", ir::elemTypeName(elem_type)));
}

}  // namespace onnxopt::eval
