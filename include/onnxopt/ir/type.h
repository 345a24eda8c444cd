#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// One dimension of a tensor shape: a known size, a named symbol (`N`, `batch`), or nothing known.
//
// Two words, trivially copyable: shapes are copied and compared all the time while passes ask
// about types. Symbols are interned for the life of the process (a model names a handful of
// them), so two dims with the same symbol hold the same pointer.
class ONNXOPT_API Dim {
 public:
  enum class Kind { kKnown, kSymbolic, kUnknown };

  static Dim known(int64_t value) { return Dim(value, nullptr); }
  static Dim symbolic(absl::string_view symbol) { return Dim(0, internSymbol(symbol)); }
  static Dim unknown() { return Dim(0, &kUnknownMark); }

  Kind kind() const {
    return symbol_ == nullptr ? Kind::kKnown
           : symbol_ == &kUnknownMark ? Kind::kUnknown
                                      : Kind::kSymbolic;
  }
  bool isKnown() const { return symbol_ == nullptr; }
  bool isSymbolic() const { return symbol_ != nullptr && symbol_ != &kUnknownMark; }
  bool isUnknown() const { return symbol_ == &kUnknownMark; }
  int64_t value() const { return value_; }
  // Empty unless symbolic.
  const std::string& symbol() const { return isSymbolic() ? *symbol_ : kUnknownMark; }

  // Two dims are provably equal when both are the same known size or the same symbol.
  bool provablyEquals(const Dim& other) const {
    return !isUnknown() && symbol_ == other.symbol_ && value_ == other.value_;
  }
  bool operator==(const Dim& other) const {
    return symbol_ == other.symbol_ && value_ == other.value_;
  }
  bool operator!=(const Dim& other) const { return !(*this == other); }

 private:
  Dim(int64_t value, const std::string* symbol) : value_(value), symbol_(symbol) {}
  // The one copy of `symbol`, made on first use and never freed.
  static const std::string* internSymbol(absl::string_view symbol);
  // Marks an unknown dim (its text is empty, which no symbol is).
  static const std::string kUnknownMark;

  int64_t value_;
  const std::string* symbol_;  // null for a known size
};
static_assert(sizeof(Dim) == 2 * sizeof(int64_t), "a Dim is meant to fit in two words");

// Most tensors have rank 4 or less: their shapes need no heap memory.
using Shape = absl::InlinedVector<Dim, 4>;

// The type of a value as passes see it. Only tensor types are modelled; a value of any other type
// (sequence, map, optional, sparse) or of no recorded type reads as `isTensor() == false`.
class ONNXOPT_API Type {
 public:
  Type() = default;
  static Type tensor(int32_t elem_type, std::optional<Shape> shape = std::nullopt);
  static Type fromProto(const onnx::TypeProto& proto);

  bool isTensor() const { return is_tensor_; }
  // onnx::TensorProto::DataType, or 0 (UNDEFINED) when not known.
  int32_t elemType() const { return elem_type_; }
  // nullopt when the rank is not known.
  const std::optional<Shape>& shape() const { return shape_; }
  // Moves the shape out of a Type about to go.
  std::optional<Shape> takeShape() && { return std::move(shape_); }
  std::optional<int64_t> rank() const;

  // Writes this type into `proto` (a tensor type); leaves other fields of `proto` alone.
  void writeTo(onnx::TypeProto* proto) const;

  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }

 private:
  bool is_tensor_ = false;
  int32_t elem_type_ = 0;
  std::optional<Shape> shape_;
};

// "float", "int64", ... as the ONNX text syntax names them; "undefined" for 0.
ONNXOPT_API const char* elemTypeName(int32_t elem_type);
// Size in bytes of one element, 0 for strings and unknown types.
ONNXOPT_API int64_t elemTypeSize(int32_t elem_type);
// An attribute's value (Cast's `to`, a `dtype`) as an element type: 0 (undefined) unless it is
// one of TensorProto.DataType's types, whatever its low 32 bits.
ONNXOPT_API int32_t elemTypeFromAttribute(int64_t value);

}  // namespace onnxopt::ir
