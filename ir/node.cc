#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

Node::Node(Graph* graph)
    : graph_(graph), proto_(newProto<onnx::NodeProto>(graph->arena())) {
  setOp(OpName::of(""));
}
Node::Node(Graph* graph, ProtoPtr<onnx::NodeProto> proto)
    : graph_(graph), proto_(std::move(proto)) {
  setOp(OpName::of(proto_->op_type(), proto_->domain()));
}
Node::~Node() = default;

std::vector<Attribute>& Node::mutableAttributes() {
  graph_->noteModified();
  return attributes_;
}

onnx::NodeProto& Node::mutableProto() {
  graph_->noteModified();
  return *proto_;
}

void Node::setName(std::string name) {
  graph_->noteModified();
  proto_->set_name(std::move(name));
  if (!proto_->name().empty() && graph_->model() != nullptr) {
    graph_->model()->nodeNames().give(proto_->name());
  }
}

void Node::setOpType(const std::string& op_type) {
  graph_->noteModified();
  proto_->set_op_type(op_type);
  setOp(OpName::of(op_type, domain()));
}

void Node::setDomain(const std::string& domain) {
  graph_->noteModified();
  if (domain.empty()) {
    proto_->clear_domain();
  } else {
    proto_->set_domain(domain);
  }
  setOp(OpName::of(opType(), domain));
}

bool Node::is(absl::string_view op_type, absl::string_view domain) const {
  if (domain == "ai.onnx") domain = "";
  return op_->opType() == op_type && op_->domain() == domain;
}

void Node::setInput(size_t i, Value* value) {
  if (inputs_[i] == value) return;
  graph_->noteModified();
  if (inputs_[i] != nullptr) inputs_[i]->removeUse(input_use_slots_[i]);
  inputs_[i] = value;
  input_use_slots_[i] = value ? value->addUse(Use(this, static_cast<uint32_t>(i))) : 0;
  if (value != nullptr && value->graph_ != graph_) graph_->keepReadable(*value);
}

void Node::addInput(Value* value) {
  inputs_.push_back(nullptr);
  input_use_slots_.push_back(0);
  setInput(inputs_.size() - 1, value);
}

void Node::truncateInputs(size_t count) {
  while (inputs_.size() > count) {
    setInput(inputs_.size() - 1, nullptr);
    inputs_.pop_back();
    input_use_slots_.pop_back();
  }
}

Value* Node::addOutput(std::string name) {
  Value* value = graph_->newValue(std::move(name));
  value->producer_ = this;
  value->output_index_ = static_cast<uint32_t>(output_ptrs_.size());
  output_ptrs_.push_back(value);
  return value;
}

void Node::addOmittedOutput() { output_ptrs_.push_back(nullptr); }

const Attribute* Node::attr(absl::string_view name) const {
  for (const Attribute& attribute : attributes_) {
    if (attribute.name() == name) return &attribute;
  }
  return nullptr;
}

namespace {
// Subgraph nodes hold uses of outer values; they must let go before the subgraph is destroyed.
void dropSubgraphReferences(Attribute& attribute) {
  for (auto& subgraph : attribute.mutableGraphs()) {
    for (Node& inner : *subgraph) inner.dropAllReferences();
    for (size_t i = 0; i < subgraph->outputs().size(); ++i) subgraph->setOutput(i, nullptr);
  }
}
}  // namespace

void Node::setAttr(Attribute attribute) {
  graph_->noteModified();
  for (Attribute& existing : attributes_) {
    if (existing.name() == attribute.name()) {
      dropSubgraphReferences(existing);
      existing = std::move(attribute);
      return;
    }
  }
  attributes_.push_back(std::move(attribute));
}

bool Node::removeAttr(absl::string_view name) {
  graph_->noteModified();
  for (auto it = attributes_.begin(); it != attributes_.end(); ++it) {
    if (it->name() == name) {
      dropSubgraphReferences(*it);
      attributes_.erase(it);
      return true;
    }
  }
  return false;
}

std::optional<Attribute> Node::takeAttr(absl::string_view name) {
  graph_->noteModified();
  for (auto it = attributes_.begin(); it != attributes_.end(); ++it) {
    if (it->name() == name) {
      dropSubgraphReferences(*it);
      Attribute taken = std::move(*it);
      attributes_.erase(it);
      return taken;
    }
  }
  return std::nullopt;
}

void Node::moveAttributesTo(Node* to) {
  graph_->noteModified();
  to->graph_->noteModified();
  for (Attribute& attribute : attributes_) {
    for (auto& subgraph : attribute.mutableGraphs()) subgraph->parent_node_ = to;
    to->attributes_.push_back(std::move(attribute));
  }
  attributes_.clear();
}

int64_t Node::intAttr(absl::string_view name, int64_t default_value) const {
  const Attribute* attribute = attr(name);
  return attribute ? attribute->i() : default_value;
}

float Node::floatAttr(absl::string_view name, float default_value) const {
  const Attribute* attribute = attr(name);
  return attribute ? attribute->f() : default_value;
}

bool Node::hasSubgraphs() const {
  for (const Attribute& attribute : attributes_) {
    if (!attribute.graphs().empty()) return true;
  }
  return false;
}

void Node::dropAllReferences() {
  for (size_t i = 0; i < inputs_.size(); ++i) setInput(i, nullptr);
  for (Attribute& attribute : attributes_) dropSubgraphReferences(attribute);
}

}  // namespace onnxopt::ir
