// ModelProto -> IR. The IR keeps the parsed messages themselves: each node, tensor, value info and
// graph is taken out of its repeated field by pointer (UnsafeArenaExtractSubrange) and becomes
// the residue its IR object refers to, so nothing is copied or swapped. The messages live on the
// Model's arena (a model parsed by loadModelFromFile/Bytes) or on the heap (importModel of a
// caller's proto), in which case ProtoPtr owns each of them. What the IR does not model stays in
// the residues for a lossless save.

#include <queue>

#include "absl/container/inlined_vector.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "duplicate_names.h"
#include "external_data.h"
#include "import_scope.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/serialization.h"
#include "proto_io.h"

namespace onnxopt::ir {

namespace {

// Values of `outer` that nodes of `graph` (at any depth) read: a node owning `graph` depends on
// their producers just as on its own inputs.
void collectCaptures(const Graph& graph, const Graph* outer, std::vector<Value*>* captures) {
  for (const Node& node : graph) {
    for (Value* input : node.inputs()) {
      if (input && input->graph() == outer) captures->push_back(input);
    }
    for (const Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) collectCaptures(*subgraph, outer, captures);
    }
  }
  for (Value* output : graph.outputs()) {
    if (output && output->graph() == outer) captures->push_back(output);
  }
}

// Takes every element out of `field` (which is left empty), keeping their order.
template <typename T>
std::vector<ProtoPtr<T>> takeAll(google::protobuf::RepeatedPtrField<T>* field) {
  std::vector<ProtoPtr<T>> taken;
  taken.reserve(field->size());
  for (T& element : *field) taken.emplace_back(&element);
  field->UnsafeArenaExtractSubrange(0, field->size(), nullptr);
  return taken;
}

bool hasUnknownField(const google::protobuf::Message& message, int number) {
  const auto& unknown = message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    if (unknown.field(i).number() == number) return true;
  }
  return false;
}

const char* wireTypeName(google::protobuf::UnknownField::Type type) {
  using google::protobuf::UnknownField;
  switch (type) {
    case UnknownField::TYPE_VARINT: return "varint";
    case UnknownField::TYPE_FIXED32: return "fixed32";
    case UnknownField::TYPE_FIXED64: return "fixed64";
    case UnknownField::TYPE_LENGTH_DELIMITED: return "length-delimited";
    case UnknownField::TYPE_GROUP: return "group";
  }
  return "unknown";
}

const char* wireTypeName(const google::protobuf::FieldDescriptor& field) {
  using google::protobuf::FieldDescriptor;
  if (field.is_packable() && field.is_repeated()) return "varint or packed";
  switch (field.type()) {
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32: return "fixed32";
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64: return "fixed64";
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE: return "length-delimited";
    case FieldDescriptor::TYPE_GROUP: return "group";
    default: return "varint";
  }
}

}  // namespace

