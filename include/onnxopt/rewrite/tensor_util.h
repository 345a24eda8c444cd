#pragma once

// Building and transforming TensorProtos, element types, and the half-precision conversions, for
// passes and the constant evaluator. Raw data is ONNX's: little-endian, elements packed.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"

namespace onnxopt {

// int8 to uint64: ONNX's integer element types (bool is not one).
inline bool isIntegerElemType(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT64: return true;
    default: return false;
  }
}

// float16, bfloat16, float and double: ONNX's floating element types.
inline bool isFloatingElemType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT || elem_type == onnx::TensorProto::DOUBLE ||
         elem_type == onnx::TensorProto::FLOAT16 || elem_type == onnx::TensorProto::BFLOAT16;
}

// A 1-D int64 tensor (shape and axes operands), values in int64_data.
ONNXOPT_API onnx::TensorProto makeInt64Tensor(absl::Span<const int64_t> values);
// A rank-0 int64 tensor.
ONNXOPT_API onnx::TensorProto makeInt64Scalar(int64_t value);
// A tensor whose elements are `raw_bytes` (ONNX raw_data); the caller makes the size match.
ONNXOPT_API onnx::TensorProto makeTensor(int32_t elem_type, absl::Span<const int64_t> dims,
                                         std::string raw_bytes);
// A float tensor of `dims` (values in float_data; as many as the dims hold).
ONNXOPT_API onnx::TensorProto makeFloatTensor(absl::Span<const float> values,
                                              absl::Span<const int64_t> dims);

// IEEE binary16 and bfloat16 from and to float. Widening is exact; narrowing rounds to nearest,
// ties to even, overflows to infinity, and keeps NaN a (quiet) NaN of the same sign.
ONNXOPT_API float halfToFloat(uint16_t bits);
ONNXOPT_API uint16_t floatToHalf(float value);
ONNXOPT_API float bfloat16ToFloat(uint16_t bits);
ONNXOPT_API uint16_t floatToBfloat16(float value);

// The tensor's elements as raw_data would hold them, whatever their storage: a view of raw_data
// itself, or of `scratch`, filled from the typed field (int32_data, uint64_data, ...). nullopt
// for strings, types without a fixed size, external data, segments, and data whose count does not
// match the dims. The view lives as long as the tensor and `scratch`.
ONNXOPT_API std::optional<absl::string_view> elementBytes(const onnx::TensorProto& tensor,
                                                          std::string* scratch);

// The bytes `count` elements of the tensor's type take (strings: the lengths of those in
// string_data), saturating at INT64_MAX; nullopt for a type of no known size.
ONNXOPT_API std::optional<int64_t> dataBytes(const onnx::TensorProto& tensor, int64_t count);

// The tensor transposed: output dim i is input dim perm[i]. Any rank and every element type,
// strings included; the data stays where it was (raw_data or the typed field); name, type and
// doc_string are kept. InvalidArgument naming the tensor when perm is not a permutation of the
// rank, the data does not match the dims, the data is external or segmented, or the type is
// unknown.
ONNXOPT_API absl::StatusOr<onnx::TensorProto> transposeTensor(const onnx::TensorProto& tensor,
                                                              absl::Span<const int64_t> perm);

// `parts` side by side along their last axis, as a tensor of `elem_type` and `dims`: each part
// holds `rows` rows (its elements split evenly), and row r of the result is row r of each part in
// turn (weights [K, N_i] joined into [K, sum N_i]; biases of N_i elements, one row each, into
// [sum N_i]). Data in raw_data. nullopt when a part's elements cannot be read (elementBytes) or
// do not split into `rows` rows; the caller makes the dims match.
ONNXOPT_API std::optional<onnx::TensorProto> joinLastAxis(
    absl::Span<const onnx::TensorProto* const> parts, int64_t rows,
    absl::Span<const int64_t> dims, int32_t elem_type);

// Same element type, same dims and bitwise-equal elements, whichever storage each uses (strings
// compared by value). False when either has external or segmented data, or malformed data.
ONNXOPT_API bool sameTensorContents(const onnx::TensorProto& a, const onnx::TensorProto& b);

}  // namespace onnxopt
