#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/proto_ptr.h"

namespace onnxopt::ir {

class Graph;
class ProtoImporter;

// A node attribute. Everything but graphs stays in the AttributeProto it was read from (so every
// attribute type, doc strings and unknown fields survive); graph-valued attributes (`g`,
// `graphs`) are IR graphs owned here, so passes and the driver can walk into them.
class ONNXOPT_API Attribute {
 public:
  using Kind = onnx::AttributeProto::AttributeType;

  explicit Attribute(onnx::AttributeProto&& proto);
  Attribute(Attribute&&) noexcept;
  Attribute& operator=(Attribute&&) noexcept;
  ~Attribute();

  // On `arena` when one is given (a model's, see Model::arena(): the attribute must then not
  // outlive the model), else on the heap.
  static Attribute makeInt(const std::string& name, int64_t value,
                           google::protobuf::Arena* arena = nullptr);
  static Attribute makeFloat(const std::string& name, float value,
                             google::protobuf::Arena* arena = nullptr);
  static Attribute makeString(const std::string& name, std::string value,
                              google::protobuf::Arena* arena = nullptr);
  static Attribute makeInts(const std::string& name, absl::Span<const int64_t> values,
                            google::protobuf::Arena* arena = nullptr);
  static Attribute makeFloats(const std::string& name, absl::Span<const float> values,
                              google::protobuf::Arena* arena = nullptr);
  static Attribute makeTensor(const std::string& name, onnx::TensorProto value,
                              google::protobuf::Arena* arena = nullptr);

  const std::string& name() const { return proto_->name(); }
  Kind kind() const { return proto_->type(); }

  int64_t i() const { return proto_->i(); }
  float f() const { return proto_->f(); }
  const std::string& s() const { return proto_->s(); }
  const google::protobuf::RepeatedField<int64_t>& ints() const { return proto_->ints(); }
  const google::protobuf::RepeatedField<float>& floats() const { return proto_->floats(); }
  const onnx::TensorProto& t() const { return proto_->t(); }

  // GRAPH attributes hold one graph, GRAPHS attributes any number; others none.
  const std::vector<std::unique_ptr<Graph>>& graphs() const { return graphs_; }
  std::vector<std::unique_ptr<Graph>>& mutableGraphs() { return graphs_; }

  // The attribute without its graphs.
  const onnx::AttributeProto& proto() const { return *proto_; }
  onnx::AttributeProto& mutableProto() { return *proto_; }

 private:
  friend class ProtoImporter;
  // Borrows `proto` if it lives on an arena (the model's, when importing), else owns it.
  explicit Attribute(ProtoPtr<onnx::AttributeProto> proto) : proto_(std::move(proto)) {}

  // Owned: a heap message. Borrowed: a message on the model's arena (read from the model, or
  // made on it), so such an attribute must not outlive the model.
  ProtoPtr<onnx::AttributeProto> proto_;
  std::vector<std::unique_ptr<Graph>> graphs_;
};

}  // namespace onnxopt::ir
