#pragma once

// The in-memory IR: Model > Graph > Node, with Values as edges. Invariants (see docs/ir.md):
//  - a graph's nodes are kept in topological order in an intrusive list; erasing the node an
//    iteration stands on is safe;
//  - every Value knows all its uses; a graph output is a use (user() == nullptr) too, and a node in
//    a subgraph that reads an outer-scope value holds a real use of it;
//  - everything the IR does not model survives a load/save round trip unchanged.

#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/ir/name_table.h"
#include "onnxopt/ir/op_name.h"
#include "onnxopt/ir/object_pool.h"
#include "onnxopt/ir/proto_ptr.h"
#include "onnxopt/ir/tensor.h"
#include "onnxopt/ir/type.h"

namespace onnxopt::ir {

class Graph;
class Model;
class Node;

// One reading of a Value: operand `index` of `user`, or, when user() is null, output `index` of
// graph `graphOutputOf()`.
class Use {
 public:
  Use(Node* user, uint32_t index) : owner_(user), index_(index), is_graph_output_(false) {}
  Use(Graph* graph_output_of, uint32_t index)
      : owner_(graph_output_of), index_(index), is_graph_output_(true) {}

  Node* user() const { return is_graph_output_ ? nullptr : static_cast<Node*>(owner_); }
  Graph* graphOutputOf() const {
    return is_graph_output_ ? static_cast<Graph*>(owner_) : nullptr;
  }
  bool isGraphOutput() const { return is_graph_output_; }
  uint32_t index() const { return index_; }
  bool operator==(const Use& other) const {
    return owner_ == other.owner_ && index_ == other.index_ &&
           is_graph_output_ == other.is_graph_output_;
  }

 private:
  // One pointer for either owner keeps a Use at 16 bytes, so two fit in a Value inline.
  void* owner_;
  uint32_t index_;
  bool is_graph_output_;
};
static_assert(sizeof(Use) <= 2 * sizeof(void*), "a Use is meant to fit in two words");

// An edge: defined by a node output, a graph input, an initializer (or both: models exported
// with keep_initializers_as_inputs), or a sparse initializer.
class ONNXOPT_API Value {
 public:
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;

  const std::string& name() const { return name_; }
  // Callers pick names from Model::valueNames() so that they stay unique.
  void setName(std::string name);
  // Exchanges the two values' names (no copy).
  void swapName(Value& other);

  // The graph (scope) this value is defined in.
  Graph* graph() const { return graph_; }
  Node* producer() const { return producer_; }
  uint32_t producerOutputIndex() const { return output_index_; }
  // The value's creation number in its graph (0, 1, 2, ...; never reused), below
  // `graph()->valueOrdinalBound()`: an index for side tables that would otherwise hash pointers.
  uint32_t ordinal() const { return ordinal_; }
  bool isGraphInput() const { return is_graph_input_; }
  bool isInitializer() const { return initializer_ != nullptr; }
  bool isSparseInitializer() const { return sparse_initializer_ != nullptr; }
  bool isGraphOutput() const;

  const std::shared_ptr<Tensor>& initializer() const { return initializer_; }
  const onnx::SparseTensorProto* sparseInitializer() const { return sparse_initializer_.get(); }

  // Uses in no particular order. Copy the list before changing uses while walking it.
  absl::Span<const Use> uses() const { return uses_; }
  bool hasUses() const { return !uses_.empty(); }
  bool hasOneUse() const { return uses_.size() == 1; }

  // Type from value_info, the graph-input declaration, or the initializer, in that order.
  Type type() const;
  // Records the type in the value's value_info entry (creating it).
  void setType(const Type& type);
  // The same for a type of any kind (a sequence, map, optional or sparse tensor too, which Type
  // does not model): for a value taking over another's declaration.
  void setType(const onnx::TypeProto& type);

