#include "onnxopt/ir/ir.h"
#include "proto_io.h"

namespace onnxopt::ir {

template <typename Message>
void ProtoExporter::transfer(const Message& ir, Message* out, LoanKind kind) {
  if (mode_ == Mode::kCopy) {
    out->CopyFrom(ir);
    return;
  }
  auto* owner = const_cast<Message*>(&ir);
  out->Swap(owner);
  loans_.push_back({kind, out, owner});
}

void ProtoExporter::restore() {
  for (auto it = loans_.rbegin(); it != loans_.rend(); ++it) {
    switch (it->kind) {
      case LoanKind::kNode: {
        auto* out = static_cast<onnx::NodeProto*>(it->out);
        auto* ir = static_cast<onnx::NodeProto*>(it->ir);
        out->Swap(ir);
        ir->clear_input();
        ir->clear_output();
        ir->clear_attribute();
        break;
      }
      case LoanKind::kAttribute: {
        auto* out = static_cast<onnx::AttributeProto*>(it->out);
        auto* ir = static_cast<onnx::AttributeProto*>(it->ir);
        out->Swap(ir);
        ir->clear_g();
        ir->clear_graphs();
        break;
      }
      // Typed swaps: reflection's generic Swap costs some forty times more.
      case LoanKind::kTensor:
        static_cast<onnx::TensorProto*>(it->out)->Swap(static_cast<onnx::TensorProto*>(it->ir));
        break;
      case LoanKind::kValueInfo:
        static_cast<onnx::ValueInfoProto*>(it->out)->Swap(
            static_cast<onnx::ValueInfoProto*>(it->ir));
        break;
      case LoanKind::kSparseTensor:
        static_cast<onnx::SparseTensorProto*>(it->out)->Swap(
            static_cast<onnx::SparseTensorProto*>(it->ir));
        break;
    }
  }
  loans_.clear();
}

void ProtoExporter::exportModel(const Model& model, onnx::ModelProto* out) {
  out->CopyFrom(model.proto_);
  exportGraph(model.graph(), out->mutable_graph());
}

namespace {
template <typename Message>
void setName(Message* message, const std::string& name) {
  if (message->name() != name) message->set_name(name);
}
}  // namespace

void ProtoExporter::exportGraph(const Graph& graph, onnx::GraphProto* out) {
  out->CopyFrom(graph.proto_);

  for (const Node& node : graph) {
    onnx::NodeProto* node_out = out->add_node();
    transfer(node.proto_, node_out, LoanKind::kNode);
    for (const Value* input : node.inputs()) {
      node_out->add_input(input ? input->name() : std::string());
    }
    for (const Value* output : node.outputs()) {
      node_out->add_output(output ? output->name() : std::string());
    }
    for (const Attribute& attribute : node.attributes()) {
      onnx::AttributeProto* attribute_out = node_out->add_attribute();
      transfer(attribute.proto(), attribute_out, LoanKind::kAttribute);
      const auto& subgraphs = attribute.graphs();
      if (subgraphs.empty()) continue;
      if (attribute_out->type() == onnx::AttributeProto::GRAPHS) {
        for (const auto& subgraph : subgraphs) exportGraph(*subgraph, attribute_out->add_graphs());
      } else {
        exportGraph(*subgraphs.front(), attribute_out->mutable_g());
      }
    }
  }

  graph.compactInitializers();
  for (const Value* value : graph.initializers_) {
    if (value->isSparseInitializer()) {
      transfer(*value->sparse_initializer_, out->add_sparse_initializer(), LoanKind::kSparseTensor);
      continue;
    }
    onnx::TensorProto* tensor_out = out->add_initializer();
    const onnx::TensorProto* replacement = tensor_override_ ? tensor_override_(*value) : nullptr;
    if (replacement) {
      tensor_out->CopyFrom(*replacement);
    } else {
      transfer(value->initializer_->proto(), tensor_out, LoanKind::kTensor);
    }
    setName(tensor_out, value->name());
  }

  for (const Value* input : graph.inputs_) {
    onnx::ValueInfoProto* input_out = out->add_input();
    transfer(*input->input_info_, input_out, LoanKind::kValueInfo);
    setName(input_out, input->name());
  }
  for (size_t i = 0; i < graph.outputs_.size(); ++i) {
    onnx::ValueInfoProto* output_out = out->add_output();
    transfer(*graph.output_infos_[i], output_out, LoanKind::kValueInfo);
    if (graph.outputs_[i]) setName(output_out, graph.outputs_[i]->name());
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
  for (const auto& [order, info] : graph.orphan_value_infos_) orphans[order] = &info;
  for (uint64_t order = 0; order < graph.next_value_info_order_; ++order) {
    if (const Value* value = by_order[order]) {
      onnx::ValueInfoProto* info_out = out->add_value_info();
      transfer(*value->value_info_, info_out, LoanKind::kValueInfo);
      setName(info_out, value->name());
    } else if (orphans[order]) {
      transfer(*orphans[order], out->add_value_info(), LoanKind::kValueInfo);
    }
  }
}

}  // namespace onnxopt::ir