namespace {

// A domain imported twice has no one opset: ONNX Runtime runs the model at the last version
// listed, libonnx's shape inference is not safe on it (it crashed on one such model), and the
// passes would read the first. Such a model is refused rather than optimized by a guess.
absl::Status checkOpsetImportsUnique(const onnx::ModelProto& model) {
  absl::flat_hash_map<absl::string_view, int64_t> versions;
  for (const onnx::OperatorSetIdProto& opset : model.opset_import()) {
    absl::string_view domain = opset.domain();
    if (domain == "ai.onnx") domain = "";
    const auto [first, inserted] = versions.emplace(domain, opset.version());
    if (!inserted) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the model imports ",
          domain.empty() ? std::string("the ONNX domain")
                         : absl::StrCat("the domain '", domain, "'"),
          " twice (opsets ", first->second, " and ", opset.version(),
          "): which one its nodes follow is ambiguous"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

// protobuf keeps a field it cannot read as its declared type (a wrong wire type, or an enum value
// the schema does not list) among the unknown fields, under its known number. Fields whose number
// ONNX 1.12 does not know come from a newer ONNX and are kept.
absl::Status checkUnknownFieldWireTypes(const google::protobuf::Message& message,
                                        absl::FunctionRef<std::string()> what) {
  const auto& unknown = message.GetReflection()->GetUnknownFields(message);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& found = unknown.field(i);
    const google::protobuf::FieldDescriptor* field =
        message.GetDescriptor()->FindFieldByNumber(found.number());
    if (field == nullptr) continue;
    if (field->enum_type() != nullptr &&
        found.type() == google::protobuf::UnknownField::TYPE_VARINT) {
      return absl::InvalidArgumentError(
          absl::StrCat(what(), ": field '", field->name(), "' has the value ", found.varint(),
                       ", which is not a ", field->enum_type()->name()));
    }
    return absl::InvalidArgumentError(absl::StrCat(
        what(), ": field '", field->name(), "' has the wrong wire type (",
        wireTypeName(found.type()), " instead of ", wireTypeName(*field), ")"));
  }
  return absl::OkStatus();
}

class ProtoImporter {
 public:
  ProtoImporter(Model* model, const LoadOptions& options, std::string base_dir)
      : model_(model), options_(options), external_data_(std::move(base_dir)) {}

  static onnx::ModelProto* newModelProto(Model& model) {
    return newProto<onnx::ModelProto>(model.arena_.get());
  }

  absl::Status importModel(onnx::ModelProto* proto) {
    model_->proto_.reset(proto);
    if (absl::Status status = checkWireTypes(*proto, [] { return std::string("the model"); });
        !status.ok()) {
      return status;
    }
    for (const onnx::OperatorSetIdProto& opset : proto->opset_import()) {
      absl::Status status = checkWireTypes(
          opset, [&] { return absl::StrCat("opset import '", opset.domain(), "'"); });
      if (!status.ok()) return status;
    }
    if (absl::Status status = checkOpsetImportsUnique(*proto); !status.ok()) return status;
    if (!proto->has_graph()) return absl::InvalidArgumentError("the model has no graph");
    ProtoPtr<onnx::GraphProto> graph(proto->unsafe_arena_release_graph());
    model_->base_dir_ = external_data_.baseDir();
    model_->loading_ = true;
    absl::Status status = importGraph(std::move(graph), model_->graph_.get(), nullptr);
    model_->loading_ = false;
    return status;
  }

 private:
  absl::Status importGraph(ProtoPtr<onnx::GraphProto> graph_proto, Graph* graph,
                           const ImportScope* parent) {
    graph->proto_ = std::move(graph_proto);
    onnx::GraphProto& proto = *graph->proto_;
    ImportScope scope(parent);
    const std::string where =
        graph->parentNode() ? absl::StrCat(" in graph '", proto.name(), "' of ",
                                           describe(*graph->parentNode()))
                            : std::string();
    if (absl::Status status =
            checkWireTypes(proto, [&] { return absl::StrCat("graph '", proto.name(), "'"); });
        !status.ok()) {
      return status;
    }
    auto check_value_infos = [&](const auto& infos, absl::string_view kind) {
      for (const onnx::ValueInfoProto& info : infos) {
        absl::Status status = checkWireTypes(
            info, [&] { return absl::StrCat(kind, " '", info.name(), "'", where); });
        if (!status.ok()) return status;
      }
      return absl::OkStatus();
    };
    if (absl::Status status = check_value_infos(proto.input(), "graph input"); !status.ok()) {
      return status;
    }
    if (absl::Status status = check_value_infos(proto.output(), "graph output"); !status.ok()) {
      return status;
    }
    if (absl::Status status = check_value_infos(proto.value_info(), "value_info"); !status.ok()) {
      return status;
    }

    // Initializers of models exported with keep_initializers_as_inputs are graph inputs too.
    absl::flat_hash_map<absl::string_view, Value*> inputs_by_name;
    inputs_by_name.reserve(proto.input_size());
    for (ProtoPtr<onnx::ValueInfoProto>& input : takeAll(proto.mutable_input())) {
      Value* value = graph->newValue(input->name());
      if (!inputs_by_name.emplace(value->name(), value).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("graph input '", input->name(), "' is declared twice", where));
      }
      scope.define(value);
      value->is_graph_input_ = true;
      value->input_info_ = std::move(input);
      graph->inputs_.push_back(value);
    }

    for (ProtoPtr<onnx::TensorProto>& tensor : takeAll(proto.mutable_initializer())) {
      const std::string name = tensor->name();
      auto imported = importTensor(std::move(tensor));
      if (!imported.ok()) return imported.status();
      auto value = initializerValue(graph, inputs_by_name, scope, name, "initializer", where);
      if (!value.ok()) return value.status();
      (*value)->initializer_ = *std::move(imported);
      (*value)->initializer_slot_ = static_cast<uint32_t>(graph->initializers_.size());
      graph->initializers_.push_back(*value);
    }

    for (ProtoPtr<onnx::SparseTensorProto>& sparse : takeAll(proto.mutable_sparse_initializer())) {
      const std::string name = sparse->values().name();
      auto value =
          initializerValue(graph, inputs_by_name, scope, name, "sparse initializer", where);
      if (!value.ok()) return value.status();
      (*value)->sparse_initializer_ = std::move(sparse);
      (*value)->initializer_slot_ = static_cast<uint32_t>(graph->initializers_.size());
      graph->initializers_.push_back(*value);
    }

    // Outputs first, so that a node may name a value produced further down (the order is
    // repaired below, when there is no cycle).
    std::vector<Node*> nodes;
    nodes.reserve(proto.node_size());
    std::vector<size_t> node_positions;  // in `scope`, of each node's outputs
    node_positions.reserve(proto.node_size());
    std::vector<uint64_t> node_name_hashes;
    node_name_hashes.reserve(proto.node_size());
    for (ProtoPtr<onnx::NodeProto>& taken : takeAll(proto.mutable_node())) {
      onnx::NodeProto& node_proto = *taken;
      Node* node = graph->nodes_.create(graph, std::move(taken));
      node->ordinal_ = static_cast<uint32_t>(graph->nodes_.size() - 1);
      nodes.push_back(node);
      if (!node_proto.name().empty()) {
        node_name_hashes.push_back(NameTable::hashOf(node_proto.name()));
      }
      node_positions.push_back(scope.size());
      node->output_ptrs_.reserve(node_proto.output_size());
      for (std::string& name : *node_proto.mutable_output()) {
        if (name.empty()) {
          node->addOmittedOutput();
          continue;
        }
        scope.define(node->addOutput(std::move(name)));
      }
      // The names were moved into the Values; drop the emptied strings (DeleteSubrange frees them
      // on the heap and leaves them to the arena otherwise).
      node_proto.mutable_output()->DeleteSubrange(0, node_proto.output_size());
      // Once the node has its outputs, which name it when it has no name of its own.
      if (absl::Status status =
              checkWireTypes(node_proto, [&] { return describe(*node) + where; });
          !status.ok()) {
        return status;
      }
    }

    // The names were hashed as they went by; the model's tables take them in bulk. If every
    // value name went in as new, no two share one; otherwise (a duplicate, a name an enclosing
    // or sibling scope uses too, or a hash collision) the exact check decides.
    const size_t clashes = model_->value_names_.reserveAll(scope.takeNameHashes());
    model_->node_names_.reserveAll(std::move(node_name_hashes));
    if (clashes != 0) {
      if (auto duplicate = findDuplicateName(scope.definitions())) {
        return duplicateDefinition(*scope.definitions()[duplicate->first],
                                   *scope.definitions()[duplicate->second], where);
      }
    }

    size_t weight_cursor = 0;
    for (size_t n = 0; n < nodes.size(); ++n) {
      Node* node = nodes[n];
      onnx::NodeProto& node_proto = *node->proto_;
      node->inputs_.reserve(node_proto.input_size());
      node->input_use_slots_.reserve(node_proto.input_size());
      node->attributes_.reserve(node_proto.attribute_size());
      for (const std::string& name : node_proto.input()) {
        if (name.empty()) {
          node->addInput(nullptr);
          continue;
        }
        Value* value = scope.resolve(name, node_positions[n], &weight_cursor);
        if (value == nullptr) {
          return absl::InvalidArgumentError(absl::StrCat(
              describe(*node), where, ": input '", name,
              "' is not defined by any node, graph input or initializer"));
        }
        node->addInput(value);
      }
      node_proto.mutable_input()->DeleteSubrange(0, node_proto.input_size());
      if (node_proto.attribute_size() > 0) {
        absl::InlinedVector<ProtoPtr<onnx::AttributeProto>, 4> attributes;
        for (onnx::AttributeProto& attribute : *node_proto.mutable_attribute()) {
          attributes.emplace_back(&attribute);
        }
        node_proto.mutable_attribute()->UnsafeArenaExtractSubrange(0, node_proto.attribute_size(),
                                                                   nullptr);
        for (ProtoPtr<onnx::AttributeProto>& attribute : attributes) {
          absl::Status status = importAttribute(std::move(attribute), node, scope);
          if (!status.ok()) return status;
        }
      }
    }

    absl::Status ordered = linkInTopologicalOrder(graph, nodes, where);
    if (!ordered.ok()) return ordered;

    for (ProtoPtr<onnx::ValueInfoProto>& output : takeAll(proto.mutable_output())) {
      Value* value = scope.resolve(output->name(), scope.size(), &weight_cursor);
      if (value == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "graph output '", output->name(), "'", where,
            " is not defined by any node, graph input or initializer"));
      }
      graph->outputs_.push_back(nullptr);
      graph->output_use_slots_.push_back(0);
      graph->output_infos_.push_back(std::move(output));
      graph->setOutput(graph->outputs_.size() - 1, value);
    }