  // The graph's value_info entry for this value, if the model had one (its `name` field is not
  // kept in sync: name() is the truth).
  const onnx::ValueInfoProto* valueInfo() const { return value_info_.get(); }
  // Exchanges the two values' value_info entries, each keeping its place in the graph's list;
  // for a value taking over from another that computes the same thing. Both values must be in
  // the same graph; values of different graphs are left alone.
  void swapValueInfo(Value& other);
  // The graph's input declaration, for graph inputs.
  const onnx::ValueInfoProto* inputInfo() const { return input_info_.get(); }

  // Makes every use of this value use `replacement` instead. O(number of uses). Graph outputs
  // move too: callers that must keep the model's interface check isGraphOutput() first.
  void replaceAllUsesWith(Value* replacement);

 private:
  friend class Graph;
  friend class Node;
  friend class ProtoImporter;
  friend class ProtoExporter;
  template <typename>
  friend class detail::ObjectPool;
  Value(Graph* graph, std::string name) : name_(std::move(name)), graph_(graph) {}

  // Appends a use and returns its slot; removal swaps the last use into the slot (O(1)).
  uint32_t addUse(const Use& use);
  void removeUse(uint32_t slot);
  // Graph::keepReadable(*this) for each graph that reads this value from a subgraph.
  void keepReadableWhereRead();
  // Whether the value is in its graph's index of names that shadow outer ones.
  bool namesItsScope() const { return is_graph_input_ || initializer_ || sparse_initializer_; }
  // The value's value_info entry, created (last in the graph's list) if it has none.
  onnx::ValueInfoProto* mutableValueInfo();

  std::string name_;
  Graph* graph_;
  Node* producer_ = nullptr;
  uint32_t output_index_ = 0;
  bool is_graph_input_ = false;
  std::shared_ptr<Tensor> initializer_;
  ProtoPtr<onnx::SparseTensorProto> sparse_initializer_;
  ProtoPtr<onnx::ValueInfoProto> input_info_;
  ProtoPtr<onnx::ValueInfoProto> value_info_;
  uint64_t value_info_order_ = 0;
  uint32_t initializer_slot_ = 0;  // index in the graph's initializer list
  uint32_t ordinal_ = 0;
  // Most values are read once or twice, and a rewrite that replaces a value's only reader adds
  // the new reader before it drops the old one: two uses need no allocation.
  absl::InlinedVector<Use, 2> uses_;
};

class ONNXOPT_API Node {
 public:
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  ~Node();

  // Op type and domain, read without touching the NodeProto. setOpType and setDomain keep it
  // current; a change made through mutableProto() is not seen (use the setters).
  const OpName& op() const { return *op_; }
  const std::string& opType() const { return op_->opType(); }
  void setOpType(const std::string& op_type);
  // As the model spells it: "" is the default ONNX domain, and so is "ai.onnx" (op().domain()
  // reads "" for both).
  const std::string& domain() const { return proto_->domain(); }
  void setDomain(const std::string& domain);
  const std::string& name() const { return proto_->name(); }
  // Callers pick names from Model::nodeNames() so that they stay unique.
  void setName(std::string name);
  bool is(const OpName& op) const { return op_ == &op; }
  bool is(absl::string_view op_type, absl::string_view domain = "") const;
  // op().key(), beside the list links: a walk looking for a few op types rules the other nodes
  // out without a second load.
  uint32_t opKey() const { return op_key_; }

  Graph* graph() const { return graph_; }
  bool isErased() const { return erased_; }

  // Inputs; an omitted optional input is nullptr.
  absl::Span<Value* const> inputs() const { return inputs_; }
  size_t numInputs() const { return inputs_.size(); }
  Value* input(size_t i) const { return i < inputs_.size() ? inputs_[i] : nullptr; }
  void setInput(size_t i, Value* value);
  void addInput(Value* value);
  // Drops trailing inputs so that only the first `count` remain.
  void truncateInputs(size_t count);

