#pragma once

// Runs one node through the evaluator, for the kernel unit tests: the node is built at a given
// opset with typed inputs, and results are read back as doubles (float16 and bfloat16 widened).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/eval/evaluator.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/rewrite/tensor_util.h"

#include "kernel_cases.h"

namespace onnxopt::testing {

// A tensor of `elem_type` holding `values` converted to it (bits of float16/bfloat16 rounded
// from the value). Strings use makeStrings.
inline onnx::TensorProto makeTensor(int32_t elem_type, std::vector<int64_t> dims,
                                    const std::vector<double>& values) {
  onnx::TensorProto tensor = kernel_cases::valuesTensor(elem_type, dims, values);
  if (!values.empty() && tensor.raw_data().empty()) {
    ADD_FAILURE() << "makeTensor: element type " << elem_type;
  }
  return tensor;
}

// An int64 tensor given exactly (values beyond 2^53 do not go through double).
inline onnx::TensorProto makeInt64s(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  std::string raw(values.size() * sizeof(int64_t), '\0');
  // An empty vector's data() may be null, which memcpy may not be given.
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return onnxopt::makeTensor(onnx::TensorProto::INT64, dims, std::move(raw));
}

inline onnx::TensorProto makeStrings(std::vector<int64_t> dims,
                                     const std::vector<std::string>& values) {
  onnx::TensorProto tensor;
  tensor.set_data_type(onnx::TensorProto::STRING);
  for (const int64_t dim : dims) tensor.add_dims(dim);
  for (const std::string& value : values) tensor.add_string_data(value);
  return tensor;
}

// The elements of a result as doubles.
inline std::vector<double> values(const onnx::TensorProto& tensor) {
  using onnx::TensorProto;
  std::string scratch;
  const auto bytes = elementBytes(tensor, &scratch);
  EXPECT_TRUE(bytes.has_value());
  if (!bytes) return {};
  std::vector<double> out;
  const char* p = bytes->data();
  auto read = [&p](auto tag) {
    decltype(tag) value;
    std::memcpy(&value, p, sizeof(value));
    p += sizeof(value);
    return value;
  };
  const char* end = bytes->data() + bytes->size();
  while (p < end) {
    switch (tensor.data_type()) {
      case TensorProto::FLOAT: out.push_back(read(float{})); break;
      case TensorProto::DOUBLE: out.push_back(read(double{})); break;
      case TensorProto::FLOAT16: out.push_back(halfToFloat(read(uint16_t{}))); break;
      case TensorProto::BFLOAT16: out.push_back(bfloat16ToFloat(read(uint16_t{}))); break;
      case TensorProto::INT8: out.push_back(read(int8_t{})); break;
      case TensorProto::INT16: out.push_back(read(int16_t{})); break;
      case TensorProto::INT32: out.push_back(read(int32_t{})); break;
      case TensorProto::INT64: out.push_back(static_cast<double>(read(int64_t{}))); break;
      case TensorProto::UINT8: out.push_back(read(uint8_t{})); break;
      case TensorProto::UINT16: out.push_back(read(uint16_t{})); break;
      case TensorProto::UINT32: out.push_back(read(uint32_t{})); break;
      case TensorProto::UINT64: out.push_back(static_cast<double>(read(uint64_t{}))); break;
      case TensorProto::BOOL: out.push_back(read(uint8_t{})); break;
      default: ADD_FAILURE() << "values: element type " << tensor.data_type(); return out;
    }
  }
  return out;
}

inline std::vector<int64_t> dimsOf(const onnx::TensorProto& tensor) {
  return {tensor.dims().begin(), tensor.dims().end()};
}

// One node `op_type` at default-domain `opset`, reading one graph input per tensor of `inputs`
// (a null entry is an omitted input), with `attributes`, evaluated.
class NodeRun {
 public:
  NodeRun(const std::string& op_type, int64_t opset, std::vector<const onnx::TensorProto*> inputs,
          std::vector<onnx::AttributeProto> attributes = {}, int outputs = 1) {
    onnx::ModelProto proto;
    proto.set_ir_version(8);
    auto* opset_import = proto.add_opset_import();
    opset_import->set_domain("");
    opset_import->set_version(opset);
    onnx::GraphProto* graph = proto.mutable_graph();
    graph->set_name("g");
    onnx::NodeProto* node = graph->add_node();
    node->set_op_type(op_type);
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] == nullptr) {
        node->add_input("");
        continue;
      }
      const std::string name = "x" + std::to_string(i);
      node->add_input(name);
      onnx::ValueInfoProto* input = graph->add_input();
      input->set_name(name);
      auto* tensor_type = input->mutable_type()->mutable_tensor_type();
      tensor_type->set_elem_type(inputs[i]->data_type());
      for (const int64_t dim : inputs[i]->dims())
        tensor_type->mutable_shape()->add_dim()->set_dim_value(dim);
    }
    for (int i = 0; i < outputs; ++i) {
      node->add_output("y" + std::to_string(i));
      graph->add_output()->set_name("y" + std::to_string(i));
    }
    for (onnx::AttributeProto& attribute : attributes)
      *node->add_attribute() = std::move(attribute);
    auto model = ir::importModel(std::move(proto));
    EXPECT_TRUE(model.ok()) << model.status();
    if (!model.ok()) return;
    model_ = *std::move(model);
    result_ = eval::evaluate(*model_->graph().firstNode(), inputs);
  }

  const absl::StatusOr<std::vector<onnx::TensorProto>>& result() const { return result_; }
  absl::StatusCode code() const { return result_.status().code(); }
  // The first output; fails the test when the evaluation failed.
  onnx::TensorProto output() const {
    EXPECT_TRUE(result_.ok()) << result_.status();
    return result_.ok() && !result_->empty() ? result_->front() : onnx::TensorProto();
  }
  std::vector<double> values() const { return testing::values(output()); }

 private:
  std::unique_ptr<ir::Model> model_;
  absl::StatusOr<std::vector<onnx::TensorProto>> result_ = absl::UnknownError("not run");
};

inline onnx::AttributeProto intAttr(const std::string& name, int64_t value) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INT);
  attribute.set_i(value);
  return attribute;
}

inline onnx::AttributeProto floatAttr(const std::string& name, float value) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::FLOAT);
  attribute.set_f(value);
  return attribute;
}

inline onnx::AttributeProto intsAttr(const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto attribute;
  attribute.set_name(name);
  attribute.set_type(onnx::AttributeProto::INTS);
  for (const int64_t value : values) attribute.add_ints(value);
  return attribute;
}

}  // namespace onnxopt::testing
