#include "onnxopt/ir/attribute.h"

#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

// Attributes made by passes own a heap message (Swap: nothing copied).
Attribute::Attribute(onnx::AttributeProto&& proto) : proto_(new onnx::AttributeProto) {
  proto_->Swap(&proto);
}
Attribute::Attribute(Attribute&&) noexcept = default;
Attribute& Attribute::operator=(Attribute&&) noexcept = default;
Attribute::~Attribute() = default;

namespace {
// Made where it stays (no message built on the stack and swapped over).
ProtoPtr<onnx::AttributeProto> named(const std::string& name,
                                     onnx::AttributeProto::AttributeType kind,
                                     google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto(newProto<onnx::AttributeProto>(arena));
  proto->set_name(name);
  proto->set_type(kind);
  return proto;
}
}  // namespace

Attribute Attribute::makeInt(const std::string& name, int64_t value,
                             google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::INT, arena);
  proto->set_i(value);
  return Attribute(std::move(proto));
}

Attribute Attribute::makeFloat(const std::string& name, float value,
                               google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::FLOAT, arena);
  proto->set_f(value);
  return Attribute(std::move(proto));
}

Attribute Attribute::makeString(const std::string& name, std::string value,
                                google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::STRING, arena);
  proto->set_s(std::move(value));
  return Attribute(std::move(proto));
}

Attribute Attribute::makeInts(const std::string& name, absl::Span<const int64_t> values,
                              google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::INTS, arena);
  proto->mutable_ints()->Add(values.begin(), values.end());
  return Attribute(std::move(proto));
}

Attribute Attribute::makeFloats(const std::string& name, absl::Span<const float> values,
                                google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::FLOATS, arena);
  proto->mutable_floats()->Add(values.begin(), values.end());
  return Attribute(std::move(proto));
}

Attribute Attribute::makeTensor(const std::string& name, onnx::TensorProto value,
                                google::protobuf::Arena* arena) {
  ProtoPtr<onnx::AttributeProto> proto = named(name, onnx::AttributeProto::TENSOR, arena);
  proto->mutable_t()->Swap(&value);
  return Attribute(std::move(proto));
}

}  // namespace onnxopt::ir