  // Outputs, owned by the node; an omitted optional output is nullptr.
  absl::Span<Value* const> outputs() const { return output_ptrs_; }
  size_t numOutputs() const { return output_ptrs_.size(); }
  Value* output(size_t i) const { return i < output_ptrs_.size() ? output_ptrs_[i] : nullptr; }
  // Whether some output is read (by a node, a subgraph, or as a graph output). Kept in the
  // node's first cache line: a walk looking for dead nodes reads no Value.
  bool hasUsedOutputs() const { return used_outputs_ != 0; }

  const std::vector<Attribute>& attributes() const { return attributes_; }
  // Counts as a change of the model (Model::modificationCount()); walks use attributes().
  std::vector<Attribute>& mutableAttributes();
  const Attribute* attr(absl::string_view name) const;
  // Adds the attribute or replaces the one of the same name.
  void setAttr(Attribute attribute);
  bool removeAttr(absl::string_view name);
  // Removes the attribute and hands it over (its subgraphs' uses of outer values dropped).
  std::optional<Attribute> takeAttr(absl::string_view name);
  // Moves every attribute to `to`, which has none, in order. Subgraphs move whole: their nodes,
  // values and the uses they hold of outer values stay, and `to` becomes their parent node, so
  // the caller puts `to` where every outer value they read is visible.
  void moveAttributesTo(Node* to);
  // Attribute value helpers with a default for absent attributes.
  int64_t intAttr(absl::string_view name, int64_t default_value) const;
  float floatAttr(absl::string_view name, float default_value) const;

  bool hasSubgraphs() const;
  // Drops every use this node and the nodes of its subgraphs hold (inputs become null).
  void dropAllReferences();

  // The node's creation number in its graph (0, 1, 2, ...; never reused), below
  // `graph()->nodeOrdinalBound()`: an index for side tables (a driver's queued marks).
  uint32_t ordinal() const { return ordinal_; }

  // Neighbours in the graph's node list; null at the ends.
  Node* next() const { return next_; }
  Node* prev() const { return prev_; }

  // The NodeProto without inputs, outputs and attributes: name, op_type, domain, doc_string and
  // fields this version of ONNX does not know.
  const onnx::NodeProto& proto() const { return *proto_; }
  onnx::NodeProto& mutableProto();

 private:
  friend class Graph;
  friend class Value;
  friend class ProtoImporter;
  friend class ProtoExporter;
  friend class Verifier;
  friend class NodeIterator;
  template <typename>
  friend class detail::ObjectPool;
  // A new node's NodeProto is made on the model's arena; an imported node's is the parsed one.
  explicit Node(Graph* graph);
  Node(Graph* graph, ProtoPtr<onnx::NodeProto> proto);

  Value* addOutput(std::string name);
  void addOmittedOutput();
  void setOp(const OpName& op) {
    op_ = &op;
    op_key_ = op.key();
  }

  // What a walk over the node list reads comes first, in one cache line.
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  uint32_t op_key_ = 0;
  uint32_t used_outputs_ = 0;  // outputs with at least one use; kept by Value's use list
  bool erased_ = false;
  uint32_t ordinal_ = 0;
  const OpName* op_;
  Graph* graph_;
  ProtoPtr<onnx::NodeProto> proto_;
  absl::InlinedVector<Value*, 1> output_ptrs_;  // the values themselves live in the graph's pool
  // Sized for the common node (at most four inputs, one output) without an allocation.
  absl::InlinedVector<Value*, 4> inputs_;
  absl::InlinedVector<uint32_t, 4> input_use_slots_;
  std::vector<Attribute> attributes_;
};

// Iterates a graph's nodes. Advancing from a node that was erased meanwhile goes on from where it
// stood, skipping other erased nodes, so a loop may erase the node it stands on.
class NodeIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Node;
  using difference_type = std::ptrdiff_t;
  using pointer = Node*;
  using reference = Node&;

