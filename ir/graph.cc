#include <algorithm>

#include "absl/strings/str_cat.h"

#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

Graph::Graph(Model* model, Node* parent_node)
    : model_(model), parent_node_(parent_node), proto_(newProto<onnx::GraphProto>(arena())) {
  if (model_ != nullptr) ++model_->num_graphs_;
}
// Destroying a subgraph inside its owner's destructor would recurse once per level of nesting:
// every nested graph is moved out to a list first and destroyed from there, without subgraphs.
Graph::~Graph() {
  std::vector<std::unique_ptr<Graph>> nested;
  auto take_subgraphs = [&nested](Graph& graph) {
    graph.nodes_.forEach([&nested](Node& node) {
      for (Attribute& attribute : node.attributes_) {
        for (auto& subgraph : attribute.mutableGraphs()) {
          if (subgraph) nested.push_back(std::move(subgraph));
        }
      }
    });
  };
  take_subgraphs(*this);
  while (!nested.empty()) {
    std::unique_ptr<Graph> graph = std::move(nested.back());
    nested.pop_back();
    take_subgraphs(*graph);
  }
  if (model_ != nullptr) --model_->num_graphs_;
}

google::protobuf::Arena* Graph::arena() const {
  return model_ ? model_->arena_.get() : nullptr;
}

std::string graphTooDeepMessage(absl::string_view graph, absl::string_view owner) {
  return absl::StrCat("graph '", graph, "' of ", owner, " is nested more than ", kMaxGraphNesting,
                      " levels deep");
}

namespace {
absl::Status checkNestingBelow(const Graph& graph, int level) {
  for (const Node& node : graph) {
    for (const Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        if (level == kMaxGraphNesting) {
          return absl::InvalidArgumentError(
              graphTooDeepMessage(subgraph->name(), describe(node)));
        }
        if (absl::Status status = checkNestingBelow(*subgraph, level + 1); !status.ok()) {
          return status;
        }
      }
    }
  }
  return absl::OkStatus();
}
}  // namespace

absl::Status checkGraphNesting(const Graph& graph) {
  // A model of one graph nests nothing: no need to walk its nodes.
  if (graph.model() != nullptr && graph.model()->numGraphs() == 1) return absl::OkStatus();
  return checkNestingBelow(graph, 0);
}

Graph* Graph::parentGraph() const { return parent_node_ ? parent_node_->graph() : nullptr; }

void Graph::noteModified() {
  if (model_ != nullptr) ++model_->modifications_;
}

onnx::GraphProto& Graph::mutableProto() {
  noteModified();
  return *proto_;
}

void Graph::linkBefore(Node* node, Node* before) {
  node->next_ = before;
  node->prev_ = before ? before->prev_ : last_;
  if (node->prev_) {
    node->prev_->next_ = node;
  } else {
    first_ = node;
  }
  if (before) {
    before->prev_ = node;
  } else {
    last_ = node;
  }
  ++num_nodes_;
}

void Graph::unlink(Node* node) {
  if (node->prev_) {
    node->prev_->next_ = node->next_;
  } else {
    first_ = node->next_;
  }
  if (node->next_) {
    node->next_->prev_ = node->prev_;
  } else {
    last_ = node->prev_;
  }
  node->prev_ = nullptr;
  --num_nodes_;
}

Node* Graph::createNode(const std::string& op_type, absl::Span<Value* const> inputs,
                        absl::Span<const std::string> output_names, Node* before,
                        const std::string& domain) {
  noteModified();
  Node* node = nodes_.create(this);
  node->ordinal_ = static_cast<uint32_t>(nodes_.size() - 1);
  node->setOpType(op_type);
  if (!domain.empty()) node->setDomain(domain);
  node->inputs_.reserve(inputs.size());
  node->input_use_slots_.reserve(inputs.size());
  node->output_ptrs_.reserve(output_names.size());
  for (Value* input : inputs) node->addInput(input);
  for (const std::string& name : output_names) {
    if (name.empty()) {
      node->addOmittedOutput();
    } else {
      node->addOutput(name);
    }
  }
  linkBefore(node, before);
  return node;
}

