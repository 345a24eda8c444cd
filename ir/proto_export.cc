// IR -> ModelProto, by lending the IR's own messages (see ProtoExporter in proto_io.h).

#include "onnxopt/ir/ir.h"
#include "proto_io.h"

namespace onnxopt::ir {

namespace {

// The name written for an omitted optional operand. Lent by pointer, only ever read.
const std::string kNoName;

template <typename Message>
void setName(Message* message, const std::string& name) {
  if (message->name() != name) message->set_name(name);
}

template <typename T>
void lendTo(google::protobuf::RepeatedPtrField<T>* field, const T* element) {
  field->UnsafeArenaAddAllocated(const_cast<T*>(element));
}

template <typename T>
void takeBack(google::protobuf::RepeatedPtrField<T>* field) {
  field->UnsafeArenaExtractSubrange(0, field->size(), nullptr);
}

}  // namespace

void ProtoExporter::restore() {
  if (graph_lent_to_) graph_lent_to_->unsafe_arena_release_graph();
  graph_lent_to_ = nullptr;
  for (onnx::AttributeProto* attribute : lent_attributes_) {
    if (attribute->has_g()) attribute->unsafe_arena_release_g();
    takeBack(attribute->mutable_graphs());
  }
  for (onnx::NodeProto* node : lent_nodes_) {
    takeBack(node->mutable_input());
    takeBack(node->mutable_output());
    takeBack(node->mutable_attribute());
  }
  for (onnx::GraphProto* graph : lent_graphs_) {
    takeBack(graph->mutable_node());
    takeBack(graph->mutable_initializer());
    takeBack(graph->mutable_sparse_initializer());
    takeBack(graph->mutable_input());
    takeBack(graph->mutable_output());
    takeBack(graph->mutable_value_info());
  }
  lent_attributes_.clear();
  lent_nodes_.clear();
  lent_graphs_.clear();
  shared_tensors_.clear();
  copies_.clear();
}

const onnx::ModelProto& ProtoExporter::lend(const Model& model) {
  restore();
  onnx::ModelProto* own = model.proto_.get();
  own->unsafe_arena_set_allocated_graph(lendGraph(model.graph()));
  graph_lent_to_ = own;
  return *own;
}

void ProtoExporter::exportModel(const Model& model, onnx::ModelProto* out) {
  restore();
  out->CopyFrom(*model.proto_);
  onnx::GraphProto* graph = lendGraph(model.graph());
  if (mode_ == Mode::kCopy) {
    out->mutable_graph()->CopyFrom(*graph);
    restore();
    return;
  }
  out->unsafe_arena_set_allocated_graph(graph);
  graph_lent_to_ = out;
}

onnx::GraphProto* ProtoExporter::lendGraph(const Graph& graph) {
  onnx::GraphProto* out = graph.proto_.get();
  lent_graphs_.push_back(out);

  for (const Node& node : graph) {
    onnx::NodeProto* node_out = node.proto_.get();
    lent_nodes_.push_back(node_out);
    auto* inputs = node_out->mutable_input();
    for (const Value* input : node.inputs()) lendTo(inputs, input ? &input->name() : &kNoName);
    auto* outputs = node_out->mutable_output();
    for (const Value* output : node.outputs()) lendTo(outputs, output ? &output->name() : &kNoName);
    for (const Attribute& attribute : node.attributes()) {
      onnx::AttributeProto* attribute_out = const_cast<onnx::AttributeProto*>(&attribute.proto());
      lendTo(node_out->mutable_attribute(), attribute_out);
      const auto& subgraphs = attribute.graphs();
      if (subgraphs.empty()) continue;
      lent_attributes_.push_back(attribute_out);
      if (attribute_out->type() == onnx::AttributeProto::GRAPHS) {
        for (const auto& subgraph : subgraphs) {
          lendTo(attribute_out->mutable_graphs(), lendGraph(*subgraph));
        }
      } else {
        attribute_out->unsafe_arena_set_allocated_g(lendGraph(*subgraphs.front()));
      }
    }
    lendTo(out->mutable_node(), node_out);
  }

  graph.compactInitializers();
  for (const Value* value : graph.initializers_) {
    if (value->isSparseInitializer()) {
      lendTo(out->mutable_sparse_initializer(), value->sparse_initializer_.get());
      continue;
    }
    const onnx::TensorProto* replacement = tensor_override_ ? tensor_override_(*value) : nullptr;
    auto* tensor_out = const_cast<onnx::TensorProto*>(
        replacement ? replacement : &value->initializer_->proto());
    // A Tensor shared by several initializers is lent once; the others get a copy of their own.
    if (!replacement && value->initializer_.use_count() > 1 &&
        !shared_tensors_.insert(tensor_out).second) {
      copies_.push_back(std::make_unique<onnx::TensorProto>(*tensor_out));
      tensor_out = copies_.back().get();
    }
    setName(tensor_out, value->name());
    lendTo(out->mutable_initializer(), tensor_out);
  }

  for (const Value* input : graph.inputs_) {
    setName(input->input_info_.get(), input->name());
    lendTo(out->mutable_input(), input->input_info_.get());
  }
  for (size_t i = 0; i < graph.outputs_.size(); ++i) {
    onnx::ValueInfoProto* output_out = graph.output_infos_[i].get();
    if (graph.outputs_[i]) setName(output_out, graph.outputs_[i]->name());
    lendTo(out->mutable_output(), output_out);
  }

  // value_info in its original order (new entries last): orders are dense, so a bucket per order
  // sorts in linear time.
  std::vector<const Value*> by_order(graph.next_value_info_order_, nullptr);
  std::vector<const onnx::ValueInfoProto*> orphans(graph.next_value_info_order_, nullptr);
  auto place = [&](const Value* value) {
    if (value && value->value_info_) by_order[value->value_info_order_] = value;
  };
  for (const Value* input : graph.inputs_) place(input);
  for (const Value* initializer : graph.initializers_) place(initializer);
  for (const Node& node : graph) {
    for (const Value* output : node.outputs()) place(output);
  }
  for (const auto& [order, info] : graph.orphan_value_infos_) orphans[order] = info.get();
  for (uint64_t order = 0; order < graph.next_value_info_order_; ++order) {
    if (const Value* value = by_order[order]) {
      setName(value->value_info_.get(), value->name());
      lendTo(out->mutable_value_info(), value->value_info_.get());
    } else if (orphans[order]) {
      lendTo(out->mutable_value_info(), orphans[order]);
    }
  }
  return out;
}

}  // namespace onnxopt::ir