  explicit NodeIterator(Node* node) : node_(node) {}
  Node& operator*() const { return *node_; }
  Node* operator->() const { return node_; }
  // Inline: every pass walks the node list, often several times.
  NodeIterator& operator++() {
    // An erased node keeps the `next_` it had when it was unlinked, so a walk standing on it
    // resumes where it was; nodes erased since are skipped.
    do {
      node_ = node_->next_;
    } while (node_ != nullptr && node_->erased_);
    return *this;
  }
  bool operator==(const NodeIterator& other) const { return node_ == other.node_; }
  bool operator!=(const NodeIterator& other) const { return node_ != other.node_; }

 private:
  Node* node_;
};

class ONNXOPT_API Graph {
 public:
  explicit Graph(Model* model, Node* parent_node = nullptr);
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph();

  Model* model() const { return model_; }
  // The node whose attribute owns this graph; null for the main graph.
  Node* parentNode() const { return parent_node_; }
  Graph* parentGraph() const;

  const std::string& name() const { return proto_->name(); }

  // --- nodes, in topological order ---
  NodeIterator begin() const { return NodeIterator(first_); }
  NodeIterator end() const { return NodeIterator(nullptr); }
  Node* firstNode() const { return first_; }
  Node* lastNode() const { return last_; }
  size_t numNodes() const { return num_nodes_; }
  // One more than the largest `Value::ordinal()` of this graph so far.
  size_t valueOrdinalBound() const { return values_.size(); }
  // One more than the largest `Node::ordinal()` of this graph so far.
  size_t nodeOrdinalBound() const { return nodes_.size(); }

  // Creates a node with fresh outputs named `output_names` ("" for an omitted output) and inserts
  // it before `before` (at the end when null). Inputs may be null (omitted optional input).
  Node* createNode(const std::string& op_type, absl::Span<Value* const> inputs,
                   absl::Span<const std::string> output_names, Node* before = nullptr,
                   const std::string& domain = "");
  // Unlinks `node` from the list and places it before `before` (at the end when null).
  void moveNodeBefore(Node* node, Node* before);
  // Gives every output of `from` to `to`, which has none, in order: the values keep their names,
  // uses and declarations; only their producer changes. `from` is left with no outputs. `to`
  // must come before every user of those values.
  void moveOutputs(Node* from, Node* to);
  // Erases a node none of whose outputs is used. Its memory lives until the graph goes, so
  // iterators standing on it stay valid.
  void eraseNode(Node* node);

  // --- inputs, outputs, initializers ---
  const std::vector<Value*>& inputs() const { return inputs_; }
  const std::vector<Value*>& outputs() const { return outputs_; }
  Value* addInput(std::string name, const Type& type);
  // Drops `values` from the inputs, with their input declarations; the values, their uses and
  // any initializers of them stay, and the other inputs keep their order. One walk of the
  // inputs, whatever the number removed. Changes the model's interface.
  void removeInputs(absl::Span<Value* const> values);
  void addOutput(Value* value);
  void setOutput(size_t i, Value* value);
  // The declared types of input `input` (a graph input of this graph) and of output `i`; for a
  // subgraph, whose declarations are not the model's interface.
  void setInputType(Value* input, const Type& type);
  Type outputType(size_t i) const;
  void setOutputType(size_t i, const Type& type);

  // Initializers (and sparse initializers) in model order.
  std::vector<Value*> initializers() const;
  Value* addInitializer(std::string name, std::shared_ptr<Tensor> tensor);
  // Removes the initializer. A value that is also a graph input stays an input.
  void removeInitializer(Value* value);

  // Finds a value defined in this graph (not outer scopes) by name; O(size of the graph).
  Value* findValue(absl::string_view name) const;

  // A saved model reads a value of an enclosing graph by its name, and ONNX lets a subgraph's
  // inputs and initializers shadow the names of enclosing graphs. shadowOf is the input or
  // initializer of this graph, or of one between it and `outer`'s graph, named as `outer` (null
  // when none is). Linking a node input or a graph output here to `outer` (Node::setInput,
  // setOutput, or renaming `outer`) renames such a shadow to a fresh name, so that the saved
  // model reads what the IR does. O(graphs in between).
  Value* shadowOf(const Value& outer) const;