void Graph::moveNodeBefore(Node* node, Node* before) {
  if (node == before) return;
  noteModified();
  unlink(node);
  linkBefore(node, before);
}

void Graph::moveOutputs(Node* from, Node* to) {
  noteModified();
  to->output_ptrs_ = std::move(from->output_ptrs_);
  from->output_ptrs_.clear();
  for (Value* output : to->output_ptrs_) {
    if (output != nullptr) output->producer_ = to;
  }
  to->used_outputs_ = from->used_outputs_;
  from->used_outputs_ = 0;
}

void Graph::eraseNode(Node* node) {
  noteModified();
  node->dropAllReferences();
  // Keep node->next_: an iterator standing on this node continues from there.
  Node* next = node->next_;
  unlink(node);
  node->next_ = next;
  node->erased_ = true;
}

Value* Graph::newValue(std::string name) {
  noteModified();
  const auto ordinal = static_cast<uint32_t>(values_.size());
  Value* value = values_.create(this, std::move(name));
  value->ordinal_ = ordinal;
  if (model_ != nullptr) model_->giveValueName(value->name());
  return value;
}

Value* Graph::addInput(std::string name, const Type& type) {
  Value* value = newValue(std::move(name));
  value->is_graph_input_ = true;
  value->input_info_.reset(newProto<onnx::ValueInfoProto>(arena()));
  type.writeTo(value->input_info_->mutable_type());
  inputs_.push_back(value);
  indexScopeName(value);
  return value;
}

void Graph::removeInputs(absl::Span<Value* const> values) {
  size_t removed = 0;
  for (Value* value : values) {
    if (value->graph_ != this || !value->is_graph_input_) continue;
    value->is_graph_input_ = false;
    value->input_info_.reset();
    if (!value->isInitializer() && !value->isSparseInitializer()) unindexScopeName(*value);
    ++removed;
  }
  if (removed == 0) return;
  noteModified();
  inputs_.erase(std::remove_if(inputs_.begin(), inputs_.end(),
                               [](const Value* input) { return !input->is_graph_input_; }),
                inputs_.end());
}

void Graph::addOutput(Value* value) {
  outputs_.push_back(nullptr);
  output_use_slots_.push_back(0);
  output_infos_.emplace_back(newProto<onnx::ValueInfoProto>(arena()));
  setOutput(outputs_.size() - 1, value);
}

void Graph::setInputType(Value* input, const Type& type) {
  if (input == nullptr || input->graph_ != this || !input->input_info_) return;
  noteModified();
  type.writeTo(input->input_info_->mutable_type());
}

Type Graph::outputType(size_t i) const {
  if (i >= output_infos_.size() || !output_infos_[i]->has_type()) return Type();
  return Type::fromProto(output_infos_[i]->type());
}

void Graph::setOutputType(size_t i, const Type& type) {
  if (i >= output_infos_.size()) return;
  noteModified();
  type.writeTo(output_infos_[i]->mutable_type());
}

void Graph::setOutput(size_t i, Value* value) {
  if (outputs_[i] == value) return;
  noteModified();
  if (outputs_[i] != nullptr) outputs_[i]->removeUse(output_use_slots_[i]);
  outputs_[i] = value;
  output_use_slots_[i] = value ? value->addUse(Use(this, static_cast<uint32_t>(i))) : 0;
  if (value != nullptr && value->graph_ != this) keepReadable(*value);
}

void Graph::compactInitializers() const {
  if (removed_initializers_ == 0) return;
  initializers_.erase(std::remove(initializers_.begin(), initializers_.end(), nullptr),
                      initializers_.end());
  for (size_t i = 0; i < initializers_.size(); ++i) {
    initializers_[i]->initializer_slot_ = static_cast<uint32_t>(i);
  }
  removed_initializers_ = 0;
}

std::vector<Value*> Graph::initializers() const {
  compactInitializers();
  return initializers_;
}

