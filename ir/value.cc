#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

bool Value::isGraphOutput() const {
  for (const Use& use : uses_) {
    if (use.isGraphOutput()) return true;
  }
  return false;
}

void Value::setName(std::string name) {
  graph_->noteModified();
  const bool indexed = namesItsScope();
  if (indexed) graph_->unindexScopeName(*this);
  name_ = std::move(name);
  if (indexed) graph_->indexScopeName(this);
  if (Model* model = graph_->model()) model->giveValueName(name_);
  keepReadableWhereRead();
}

void Value::swapName(Value& other) {
  graph_->noteModified();
  for (Value* value : {this, &other}) {
    if (value->namesItsScope()) value->graph_->unindexScopeName(*value);
  }
  name_.swap(other.name_);
  for (Value* value : {this, &other}) {
    if (value->namesItsScope()) value->graph_->indexScopeName(value);
  }
  keepReadableWhereRead();
  other.keepReadableWhereRead();
}

void Value::keepReadableWhereRead() {
  for (size_t i = 0; i < uses_.size(); ++i) {
    Graph* reader = uses_[i].isGraphOutput() ? uses_[i].graphOutputOf() : uses_[i].user()->graph();
    if (reader != graph_) reader->keepReadable(*this);
  }
}

Type Value::type() const {
  // A weight's own tensor is its type, whatever a declaration says (a rewrite may have left a
  // vaguer one); not a graph input's default, which the caller may replace by another tensor of
  // the declared type.
  const bool tensor_decides = initializer_ && !input_info_;
  if (!tensor_decides && value_info_ && value_info_->has_type()) {
    return Type::fromProto(value_info_->type());
  }
  if (input_info_ && input_info_->has_type()) return Type::fromProto(input_info_->type());
  if (initializer_) {
    Shape shape;
    shape.reserve(initializer_->dims().size());
    for (int64_t dim : initializer_->dims()) shape.push_back(Dim::known(dim));
    return Type::tensor(initializer_->dataType(), std::move(shape));
  }
  return Type();
}

void Value::setType(const Type& type) {
  type.writeTo(mutableValueInfo()->mutable_type());
}

void Value::setType(const onnx::TypeProto& type) { *mutableValueInfo()->mutable_type() = type; }

onnx::ValueInfoProto* Value::mutableValueInfo() {
  graph_->noteModified();
  if (!value_info_) {
    value_info_.reset(newProto<onnx::ValueInfoProto>(graph_->arena()));
    value_info_order_ = graph_->next_value_info_order_++;
  }
  return value_info_.get();
}

void Value::swapValueInfo(Value& other) {
  if (graph_ != other.graph_) return;
  graph_->noteModified();
  std::swap(value_info_, other.value_info_);
  std::swap(value_info_order_, other.value_info_order_);
}

uint32_t Value::addUse(const Use& use) {
  if (uses_.empty() && producer_ != nullptr) ++producer_->used_outputs_;
  uses_.push_back(use);
  return static_cast<uint32_t>(uses_.size() - 1);
}

void Value::removeUse(uint32_t slot) {
  const uint32_t last = static_cast<uint32_t>(uses_.size() - 1);
  if (slot != last) {
    uses_[slot] = uses_[last];
    const Use& moved = uses_[slot];
    if (moved.isGraphOutput()) {
      moved.graphOutputOf()->output_use_slots_[moved.index()] = slot;
    } else {
      moved.user()->input_use_slots_[moved.index()] = slot;
    }
  }
  uses_.pop_back();
  if (uses_.empty() && producer_ != nullptr) --producer_->used_outputs_;
}

void Value::replaceAllUsesWith(Value* replacement) {
  if (replacement == this) return;
  graph_->noteModified();
  // Each step moves the last use, so the loop is O(uses) and needs no copy of the list.
  while (!uses_.empty()) {
    const Use use = uses_.back();
    if (use.isGraphOutput()) {
      use.graphOutputOf()->setOutput(use.index(), replacement);
    } else {
      use.user()->setInput(use.index(), replacement);
    }
  }
}

}  // namespace onnxopt::ir