  // Every type declaration of this graph, not of its subgraphs: its inputs', its outputs', and
  // its value_info entries (orphaned ones included), for edits that change what is declared but
  // no value, such as fixing a dynamic dim. Counts as a modification of the graph.
  std::vector<onnx::ValueInfoProto*> mutableDeclarations();
  // False when no value of this graph has ever had a value_info entry: most exports declare
  // none, and a pass that reads them can skip the graph.
  bool mayHaveValueInfo() const { return next_value_info_order_ != 0; }

  // The GraphProto without nodes, inputs, outputs, initializers and value_info: name, doc
  // string, quantization annotations, unknown fields.
  const onnx::GraphProto& proto() const { return *proto_; }
  onnx::GraphProto& mutableProto();

 private:
  friend class Model;
  friend class Node;
  friend class NodeIterator;
  friend class Value;
  friend class ProtoImporter;
  friend class ProtoExporter;

  // Renames every shadowOf(outer) (see there).
  void keepReadable(const Value& outer);
  // The input, else the initializer, of this graph named `name`; null when none is.
  Value* inputOrInitializerNamed(absl::string_view name) const;
  // Keep inputOrInitializerNamed()'s index, once built, in step with an input or initializer
  // that is added, renamed or removed.
  void indexScopeName(Value* value);
  void unindexScopeName(const Value& value);
  void linkBefore(Node* node, Node* before);
  void unlink(Node* node);
  Value* newValue(std::string name);
  void compactInitializers() const;
  void noteModified();
  // The arena new messages of this graph go on (null: the heap).
  google::protobuf::Arena* arena() const;

  Model* model_;
  Node* parent_node_;
  ProtoPtr<onnx::GraphProto> proto_;
  Node* first_ = nullptr;
  Node* last_ = nullptr;
  size_t num_nodes_ = 0;
  // Every value (node outputs, inputs, initializers) and every node, live and erased, of this
  // graph; freed with the graph.
  detail::ObjectPool<Value> values_;
  detail::ObjectPool<Node> nodes_;
  std::vector<Value*> inputs_;
  std::vector<Value*> outputs_;
  std::vector<uint32_t> output_use_slots_;
  std::vector<ProtoPtr<onnx::ValueInfoProto>> output_infos_;
  mutable std::vector<Value*> initializers_;    // null where removed, compacted lazily
  mutable size_t removed_initializers_ = 0;
  // inputOrInitializerNamed()'s index, for a graph with many inputs and initializers (a branch
  // that holds a model's weights and reads thousands of outer values would otherwise scan them
  // all per read): built on first need, then kept in step; keys view the values' own names.
  mutable std::unique_ptr<absl::flat_hash_map<absl::string_view, Value*>> scope_names_;
  // value_info entries naming no value of this graph, kept for a lossless round trip.
  std::vector<std::pair<uint64_t, ProtoPtr<onnx::ValueInfoProto>>> orphan_value_infos_;
  uint64_t next_value_info_order_ = 0;
};

class ONNXOPT_API Model {
 public:
  Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  ~Model();

  Graph& graph() { return *graph_; }
  const Graph& graph() const { return *graph_; }

  int64_t irVersion() const { return proto_->ir_version(); }
  // The opset version imported for `domain` ("" and "ai.onnx" are the same), or nullopt.
  std::optional<int64_t> opsetVersion(absl::string_view domain) const;
  void setOpsetVersion(const std::string& domain, int64_t version);

  // How many changes the IR has seen (every edit of a node, value, graph or attribute counts,
  // loading included). A framework that knows which changes it made compares it to find edits
  // made behind its back: a pattern that changed the IR without the rewriter, a pass whose
  // changes no rewriter recorded.
  uint64_t modificationCount() const { return modifications_; }