Value* Graph::addInitializer(std::string name, std::shared_ptr<Tensor> tensor) {
  Value* value = newValue(std::move(name));
  value->initializer_ = std::move(tensor);
  // A fold removes one initializer and adds another, node after node: compacting on every add
  // would walk the whole list each time. Once half the slots are empty it pays for itself.
  if (2 * removed_initializers_ > initializers_.size()) compactInitializers();
  value->initializer_slot_ = static_cast<uint32_t>(initializers_.size());
  initializers_.push_back(value);
  indexScopeName(value);
  return value;
}

void Graph::removeInitializer(Value* value) {
  if (!value->isInitializer() && !value->isSparseInitializer()) return;
  noteModified();
  if (!value->isGraphInput()) unindexScopeName(*value);
  // O(1): the slot is cleared now and the list compacted once, when next read or grown.
  initializers_[value->initializer_slot_] = nullptr;
  ++removed_initializers_;
  value->initializer_.reset();
  value->sparse_initializer_.reset();
}

Value* Graph::shadowOf(const Value& outer) const {
  for (const Graph* scope = this; scope != nullptr && scope != outer.graph();
       scope = scope->parentGraph()) {
    if (Value* shadow = scope->inputOrInitializerNamed(outer.name())) return shadow;
  }
  return nullptr;
}

Value* Graph::inputOrInitializerNamed(absl::string_view name) const {
  // Most bodies have a handful of inputs and no initializers: a scan costs less than a map.
  constexpr size_t kMaxScanned = 16;
  if (inputs_.size() + initializers_.size() <= kMaxScanned) {
    for (Value* input : inputs_) {
      if (input->name() == name) return input;
    }
    for (Value* initializer : initializers_) {
      if (initializer != nullptr && initializer->name() == name) return initializer;
    }
    return nullptr;
  }
  if (scope_names_ == nullptr) {
    scope_names_ = std::make_unique<absl::flat_hash_map<absl::string_view, Value*>>();
    scope_names_->reserve(inputs_.size() + initializers_.size());
    for (Value* input : inputs_) scope_names_->try_emplace(input->name(), input);
    for (Value* initializer : initializers_) {
      if (initializer != nullptr) scope_names_->try_emplace(initializer->name(), initializer);
    }
  }
  auto it = scope_names_->find(name);
  return it == scope_names_->end() ? nullptr : it->second;
}

void Graph::indexScopeName(Value* value) {
  if (scope_names_ != nullptr) scope_names_->try_emplace(value->name(), value);
}

void Graph::unindexScopeName(const Value& value) {
  if (scope_names_ == nullptr) return;
  auto it = scope_names_->find(value.name());
  if (it != scope_names_->end() && it->second == &value) scope_names_->erase(it);
}

void Graph::keepReadable(const Value& outer) {
  if (model_ == nullptr) return;
  while (Value* shadow = shadowOf(outer)) shadow->setName(model_->valueNames().fresh(shadow->name()));
}

Value* Graph::findValue(absl::string_view name) const {
  for (Value* input : inputs_) {
    if (input->name() == name) return input;
  }
  for (Value* initializer : initializers_) {
    if (initializer && initializer->name() == name) return initializer;
  }
  for (Node& node : *this) {
    for (Value* output : node.outputs()) {
      if (output && output->name() == name) return output;
    }
  }
  return nullptr;
}

std::vector<onnx::ValueInfoProto*> Graph::mutableDeclarations() {
  noteModified();
  std::vector<onnx::ValueInfoProto*> declarations;
  for (Value* input : inputs_) {
    if (input->input_info_) declarations.push_back(input->input_info_.get());
  }
  for (const ProtoPtr<onnx::ValueInfoProto>& output : output_infos_) {
    if (output) declarations.push_back(output.get());
  }
  values_.forEach([&](Value& value) {
    if (value.value_info_) declarations.push_back(value.value_info_.get());
  });
  for (const auto& [order, info] : orphan_value_infos_) {
    if (info) declarations.push_back(info.get());
  }
  return declarations;
}

}  // namespace onnxopt::ir
