#include "onnxopt/ir/type.h"

#include <limits>
#include <mutex>

#include "absl/container/node_hash_set.h"

namespace onnxopt::ir {

const std::string Dim::kUnknownMark;

const std::string* Dim::internSymbol(absl::string_view symbol) {
  static std::mutex mutex;
  // Never freed: dims held by static objects may still be read during exit.
  static auto* const symbols = new absl::node_hash_set<std::string>();
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = symbols->find(symbol);
  if (it == symbols->end()) it = symbols->emplace(symbol).first;
  return &*it;
}

Type Type::tensor(int32_t elem_type, std::optional<Shape> shape) {
  Type type;
  type.is_tensor_ = true;
  type.elem_type_ = elem_type;
  type.shape_ = std::move(shape);
  return type;
}

Type Type::fromProto(const onnx::TypeProto& proto) {
  if (!proto.has_tensor_type()) return Type();
  const onnx::TypeProto::Tensor& tensor = proto.tensor_type();
  std::optional<Shape> shape;
  if (tensor.has_shape()) {
    shape.emplace();
    shape->reserve(tensor.shape().dim_size());
    for (const auto& dim : tensor.shape().dim()) {
      // A negative dim_value is no size (exporters write -1 for a dynamic dim; libonnx's inference
      // passes a negative constant shape through): it is unknown.
      if (dim.has_dim_value() && dim.dim_value() >= 0) {
        shape->push_back(Dim::known(dim.dim_value()));
      } else if (dim.has_dim_param() && !dim.dim_param().empty()) {
        shape->push_back(Dim::symbolic(dim.dim_param()));
      } else {
        shape->push_back(Dim::unknown());
      }
    }
  }
  return Type::tensor(tensor.elem_type(), std::move(shape));
}

std::optional<int64_t> Type::rank() const {
  if (!shape_) return std::nullopt;
  return static_cast<int64_t>(shape_->size());
}

void Type::writeTo(onnx::TypeProto* proto) const {
  onnx::TypeProto::Tensor* tensor = proto->mutable_tensor_type();
  tensor->set_elem_type(elem_type_);
  if (!shape_) {
    tensor->clear_shape();
    return;
  }
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  shape->clear_dim();
  for (const Dim& dim : *shape_) {
    auto* out = shape->add_dim();
    if (dim.isKnown()) out->set_dim_value(dim.value());
    if (dim.isSymbolic()) out->set_dim_param(dim.symbol());
  }
}

bool Type::operator==(const Type& other) const {
  return is_tensor_ == other.is_tensor_ && elem_type_ == other.elem_type_ &&
         shape_ == other.shape_;
}

const char* elemTypeName(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT: return "float";
    case onnx::TensorProto::UINT8: return "uint8";
    case onnx::TensorProto::INT8: return "int8";
    case onnx::TensorProto::UINT16: return "uint16";
    case onnx::TensorProto::INT16: return "int16";
    case onnx::TensorProto::INT32: return "int32";
    case onnx::TensorProto::INT64: return "int64";
    case onnx::TensorProto::STRING: return "string";
    case onnx::TensorProto::BOOL: return "bool";
    case onnx::TensorProto::FLOAT16: return "float16";
    case onnx::TensorProto::DOUBLE: return "double";
    case onnx::TensorProto::UINT32: return "uint32";
    case onnx::TensorProto::UINT64: return "uint64";
    case onnx::TensorProto::COMPLEX64: return "complex64";
    case onnx::TensorProto::COMPLEX128: return "complex128";
    case onnx::TensorProto::BFLOAT16: return "bfloat16";
    default: return "undefined";
  }
}

int32_t elemTypeFromAttribute(int64_t value) {
  if (value <= onnx::TensorProto::UNDEFINED || value > std::numeric_limits<int32_t>::max() ||
      !onnx::TensorProto_DataType_IsValid(static_cast<int>(value))) {
    return onnx::TensorProto::UNDEFINED;
  }
  return static_cast<int32_t>(value);
}

int64_t elemTypeSize(int32_t elem_type) {
  switch (elem_type) {
    case onnx::TensorProto::BOOL:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::INT8: return 1;
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::BFLOAT16: return 2;
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::UINT32: return 4;
    case onnx::TensorProto::DOUBLE:
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::COMPLEX64: return 8;
    case onnx::TensorProto::COMPLEX128: return 16;
    default: return 0;
  }
}

}  // namespace onnxopt::ir