  // How many graphs of this model exist: the main graph, every subgraph, and graphs made for it
  // but not (or no longer) attached to a node. 1 means there is no subgraph to look for.
  size_t numGraphs() const { return num_graphs_; }

  // Every name given to a value (node) of this model, across all scopes, recorded as values
  // and nodes are made and renamed through the IR. Erased ones stay: a fresh name is never one
  // a model had.
  NameTable& valueNames() { return value_names_; }
  NameTable& nodeNames() { return node_names_; }

  // The arena the model's messages live on (null for a model built on the heap). Messages made
  // on it must not outlive the model.
  google::protobuf::Arena* arena() const { return arena_.get(); }

  // Folder that relative external-data locations are resolved against ("" if none).
  const std::string& baseDir() const { return base_dir_; }
  void setBaseDir(std::string dir) { base_dir_ = std::move(dir); }

  // Whether the model keeps its weights as external data: set when it was loaded with any
  // initializer or tensor attribute in external data (even if folding has since replaced them
  // all). saveModelToFile then writes inline weights of SaveOptions::external_data_threshold
  // bytes or more, the ones passes made included, to external data too.
  bool keepsWeightsExternal() const { return keeps_weights_external_; }
  void setKeepsWeightsExternal(bool keeps) { keeps_weights_external_ = keeps; }

  // The ModelProto without its graph: versions, opset imports, producer, metadata, functions,
  // training info, unknown fields.
  const onnx::ModelProto& proto() const { return *proto_; }
  onnx::ModelProto& mutableProto() {
    ++modifications_;
    return *proto_;
  }

 private:
  friend class Graph;
  friend class Value;
  friend class ProtoImporter;
  friend class ProtoExporter;
  friend class Verifier;
  void giveValueName(absl::string_view name) {
    if (!loading_) value_names_.give(name);
  }

  // Declared first, so destroyed last: every message of a loaded model, and messages the IR
  // makes later, live here (docs/ir.md, "Tensors and weights"). Shared with the Tensors that
  // refer to it, which may outlive the model.
  std::shared_ptr<google::protobuf::Arena> arena_;
  ProtoPtr<onnx::ModelProto> proto_;
  // Kept by Graph's constructor and destructor, and by the making of values and nodes; declared
  // before graph_, which goes first.
  size_t num_graphs_ = 0;
  NameTable value_names_;
  NameTable node_names_;
  uint64_t modifications_ = 0;
  // While loading, the importer puts each scope's names in the tables at once.
  bool loading_ = false;
  std::unique_ptr<Graph> graph_;
  std::string base_dir_;
  bool keeps_weights_external_ = false;
};

// How deep subgraphs may nest (the main graph is level 0). The importer, the verifier, saving,
// the printer and the pass manager walk subgraphs recursively; they refuse a deeper model
// instead of overflowing the stack. A binary file cannot come near it (protobuf refuses messages
// nested more than 100 deep, about 32 levels of subgraphs); only a model made in memory or
// parsed from text can.
inline constexpr int kMaxGraphNesting = 64;

// InvalidArgument naming the first subgraph nested more than kMaxGraphNesting levels below
// `graph` and the node that owns it; OK otherwise. Walks no deeper than the limit.
ONNXOPT_API absl::Status checkGraphNesting(const Graph& graph);
// The message of that error for `graph`, a subgraph one level too deep of the node that
// `owner` describes (ir::describe).
ONNXOPT_API std::string graphTooDeepMessage(absl::string_view graph, absl::string_view owner);

// Calls `fn(graph)` for `graph` and every graph nested in it, outer graphs first.
template <typename Fn>
void forEachGraph(Graph& graph, Fn&& fn) {
  fn(graph);
  // Finding subgraphs reads every node's attributes; most models have none to find.
  if (graph.model() != nullptr && graph.model()->numGraphs() == 1) return;
  for (Node& node : graph) {
    for (const Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) forEachGraph(*subgraph, fn);
    }
  }
}

}  // namespace onnxopt::ir
