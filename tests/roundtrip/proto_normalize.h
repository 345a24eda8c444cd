#pragma once

// What "a text round trip left the model unchanged" means, shared by the round-trip tests of
// the printer with ONNX 1.12's parser (text_roundtrip_test.cc) and with onnx-opt's own reader
// (text_reader_roundtrip_test.cc).

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "google/protobuf/message.h"
#include "onnx/onnx_pb.h"

namespace onnxopt::ir::testing {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// What "unchanged" means. The parser
//  - stores tensor elements in the typed field for their element type (float_data, int32_data,
//    ...), never in raw_data: both sides hold their elements in typed fields before comparing;
//  - sets some fields to their default value where the original left them unset (a node's
//    domain "", an attribute tensor's name "", the main graph's name ""): ONNX gives field
//    presence no meaning, so a scalar field set to its default counts as unset. Fields of a
//    oneof keep their presence, since an unknown dim (nothing set) and dim_value 0 differ.
// Everything else must be equal, the order of every repeated field included.

template <typename RawElement, typename TypedElement>
inline void appendRawElements(const std::string& raw,
                              google::protobuf::RepeatedField<TypedElement>* typed) {
  for (size_t offset = 0; offset + sizeof(RawElement) <= raw.size(); offset += sizeof(RawElement)) {
    RawElement element;
    std::memcpy(&element, raw.data() + offset, sizeof element);
    typed->Add(static_cast<TypedElement>(element));
  }
}

// raw_data is little-endian, as is every host this builds on.
inline void moveRawDataToTypedField(onnx::TensorProto& tensor) {
  if (!tensor.has_raw_data()) return;
  using onnx::TensorProto;
  const std::string& raw = tensor.raw_data();
  switch (tensor.data_type()) {
    case TensorProto::FLOAT:
    case TensorProto::COMPLEX64:
      appendRawElements<float>(raw, tensor.mutable_float_data());
      break;
    case TensorProto::DOUBLE:
    case TensorProto::COMPLEX128:
      appendRawElements<double>(raw, tensor.mutable_double_data());
      break;
    case TensorProto::INT8:
      appendRawElements<int8_t>(raw, tensor.mutable_int32_data());
      break;
    case TensorProto::INT16:
      appendRawElements<int16_t>(raw, tensor.mutable_int32_data());
      break;
    case TensorProto::INT32:
      appendRawElements<int32_t>(raw, tensor.mutable_int32_data());
      break;
    case TensorProto::INT64:
      appendRawElements<int64_t>(raw, tensor.mutable_int64_data());
      break;
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      appendRawElements<uint8_t>(raw, tensor.mutable_int32_data());
      break;
    case TensorProto::UINT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      appendRawElements<uint16_t>(raw, tensor.mutable_int32_data());
      break;
    case TensorProto::UINT32:
      appendRawElements<uint32_t>(raw, tensor.mutable_uint64_data());
      break;
    case TensorProto::UINT64:
      appendRawElements<uint64_t>(raw, tensor.mutable_uint64_data());
      break;
    default:
      return;  // No typed field to hold it: left as is, and then not expressible anyway.
  }
  tensor.clear_raw_data();
}

inline bool holdsDefaultValue(const Message& message, const FieldDescriptor& field) {
  const Reflection& reflection = *message.GetReflection();
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return reflection.GetInt32(message, &field) == field.default_value_int32();
    case FieldDescriptor::CPPTYPE_INT64:
      return reflection.GetInt64(message, &field) == field.default_value_int64();
    case FieldDescriptor::CPPTYPE_UINT32:
      return reflection.GetUInt32(message, &field) == field.default_value_uint32();
    case FieldDescriptor::CPPTYPE_UINT64:
      return reflection.GetUInt64(message, &field) == field.default_value_uint64();
    case FieldDescriptor::CPPTYPE_BOOL:
      return reflection.GetBool(message, &field) == field.default_value_bool();
    case FieldDescriptor::CPPTYPE_ENUM:
      return reflection.GetEnumValue(message, &field) == field.default_value_enum()->number();
    case FieldDescriptor::CPPTYPE_STRING:
      return reflection.GetString(message, &field) == field.default_value_string();
    case FieldDescriptor::CPPTYPE_FLOAT: {
      // Bitwise, so that -0.0 is not taken for the default 0.0.
      const float value = reflection.GetFloat(message, &field);
      const float default_value = field.default_value_float();
      return std::memcmp(&value, &default_value, sizeof value) == 0;
    }
    case FieldDescriptor::CPPTYPE_DOUBLE: {
      const double value = reflection.GetDouble(message, &field);
      const double default_value = field.default_value_double();
      return std::memcmp(&value, &default_value, sizeof value) == 0;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return false;
  }
  return false;
}

inline void normalize(Message& message) {
  if (auto* tensor = dynamic_cast<onnx::TensorProto*>(&message)) moveRawDataToTypedField(*tensor);
  const Reflection& reflection = *message.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  reflection.ListFields(message, &fields);
  for (const FieldDescriptor* field : fields) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection.FieldSize(message, field); ++i) {
          normalize(*reflection.MutableRepeatedMessage(&message, field, i));
        }
      } else {
        normalize(*reflection.MutableMessage(&message, field));
      }
    } else if (!field->is_repeated() && field->containing_oneof() == nullptr &&
               holdsDefaultValue(message, *field)) {
      reflection.ClearField(&message, field);
    }
  }
}

}  // namespace onnxopt::ir::testing
