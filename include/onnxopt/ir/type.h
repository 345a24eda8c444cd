#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// One dimension of a tensor shape: a known size, a named symbol (`N`, `batch`), or nothing known.
class ONNXOPT_API Dim {
 public:
  enum class Kind { kKnown, kSymbolic, kUnknown };

  static Dim known(int64_t value) { return Dim(Kind::kKnown, value, {}); }
  static Dim symbolic(std::string symbol) { return Dim(Kind::kSymbolic, 0, std::move(symbol)); }
  static Dim unknown() { return Dim(Kind::kUnknown, 0, {}); }

  Kind kind() const { return kind_; }
  bool isKnown() const { return kind_ == Kind::kKnown; }
  bool isSymbolic() const { return kind_ == Kind::kSymbolic; }
  bool isUnknown() const { return kind_ == Kind::kUnknown; }
  int64_t value() const { return value_; }
  const std::string& symbol() const { return symbol_; }

  // Two dims are provably equal when both are the same known size or the same symbol.
  bool provablyEquals(const Dim& other) const;
  bool operator==(const Dim& other) const;
  bool operator!=(const Dim& other) const { return !(*this == other); }

 private:
  Dim(Kind kind, int64_t value, std::string symbol)
      : kind_(kind), value_(value), symbol_(std::move(symbol)) {}
  Kind kind_;
  int64_t value_;
  std::string symbol_;
};

using Shape = std::vector<Dim>;

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

}  // namespace onnxopt::ir