    // Exporters list value_info in the order the values are defined.
    size_t value_info_cursor = 0;
    for (ProtoPtr<onnx::ValueInfoProto>& info : takeAll(proto.mutable_value_info())) {
      const uint64_t order = graph->next_value_info_order_++;
      Value* value = scope.findLocal(info->name(), &value_info_cursor);
      if (value != nullptr && value->value_info_ == nullptr) {
        value->value_info_ = std::move(info);
        value->value_info_order_ = order;
      } else {
        // A stale entry would attach itself to a new value that took its name.
        model_->value_names_.reserve(info->name());
        graph->orphan_value_infos_.emplace_back(order, std::move(info));
      }
    }
    // `proto` is now the graph's residue: its repeated fields are empty.
    return absl::OkStatus();
  }

  // The value an initializer named `name` defines: the graph input of that name (a model
  // exported with keep_initializers_as_inputs) or a new value.
  static absl::StatusOr<Value*> initializerValue(
      Graph* graph, const absl::flat_hash_map<absl::string_view, Value*>& inputs_by_name,
      ImportScope& scope, const std::string& name, absl::string_view kind,
      const std::string& where) {
    auto it = inputs_by_name.find(name);
    if (it == inputs_by_name.end()) {
      Value* value = graph->newValue(name);
      scope.define(value);
      return value;
    }
    if (it->second->isInitializer() || it->second->isSparseInitializer()) {
      return absl::InvalidArgumentError(absl::StrCat(kind, " '", name, "' is defined twice", where));
    }
    return it->second;
  }

  // The error for a name that `earlier` and `later` (in definition order) both define.
  static absl::Status duplicateDefinition(const Value& earlier, const Value& later,
                                          const std::string& where) {
    if (later.producer() != nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "value '", later.name(), "' is produced twice: by ", describe(*later.producer()),
          earlier.producer() ? std::string(" and by an earlier node")
                             : std::string(" and as a graph input or initializer"),
          where));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(later.isSparseInitializer() ? "sparse initializer '" : "initializer '",
                     later.name(), "' is defined twice", where));
  }

  absl::Status importAttribute(ProtoPtr<onnx::AttributeProto> owned, Node* node,
                               const ImportScope& scope) {
    onnx::AttributeProto& proto = *owned;
    constexpr int kTypeField = 20;
    if ((!proto.has_type() && hasUnknownField(proto, kTypeField)) ||
        (proto.has_type() && proto.type() == onnx::AttributeProto::UNDEFINED)) {
      return absl::InvalidArgumentError(absl::StrCat(
          describe(*node), ": attribute '", proto.name(), "' has an unknown type"));
    }
    if (absl::Status status = checkWireTypes(proto, [&] {
          return absl::StrCat(describe(*node), ", attribute '", proto.name(), "'");
        });
        !status.ok()) {
      return status;
    }
    std::vector<ProtoPtr<onnx::GraphProto>> subgraph_protos;
    if (proto.has_g()) subgraph_protos.emplace_back(proto.unsafe_arena_release_g());
    while (proto.graphs_size() > 0) {
      subgraph_protos.emplace_back(proto.mutable_graphs()->UnsafeArenaReleaseLast());
    }
    if (proto.has_type() && proto.type() == onnx::AttributeProto::GRAPHS) {
      std::reverse(subgraph_protos.begin(), subgraph_protos.end());
    }
    // Tensor attributes may point at external data too; they obey the same path rules.
    if (proto.has_t() && proto.t().data_location() == onnx::TensorProto::EXTERNAL) {
      auto checked = external_data_.resolve(proto.t());
      if (!checked.ok()) return annotate(checked.status(), *node, proto);
      model_->keeps_weights_external_ = true;
    }
    if (proto.has_t()) {
      absl::Status checked = checkTensorData(proto.t());
      if (!checked.ok()) return annotate(checked, *node, proto);
    }
    for (const onnx::TensorProto& tensor : proto.tensors()) {
      absl::Status checked = checkTensorData(tensor);
      if (!checked.ok()) return annotate(checked, *node, proto);
    }
    node->attributes_.push_back(Attribute(std::move(owned)));
    Attribute& attribute = node->attributes_.back();
    for (auto& subgraph_proto : subgraph_protos) {
      if (nesting_ == kMaxGraphNesting) {
        return absl::InvalidArgumentError(
            graphTooDeepMessage(subgraph_proto->name(), describe(*node)));
      }
      attribute.mutableGraphs().push_back(std::make_unique<Graph>(model_, node));
      Graph* subgraph = attribute.mutableGraphs().back().get();
      ++nesting_;
      absl::Status status = importGraph(std::move(subgraph_proto), subgraph, &scope);
      --nesting_;
      if (!status.ok()) return status;
    }
    return absl::OkStatus();
  }

  static absl::Status annotate(const absl::Status& status, const Node& node,
                               const onnx::AttributeProto& attribute) {
    return absl::Status(status.code(), absl::StrCat(describe(node), ", attribute '",
                                                    attribute.name(), "': ", status.message()));
  }

  absl::StatusOr<std::shared_ptr<Tensor>> importTensor(ProtoPtr<onnx::TensorProto> proto) {
    // A tensor on the model's arena keeps the arena alive: it may outlive the model.
    if (absl::Status checked = checkTensorData(*proto); !checked.ok()) return checked;
    std::shared_ptr<google::protobuf::Arena> arena;
    if (proto->GetArena() != nullptr) arena = model_->arena_;
    if (proto->data_location() != onnx::TensorProto::EXTERNAL) {
      return std::shared_ptr<Tensor>(new Tensor(std::move(proto), std::move(arena), std::nullopt));
    }
    auto external = external_data_.resolve(*proto);
    if (!external.ok()) return external.status();
    model_->keeps_weights_external_ = true;
    auto tensor = std::shared_ptr<Tensor>(
        new Tensor(std::move(proto), std::move(arena), *std::move(external)));
    if (options_.load_external_data) {
      absl::Status loaded = tensor->loadExternalData();
      if (!loaded.ok()) return loaded;
    }
    return tensor;
  }

  // Links `nodes` into the graph's list: in model order when that is topological (the common case,
  // checked in one pass), else in a stable topological order; a cycle is an error.
  absl::Status linkInTopologicalOrder(Graph* graph, const std::vector<Node*>& nodes,
                                      const std::string& where) {
    // dependencies[i]: positions of the nodes of this graph that node i reads from.
    std::vector<Value*> read;
    auto reads_of = [&](size_t i) -> const std::vector<Value*>& {
      read.assign(nodes[i]->inputs().begin(), nodes[i]->inputs().end());
      for (const Attribute& attribute : nodes[i]->attributes()) {
        for (const auto& subgraph : attribute.graphs()) collectCaptures(*subgraph, graph, &read);
      }
      return read;
    };
    auto is_linked = [graph](const Node* node) {
      return node->prev_ != nullptr || graph->first_ == node;
    };
    // The common case, checked while linking: each node reads only nodes linked before it.
    bool in_order = true;
    for (size_t i = 0; i < nodes.size() && in_order; ++i) {
      for (const Value* value : reads_of(i)) {
        if (value != nullptr && value->producer() != nullptr && value->graph() == graph &&
            !is_linked(value->producer())) {
          in_order = false;
        }
      }
      if (in_order) graph->linkBefore(nodes[i], nullptr);
    }
    if (in_order) return absl::OkStatus();
    while (graph->first_ != nullptr) graph->unlink(graph->first_);

    absl::flat_hash_map<const Node*, size_t> position;
    position.reserve(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) position.emplace(nodes[i], i);
    auto producer_position = [&](const Value* value) -> std::optional<size_t> {
      if (value == nullptr || value->producer() == nullptr || value->graph() != graph) {
        return std::nullopt;
      }
      return position.at(value->producer());
    };
    std::vector<std::vector<size_t>> dependencies(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (const Value* value : reads_of(i)) {
        if (std::optional<size_t> producer = producer_position(value)) {
          dependencies[i].push_back(*producer);
        }
      }
    }
    std::vector<size_t> pending(nodes.size(), 0);
    std::vector<std::vector<size_t>> dependents(nodes.size());
    for (size_t i = 0; i < nodes.size(); ++i) {
      for (size_t producer : dependencies[i]) {
        ++pending[i];
        dependents[producer].push_back(i);
      }
    }
    // Smallest position first keeps the model's order wherever the dependencies allow.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (pending[i] == 0) ready.push(i);
    }
    size_t linked = 0;
    while (!ready.empty()) {
      const size_t i = ready.top();
      ready.pop();
      graph->linkBefore(nodes[i], nullptr);
      ++linked;
      for (size_t dependent : dependents[i]) {
        if (--pending[dependent] == 0) ready.push(dependent);
      }
    }
    if (linked == nodes.size()) return absl::OkStatus();
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (pending[i] != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the graph", where, " has a cycle through ", describe(*nodes[i])));
      }
    }
    return absl::InternalError("topological sort lost a node");
  }

  Model* model_;
  const LoadOptions& options_;
  ExternalDataResolver external_data_;
  int nesting_ = 0;  // of the graph being imported: 0 for the main graph
};

std::pair<std::unique_ptr<Model>, onnx::ModelProto*> newModelToParse() {
  auto model = std::make_unique<Model>();
  onnx::ModelProto* proto = ProtoImporter::newModelProto(*model);
  return {std::move(model), proto};
}

absl::StatusOr<std::unique_ptr<Model>> importModelFrom(std::unique_ptr<Model> model,
                                                       onnx::ModelProto* proto,
                                                       const LoadOptions& options,
                                                       std::string base_dir) {
  ProtoImporter importer(model.get(), options, std::move(base_dir));
  absl::Status status = importer.importModel(proto);
  if (!status.ok()) return status;
  return model;
}

}  // namespace onnxopt::ir
