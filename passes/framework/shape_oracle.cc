#include "onnxopt/rewrite/shape_oracle.h"

#include <algorithm>
#include <cctype>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "absl/strings/str_split.h"
#include "onnx/shape_inference/implementation.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/schema.h"
#include "../../ir/proto_io.h"
#include "onnx_inference.h"

namespace onnxopt {
namespace {

// The ops shapeValueOf() evaluates through. By their OpNames: forget() asks about every node it
// walks to.
bool isShapeValueStep(const ir::Node& node) {
  static const ir::OpName* const kSteps[] = {
      &ir::OpName::of("Identity"),  &ir::OpName::of("Shape"),  &ir::OpName::of("Gather"),
      &ir::OpName::of("Unsqueeze"), &ir::OpName::of("Concat"), &ir::OpName::of("Slice")};
  return std::any_of(std::begin(kSteps), std::end(kSteps),
                     [&node](const ir::OpName* step) { return node.is(*step); });
}

bool isShape(const onnx::NodeProto& node) {
  return node.op_type() == "Shape" && (node.domain().empty() || node.domain() == "ai.onnx");
}

bool hasShapeNode(const onnx::GraphProto& graph) {
  for (const onnx::NodeProto& node : graph.node()) {
    if (isShape(node)) return true;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g() && hasShapeNode(attribute.g())) return true;
      for (const onnx::GraphProto& subgraph : attribute.graphs()) {
        if (hasShapeNode(subgraph)) return true;
      }
    }
  }
  return false;
}

// Whether the input of every Shape node in `graph` (subgraphs included) has a type, from this
// graph or from the enclosing scopes' `typed` names, in a model of `ir_version`.
bool everyShapeInputIsTyped(const onnx::GraphProto& graph, int64_t ir_version,
                            absl::flat_hash_set<std::string> typed) {
  // Not graph.output(): a graph output's entry has a type (declared, or an empty one) whether or
  // not inference typed the value, and data propagation reads only what inference typed.
  for (const auto* infos : {&graph.input(), &graph.value_info()}) {
    for (const onnx::ValueInfoProto& info : *infos) {
      if (info.has_type()) typed.insert(info.name());
    }
  }
  // Below IR 4 an initializer is a default for a graph input, and libonnx types it only as one.
  if (ir_version >= 4) {
    for (const onnx::TensorProto& initializer : graph.initializer()) typed.insert(initializer.name());
  }
  for (const onnx::NodeProto& node : graph.node()) {
    if (isShape(node) && (node.input_size() == 0 || !typed.contains(node.input(0)))) return false;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g() && !everyShapeInputIsTyped(attribute.g(), ir_version, typed)) {
        return false;
      }
      for (const onnx::GraphProto& subgraph : attribute.graphs()) {
        if (!everyShapeInputIsTyped(subgraph, ir_version, typed)) return false;
      }
    }
  }
  return true;
}

// The Shape inputs of `graph` (subgraphs included) to declare with a type that says nothing
// (element type 0, no shape), so that ONNX 1.12's data propagation for Shape-15, which reads its
// input's type without a check, finds one where inference typed nothing (a custom op's output, or
// a node's whose inference failed). Nullopt when a Shape reads another kind of value: a graph
// output, an outer-scope value, an untyped graph input, an initializer below IR 4 (libonnx types
// it only as a graph input's default). Those need a plain inference first.
std::optional<std::vector<std::pair<onnx::GraphProto*, std::string>>> shapeInputsToDeclare(
    onnx::GraphProto& graph, int64_t ir_version) {
  absl::flat_hash_set<absl::string_view> typed, node_outputs, graph_outputs;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (input.type().has_tensor_type()) typed.insert(input.name());
  }
  if (ir_version >= 4) {
    for (const onnx::TensorProto& initializer : graph.initializer()) typed.insert(initializer.name());
  }
  for (const onnx::ValueInfoProto& output : graph.output()) graph_outputs.insert(output.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& output : node.output()) node_outputs.insert(output);
  }
  std::vector<std::pair<onnx::GraphProto*, std::string>> declare;
  absl::flat_hash_set<absl::string_view> declared;
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    if (isShape(node)) {
      if (node.input_size() == 0) return std::nullopt;
      const std::string& input = node.input(0);
      if (!typed.contains(input)) {
        if (!node_outputs.contains(input) || graph_outputs.contains(input)) return std::nullopt;
        if (declared.insert(input).second) declare.emplace_back(&graph, input);
      }
    }
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      std::vector<onnx::GraphProto*> subgraphs;
      if (attribute.has_g()) subgraphs.push_back(attribute.mutable_g());
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) subgraphs.push_back(&subgraph);
      for (onnx::GraphProto* subgraph : subgraphs) {
        auto nested = shapeInputsToDeclare(*subgraph, ir_version);
        if (!nested) return std::nullopt;
        declare.insert(declare.end(), nested->begin(), nested->end());
      }
    }
  }
  return declare;
}

bool isUntouchedDeclaration(const onnx::TypeProto& type) {
  return type.has_tensor_type() && type.tensor_type().elem_type() == 0 &&
         !type.tensor_type().has_shape();
}

// Inference reads the data of rank-sized tensors only (shapes, axes, pads, scalars). Bigger
// initializers of the main graph reach it as graph inputs of their type, without data: a copy
// of every weight would take as much memory again as the model, for each inference. Not as
// initializers without data, which libonnx would read as empty.
constexpr int64_t kMaxElementsForInference = 4096;

// `lent` (an export lending the IR's messages) copied into `copy`, the main graph's big
// initializers declared as inputs instead, and those that are graph inputs left out.
void copyForInference(onnx::ModelProto& lent, onnx::ModelProto* copy) {
  google::protobuf::RepeatedPtrField<onnx::TensorProto>* initializers =
      lent.mutable_graph()->mutable_initializer();
  std::vector<onnx::TensorProto*> lent_initializers;
  lent_initializers.reserve(initializers->size());
  for (onnx::TensorProto& tensor : *initializers) lent_initializers.push_back(&tensor);
  initializers->UnsafeArenaExtractSubrange(0, initializers->size(), nullptr);
  copy->CopyFrom(lent);
  for (onnx::TensorProto* tensor : lent_initializers) initializers->UnsafeArenaAddAllocated(tensor);
  // libonnx 1.12 infers a call of a model-local function through its body, whose values share
  // one table of propagated data with the graph's: a body value named as a graph's int64 value
  // made a later Concat read data of the wrong length, and crashed. The oracle takes no type
  // from a call (another domain's op), so inference goes without the bodies.
  copy->clear_functions();

  onnx::GraphProto* graph = copy->mutable_graph();
  absl::flat_hash_set<absl::string_view> inputs;
  for (const onnx::ValueInfoProto& input : graph->input()) inputs.insert(input.name());
  for (const onnx::TensorProto* tensor : lent_initializers) {
    // A graph input's initializer is only its default: a caller may feed another value, so
    // inference gets the input's type alone.
    if (inputs.contains(tensor->name())) continue;
    const absl::StatusOr<int64_t> elements = ir::tensorElementCount(*tensor);
    if (!elements.ok() || *elements <= kMaxElementsForInference) {
      *graph->add_initializer() = *tensor;
    } else if (!inputs.contains(tensor->name())) {
      onnx::ValueInfoProto* input = graph->add_input();
      input->set_name(tensor->name());
      onnx::TypeProto::Tensor* type = input->mutable_type()->mutable_tensor_type();
      type->set_elem_type(tensor->data_type());
      for (int64_t dim : tensor->dims()) type->mutable_shape()->add_dim()->set_dim_value(dim);
    }
  }
}

// Drops the value_info entries and the outputs' shapes of `graph` and its subgraphs.
void forgetDeclaredShapes(onnx::GraphProto& graph) {
  graph.clear_value_info();
  for (onnx::ValueInfoProto& output : *graph.mutable_output()) {
    if (output.type().has_tensor_type()) {
      output.mutable_type()->mutable_tensor_type()->clear_shape();
    }
  }
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (attribute.has_g()) forgetDeclaredShapes(*attribute.mutable_g());
      for (onnx::GraphProto& subgraph : *attribute.mutable_graphs()) {
        forgetDeclaredShapes(subgraph);
      }
    }
  }
}

using ir::Dim;
using ir::Shape;
using ir::Type;

// The dim_params that the inputs of `graph` and of its subgraphs name.
void collectInputSymbols(const onnx::GraphProto& graph, absl::flat_hash_set<std::string>* symbols) {
  for (const onnx::ValueInfoProto& input : graph.input()) {
    for (const auto& dim : input.type().tensor_type().shape().dim()) {
      if (dim.has_dim_param()) symbols->insert(dim.dim_param());
    }
  }
  for (const onnx::NodeProto& node : graph.node()) {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g()) collectInputSymbols(attribute.g(), symbols);
      for (const onnx::GraphProto& subgraph : attribute.graphs()) collectInputSymbols(subgraph, symbols);
    }
  }
}

// `type` read from ONNX's inference, each symbol it made up for a dim it did not know (unk__0,
// one no input names) read as unknown: it stands for no size, so it may not stand over a
// declared one.
Type withoutMadeUpSymbols(const onnx::TypeProto& proto, const absl::flat_hash_set<std::string>& symbols) {
  Type type = Type::fromProto(proto);
  if (!type.shape()) return type;
  Shape shape = *type.shape();
  for (Dim& dim : shape) {
    if (dim.isSymbolic() && !symbols.contains(dim.symbol())) dim = Dim::unknown();
  }
  return Type::tensor(type.elemType(), std::move(shape));
}

const Dim kOne = Dim::known(1);

// The dim of `shape` at position `i` counted from the right, or 1 past its rank.
const Dim& fromRight(const Shape& shape, size_t i) {
  return i < shape.size() ? shape[shape.size() - 1 - i] : kOne;
}

std::optional<Dim> broadcastDim(const Dim& a, const Dim& b) {
  if (isKnownOne(a)) return b;
  if (isKnownOne(b)) return a;
  if (a.isKnown() && b.isKnown()) {
    if (a.value() != b.value()) return std::nullopt;
    return a;
  }
  // A known size other than 1 is the result whenever the model runs: the other dim is 1 or it.
  if (a.isKnown()) return a;
  if (b.isKnown()) return b;
  if (a.provablyEquals(b)) return a;
  return Dim::unknown();
}

// The local shape rule of each operator the oracle knows, found with one hash of the op type.
enum class Rule {
  kSameAsInput,  // unary elementwise
  kCast,
  kBoolOfInput,  // IsNaN, IsInf, Not
  kBroadcasting,  // numpy-broadcasting elementwise, from opset `since`
  kGemm,
  kMatMul,
  kTranspose,
  kFlatten,
  kExpand,
  kReshape,
  kConstant,
  kShape,
  kSize,
  kCastLike,
  kConstantOfShape,
  kSqueeze,
  kUnsqueeze,
  kReduce,  // axes an input from opset `since`, an attribute before
  kSplit,
  kPad,
  kResize,
  kConcat,
  kGather,
  kGatherElements,
  kSlice,
  kTile,
  kNonZero,
  kConv,
  kPool,        // MaxPool, AveragePool, LpPool
  kGlobalPool,  // GlobalAveragePool, GlobalMaxPool, GlobalLpPool
  kQuantize,    // QuantizeLinear: x's shape, the zero point's type (else output_dtype, uint8)
  kDequantize,  // DequantizeLinear: x's shape, the scale's type (else output_dtype)
  kIf,          // what both branches' outputs share
  kRange,
  kTopK,
  kNonMaxSuppression,  // [selected boxes, 3] int64 indices
  kGatherND,
  kEinsum,
};

struct RuleOf {
  Rule rule;
  int64_t since = 1;
  bool gives_bool = false;  // comparisons and logical operators
};

const RuleOf* ruleFor(const ir::Node& node) {
  static const auto* const kRules = [] {
    auto* rules = new absl::flat_hash_map<std::string, RuleOf>();
    for (const char* op :
         {"Relu", "LeakyRelu", "Sigmoid", "Tanh", "Neg", "Abs", "Exp", "Log", "Sqrt",
          "Reciprocal", "Erf", "Elu", "Selu", "Softplus", "Softsign", "HardSigmoid", "HardSwish",
          "Identity", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Tan", "Softmax",
          "LogSoftmax", "Clip", "ThresholdedRelu", "Celu", "Gelu", "Mish", "Dropout", "BitwiseNot",
          "Shrink", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}) {
      rules->emplace(op, RuleOf{Rule::kSameAsInput});
    }
    rules->emplace("Cast", RuleOf{Rule::kCast});
    rules->emplace("QuantizeLinear", RuleOf{Rule::kQuantize, 10});
    rules->emplace("DequantizeLinear", RuleOf{Rule::kDequantize, 10});
    for (const char* op : {"IsNaN", "IsInf", "Not"}) rules->emplace(op, RuleOf{Rule::kBoolOfInput});
    for (const BroadcastingOp& op : broadcastingOps()) {
      rules->emplace(std::string(op.op_type), RuleOf{Rule::kBroadcasting, op.since, op.gives_bool});
    }
    // Output 0 of the normalizations has the input's shape (BatchNormalization's others, in
    // training mode, are per channel, LayerNormalization's per row: no rule), and so has that of
    // the ops that write into or accumulate along their first input.
    for (const char* op : {"BatchNormalization", "InstanceNormalization", "LRN",
                           "LayerNormalization", "GroupNormalization", "MeanVarianceNormalization",
                           "CumSum", "Trilu", "Scatter", "ScatterElements", "ScatterND"}) {
      rules->emplace(op, RuleOf{Rule::kSameAsInput});
    }
    rules->emplace("Conv", RuleOf{Rule::kConv});
    for (const char* op : {"MaxPool", "AveragePool", "LpPool"}) rules->emplace(op, RuleOf{Rule::kPool});
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"}) {
      rules->emplace(op, RuleOf{Rule::kGlobalPool});
    }
    rules->emplace("Gemm", RuleOf{Rule::kGemm});
    rules->emplace("MatMul", RuleOf{Rule::kMatMul});
    rules->emplace("Transpose", RuleOf{Rule::kTranspose});
    rules->emplace("Flatten", RuleOf{Rule::kFlatten});
    rules->emplace("Expand", RuleOf{Rule::kExpand});
    rules->emplace("Reshape", RuleOf{Rule::kReshape});
    rules->emplace("If", RuleOf{Rule::kIf});
    rules->emplace("Range", RuleOf{Rule::kRange, 11});
    rules->emplace("TopK", RuleOf{Rule::kTopK});
    rules->emplace("NonMaxSuppression", RuleOf{Rule::kNonMaxSuppression, 10});
    rules->emplace("GatherND", RuleOf{Rule::kGatherND, 11});
    rules->emplace("Einsum", RuleOf{Rule::kEinsum, 12});
    const std::pair<const char*, Rule> kShapeOps[] = {
        {"Constant", Rule::kConstant}, {"Shape", Rule::kShape}, {"Size", Rule::kSize},
        {"CastLike", Rule::kCastLike}, {"ConstantOfShape", Rule::kConstantOfShape},
        {"Squeeze", Rule::kSqueeze}, {"Unsqueeze", Rule::kUnsqueeze}, {"Split", Rule::kSplit},
        {"Pad", Rule::kPad}, {"Resize", Rule::kResize}, {"Concat", Rule::kConcat},
        {"Gather", Rule::kGather}, {"GatherElements", Rule::kGatherElements},
        {"Slice", Rule::kSlice}, {"Tile", Rule::kTile}, {"NonZero", Rule::kNonZero}};
    for (const auto& [op, rule] : kShapeOps) rules->emplace(op, RuleOf{rule});
    rules->emplace("ReduceSum", RuleOf{Rule::kReduce, 13});
    for (const char* op : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"}) {
      rules->emplace(op, RuleOf{Rule::kReduce, 18});
    }
    return rules;
  }();
  if (!node.op().domain().empty()) return nullptr;
  auto it = kRules->find(node.opType());
  return it == kRules->end() ? nullptr : &it->second;
}

bool isIf(const ir::Node& node) { return node.opType() == "If" && node.op().domain().empty(); }
bool isLoop(const ir::Node& node) {
  return node.opType() == "Loop" && node.op().domain().empty();
}
bool isScan(const ir::Node& node) {
  return node.opType() == "Scan" && node.op().domain().empty();
}

// An If's then and else branches; null for one that is missing or not a single graph.
// The node's graph attribute `name`; null when it has none.
const ir::Graph* graphAttribute(const ir::Node& node, const char* name) {
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr || attribute->kind() != onnx::AttributeProto::GRAPH ||
      attribute->graphs().size() != 1) {
    return nullptr;
  }
  return attribute->graphs().front().get();
}

std::array<const ir::Graph*, 2> branchesOf(const ir::Node& node) {
  return {graphAttribute(node, "then_branch"), graphAttribute(node, "else_branch")};
}

// Calls `fn` on every value an answer about `node`'s outputs is derived from: its inputs, and
// for an If its branches' outputs (it returns one branch's).
template <typename Fn>
void forEachSource(const ir::Node& node, Fn&& fn) {
  for (const ir::Value* input : node.inputs()) {
    if (input != nullptr) fn(*input);
  }
  if (!isIf(node)) return;
  for (const ir::Graph* branch : branchesOf(node)) {
    if (branch == nullptr) continue;
    for (const ir::Value* output : branch->outputs()) {
      if (output != nullptr) fn(*output);
    }
  }
}

// The type of an If's output: what its branches' outputs agree on. Their shapes may differ (from
// opset 11): a dim stays where both have it alike; another rank, or a shape either leaves
// unknown, leaves none.
Type mergeBranchTypes(const Type& then_type, const Type& else_type) {
  if (!then_type.isTensor() || !else_type.isTensor()) {
    return then_type == else_type ? then_type : Type();
  }
  const int32_t then_elem = then_type.elemType(), else_elem = else_type.elemType();
  if (then_elem != 0 && else_elem != 0 && then_elem != else_elem) return Type();
  const int32_t elem = then_elem != 0 ? then_elem : else_elem;
  const std::optional<Shape>& then_shape = then_type.shape();
  const std::optional<Shape>& else_shape = else_type.shape();
  if (!then_shape || !else_shape || then_shape->size() != else_shape->size()) {
    return Type::tensor(elem);
  }
  Shape shape = *then_shape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!(shape[i] == (*else_shape)[i])) shape[i] = Dim::unknown();
  }
  return Type::tensor(elem, std::move(shape));
}

}  // namespace

bool keepsInputShape(const ir::Node& node) {
  const RuleOf* rule = ruleFor(node);
  if (rule == nullptr) return false;
  switch (rule->rule) {
    case Rule::kSameAsInput:
    case Rule::kCast:
    case Rule::kCastLike:
    case Rule::kBoolOfInput:
      return true;
    default:
      return false;
  }
}

namespace {

template <typename V>  // ir::Value or const ir::Value
V* climbToShapeSource(V& value, absl::FunctionRef<bool(const ir::Node&, const ir::Node*)> may_pass) {
  V* source = &value;
  const ir::Node* below = nullptr;
  for (int steps = 0;; ++steps) {
    const ir::Node* producer = source->producer();
    if (producer == nullptr || source->producerOutputIndex() != 0 ||
        producer->input(0) == nullptr || !keepsInputShape(*producer) ||
        !may_pass(*producer, below)) {
      return source;
    }
    if (steps == kMaxShapeKeepingChain) return nullptr;
    below = producer;
    source = producer->input(0);
  }
}

bool anyProducer(const ir::Node&, const ir::Node*) { return true; }

}  // namespace

ir::Value* shapeSourceOf(ir::Value& value) { return climbToShapeSource(value, anyProducer); }
const ir::Value* shapeSourceOf(const ir::Value& value) {
  return climbToShapeSource(value, anyProducer);
}
ir::Value* shapeSourceOf(
    ir::Value& value,
    absl::FunctionRef<bool(const ir::Node& producer, const ir::Node* below)> may_pass) {
  return climbToShapeSource(value, may_pass);
}

bool sameShapeByDefinition(const ir::Value* a, const ir::Value* b) {
  if (a == nullptr || b == nullptr) return false;
  if (a == b) return true;
  const ir::Value* source = shapeSourceOf(*a);
  return source != nullptr && source == shapeSourceOf(*b);
}

std::optional<Shape> broadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape result(rank, Dim::unknown());
  for (size_t i = 0; i < rank; ++i) {
    std::optional<Dim> dim = broadcastDim(fromRight(a, i), fromRight(b, i));
    if (!dim) return std::nullopt;
    result[rank - 1 - i] = *dim;
  }
  return result;
}

bool broadcastsUnidirectionally(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  for (size_t i = 0; i < from.size(); ++i) {
    const Dim& dim = fromRight(from, i);
    if (!isKnownOne(dim) && !dim.provablyEquals(fromRight(to, i))) return false;
  }
  return true;
}

bool provablyEqual(const Shape& a, const Shape& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].provablyEquals(b[i])) return false;
  }
  return true;
}

ShapeOracle::ShapeOracle(ir::Model& model) : model_(model) {}
ShapeOracle::~ShapeOracle() = default;

std::optional<std::vector<int64_t>> ShapeOracle::constantInts(const ir::Value& value) {
  const onnx::TensorProto* tensor = nullptr;
  if (value.isInitializer() && !value.isGraphInput()) {
    if (value.initializer()->isExternal()) return std::nullopt;
    tensor = &value.initializer()->proto();
  } else if (value.producer() && value.producer()->is("Constant")) {
    const ir::Node& constant = *value.producer();
    if (const ir::Attribute* ints = constant.attr("value_ints")) {
      return std::vector<int64_t>(ints->ints().begin(), ints->ints().end());
    }
    if (const ir::Attribute* single = constant.attr("value_int")) {
      return std::vector<int64_t>{single->i()};
    }
    const ir::Attribute* attribute = constant.attr("value");
    if (attribute == nullptr || !attribute->proto().has_t()) return std::nullopt;
    tensor = &attribute->t();
    if (tensor->data_location() == onnx::TensorProto::EXTERNAL) return std::nullopt;
  }
  if (tensor == nullptr || tensor->data_type() != onnx::TensorProto::INT64) return std::nullopt;
  if (tensor->dims_size() > 1) return std::nullopt;
  const int64_t count = tensor->dims_size() == 0 ? 1 : tensor->dims(0);
  if (count < 0) return std::nullopt;
  if (tensor->has_raw_data()) {
    // Compared by division: a crafted count times 8 could wrap around to the data's size.
    if (tensor->raw_data().size() % sizeof(int64_t) != 0 ||
        tensor->raw_data().size() / sizeof(int64_t) != static_cast<size_t>(count)) {
      return std::nullopt;
    }
    std::vector<int64_t> values(static_cast<size_t>(count));
    if (count > 0) std::memcpy(values.data(), tensor->raw_data().data(), tensor->raw_data().size());
    return values;
  }
  if (tensor->int64_data_size() != count) return std::nullopt;
  return std::vector<int64_t>(tensor->int64_data().begin(), tensor->int64_data().end());
}

std::optional<ir::Type> correctedDeclaration(const ir::Type& declared, const ir::Type& fact) {
  if (!declared.isTensor() || !fact.isTensor()) return std::nullopt;
  const int32_t elem = declared.elemType();
  const bool elem_differs = elem != 0 && fact.elemType() != 0 && elem != fact.elemType();
  const int32_t elem_kept = elem_differs ? fact.elemType() : elem;
  if (!declared.shape() || !fact.shape()) {
    if (!elem_differs) return std::nullopt;
    return ir::Type::tensor(elem_kept, declared.shape());
  }
  if (declared.shape()->size() != fact.shape()->size()) return ir::Type::tensor(elem_kept, fact.shape());
  ir::Shape shape = *declared.shape();
  bool dim_differs = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    const ir::Dim& known = (*fact.shape())[i];
    if (shape[i].isKnown() && known.isKnown() && shape[i].value() != known.value()) {
      shape[i] = known;
      dim_differs = true;
    }
  }
  if (!elem_differs && !dim_differs) return std::nullopt;
  return ir::Type::tensor(elem_kept, std::move(shape));
}

void ShapeOracle::switchToGraph(const ir::Graph& graph) {
  last_graph_ = &graph;
  last_answers_ = &answers_by_graph_[&graph];
}

std::optional<int64_t> ShapeOracle::rankOf(const ir::Value& value) { return typeOf(value).rank(); }

void ShapeOracle::markOnnxAnswerStale(const ir::Value& value) {
  std::vector<bool>& stale = answersIn(*value.graph()).onnx_answer_stale;
  if (stale.size() <= value.ordinal()) stale.resize(value.graph()->valueOrdinalBound());
  stale[value.ordinal()] = true;
  any_onnx_answer_stale_ = true;
}

bool ShapeOracle::onnxAnswerStale(const ir::Value& value) {
  const std::vector<bool>& stale = answersIn(*value.graph()).onnx_answer_stale;
  return value.ordinal() < stale.size() && stale[value.ordinal()];
}

bool ShapeOracle::onnxAnswerHolds(const ir::Value& value) {
  if (!any_onnx_answer_stale_) return true;
  if (onnxAnswerStale(value)) return false;
  for (const ir::Value* input : value.producer()->inputs()) {
    if (input != nullptr && onnxAnswerStale(*input)) {
      markOnnxAnswerStale(value);
      return false;
    }
  }
  return true;
}

bool ShapeOracle::dropAnswers(const ir::Value& value) {
  GraphAnswers& answers = answersIn(*value.graph());
  auto drop = [&value](auto& slots) {
    if (value.ordinal() >= slots.size() || slots[value.ordinal()] == nullptr) return false;
    slots[value.ordinal()] = nullptr;
    return true;
  };
  const bool had_type = drop(answers.typed);
  const bool had_inferred = drop(answers.inferred);
  claimed_.erase(&value);
  return had_type || had_inferred;
}

absl::Span<ir::Node* const> ShapeOracle::forget(const ir::Node& node) {
  // Breadth first, so that the budget goes to the nodes nearest the change (a Shape right after
  // a Reshape whose shape became a constant). A node whose outputs had no answers ends the walk
  // there: every answer is computed after its inputs' (resolve()), so nothing below it was
  // derived from what changed since they were dropped.
  readers_of_forgotten_.clear();
  auto drop_below = [this](const ir::Node& changed, bool always) {
    // shapeValueOf() memoizes nothing, so the answers it read lie beyond a node it looks
    // through even where that node's outputs have none of their own.
    always = always || isShapeValueStep(changed);
    for (const ir::Value* output : changed.outputs()) {
      if (output != nullptr && onnx_inference_ran_) markOnnxAnswerStale(*output);
      if (output == nullptr || (!dropAnswers(*output) && !always)) continue;
      for (const ir::Use& use : output->uses()) {
        ir::Node* reader = use.isGraphOutput() ? use.graphOutputOf()->parentNode() : use.user();
        if (reader != nullptr) readers_of_forgotten_.push_back(reader);
      }
    }
  };
  drop_below(node, /*always=*/true);
  for (size_t next = 0;
       next < readers_of_forgotten_.size() && next < kMaxNodesForgottenPerChange; ++next) {
    drop_below(*readers_of_forgotten_[next], /*always=*/false);
  }
  return readers_of_forgotten_;
}

namespace {
// `primary`, with what it leaves unknown taken from `fallback`: the element type, the whole
// shape, or single dims where the ranks agree. Where both know a part, `primary`'s stands.
Type refine(Type primary, Type fallback) {
  if (!primary.isTensor()) return fallback;
  if (!fallback.isTensor()) return primary;
  const int32_t elem = primary.elemType() != 0 ? primary.elemType() : fallback.elemType();
  if (!primary.shape()) return Type::tensor(elem, std::move(fallback).takeShape());
  if (!fallback.shape() || fallback.shape()->size() != primary.shape()->size()) {
    return Type::tensor(elem, std::move(primary).takeShape());
  }
  Shape shape = *std::move(primary).takeShape();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].isUnknown()) shape[i] = (*fallback.shape())[i];
  }
  return Type::tensor(elem, std::move(shape));
}

// Whether `refined` is `derived` with nothing added but names for dims `derived` left unknown:
// a declaration that only names a dynamic dim (ONNX's inference writes unk__0 for one the
// graph's inputs leave unnamed) adds no size, so the sizes downstream still follow from facts.
bool onlyNamesUnknownDims(const Type& derived, const Type& refined) {
  if (derived.elemType() != refined.elemType() || !derived.shape() || !refined.shape()) return false;
  const Shape& before = *derived.shape();
  const Shape& after = *refined.shape();
  if (before.size() != after.size()) return false;
  for (size_t i = 0; i < before.size(); ++i) {
    if (!(before[i] == after[i]) && !(before[i].isUnknown() && after[i].isSymbolic())) return false;
  }
  return true;
}

bool fullyKnown(const Type& type) {
  if (!type.isTensor() || type.elemType() == 0 || !type.shape()) return false;
  for (const Dim& dim : *type.shape()) {
    if (dim.isUnknown()) return false;
  }
  return true;
}

const Type kNothingKnown;
}  // namespace

const Type& ShapeOracle::resolve(const ir::Value& value) {
  if (value.producer() == nullptr) return remember(value, infer(value));
  // Producers are resolved first, without recursion, so a chain of a million nodes is fine.
  absl::InlinedVector<const ir::Value*, 8> pending = {&value};
  while (!pending.empty()) {
    const ir::Value* current = pending.back();
    if (known(*current) != nullptr) {
      pending.pop_back();
      continue;
    }
    bool ready = true;
    if (const ir::Node* producer = current->producer()) {
      forEachSource(*producer, [&](const ir::Value& source) {
        if (known(source) == nullptr) {
          pending.push_back(&source);
          ready = false;
        }
      });
    }
    if (!ready) continue;
    pending.pop_back();
    remember(*current, infer(*current));
  }
  return *known(value);
}

const Type& ShapeOracle::remember(const ir::Value& value, Type type) {
  const Type* answer = answers_.create(std::move(type));
  std::vector<const Type*>& answers = answersIn(*value.graph()).typed;
  if (value.ordinal() >= answers.size()) answers.resize(value.graph()->valueOrdinalBound());
  answers[value.ordinal()] = answer;
  return *answer;
}

namespace {
// Where ONNX 1.12 infers another size than ONNX Runtime computes: a pool with ceil_mode (libonnx
// keeps a last window that starts past the input and its start padding, ONNX Runtime drops it:
// [5], kernel 2, stride 2, pads 1 and 1 is 4 to libonnx, 3 to ONNX Runtime); a pool with auto_pad
// SAME_* and dilations (libonnx gives ceil(input / stride), ONNX Runtime pads for the undilated
// kernel: [7], kernel 3, stride 2, dilation 2 is 4 to libonnx, 3 to ONNX Runtime); and a
// ConvTranspose with auto_pad SAME_* and output_padding (libonnx adds the padding to
// input * stride, ONNX Runtime gives input * stride); and STFT (with onesided, libonnx counts the
// frames with the onesided bin count as the frame length: 9 samples, frame 5, step 2 give 4
// frames to libonnx, 3 to ONNX Runtime); and a Squeeze whose axes are empty or not a constant
// (an empty list squeezes every dim of 1 in ONNX Runtime's kernel, none in libonnx); and a Slice
// with an open end and a negative step (sliceRange: to the first element in ONNX Runtime's
// kernel, nothing in libonnx); and Einsum (a label of size 1 in one operand broadcasts in ONNX
// Runtime's kernel; libonnx takes the first operand's size: einsumRule).
bool libonnxSizeDiffersFromOrt(const ir::Node& node, ShapeOracle& shapes) {
  // Compared as interned names: this runs for every value inferredTypeOf() answers.
  static const ir::OpName* const kStft = &ir::OpName::of("STFT");
  static const ir::OpName* const kSlice = &ir::OpName::of("Slice");
  static const ir::OpName* const kSqueeze = &ir::OpName::of("Squeeze");
  static const ir::OpName* const kConvTranspose = &ir::OpName::of("ConvTranspose");
  static const ir::OpName* const kPools[] = {&ir::OpName::of("MaxPool"),
                                             &ir::OpName::of("AveragePool"),
                                             &ir::OpName::of("LpPool")};
  static const ir::OpName* const kEinsum = &ir::OpName::of("Einsum");
  const ir::OpName* op = &node.op();
  if (op == kStft || op == kEinsum) return true;
  if (op == kSlice) {
    if (node.numInputs() < 5 || node.input(2) == nullptr || node.input(4) == nullptr) return false;
    const std::optional<std::vector<int64_t>> ends = shapes.constantInts(*node.input(2));
    const std::optional<std::vector<int64_t>> steps = shapes.constantInts(*node.input(4));
    if (!ends || !steps || ends->size() != steps->size()) return false;
    for (size_t i = 0; i < ends->size(); ++i) {
      if ((*steps)[i] < 0 && isOpenSliceEnd((*ends)[i])) return true;
    }
    return false;
  }
  if (op == kSqueeze) {
    if (const ir::Attribute* axes = node.attr("axes")) return axes->ints().empty();
    if (node.numInputs() < 2 || node.input(1) == nullptr) return false;
    const std::optional<std::vector<int64_t>> axes = shapes.constantInts(*node.input(1));
    return !axes || axes->empty();
  }
  const bool pool = std::find(std::begin(kPools), std::end(kPools), op) != std::end(kPools);
  if (!pool && op != kConvTranspose) return false;
  const ir::Attribute* auto_pad = node.attr("auto_pad");
  const bool same = auto_pad != nullptr && (auto_pad->kind() != onnx::AttributeProto::STRING ||
                                            (auto_pad->s() != "NOTSET" && auto_pad->s() != "VALID"));
  if (pool) {
    const ir::Attribute* ceil_mode = node.attr("ceil_mode");
    if (ceil_mode != nullptr && (ceil_mode->kind() != onnx::AttributeProto::INT || ceil_mode->i() != 0)) {
      return true;
    }
    const ir::Attribute* dilations = node.attr("dilations");
    if (!same || dilations == nullptr) return false;
    if (dilations->kind() != onnx::AttributeProto::INTS) return true;
    return std::any_of(dilations->ints().begin(), dilations->ints().end(), [](int64_t d) { return d != 1; });
  }
  if (op == kConvTranspose) return same && node.attr("output_padding") != nullptr;
  return false;
}

// Whether each element type attribute of the node (Cast's `to`, the random ops' `dtype`) names
// an element type: libonnx reads one as int32, so 2^32 + 1 would be FLOAT to it.
bool elemTypeAttributesNameTypes(const ir::Node& node) {
  for (const char* name : {"to", "dtype", "output_dtype"}) {
    const ir::Attribute* attribute = node.attr(name);
    if (attribute != nullptr && attribute->kind() == onnx::AttributeProto::INT &&
        ir::elemTypeFromAttribute(attribute->i()) != attribute->i()) {
      return false;
    }
  }
  return true;
}

// Whether ONNX 1.12's inference of the node follows the node's own schema: a default-domain op
// whose definition at the model's opset libonnx has (at opsets 18 and later it would apply an
// older version's rule to a changed op), whose element type attributes it reads as written, and
// whose sizes it computes as ONNX Runtime does.
bool libonnxKnows(const ir::Node& node, ShapeOracle& shapes) {
  return node.op().domain().empty() && schemaOf(node) != nullptr &&
         elemTypeAttributesNameTypes(node) && !libonnxSizeDiffersFromOrt(node, shapes);
}

bool hasSubgraphs(const ir::Node& node) {
  for (const ir::Attribute& attribute : node.attributes()) {
    if (!attribute.graphs().empty()) return true;
  }
  return false;
}
}  // namespace

Type ShapeOracle::infer(const ir::Value& value) {
  const ir::Node* producer = value.producer();
  if (producer == nullptr) {
    // The caller feeds a main-graph input as declared (ONNX Runtime checks it); a body's inputs
    // are what its node passes, which the declaration may not describe.
    if (!value.isInitializer() && value.graph()->parentNode() != nullptr) claimed_.insert(&value);
    return value.type();
  }
  Type derived = applyLocalRule(*producer, value.producerOutputIndex());
  const bool onnx_answer_holds = onnxAnswerHolds(value);  // marks the value for its readers
  if (!derived.shape() && onnx_answer_holds && libonnxKnows(*producer, *this)) {
    if (!onnx_inference_ran_) runOnnxShapeInference();
    auto inferred = onnx_inferred_.find(&value);
    if (inferred != onnx_inferred_.end()) derived = refine(std::move(derived), inferred->second);
  }
  bool from_facts = true;
  forEachSource(*producer, [&](const ir::Value& source) {
    if (claimed_.contains(&source)) from_facts = false;
  });
  if (!from_facts) {
    // Derived from a declaration somewhere upstream, it is no better than this one: the
    // declaration stands and the derivation fills in what it leaves unknown.
    claimed_.insert(&value);
    return refine(value.type(), std::move(derived));
  }
  // What follows from the graph's inputs stands over the declaration (value_info, a graph
  // output's type), which may be stale after an edit of the graph: ONNX Runtime runs such a
  // model, its kernels computing the real sizes, after warning that the declaration does not
  // merge. The declaration fills in what the derivation leaves unknown, and the answer then
  // rests on it, unless all it fills in is a name for a dynamic dim.
  Type type = refine(derived, value.type());
  if (!(type == derived) && !onlyNamesUnknownDims(derived, type)) claimed_.insert(&value);
  return type;
}

namespace {

using InputTypeFn = absl::FunctionRef<const Type&(size_t)>;

// `axis` counted from the front of a rank-`rank` shape; nullopt when out of range.
std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}


std::optional<std::vector<int64_t>> intsAttr(const ir::Node& node, absl::string_view name) {
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr || attribute->kind() != onnx::AttributeProto::INTS) return std::nullopt;
  return std::vector<int64_t>(attribute->ints().begin(), attribute->ints().end());
}

std::string stringAttr(const ir::Node& node, absl::string_view name, absl::string_view otherwise) {
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr || attribute->kind() != onnx::AttributeProto::STRING) {
    return std::string(otherwise);
  }
  return attribute->s();
}

// A list operand that is an attribute before opset `input_since` and input `input_index` from
// then on (Squeeze axes, Split split, Pad pads, Reduce axes).
struct ListOperand {
  bool given = false;  // the attribute or input is there
  std::optional<std::vector<int64_t>> values;  // nullopt when given but not a constant
};

ListOperand listOperand(const ir::Node& node, int64_t opset, int64_t input_since,
                        const char* attribute, size_t input_index, ShapeOracle& shapes) {
  ListOperand operand;
  if (opset < input_since) {
    operand.given = node.attr(attribute) != nullptr;
    if (operand.given) operand.values = intsAttr(node, attribute);
    return operand;
  }
  const ir::Value* input = node.input(input_index);
  operand.given = input != nullptr;
  if (operand.given) operand.values = shapes.constantInts(*input);
  return operand;
}

Type withUnknownDims(int32_t elem, int64_t rank) {
  return Type::tensor(elem, Shape(static_cast<size_t>(rank), Dim::unknown()));
}

std::optional<int64_t> checkedProduct(int64_t a, int64_t b) {
  int64_t product;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

Type constantRule(const ir::Node& node) {
  if (const ir::Attribute* value = node.attr("value"); value && value->proto().has_t()) {
    Shape shape;
    for (int64_t dim : value->t().dims()) shape.push_back(Dim::known(dim));
    return Type::tensor(value->t().data_type(), std::move(shape));
  }
  if (const ir::Attribute* sparse = node.attr("sparse_value");
      sparse && sparse->proto().has_sparse_tensor()) {
    Shape shape;
    for (int64_t dim : sparse->proto().sparse_tensor().dims()) shape.push_back(Dim::known(dim));
    return Type::tensor(sparse->proto().sparse_tensor().values().data_type(), std::move(shape));
  }
  const std::tuple<const char*, int32_t, bool> kForms[] = {
      {"value_float", onnx::TensorProto::FLOAT, false},
      {"value_floats", onnx::TensorProto::FLOAT, true},
      {"value_int", onnx::TensorProto::INT64, false},
      {"value_ints", onnx::TensorProto::INT64, true},
      {"value_string", onnx::TensorProto::STRING, false},
      {"value_strings", onnx::TensorProto::STRING, true}};
  for (const auto& [name, elem, is_list] : kForms) {
    const ir::Attribute* attribute = node.attr(name);
    if (attribute == nullptr) continue;
    if (!is_list) return Type::tensor(elem, Shape{});
    const onnx::AttributeProto& proto = attribute->proto();
    const int64_t count = std::max({proto.floats_size(), proto.ints_size(), proto.strings_size()});
    return Type::tensor(elem, Shape{Dim::known(count)});
  }
  return Type();
}

Type shapeRule(const ir::Node& node, int64_t opset, const Type& input) {
  if (!input.shape()) return Type::tensor(onnx::TensorProto::INT64, Shape{Dim::unknown()});
  const auto rank = static_cast<int64_t>(input.shape()->size());
  auto clamp = [rank](int64_t v) {
    if (v < 0) v += rank;
    return std::min(std::max<int64_t>(v, 0), rank);
  };
  int64_t start = 0, end = rank;
  if (opset >= 15) {
    start = clamp(node.intAttr("start", 0));
    end = clamp(node.intAttr("end", rank));
  }
  return Type::tensor(onnx::TensorProto::INT64, Shape{Dim::known(std::max<int64_t>(end - start, 0))});
}

// The output's rank a shape operand of unknown values gives (ConstantOfShape's, Reshape's): its
// length, when known and not absurd (a malformed node upstream may claim a negative one).
Type ofShapeOperandLength(int32_t elem, const Type& shape_type) {
  if (shape_type.shape() && shape_type.shape()->size() == 1 &&
      (*shape_type.shape())[0].isKnown() && (*shape_type.shape())[0].value() >= 0 &&
      (*shape_type.shape())[0].value() <= kMaxRankFromShapeLength) {
    return withUnknownDims(elem, (*shape_type.shape())[0].value());
  }
  return Type::tensor(elem);
}

Type constantOfShapeRule(const ir::Node& node, const Type& shape_type, ShapeOracle& shapes) {
  const ir::Attribute* value = node.attr("value");
  const int32_t elem = value && value->proto().has_t() ? value->t().data_type()
                                                       : int32_t{onnx::TensorProto::FLOAT};
  std::optional<std::vector<int64_t>> dims =
      node.input(0) ? shapes.constantInts(*node.input(0)) : std::nullopt;
  if (!dims) return ofShapeOperandLength(elem, shape_type);
  Shape shape;
  for (int64_t dim : *dims) {
    if (dim < 0) return Type();
    shape.push_back(Dim::known(dim));
  }
  return Type::tensor(elem, std::move(shape));
}

Type squeezeRule(const ir::Node& node, int64_t opset, const Type& input, ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  const Shape& in = *input.shape();
  const ListOperand axes = listOperand(node, opset, 13, "axes", 1, shapes);
  // An empty list is read two ways by ONNX Runtime: its kernel squeezes every dim of 1, its
  // optimizer folds a Shape of the result by ONNX's inference, which squeezes none. Either may
  // compute the model's outputs, so neither is known.
  if (axes.values && axes.values->empty()) return Type::tensor(elem);
  Shape out;
  if (!axes.given) {
    for (const Dim& dim : in) {
      if (!dim.isKnown()) return Type::tensor(elem);
      if (dim.value() != 1) out.push_back(dim);
    }
    return Type::tensor(elem, std::move(out));
  }
  if (!axes.values) return Type::tensor(elem);
  std::optional<std::vector<int64_t>> normalized =
      resolveAxes(*axes.values, static_cast<int64_t>(in.size()));
  if (!normalized) return Type();
  for (size_t i = 0; i < in.size(); ++i) {
    const bool squeezed =
        std::find(normalized->begin(), normalized->end(), static_cast<int64_t>(i)) !=
        normalized->end();
    if (!squeezed) {
      out.push_back(in[i]);
    } else if (in[i].isKnown() && in[i].value() != 1) {
      return Type();
    }
  }
  return Type::tensor(elem, std::move(out));
}

Type unsqueezeRule(const ir::Node& node, int64_t opset, const Type& input, ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  const ListOperand axes = listOperand(node, opset, 13, "axes", 1, shapes);
  if (!axes.given) return Type();
  if (!input.shape() || !axes.values) return Type::tensor(elem);
  const int64_t rank = static_cast<int64_t>(input.shape()->size() + axes.values->size());
  std::optional<std::vector<int64_t>> normalized = resolveAxes(*axes.values, rank);
  if (!normalized) return Type();
  Shape out;
  auto next = input.shape()->begin();
  for (int64_t i = 0; i < rank; ++i) {
    const bool inserted = std::find(normalized->begin(), normalized->end(), i) != normalized->end();
    out.push_back(inserted ? kOne : *next++);
  }
  return Type::tensor(elem, std::move(out));
}

Type reduceRule(const ir::Node& node, int64_t opset, int64_t axes_input_since, const Type& input,
                ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  const bool keepdims = node.intAttr("keepdims", 1) != 0;
  if (!input.shape()) return Type::tensor(elem);
  const Shape& in = *input.shape();
  const auto rank = static_cast<int64_t>(in.size());
  const ListOperand axes = listOperand(node, opset, axes_input_since, "axes", 1, shapes);
  if (axes.given && !axes.values) {
    return keepdims ? withUnknownDims(elem, rank) : Type::tensor(elem);
  }
  std::vector<int64_t> reduced;
  if (axes.given && !axes.values->empty()) {
    std::optional<std::vector<int64_t>> normalized = resolveAxes(*axes.values, rank);
    if (!normalized) return Type();
    reduced = *std::move(normalized);
  } else if (opset >= axes_input_since && node.intAttr("noop_with_empty_axes", 0) != 0) {
    return input;
  } else {
    for (int64_t i = 0; i < rank; ++i) reduced.push_back(i);
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::find(reduced.begin(), reduced.end(), i) == reduced.end()) {
      out.push_back(in[i]);
    } else if (keepdims) {
      out.push_back(kOne);
    }
  }
  return Type::tensor(elem, std::move(out));
}

Type splitRule(const ir::Node& node, size_t output_index, int64_t opset, const Type& input,
               ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  Shape out = *input.shape();
  std::optional<int64_t> axis =
      normalizeAxis(node.intAttr("axis", 0), static_cast<int64_t>(out.size()));
  if (!axis) return Type();
  const Dim whole = out[*axis];
  const auto outputs = static_cast<int64_t>(node.numOutputs());
  const ListOperand split = listOperand(node, opset, 13, "split", 1, shapes);
  const ir::Attribute* num_outputs = opset >= 18 ? node.attr("num_outputs") : nullptr;
  Dim part = Dim::unknown();
  // Split-1 also takes the sizes as an optional input.
  if (opset < 2 && node.input(1) != nullptr) {
    out[*axis] = part;
    return Type::tensor(elem, std::move(out));
  }
  if (split.given) {
    if (split.values) {
      if (static_cast<int64_t>(split.values->size()) != outputs) return Type();
      part = Dim::known((*split.values)[output_index]);
    }
  } else if (num_outputs != nullptr) {
    const int64_t count = num_outputs->i();
    if (count != outputs || count <= 0) return Type();
    if (whole.isKnown()) {
      const std::optional<std::vector<int64_t>> chunks = splitChunkSizes(whole.value(), count);
      if (!chunks) return Type();
      part = Dim::known((*chunks)[output_index]);
    }
  } else if (opset < 18 && whole.isKnown() && whole.value() % outputs == 0) {
    part = Dim::known(whole.value() / outputs);
  }
  out[*axis] = part;
  return Type::tensor(elem, std::move(out));
}

// The spatial dims a Conv or pool over `input` ([N, C, D...]) with `kernel` gives, as ONNX
// Runtime computes them: floor((D + pads - dilation * (k - 1) - 1) / stride) + 1, with no pads
// for VALID and, for SAME_UPPER and SAME_LOWER, those that make it ceil(D / stride). Where D is
// not known, the dim is D with stride 1 and pads that make up for the window, else unknown.
// nullopt (libonnx's inference then answers, or nothing) unless the attributes are well formed.
// A pool with ceil_mode gets a dim only where rounding up and down agree: where they
// do not, ONNX 1.12 counts a last window that starts past the input and its start padding, and
// ONNX Runtime versions differ on dropping it; that dim stays unknown. Left out: SAME with
// ceil_mode, and SAME with dilations, which ONNX Runtime refuses for Conv and computes otherwise
// than libonnx for the pools.
std::optional<Shape> slidingWindowDims(const ir::Node& node, const Shape& input,
                                       const std::vector<int64_t>& kernel) {
  const size_t spatial = kernel.size();
  const int64_t ceil_mode = node.intAttr("ceil_mode", 0);
  if (input.size() != spatial + 2 || (ceil_mode != 0 && ceil_mode != 1)) return std::nullopt;
  auto ints_or = [&](absl::string_view name, size_t count, int64_t fill) {
    if (node.attr(name) == nullptr) return std::optional<std::vector<int64_t>>(
        std::vector<int64_t>(count, fill));
    std::optional<std::vector<int64_t>> values = intsAttr(node, name);
    return values && values->size() == count ? values : std::nullopt;
  };
  const std::optional<std::vector<int64_t>> strides = ints_or("strides", spatial, 1);
  const std::optional<std::vector<int64_t>> dilations = ints_or("dilations", spatial, 1);
  const std::optional<std::vector<int64_t>> pads = ints_or("pads", 2 * spatial, 0);
  if (!strides || !dilations || !pads) return std::nullopt;
  const std::string auto_pad = stringAttr(node, "auto_pad", "NOTSET");
  const bool same = auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (!same && auto_pad != "NOTSET" && auto_pad != "VALID") return std::nullopt;
  if (same && ceil_mode != 0) return std::nullopt;
  Shape out;
  for (size_t i = 0; i < spatial; ++i) {
    const Dim& dim = input[i + 2];
    const int64_t stride = (*strides)[i], dilation = (*dilations)[i];
    if ((dim.isKnown() && dim.value() < 0) || stride < 1 || dilation < 1 || kernel[i] < 1 ||
        (same && dilation != 1)) {
      return std::nullopt;
    }
    const std::optional<int64_t> dilated = checkedProduct(dilation, kernel[i] - 1);
    if (!dilated || *dilated == std::numeric_limits<int64_t>::max()) return std::nullopt;
    const int64_t window = *dilated + 1;
    if (!dim.isKnown()) {
      // With stride 1, a window its pads make up for keeps the size, known or not (3x3, pads 1).
      const int64_t begin = auto_pad == "NOTSET" ? (*pads)[i] : 0;
      const int64_t end = auto_pad == "NOTSET" ? (*pads)[i + spatial] : 0;
      int64_t padding;
      const bool keeps_size = stride == 1 && begin >= 0 && end >= 0 &&
                              (same || (!__builtin_add_overflow(begin, end, &padding) &&
                                        padding == window - 1));
      out.push_back(keeps_size ? dim : Dim::unknown());
      continue;
    }
    int64_t size;
    if (same) {
      size = dim.value() / stride + (dim.value() % stride != 0 ? 1 : 0);
      const std::optional<int64_t> covered = checkedProduct(size - 1, stride);
      int64_t pads_needed;
      if (!covered || __builtin_add_overflow(*covered, window - dim.value(), &pads_needed) ||
          pads_needed < 0) {
        return std::nullopt;
      }
    } else {
      int64_t padded = dim.value();
      const int64_t begin = (*pads)[i], end = (*pads)[i + spatial];
      if (auto_pad == "NOTSET" && (begin < 0 || end < 0 ||
                                   __builtin_add_overflow(padded, begin, &padded) ||
                                   __builtin_add_overflow(padded, end, &padded))) {
        return std::nullopt;
      }
      if (padded < window) return std::nullopt;
      size = (padded - window) / stride + 1;
      if (ceil_mode != 0 && (padded - window) % stride != 0) {
        out.push_back(Dim::unknown());
        continue;
      }
    }
    out.push_back(Dim::known(size));
  }
  return out;
}

// Conv: [N, C, D...] and the weight [M, C/group, k...] give [N, M, O...] (slidingWindowDims).
Type convRule(const ir::Node& node, const Type& input, const Type& weight) {
  const int32_t elem = input.elemType();
  if (!input.shape() || !weight.shape() || input.shape()->size() < 3 ||
      weight.shape()->size() != input.shape()->size() || !(*weight.shape())[0].isKnown()) {
    return Type::tensor(elem);
  }
  const Shape& w = *weight.shape();
  std::vector<int64_t> kernel;
  for (size_t i = 2; i < w.size(); ++i) {
    if (!w[i].isKnown()) return Type::tensor(elem);
    kernel.push_back(w[i].value());
  }
  if (node.attr("kernel_shape") != nullptr && intsAttr(node, "kernel_shape") != kernel) {
    return Type::tensor(elem);
  }
  std::optional<Shape> spatial = slidingWindowDims(node, *input.shape(), kernel);
  if (!spatial) return Type::tensor(elem);
  Shape out{(*input.shape())[0], w[0]};
  out.insert(out.end(), spatial->begin(), spatial->end());
  return Type::tensor(elem, std::move(out));
}

// MaxPool, AveragePool, LpPool: [N, C, D...] give [N, C, O...] (slidingWindowDims).
Type poolRule(const ir::Node& node, const Type& input) {
  const int32_t elem = input.elemType();
  const std::optional<std::vector<int64_t>> kernel = intsAttr(node, "kernel_shape");
  if (!input.shape() || !kernel || input.shape()->size() < 3) return Type::tensor(elem);
  std::optional<Shape> spatial = slidingWindowDims(node, *input.shape(), *kernel);
  if (!spatial) return Type::tensor(elem);
  Shape out{(*input.shape())[0], (*input.shape())[1]};
  out.insert(out.end(), spatial->begin(), spatial->end());
  return Type::tensor(elem, std::move(out));
}

// GlobalAveragePool, GlobalMaxPool, GlobalLpPool: [N, C, D...] give [N, C, 1...].
Type globalPoolRule(const Type& input) {
  if (!input.shape() || input.shape()->size() < 3) return Type::tensor(input.elemType());
  Shape out{(*input.shape())[0], (*input.shape())[1]};
  out.resize(input.shape()->size(), Dim::known(1));
  return Type::tensor(input.elemType(), std::move(out));
}

Type padRule(const ir::Node& node, int64_t opset, const Type& input, ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  Shape out = *input.shape();
  const auto rank = static_cast<int64_t>(out.size());
  const ListOperand pads = listOperand(node, opset, 11, opset < 2 ? "paddings" : "pads", 1, shapes);
  if (!pads.given) return Type();
  std::vector<int64_t> axes;
  if (opset >= 18 && node.input(3) != nullptr) {
    std::optional<std::vector<int64_t>> given = shapes.constantInts(*node.input(3));
    if (!given) return withUnknownDims(elem, rank);
    std::optional<std::vector<int64_t>> normalized = resolveAxes(*given, rank);
    if (!normalized) return Type();
    axes = *std::move(normalized);
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (!pads.values) {
    for (int64_t axis : axes) out[axis] = Dim::unknown();
    return Type::tensor(elem, std::move(out));
  }
  if (pads.values->size() != 2 * axes.size()) return Type();
  for (size_t j = 0; j < axes.size(); ++j) {
    const int64_t begin = (*pads.values)[j], end = (*pads.values)[j + axes.size()];
    Dim& dim = out[axes[j]];
    if (begin == 0 && end == 0) continue;
    if (!dim.isKnown()) {
      dim = Dim::unknown();
      continue;
    }
    int64_t size;
    if (__builtin_add_overflow(dim.value(), begin, &size) ||
        __builtin_add_overflow(size, end, &size) || size < 0) {
      return Type();
    }
    dim = Dim::known(size);
  }
  return Type::tensor(elem, std::move(out));
}

// A float constant's elements; nullopt when `value` is absent, not a constant or not float.
std::optional<std::vector<double>> floatConstant(const ir::Value* value) {
  if (value == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*value);
  if (!constant.ok() || !*constant || (*constant)->elemType() != onnx::TensorProto::FLOAT) {
    return std::nullopt;
  }
  return (*constant)->asDoubles();
}

// The sizes input: a constant, or a shape computation, whose every value is a size or a symbol.
std::optional<Shape> resizeSizes(const ir::Value& sizes, bool inferred_only, ShapeOracle& shapes) {
  absl::StatusOr<std::optional<ShapeValue>> value =
      inferred_only ? shapes.inferredShapeValueOf(sizes) : shapes.shapeValueOf(sizes);
  if (!value.ok() || !*value || (*value)->scalar) return std::nullopt;
  for (const Dim& dim : (*value)->elems) {
    if (dim.isUnknown() || (dim.isKnown() && dim.value() < 0)) return std::nullopt;
  }
  return (*value)->elems;
}

Type resizeRule(const ir::Node& node, int64_t opset, const Type& input, bool inferred_only,
                ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  const Shape& in = *input.shape();
  const auto rank = static_cast<int64_t>(in.size());
  if (stringAttr(node, "coordinate_transformation_mode", "half_pixel") == "tf_crop_and_resize") {
    return withUnknownDims(elem, rank);
  }
  std::vector<int64_t> axes;
  if (opset >= 18 && node.attr("axes") != nullptr) {
    std::optional<std::vector<int64_t>> given = intsAttr(node, "axes");
    std::optional<std::vector<int64_t>> normalized =
        given ? resolveAxes(*given, rank) : std::nullopt;
    if (!normalized) return Type();
    axes = *std::move(normalized);
  } else {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  }
  Shape out = in;
  const ir::Value* sizes_value = opset >= 11 ? node.input(3) : nullptr;
  std::optional<Shape> sizes =
      sizes_value ? resizeSizes(*sizes_value, inferred_only, shapes) : std::nullopt;
  if (sizes && !sizes->empty()) {
    if (sizes->size() != axes.size()) return Type();
    // The other policies scale by one factor for all axes, computed in float: not exact here.
    if (opset >= 18 && stringAttr(node, "keep_aspect_ratio_policy", "stretch") != "stretch") {
      return withUnknownDims(elem, rank);
    }
    for (size_t j = 0; j < axes.size(); ++j) out[axes[j]] = (*sizes)[j];
    return Type::tensor(elem, std::move(out));
  }
  std::optional<std::vector<double>> scales = floatConstant(node.input(opset >= 11 ? 2 : 1));
  if (!scales || scales->size() != axes.size()) return withUnknownDims(elem, rank);
  for (size_t j = 0; j < axes.size(); ++j) {
    Dim& dim = out[axes[j]];
    const double scale = (*scales)[j];
    if (scale == 1.0) continue;
    if (!dim.isKnown() || !(scale > 0) || scale > 1e9) {
      dim = Dim::unknown();
      continue;
    }
    // ONNX Runtime multiplies in float, the spec in exact arithmetic: a size both agree on.
    const double in_float = std::floor(static_cast<float>(dim.value()) * static_cast<float>(scale));
    const double in_double = std::floor(static_cast<double>(dim.value()) * scale);
    dim = in_float == in_double ? Dim::known(static_cast<int64_t>(in_double)) : Dim::unknown();
  }
  return Type::tensor(elem, std::move(out));
}

Type concatRule(const ir::Node& node, InputTypeFn input_type) {
  const int32_t elem = node.numInputs() > 0 ? input_type(0).elemType() : 0;
  const ir::Attribute* axis_attribute = node.attr("axis");
  std::optional<Shape> out;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    const std::optional<Shape>& shape = input_type(i).shape();
    if (!shape || (out && shape->size() != out->size())) return Type::tensor(elem);
    if (!out) out = *shape;
  }
  if (!out) return Type::tensor(elem);
  std::optional<int64_t> axis = normalizeAxis(axis_attribute ? axis_attribute->i() : 1,
                                              static_cast<int64_t>(out->size()));
  if (!axis) return Type();
  int64_t total = 0;
  bool total_known = true;
  for (size_t i = 0; i < node.numInputs(); ++i) {
    const Shape& shape = *input_type(i).shape();
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) == *axis) {
        total_known = total_known && shape[d].isKnown();
        if (total_known && __builtin_add_overflow(total, shape[d].value(), &total)) return Type();
        continue;
      }
      Dim& merged = (*out)[d];
      if (shape[d].isKnown()) {
        if (merged.isKnown() && merged.value() != shape[d].value()) return Type();
        merged = shape[d];
      } else if (!merged.isKnown() && !merged.provablyEquals(shape[d])) {
        merged = Dim::unknown();
      }
    }
  }
  (*out)[*axis] = total_known ? Dim::known(total) : Dim::unknown();
  return Type::tensor(elem, std::move(out));
}

Type gatherRule(const ir::Node& node, const Type& data, const Type& indices) {
  const int32_t elem = data.elemType();
  if (!data.shape() || !indices.shape()) return Type::tensor(elem);
  const Shape& in = *data.shape();
  std::optional<int64_t> axis =
      normalizeAxis(node.intAttr("axis", 0), static_cast<int64_t>(in.size()));
  if (!axis) return Type();
  Shape out(in.begin(), in.begin() + *axis);
  out.insert(out.end(), indices.shape()->begin(), indices.shape()->end());
  out.insert(out.end(), in.begin() + *axis + 1, in.end());
  return Type::tensor(elem, std::move(out));
}

Type sliceRule(const ir::Node& node, int64_t opset, const Type& input, ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  Shape out = *input.shape();
  const auto rank = static_cast<int64_t>(out.size());
  std::optional<std::vector<int64_t>> starts, ends, axes, steps;
  auto operand = [&](size_t index) -> std::optional<std::vector<int64_t>> {
    const ir::Value* value = node.input(index);
    return value ? shapes.constantInts(*value) : std::nullopt;
  };
  if (opset < 10) {
    starts = intsAttr(node, "starts");
    ends = intsAttr(node, "ends");
    axes = node.attr("axes") ? intsAttr(node, "axes") : std::vector<int64_t>();
    steps = std::vector<int64_t>();
  } else {
    starts = operand(1);
    ends = operand(2);
    axes = node.input(3) ? operand(3) : std::vector<int64_t>();
    steps = node.input(4) ? operand(4) : std::vector<int64_t>();
  }
  if (!starts || !ends || !axes || !steps) {
    // Known axes are all a Slice of unknown bounds changes.
    if (!axes || axes->empty()) return withUnknownDims(elem, rank);
    const std::optional<std::vector<int64_t>> cut = resolveAxes(*axes, rank);
    if (!cut) return Type();
    for (int64_t axis : *cut) out[static_cast<size_t>(axis)] = Dim::unknown();
    return Type::tensor(elem, std::move(out));
  }
  const size_t count = starts->size();
  if (axes->empty()) {
    for (size_t i = 0; i < count; ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (steps->empty()) steps->assign(count, 1);
  if (ends->size() != count || axes->size() != count || steps->size() != count) return Type();
  std::optional<std::vector<int64_t>> normalized = resolveAxes(*axes, rank);
  if (!normalized) return Type();
  for (size_t j = 0; j < count; ++j) {
    Dim& dim = out[(*normalized)[j]];
    const int64_t start = (*starts)[j], end = (*ends)[j], step = (*steps)[j];
    if (step == 0) return Type();
    if (step < 0 && isOpenSliceEnd(end)) {
      // ONNX Runtime's optimizer sizes this slice as the spec does, its kernel otherwise.
      dim = Dim::unknown();
    } else if (dim.isKnown()) {
      dim = Dim::known(sliceRange(dim.value(), start, end, step)->count);
    } else if (!(start == 0 && step == 1 && end == std::numeric_limits<int64_t>::max())) {
      dim = Dim::unknown();
    }
  }
  return Type::tensor(elem, std::move(out));
}

// |value|, for the smallest int64 too.
uint64_t magnitudeOf(int64_t value) {
  return value >= 0 ? static_cast<uint64_t>(value) : static_cast<uint64_t>(-(value + 1)) + 1;
}

// Range of integer constants: max(ceil((limit - start) / delta), 0) elements; of anything else,
// a 1-D tensor of unknown length.
Type rangeRule(const ir::Node& node, const Type& start_type, ShapeOracle& shapes) {
  const int32_t elem = start_type.elemType();
  const Type unknown_length = Type::tensor(elem, Shape{Dim::unknown()});
  int64_t operands[3];
  for (size_t i = 0; i < 3; ++i) {
    const ir::Value* input = node.input(i);
    std::optional<std::vector<int64_t>> value = input ? shapes.constantInts(*input) : std::nullopt;
    if (!value || value->size() != 1) return unknown_length;
    operands[i] = value->front();
  }
  const auto [start, limit, delta] = operands;
  int64_t distance;
  if (delta == 0 || __builtin_sub_overflow(limit, start, &distance)) return unknown_length;
  if (distance == 0 || (distance > 0) != (delta > 0)) {
    return Type::tensor(elem, Shape{Dim::known(0)});
  }
  // Both of one sign: ceil of their quotient, without overflow.
  const uint64_t magnitude = magnitudeOf(distance), step = magnitudeOf(delta);
  const uint64_t count = magnitude / step + (magnitude % step != 0 ? 1 : 0);
  if (count > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return unknown_length;
  return Type::tensor(elem, Shape{Dim::known(static_cast<int64_t>(count))});
}

// TopK: the input's shape with K along `axis` (K an input from opset 10, the `k` attribute
// before); output 1 holds int64 indices.
Type topKRule(const ir::Node& node, size_t output_index, int64_t opset, const Type& input,
              ShapeOracle& shapes) {
  const int32_t elem = output_index == 0 ? input.elemType() : int32_t{onnx::TensorProto::INT64};
  if (output_index > 1) return Type();
  if (!input.shape()) return Type::tensor(elem);
  Shape out = *input.shape();
  const std::optional<int64_t> axis =
      normalizeAxis(node.intAttr("axis", -1), static_cast<int64_t>(out.size()));
  if (!axis) return Type();
  std::optional<int64_t> k;
  if (opset < 10) {
    const ir::Attribute* attribute = node.attr("k");
    if (attribute != nullptr && attribute->kind() == onnx::AttributeProto::INT) k = attribute->i();
  } else if (node.input(1) != nullptr) {
    const std::optional<std::vector<int64_t>> value = shapes.constantInts(*node.input(1));
    if (value && value->size() == 1) k = value->front();
  }
  out[*axis] = k && *k >= 0 ? Dim::known(*k) : Dim::unknown();
  return Type::tensor(elem, std::move(out));
}

// GatherND: indices' dims but the last (k), then data's after batch_dims + k.
Type gatherNDRule(const ir::Node& node, const Type& data, const Type& indices) {
  const int32_t elem = data.elemType();
  if (!data.shape() || !indices.shape() || indices.shape()->empty()) return Type::tensor(elem);
  const Shape& index_dims = *indices.shape();
  const int64_t batch_dims = node.intAttr("batch_dims", 0);
  const Dim& k = index_dims.back();
  const auto data_rank = static_cast<int64_t>(data.shape()->size());
  if (!k.isKnown() || batch_dims < 0 || k.value() < 1 || k.value() > data_rank - batch_dims) {
    return Type::tensor(elem);
  }
  Shape out(index_dims.begin(), index_dims.end() - 1);
  out.insert(out.end(), data.shape()->begin() + batch_dims + k.value(), data.shape()->end());
  return Type::tensor(elem, std::move(out));
}

// Einsum: a label's size is what its operands agree on, a 1 broadcasting against another size
// as ONNX Runtime's kernel does (libonnx 1.12 takes the first operand's), and the dims of the
// ellipsis broadcast as numpy's do. The output is the explicit term after "->", or else the
// ellipsis and then the labels that occur once, in alphabetical order. Without every operand's
// shape, the element type alone.
Type einsumRule(const ir::Node& node, absl::FunctionRef<const Type&(size_t)> input_type) {
  const int32_t elem = node.numInputs() > 0 ? input_type(0).elemType() : 0;
  const ir::Attribute* attribute = node.attr("equation");
  if (attribute == nullptr || attribute->kind() != onnx::AttributeProto::STRING) return Type();
  std::string equation;
  for (char c : attribute->s()) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::vector<std::string> terms = absl::StrSplit(equation.substr(0, arrow), ',');
  if (terms.size() != node.numInputs()) return Type();
  const std::string kEllipsis = "...";
  std::map<char, Dim> label_dims;
  std::map<char, int> occurrences;
  Shape ellipsis;
  bool has_ellipsis = false;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!input_type(i).shape()) return Type::tensor(elem);
    const Shape& dims = *input_type(i).shape();
    const std::string& term = terms[i];
    const size_t dots = term.find(kEllipsis);
    const size_t letters = term.size() - (dots == std::string::npos ? 0 : kEllipsis.size());
    if (dims.size() < letters || (dots == std::string::npos && dims.size() != letters)) return Type();
    const size_t ellipsis_rank = dims.size() - letters;
    if (dots != std::string::npos) {
      has_ellipsis = true;
      const Shape own(dims.begin() + static_cast<ptrdiff_t>(dots),
                      dims.begin() + static_cast<ptrdiff_t>(dots + ellipsis_rank));
      std::optional<Shape> merged = broadcastShapes(ellipsis, own);
      if (!merged) return Type();
      ellipsis = std::move(*merged);
    }
    size_t dim = 0;
    for (size_t c = 0; c < term.size(); ++c) {
      if (c == dots) {
        c += kEllipsis.size() - 1;
        dim += ellipsis_rank;
        continue;
      }
      if (!std::isalpha(static_cast<unsigned char>(term[c]))) return Type();
      const Dim& size = dims[dim++];
      ++occurrences[term[c]];
      auto [it, inserted] = label_dims.emplace(term[c], size);
      if (inserted) continue;
      std::optional<Shape> merged = broadcastShapes(Shape{it->second}, Shape{size});
      if (!merged) return Type();
      it->second = merged->front();
    }
  }
  std::string output;
  if (arrow != std::string::npos) {
    output = equation.substr(arrow + 2);
  } else {
    if (has_ellipsis) output = std::string(kEllipsis);
    for (const auto& [label, count] : occurrences) {
      if (count == 1) output += label;
    }
  }
  Shape out;
  for (size_t c = 0; c < output.size(); ++c) {
    if (output.compare(c, kEllipsis.size(), kEllipsis) == 0) {
      out.insert(out.end(), ellipsis.begin(), ellipsis.end());
      c += kEllipsis.size() - 1;
      continue;
    }
    auto it = label_dims.find(output[c]);
    if (it == label_dims.end()) return Type();
    out.push_back(it->second);
  }
  return Type::tensor(elem, std::move(out));
}

Type tileRule(const ir::Node& node, const Type& input, ShapeOracle& shapes) {
  const int32_t elem = input.elemType();
  if (!input.shape()) return Type::tensor(elem);
  Shape out = *input.shape();
  std::optional<std::vector<int64_t>> repeats =
      node.input(1) ? shapes.constantInts(*node.input(1)) : std::nullopt;
  if (!repeats) return withUnknownDims(elem, static_cast<int64_t>(out.size()));
  if (repeats->size() != out.size()) return Type();
  for (size_t i = 0; i < out.size(); ++i) {
    const int64_t repeat = (*repeats)[i];
    if (repeat < 0) return Type();
    if (repeat == 1) continue;
    std::optional<int64_t> size =
        out[i].isKnown() ? checkedProduct(out[i].value(), repeat) : std::nullopt;
    out[i] = size ? Dim::known(*size) : Dim::unknown();
  }
  return Type::tensor(elem, std::move(out));
}

// A Reshape target's one -1 (unknown in `shape`), from the input's element count when every
// other dim is known.
void inferMinusOne(const std::optional<Shape>& input, Shape& shape) {
  if (!input) return;
  int64_t total = 1, known = 1;
  for (const Dim& dim : *input) {
    if (!dim.isKnown() || __builtin_mul_overflow(total, dim.value(), &total)) return;
  }
  Dim* missing = nullptr;
  for (Dim& dim : shape) {
    if (dim.isKnown()) {
      if (__builtin_mul_overflow(known, dim.value(), &known)) return;
    } else if (missing != nullptr) {
      return;
    } else {
      missing = &dim;
    }
  }
  if (missing == nullptr || known <= 0 || total % known != 0) return;
  *missing = Dim::known(total / known);
}

}  // namespace

bool isOpenSliceEnd(int64_t end) {
  return end == std::numeric_limits<int32_t>::max() || end == std::numeric_limits<int64_t>::max();
}

std::optional<std::vector<int64_t>> splitChunkSizes(int64_t dim, int64_t parts) {
  if (parts <= 0 || parts > dim) return std::nullopt;
  const auto chunk =
      static_cast<int64_t>(std::ceil(static_cast<float>(dim) / static_cast<float>(parts)));
  std::vector<int64_t> sizes(static_cast<size_t>(parts), chunk);
  if (dim % chunk != 0) sizes.back() = dim % chunk;
  int64_t total = 0;
  for (const int64_t size : sizes) {
    if (__builtin_add_overflow(total, size, &total)) return std::nullopt;
  }
  if (total != dim) return std::nullopt;
  return sizes;
}

std::optional<SliceRange> sliceRange(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (step == 0 || dim < 0) return std::nullopt;
  if (dim == 0) return SliceRange{0, step, 0};
  const bool to_first = step < 0 && isOpenSliceEnd(end);
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  SliceRange range;
  range.step = step;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    const auto distance = static_cast<uint64_t>(std::max<int64_t>(end - start, 0));
    range.count = static_cast<int64_t>((distance + static_cast<uint64_t>(step) - 1) /
                                       static_cast<uint64_t>(step));
  } else {
    start = std::clamp<int64_t>(start, 0, dim - 1);
    end = to_first ? -1 : std::clamp<int64_t>(end, -1, dim - 1);
    const uint64_t magnitude = magnitudeOf(step);
    const auto distance = static_cast<uint64_t>(std::max<int64_t>(start - end, 0));
    range.count = static_cast<int64_t>((distance + magnitude - 1) / magnitude);
  }
  range.first = range.count > 0 ? start : 0;
  return range;
}

const Type& ShapeOracle::inferredTypeOf(const ir::Value& value) {
  return resolveInferred(value).type;
}

const ShapeOracle::Inferred& ShapeOracle::resolveInferred(const ir::Value& value) {
  // As resolve(): producers first, without recursion.
  absl::InlinedVector<const ir::Value*, 8> pending = {&value};
  while (!pending.empty()) {
    const ir::Value* current = pending.back();
    if (knownInferred(*current) != nullptr) {
      pending.pop_back();
      continue;
    }
    bool ready = true;
    if (const ir::Node* producer = current->producer()) {
      forEachSource(*producer, [&](const ir::Value& source) {
        if (knownInferred(source) == nullptr) {
          pending.push_back(&source);
          ready = false;
        }
      });
    }
    if (!ready) continue;
    pending.pop_back();
    Inferred answer = inferFromInputs(*current);
    if (knownInferred(*current) == nullptr) recordInferred(*current, std::move(answer));
  }
  return *knownInferred(value);
}

void ShapeOracle::recordInferred(const ir::Value& value, Inferred answer) {
  std::vector<const Inferred*>& answers = answersIn(*value.graph()).inferred;
  if (value.ordinal() >= answers.size()) answers.resize(value.graph()->valueOrdinalBound());
  answers[value.ordinal()] = inferred_answers_.create(std::move(answer));
  if (induction_depth_ > 0) made_under_assumption_.push_back(&value);
}

namespace {
// Whether a value of type `next` is also of type `assumed`: no other element type, and where
// `assumed` has a shape, the same rank and every dim it knows (a size or a symbol) the same.
bool keeps(const Type& assumed, const Type& next) {
  if (assumed.elemType() != 0 && next.elemType() != 0 && assumed.elemType() != next.elemType()) {
    return false;
  }
  if (!assumed.shape()) return true;
  if (!next.shape() || assumed.shape()->size() != next.shape()->size()) return false;
  for (size_t i = 0; i < assumed.shape()->size(); ++i) {
    const Dim& dim = (*assumed.shape())[i];
    if (!dim.isUnknown() && !dim.provablyEquals((*next.shape())[i])) return false;
  }
  return true;
}

// Where a Loop's or Scan's carried values sit, the k-th at body input first_body_input + k,
// owner operand first_operand + k (its initial value), body output first_next + k (its next
// value) and owner output k (its last value).
struct CarriedLayout {
  size_t first_body_input = 0;
  size_t first_operand = 0;
  size_t first_next = 0;
  size_t count = 0;
};

std::optional<CarriedLayout> carriedLayoutOf(const ir::Node& owner, int64_t opset) {
  if (isLoop(owner)) {
    // Loop(M, cond, v...): body (iteration, cond, v...) => (cond, v..., scan outputs...).
    return CarriedLayout{2, 2, 1, owner.numInputs() > 2 ? owner.numInputs() - 2 : 0};
  }
  // Scan-8 has a batch axis and sequence lengths: not modelled.
  if (!isScan(owner) || opset < 9) return std::nullopt;
  // Scan(states..., scan inputs...): body (states..., slices...) => (states..., scan outputs...).
  const ir::Attribute* scan_inputs = owner.attr("num_scan_inputs");
  if (scan_inputs == nullptr || scan_inputs->kind() != onnx::AttributeProto::INT ||
      scan_inputs->i() < 0 || static_cast<uint64_t>(scan_inputs->i()) > owner.numInputs()) {
    return std::nullopt;
  }
  return CarriedLayout{0, 0, 0, owner.numInputs() - static_cast<size_t>(scan_inputs->i())};
}
}  // namespace

namespace {
// The one element of the int64 or bool constant `value` holds; nullopt for anything else.
std::optional<int64_t> constantScalarInt(const ir::Value* value) {
  if (value == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(*value, /*max_bytes=*/8);
  if (!view.ok() || !*view) return std::nullopt;
  const std::optional<std::vector<int64_t>> ints = (*view)->asInts();
  if (!ints || ints->size() != 1) return std::nullopt;
  return ints->front();
}

// How many times `loop` runs its body when the model fixes it: a constant trip count, no
// condition or a constant true one, and a body that returns its condition input unchanged
// (through Identity nodes) or a constant true. nullopt when the run decides.
std::optional<int64_t> fixedLoopIterations(const ir::Node& loop, const ir::Graph& body) {
  const std::optional<int64_t> trips = constantScalarInt(loop.input(0));
  if (!trips || (loop.input(1) != nullptr && constantScalarInt(loop.input(1)) != 1)) {
    return std::nullopt;
  }
  if (body.inputs().size() < 2 || body.outputs().empty()) return std::nullopt;
  const ir::Value* condition = body.outputs()[0];
  while (condition != nullptr && condition->producer() != nullptr &&
         condition->producer()->is("Identity")) {
    condition = condition->producer()->input(0);
  }
  if (condition != body.inputs()[1] && constantScalarInt(condition) != 1) return std::nullopt;
  return std::max<int64_t>(*trips, 0);
}

// Scan's axis attribute `name` for its `index`-th scan input or output (0 when absent), made
// non-negative against `rank` (negative axes from Scan-11); nullopt when malformed.
std::optional<int64_t> scanAxis(const ir::Node& scan, const char* name, size_t index, int64_t rank,
                                int64_t opset) {
  int64_t axis = 0;
  if (const ir::Attribute* axes = scan.attr(name)) {
    if (axes->kind() != onnx::AttributeProto::INTS ||
        index >= static_cast<size_t>(axes->ints().size())) {
      return std::nullopt;
    }
    axis = axes->ints()[static_cast<int>(index)];
  }
  if (axis < 0 && opset >= 11) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return axis;
}
}  // namespace

std::optional<int64_t> ShapeOracle::scanLength(const ir::Node& scan, size_t states, int64_t opset) {
  std::optional<int64_t> length;
  for (size_t i = states; i < scan.numInputs(); ++i) {
    if (scan.input(i) == nullptr) return std::nullopt;
    const Type& sequence = inferredTypeOf(*scan.input(i));
    if (!sequence.shape()) return std::nullopt;
    const std::optional<int64_t> axis =
        scanAxis(scan, "scan_input_axes", i - states,
                 static_cast<int64_t>(sequence.shape()->size()), opset);
    if (!axis) return std::nullopt;
    const Dim& dim = (*sequence.shape())[static_cast<size_t>(*axis)];
    if (!dim.isKnown() || (length && *length != dim.value())) return std::nullopt;
    length = dim.value();
  }
  return length;
}

Type ShapeOracle::carriedOutputType(const ir::Node& owner, size_t output_index) {
  const ir::Graph* body = graphAttribute(owner, "body");
  const int64_t opset = opsetOf(owner).value_or(0);
  const std::optional<CarriedLayout> layout = carriedLayoutOf(owner, opset);
  if (body == nullptr || !layout) return Type();
  if (output_index < layout->count) {
    // A carried value's last value is the initial one when the body never runs, so of the
    // type that holds in every iteration.
    if (layout->first_body_input + output_index >= body->inputs().size()) return Type();
    const ir::Value* body_input = body->inputs()[layout->first_body_input + output_index];
    if (body_input == nullptr || body_input->graph() != body) return Type();
    return inferredTypeOf(*body_input);
  }
  // A scan output stacks what the body returns in every iteration, whose type holds in each.
  // After no iteration at all ONNX Runtime shapes it from its own inference of the body
  // (symbolic dims become 0), so only a count the model fixes, and not 0, gives a shape.
  const size_t next = layout->first_next + output_index;
  if (next >= body->outputs().size() || body->outputs()[next] == nullptr) return Type();
  const Type& each = inferredTypeOf(*body->outputs()[next]);
  const std::optional<int64_t> count =
      isLoop(owner) ? fixedLoopIterations(owner, *body) : scanLength(owner, layout->count, opset);
  if (!count || *count == 0 || !each.shape()) return Type::tensor(each.elemType());
  Shape shape = *each.shape();
  const int64_t rank = static_cast<int64_t>(shape.size()) + 1;
  const std::optional<int64_t> axis =
      isLoop(owner) ? std::optional<int64_t>(0)
                    : scanAxis(owner, "scan_output_axes", output_index - layout->count, rank, opset);
  if (!axis) return Type::tensor(each.elemType());
  shape.insert(shape.begin() + *axis, Dim::known(*count));
  return Type::tensor(each.elemType(), std::move(shape));
}

std::optional<Type> ShapeOracle::bodyInputType(const ir::Value& input) {
  const ir::Graph& body = *input.graph();
  const ir::Node* owner = body.parentNode();
  if (owner == nullptr) return std::nullopt;
  const int64_t opset = opsetOf(*owner).value_or(0);
  const std::optional<CarriedLayout> layout = carriedLayoutOf(*owner, opset);
  if (!layout) return std::nullopt;
  const std::vector<ir::Value*>& inputs = body.inputs();
  const size_t index = std::find(inputs.begin(), inputs.end(), &input) - inputs.begin();
  if (index < layout->first_body_input || index >= inputs.size()) return std::nullopt;
  const size_t k = index - layout->first_body_input;
  if (k >= layout->count) {
    return isScan(*owner) ? scanSliceType(*owner, index, opset) : std::nullopt;
  }
  proveCarriedTypes(*owner, body);
  const Inferred* proven = knownInferred(input);
  return proven != nullptr ? std::optional<Type>(proven->type) : std::nullopt;
}

void ShapeOracle::proveCarriedTypes(const ir::Node& owner, const ir::Graph& body) {
  const CarriedLayout layout =
      carriedLayoutOf(owner, opsetOf(owner).value_or(0)).value_or(CarriedLayout());
  struct Carried {
    const ir::Value* input;
    const ir::Value* next;  // null when the node or its body is malformed
    Type assumed;
  };
  std::vector<Carried> carried;
  for (size_t k = 0; k < layout.count && layout.first_body_input + k < body.inputs().size(); ++k) {
    const ir::Value* input = body.inputs()[layout.first_body_input + k];
    const size_t operand = layout.first_operand + k, next = layout.first_next + k;
    const ir::Value* initial = operand < owner.numInputs() ? owner.input(operand) : nullptr;
    const bool formed = initial != nullptr && next < body.outputs().size() &&
                        body.outputs()[next] != nullptr;
    carried.push_back({input, formed ? body.outputs()[next] : nullptr,
                       formed ? inferredTypeOf(*initial) : Type::tensor(input->type().elemType())});
  }
  // The first iteration gets the initial values. If the body, given values of types T, returns
  // values of types T, every iteration gets values of types T (induction). All carried values
  // are assumed at once, since each next value may read any of them; a value the body changes
  // is widened to what its initial and next values agree on, and the body checked again. The
  // rounds are few, and an assumption is not made inside two others (nested bodies): the cost
  // stays a few walks of the body.
  constexpr int kRounds = 3;
  const bool may_assume = induction_depth_ < 2;
  for (int round = 0; may_assume && round < kRounds; ++round) {
    const size_t first_made = made_under_assumption_.size();
    ++induction_depth_;
    for (const Carried& value : carried) recordInferred(*value.input, {value.assumed, false});
    bool all_kept = true;
    for (Carried& value : carried) {
      if (value.next == nullptr) continue;
      const Type returned = inferredTypeOf(*value.next);
      if (keeps(value.assumed, returned)) continue;
      all_kept = false;
      value.assumed = mergeBranchTypes(value.assumed, returned);
      if (!value.assumed.shape()) value.assumed = Type::tensor(value.input->type().elemType());
    }
    --induction_depth_;
    if (all_kept) {
      if (induction_depth_ == 0) made_under_assumption_.clear();
      return;
    }
    for (size_t i = first_made; i < made_under_assumption_.size(); ++i) {
      const ir::Value& made = *made_under_assumption_[i];
      answersIn(*made.graph()).inferred[made.ordinal()] = nullptr;
    }
    made_under_assumption_.resize(first_made);
  }
  // Unproven: their element types alone, which ONNX Runtime checks.
  for (const Carried& value : carried) {
    recordInferred(*value.input, {Type::tensor(value.input->type().elemType()), false});
  }
}

std::optional<Type> ShapeOracle::scanSliceType(const ir::Node& scan, size_t body_index,
                                               int64_t opset) {
  // Body input `body_index` is one slice of Scan operand `body_index` along its scan axis.
  if (body_index >= scan.numInputs() || scan.input(body_index) == nullptr) return std::nullopt;
  const size_t states = scan.numInputs() - static_cast<size_t>(scan.attr("num_scan_inputs")->i());
  int64_t axis = 0;
  if (const ir::Attribute* axes = scan.attr("scan_input_axes")) {
    if (axes->kind() != onnx::AttributeProto::INTS ||
        static_cast<size_t>(axes->ints().size()) != scan.numInputs() - states) {
      return std::nullopt;
    }
    axis = axes->ints()[static_cast<int>(body_index - states)];
  }
  const Type& sequence = inferredTypeOf(*scan.input(body_index));
  if (!sequence.shape()) return Type::tensor(sequence.elemType());
  const int64_t rank = static_cast<int64_t>(sequence.shape()->size());
  // Negative axes count from the back from Scan-11.
  if (axis < 0 && opset >= 11) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  Shape slice = *sequence.shape();
  slice.erase(slice.begin() + axis);
  return Type::tensor(sequence.elemType(), std::move(slice));
}

ShapeOracle::Inferred ShapeOracle::inferFromInputs(const ir::Value& value) {
  const ir::Node* producer = value.producer();
  if (producer == nullptr) {
    if (value.isInitializer() && !value.isGraphInput()) {
      Shape shape;
      for (int64_t dim : value.initializer()->dims()) shape.push_back(Dim::known(dim));
      return {Type::tensor(value.initializer()->dataType(), std::move(shape)), true};
    }
    // The caller feeds a main-graph input with its declared shape (ONNX Runtime checks it); a
    // subgraph's inputs are what its node passes, which the declaration may not describe.
    if (value.isGraphInput() && value.graph()->parentNode() == nullptr && value.inputInfo() &&
        value.inputInfo()->has_type()) {
      return {Type::fromProto(value.inputInfo()->type()), true};
    }
    if (std::optional<Type> every_iteration = bodyInputType(value)) {
      return {std::move(*every_iteration), false};
    }
    return {Type::tensor(value.type().elemType()), false};
  }
  if (isIf(*producer)) {
    return {applyLocalRule(*producer, value.producerOutputIndex(), /*inferred_only=*/true), false};
  }
  if (isLoop(*producer) || isScan(*producer)) {
    return {carriedOutputType(*producer, value.producerOutputIndex()), false};
  }
  if (!producer->op().domain().empty() || hasSubgraphs(*producer)) return {Type(), false};
  bool trusted = onnxAnswerHolds(value) && libonnxKnows(*producer, *this);
  for (const ir::Value* input : producer->inputs()) {
    if (input && !knownInferred(*input)->onnx_trusted) trusted = false;
  }
  Type type = applyLocalRule(*producer, value.producerOutputIndex(), /*inferred_only=*/true);
  if (trusted && !fullyKnown(type)) {
    if (!onnx_inference_ran_) runOnnxShapeInference();
    auto onnx = onnx_inferred_.find(&value);
    if (onnx != onnx_inferred_.end()) type = refine(std::move(type), onnx->second);
  }
  return {std::move(type), trusted};
}

Type ShapeOracle::applyLocalRule(const ir::Node& node, size_t output_index, bool inferred_only) {
  // The driver loop in typeOf() resolved every input before asking for this rule.
  auto input_type = [&](size_t i) -> const Type& {
    const ir::Value* input = node.input(i);
    if (input == nullptr) return kNothingKnown;
    return inferred_only ? inferredTypeOf(*input) : typeOf(*input);
  };
  const RuleOf* rule = ruleFor(node);
  if (rule == nullptr ||
      (output_index != 0 && rule->rule != Rule::kSplit && rule->rule != Rule::kIf &&
       rule->rule != Rule::kTopK)) {
    const int32_t elem = elemTypeFromSchema(
        node, output_index, [&](size_t i) { return input_type(i).elemType(); });
    return elem != 0 ? Type::tensor(elem) : Type();
  }
  const int64_t opset = opsetOf(node).value_or(0);
  switch (rule->rule) {
    case Rule::kConstant:
      return constantRule(node);
    case Rule::kIf: {
      const auto [then_branch, else_branch] = branchesOf(node);
      if (then_branch == nullptr || else_branch == nullptr) return Type();
      const ir::Value* then_output = then_branch->outputs().size() > output_index
                                         ? then_branch->outputs()[output_index]
                                         : nullptr;
      const ir::Value* else_output = else_branch->outputs().size() > output_index
                                         ? else_branch->outputs()[output_index]
                                         : nullptr;
      if (then_output == nullptr || else_output == nullptr) return Type();
      auto branch_type = [&](const ir::Value& output) -> const Type& {
        return inferred_only ? inferredTypeOf(output) : typeOf(output);
      };
      return mergeBranchTypes(branch_type(*then_output), branch_type(*else_output));
    }
    case Rule::kShape:
      return shapeRule(node, opset, input_type(0));
    case Rule::kSize:
      return Type::tensor(onnx::TensorProto::INT64, Shape{});
    case Rule::kCastLike:
      return Type::tensor(input_type(1).elemType(), input_type(0).shape());
    case Rule::kConstantOfShape:
      return constantOfShapeRule(node, input_type(0), *this);
    case Rule::kSqueeze:
      return squeezeRule(node, opset, input_type(0), *this);
    case Rule::kUnsqueeze:
      return unsqueezeRule(node, opset, input_type(0), *this);
    case Rule::kReduce:
      return reduceRule(node, opset, rule->since, input_type(0), *this);
    case Rule::kSplit:
      return splitRule(node, output_index, opset, input_type(0), *this);
    case Rule::kPad:
      return padRule(node, opset, input_type(0), *this);
    case Rule::kResize:
      return resizeRule(node, opset, input_type(0), inferred_only, *this);
    case Rule::kConcat:
      return concatRule(node, input_type);
    case Rule::kGather:
      return gatherRule(node, input_type(0), input_type(1));
    case Rule::kGatherElements:
      return Type::tensor(input_type(0).elemType(), input_type(1).shape());
    case Rule::kSlice:
      return sliceRule(node, opset, input_type(0), *this);
    case Rule::kEinsum:
      return einsumRule(node, input_type);
    case Rule::kTile:
      return tileRule(node, input_type(0), *this);
    case Rule::kRange:
      return opset < rule->since ? Type() : rangeRule(node, input_type(0), *this);
    case Rule::kTopK:
      return topKRule(node, output_index, opset, input_type(0), *this);
    case Rule::kGatherND:
      if (opset < rule->since) return Type();
      return gatherNDRule(node, input_type(0), input_type(1));
    case Rule::kNonMaxSuppression:
      if (opset < rule->since) return Type();
      return Type::tensor(onnx::TensorProto::INT64, Shape{Dim::unknown(), Dim::known(3)});
    case Rule::kNonZero: {
      const std::optional<int64_t> rank = input_type(0).rank();
      return Type::tensor(onnx::TensorProto::INT64,
                          Shape{rank ? Dim::known(*rank) : Dim::unknown(), Dim::unknown()});
    }
    case Rule::kSameAsInput:
      return input_type(0);
    case Rule::kConv:
      return convRule(node, input_type(0), input_type(1));
    case Rule::kPool:
      return poolRule(node, input_type(0));
    case Rule::kGlobalPool:
      return globalPoolRule(input_type(0));
    case Rule::kCast: {
      const ir::Attribute* to = node.attr("to");
      return Type::tensor(to ? ir::elemTypeFromAttribute(to->i()) : 0, input_type(0).shape());
    }
    case Rule::kBoolOfInput:
      return Type::tensor(onnx::TensorProto::BOOL, input_type(0).shape());
    case Rule::kQuantize:
    case Rule::kDequantize: {
      // Before opset 10 these were experimental ops of other forms.
      if (opset < rule->since) return Type();
      // output_dtype 0 (or none) means the type the inputs give; any other value must name one.
      const ir::Attribute* output_dtype = node.attr("output_dtype");
      int32_t elem = 0;
      if (output_dtype != nullptr && output_dtype->i() != 0) {
        elem = ir::elemTypeFromAttribute(output_dtype->i());
        if (elem == 0) return Type();
      }
      if (rule->rule == Rule::kDequantize) {
        if (elem == 0) elem = input_type(1).elemType();
      } else if (node.input(2) != nullptr) {
        elem = input_type(2).elemType();
      } else if (elem == 0) {
        elem = onnx::TensorProto::UINT8;
      }
      return Type::tensor(elem, input_type(0).shape());
    }
    case Rule::kBroadcasting: {
      const std::optional<int64_t> opset = model_.opsetVersion("");
      if (!opset || *opset < rule->since) return Type();
      const bool is_where = node.opType() == "Where";
      const int32_t elem = rule->gives_bool ? onnx::TensorProto::BOOL
                                            : input_type(is_where ? 1 : 0).elemType();
      std::optional<Shape> shape;
      for (size_t i = 0; i < node.numInputs(); ++i) {
        const Type& operand = input_type(i);
        if (!operand.shape()) return Type::tensor(elem);
        if (i == 0 && !is_where) {
          shape = operand.shape();
          continue;
        }
        shape = shape ? broadcastShapes(*shape, *operand.shape()) : operand.shape();
        if (!shape) return Type();
      }
      return Type::tensor(elem, shape);
    }
    case Rule::kGemm: {
      const Type &a = input_type(0), &b = input_type(1);
      const int32_t elem = a.elemType();
      if (!a.shape() || !b.shape() || a.shape()->size() != 2 || b.shape()->size() != 2) {
        return Type::tensor(elem, Shape{Dim::unknown(), Dim::unknown()});
      }
      const Dim& m = (*a.shape())[node.intAttr("transA", 0) ? 1 : 0];
      const Dim& n = (*b.shape())[node.intAttr("transB", 0) ? 0 : 1];
      return Type::tensor(elem, Shape{m, n});
    }
    case Rule::kMatMul: {
      const Type &a = input_type(0), &b = input_type(1);
      if (!a.shape() || !b.shape() || a.shape()->empty() || b.shape()->empty()) {
        return Type::tensor(a.elemType());
      }
      const Shape &sa = *a.shape(), &sb = *b.shape();
      // A vector operand is promoted to a matrix and its added dim dropped again: it has no batch
      // dims and contributes no dim of its own to the result.
      const bool a_vector = sa.size() == 1, b_vector = sb.size() == 1;
      const size_t a_batch = a_vector ? 0 : sa.size() - 2, b_batch = b_vector ? 0 : sb.size() - 2;
      std::optional<Shape> result =
          a_batch == 0 && b_batch == 0
              ? Shape()
              : broadcastShapes(Shape(sa.begin(), sa.begin() + a_batch),
                                Shape(sb.begin(), sb.begin() + b_batch));
      if (!result) return Type();
      result->reserve(result->size() + 2);
      if (!a_vector) result->push_back(sa[sa.size() - 2]);
      if (!b_vector) result->push_back(sb.back());
      return Type::tensor(a.elemType(), std::move(result));
    }
    case Rule::kTranspose: {
      const Type& input = input_type(0);
      if (!input.shape()) return Type::tensor(input.elemType());
      const Shape& in = *input.shape();
      Shape out;
      out.reserve(in.size());
      if (const ir::Attribute* perm = node.attr("perm")) {
        const auto rank = static_cast<int64_t>(in.size());
        if (perm->ints().size() != rank) return Type::tensor(input.elemType());
        for (int64_t axis : perm->ints()) {
          if (axis < 0 || axis >= rank) return Type::tensor(input.elemType());
          out.push_back(in[axis]);
        }
      } else {
        out.assign(in.rbegin(), in.rend());
      }
      return Type::tensor(input.elemType(), std::move(out));
    }
    case Rule::kFlatten: {
      const Type& input = input_type(0);
      if (!input.shape()) {
        return Type::tensor(input.elemType(), Shape{Dim::unknown(), Dim::unknown()});
      }
      const int64_t rank = static_cast<int64_t>(input.shape()->size());
      int64_t axis = node.intAttr("axis", 1);
      if (axis < 0) axis += rank;
      if (axis < 0 || axis > rank) return Type();
      // Declared dims may be absurd: a product past int64 is unknown (the model cannot run).
      auto product = [&](int64_t begin, int64_t end) {
        int64_t size = 1;
        for (int64_t i = begin; i < end; ++i) {
          const Dim& dim = (*input.shape())[i];
          if (!dim.isKnown()) return (end - begin == 1) ? dim : Dim::unknown();
          const std::optional<int64_t> next = checkedProduct(size, dim.value());
          if (!next) return Dim::unknown();
          size = *next;
        }
        return Dim::known(size);
      };
      return Type::tensor(input.elemType(), Shape{product(0, axis), product(axis, rank)});
    }
    case Rule::kExpand: {
      const Type& input = input_type(0);
      std::optional<std::vector<int64_t>> target =
          node.input(1) ? constantInts(*node.input(1)) : std::nullopt;
      if (input.shape() && !target) {
        // Each dim is the target's, unknown here, but for a known size other than 1 in the input.
        Type type = ofShapeOperandLength(input.elemType(), input_type(1));
        if (!type.shape()) return type;
        Shape shape = *type.shape();
        const Shape& in = *input.shape();
        if (in.size() > shape.size()) {
          shape.insert(shape.begin(), in.size() - shape.size(), Dim::unknown());
        }
        for (size_t i = 0; i < in.size(); ++i) {
          const Dim& dim = in[in.size() - 1 - i];
          if (dim.isKnown() && dim.value() != 1) shape[shape.size() - 1 - i] = dim;
        }
        return Type::tensor(input.elemType(), std::move(shape));
      }
      if (!input.shape() || !target) return Type::tensor(input.elemType());
      Shape target_shape;
      target_shape.reserve(target->size());
      for (int64_t dim : *target) {
        if (dim < 0) return Type();  // no size: the node fails when it runs
        target_shape.push_back(Dim::known(dim));
      }
      std::optional<Shape> shape = broadcastShapes(*input.shape(), target_shape);
      return shape ? Type::tensor(input.elemType(), shape) : Type();
    }
    case Rule::kReshape: {
      const Type& input = input_type(0);
      std::optional<Shape> target;
      if (node.input(1) != nullptr) {
        absl::StatusOr<std::optional<ShapeValue>> value =
            inferred_only ? inferredShapeValueOf(*node.input(1)) : shapeValueOf(*node.input(1));
        if (value.ok() && *value && !(*value)->scalar) target = std::move((*value)->elems);
      }
      if (!target) return ofShapeOperandLength(input.elemType(), input_type(1));
      const bool allow_zero = node.intAttr("allowzero", 0) != 0;
      Shape shape;
      shape.reserve(target->size());
      for (size_t i = 0; i < target->size(); ++i) {
        const Dim& entry = (*target)[i];
        const Dim* input_dim =
            input.shape() && i < input.shape()->size() ? &(*input.shape())[i] : nullptr;
        if (entry.isKnown() && entry.value() == 0 && !allow_zero) {
          if (input_dim == nullptr) return Type::tensor(input.elemType());
          shape.push_back(*input_dim);
        } else if (entry.isKnown()) {
          shape.push_back(entry.value() < 0 ? Dim::unknown() : entry);
        } else if (entry.isSymbolic() &&
                   (allow_zero || (input_dim != nullptr && input_dim->provablyEquals(entry)))) {
          // A dim read by Shape: 0 copies the input's dim unless allowzero, which is the same
          // size when that dim is this one.
          shape.push_back(entry);
        } else {
          shape.push_back(Dim::unknown());
        }
      }
      inferMinusOne(input.shape(), shape);
      return Type::tensor(input.elemType(), std::move(shape));
    }
  }
  return Type();
}

namespace {
// Drops from `inferred` what libonnx inferred from a size it gets wrong (libonnxKnows): the
// outputs of such nodes, of every node reading one of those, and of a node whose subgraph holds
// one. Returns whether `graph` held any such node. Nodes are in graph order, producers first.
bool forgetInferredFromWrongSizes(const ir::Graph& graph, ShapeOracle& shapes,
                                  absl::flat_hash_set<const ir::Value*>& wrong,
                                  absl::flat_hash_map<const ir::Value*, ir::Type>& inferred) {
  bool any = false;
  for (const ir::Node& node : graph) {
    bool from_wrong = node.op().domain().empty() && !libonnxKnows(node, shapes);
    for (const ir::Value* input : node.inputs()) {
      if (input != nullptr && wrong.contains(input)) from_wrong = true;
    }
    for (const ir::Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        if (forgetInferredFromWrongSizes(*subgraph, shapes, wrong, inferred)) from_wrong = true;
      }
    }
    if (!from_wrong) continue;
    any = true;
    for (const ir::Value* output : node.outputs()) {
      if (output == nullptr) continue;
      wrong.insert(output);
      inferred.erase(output);
    }
  }
  return any;
}
}  // namespace

void ShapeOracle::runOnnxShapeInference() {
  onnx_inference_ran_ = true;
  onnx::ModelProto proto;
  ir::ProtoExporter exporter(ir::ProtoExporter::Mode::kLend);
  exporter.exportModel(model_, &proto);
  // Inference writes into value_info; the IR's own value_info entries are lent, so take the
  // results into a copy of the graph structure first.
  onnx::ModelProto inferred;
  copyForInference(proto, &inferred);
  exporter.restore();
  // Inference from the graphs' inputs alone: a wrong value_info or output declaration would
  // otherwise flow into what it infers downstream.
  forgetDeclaredShapes(*inferred.mutable_graph());
  detail::skipSubgraphInferencePast(*inferred.mutable_graph(), detail::kMaxOuterTypesCopied);
  absl::flat_hash_set<std::string> input_symbols;
  collectInputSymbols(inferred.graph(), &input_symbols);
  try {
    // ONNX 1.12's data propagation for Shape (opset 15+) dereferences its input's type without a
    // check, and crashes when inference left that input untyped (the output of a custom op, or of
    // a node whose inference failed). Shape inputs that are node outputs get a declaration that
    // says nothing; for any other Shape input, a plain inference runs first, and data
    // propagation only if it typed every Shape input.
    bool data_propagation_is_safe = true;
    const std::optional<int64_t> opset = model_.opsetVersion("");
    if (opset && *opset >= 15 && hasShapeNode(inferred.graph())) {
      if (auto declare = shapeInputsToDeclare(*inferred.mutable_graph(), inferred.ir_version())) {
        for (const auto& [graph, name] : *declare) {
          onnx::ValueInfoProto* info = graph->add_value_info();
          info->set_name(name);
          info->mutable_type()->mutable_tensor_type()->set_elem_type(0);
        }
      } else {
        onnx::ModelProto plain;
        plain.CopyFrom(inferred);
        detail::inferShapesGuarded(plain, {/*check_type=*/false, /*error_mode=*/0,
                                           /*enable_data_propagation=*/false});
        data_propagation_is_safe = everyShapeInputIsTyped(plain.graph(), plain.ir_version(), {});
        if (!data_propagation_is_safe) inferred.Swap(&plain);
      }
    }
    if (data_propagation_is_safe) {
      detail::inferShapesGuarded(inferred, {/*check_type=*/false, /*error_mode=*/0,
                                            /*enable_data_propagation=*/true});
    }
  } catch (...) {
    // libonnx reports malformed models by throwing; the oracle then knows nothing more.
    return;
  }
  // Match inferred value_info to IR values scope by scope, walking graphs in the same order.
  std::vector<std::pair<const onnx::GraphProto*, ir::Graph*>> work = {
      {&inferred.graph(), &model_.graph()}};
  while (!work.empty()) {
    auto [graph_proto, graph] = work.back();
    work.pop_back();
    absl::flat_hash_map<std::string, const ir::Value*> by_name;
    for (ir::Node& node : *graph) {
      for (const ir::Value* output : node.outputs()) {
        if (output) by_name.emplace(output->name(), output);
      }
    }
    for (const auto& info : graph_proto->value_info()) {
      auto it = by_name.find(info.name());
      if (it != by_name.end() && info.has_type() && !isUntouchedDeclaration(info.type())) {
        onnx_inferred_[it->second] = withoutMadeUpSymbols(info.type(), input_symbols);
      }
    }
    for (const auto& info : graph_proto->output()) {
      auto it = by_name.find(info.name());
      if (it != by_name.end() && info.has_type()) {
        onnx_inferred_.emplace(it->second, withoutMadeUpSymbols(info.type(), input_symbols));
      }
    }
    int index = 0;
    for (ir::Node& node : *graph) {
      if (index >= graph_proto->node_size()) break;
      const onnx::NodeProto& node_proto = graph_proto->node(index++);
      int attribute_index = 0;
      for (const ir::Attribute& attribute : node.attributes()) {
        const onnx::AttributeProto& attribute_proto = node_proto.attribute(attribute_index++);
        const auto& subgraphs = attribute.graphs();
        if (subgraphs.empty()) continue;
        if (attribute_proto.has_g()) {
          work.emplace_back(&attribute_proto.g(), subgraphs.front().get());
        } else {
          for (size_t i = 0; i < subgraphs.size() && i < static_cast<size_t>(attribute_proto.graphs_size()); ++i) {
            work.emplace_back(&attribute_proto.graphs(static_cast<int>(i)), subgraphs[i].get());
          }
        }
      }
    }
  }
  absl::flat_hash_set<const ir::Value*> wrong;
  forgetInferredFromWrongSizes(model_.graph(), *this, wrong, onnx_inferred_);
}

namespace {

// How many nodes one shapeValueOf() may look at: keeps every question O(1).
constexpr int kShapeValueBudget = 32;

using ShapeValueOrError = absl::StatusOr<std::optional<ShapeValue>>;

ShapeValue knownShapeValue(const std::vector<int64_t>& values, bool scalar) {
  ShapeValue result;
  result.scalar = scalar;
  result.elems.reserve(values.size());
  for (int64_t v : values) result.elems.push_back(Dim::known(v));
  return result;
}

}  // namespace

// One question's walk through the shape computation, with its budget.
class ShapeValueWalk {
 public:
  // `inferred_only`: Shape reads inferredTypeOf() instead of typeOf().
  ShapeValueWalk(ShapeOracle& shapes, bool inferred_only)
      : shapes_(shapes), inferred_only_(inferred_only) {}

  ShapeValueOrError evaluate(const ir::Value* value) {
    if (value == nullptr || budget_-- <= 0) return std::nullopt;
    if (isConstant(*value)) return constant(*value);
    const ir::Node* node = value->producer();
    if (node == nullptr || !node->op().domain().empty()) return std::nullopt;
    const std::optional<int64_t> opset = opsetOf(*node);
    if (!opset) return std::nullopt;
    const std::string& op = node->opType();
    if (op == "Identity") return evaluate(node->input(0));
    if (op == "Shape") return shape(*node, *opset);
    if (op == "Gather") return gather(*node);
    if (op == "Unsqueeze") return unsqueeze(*node, *opset);
    if (op == "Concat") return concat(*node);
    if (op == "Slice") return slice(*node);
    return std::nullopt;
  }

 private:
  std::optional<ShapeValue> constant(const ir::Value& value) {
    std::optional<std::vector<int64_t>> ints = shapes_.constantInts(value);
    std::optional<int64_t> rank = shapes_.rankOf(value);
    if (!ints || !rank || *rank > 1) return std::nullopt;
    if (*rank == 0 && ints->size() != 1) return std::nullopt;
    return knownShapeValue(*ints, *rank == 0);
  }

  ShapeValueOrError shape(const ir::Node& node, int64_t opset) {
    const ir::Value* data = node.input(0);
    if (data == nullptr) return std::nullopt;
    const std::optional<Shape>& dims =
        (inferred_only_ ? shapes_.inferredTypeOf(*data) : shapes_.typeOf(*data)).shape();
    if (!dims) return std::nullopt;
    absl::StatusOr<std::optional<int64_t>> start = getInt(node, "start");
    if (!start.ok()) return start.status();
    absl::StatusOr<std::optional<int64_t>> end = getInt(node, "end");
    if (!end.ok()) return end.status();
    if (opset < 15 && (*start || *end)) return std::nullopt;
    const int64_t rank = static_cast<int64_t>(dims->size());
    auto clamp = [rank](int64_t v) {
      if (v < 0) v += rank;
      return std::min(std::max<int64_t>(v, 0), rank);
    };
    ShapeValue result;
    for (int64_t i = clamp(start->value_or(0)); i < clamp(end->value_or(rank)); ++i) {
      result.elems.push_back((*dims)[i]);
    }
    return result;
  }

  ShapeValueOrError gather(const ir::Node& node) {
    absl::StatusOr<int64_t> axis = getIntOr(node, "axis", 0);
    if (!axis.ok()) return axis.status();
    if (*axis != 0 && *axis != -1) return std::nullopt;
    ShapeValueOrError data = evaluate(node.input(0));
    if (!data.ok() || !*data || (*data)->scalar) return data.ok() ? std::nullopt : data;
    const ir::Value* indices = node.input(1);
    if (indices == nullptr || !isConstant(*indices)) return std::nullopt;
    std::optional<ShapeValue> index_values = constant(*indices);
    if (!index_values) return std::nullopt;
    ShapeValue result;
    result.scalar = index_values->scalar;
    const int64_t size = static_cast<int64_t>((*data)->elems.size());
    for (const Dim& dim : index_values->elems) {
      int64_t index = dim.value();
      if (index < 0) index += size;
      if (index < 0 || index >= size) return std::nullopt;
      result.elems.push_back((*data)->elems[index]);
    }
    return result;
  }

  // Only a scalar made into a 1-element vector: axes [0] or [-1].
  ShapeValueOrError unsqueeze(const ir::Node& node, int64_t opset) {
    std::vector<int64_t> axes;
    if (opset >= 13) {
      const ir::Value* axes_value = node.input(1);
      if (axes_value == nullptr || !isConstant(*axes_value)) return std::nullopt;
      std::optional<std::vector<int64_t>> values = shapes_.constantInts(*axes_value);
      if (!values) return std::nullopt;
      axes = *values;
    } else {
      absl::StatusOr<std::optional<std::vector<int64_t>>> attribute = getInts(node, "axes");
      if (!attribute.ok()) return attribute.status();
      if (!*attribute) return std::nullopt;
      axes = **attribute;
    }
    if (axes.size() != 1 || (axes[0] != 0 && axes[0] != -1)) return std::nullopt;
    ShapeValueOrError data = evaluate(node.input(0));
    if (!data.ok() || !*data || !(*data)->scalar) return data.ok() ? std::nullopt : data;
    (*data)->scalar = false;
    return data;
  }

  ShapeValueOrError concat(const ir::Node& node) {
    absl::StatusOr<std::optional<int64_t>> axis = getInt(node, "axis");
    if (!axis.ok()) return axis.status();
    if (!*axis || (**axis != 0 && **axis != -1)) return std::nullopt;
    ShapeValue result;
    for (const ir::Value* input : node.inputs()) {
      ShapeValueOrError part = evaluate(input);
      if (!part.ok() || !*part || (*part)->scalar) return part.ok() ? std::nullopt : part;
      result.elems.insert(result.elems.end(), (*part)->elems.begin(), (*part)->elems.end());
    }
    return result;
  }

  // One slice of the vector's one axis.
  ShapeValueOrError slice(const ir::Node& node) {
    absl::StatusOr<std::optional<SliceArguments>> arguments = readSliceArguments(node);
    if (!arguments.ok()) return arguments.status();
    if (!*arguments || (*arguments)->starts.size() != 1) return std::nullopt;
    const SliceArguments& a = **arguments;
    if (a.axes[0] != 0 && a.axes[0] != -1) return std::nullopt;
    ShapeValueOrError data = evaluate(node.input(0));
    if (!data.ok() || !*data || (*data)->scalar) return data.ok() ? std::nullopt : data;
    const std::optional<SliceRange> range =
        sliceRange(static_cast<int64_t>((*data)->elems.size()), a.starts[0], a.ends[0], a.steps[0]);
    if (!range) return std::nullopt;
    ShapeValue result;
    for (int64_t i = 0, index = range->first; i < range->count; ++i, index += range->step) {
      result.elems.push_back((*data)->elems[index]);
    }
    return result;
  }

  ShapeOracle& shapes_;
  const bool inferred_only_;
  int budget_ = kShapeValueBudget;
};

absl::StatusOr<std::optional<ShapeValue>> ShapeOracle::shapeValueOf(const ir::Value& value) {
  return ShapeValueWalk(*this, /*inferred_only=*/false).evaluate(&value);
}

absl::StatusOr<std::optional<ShapeValue>> ShapeOracle::inferredShapeValueOf(const ir::Value& value) {
  return ShapeValueWalk(*this, /*inferred_only=*/true).evaluate(&value);
}

}  // namespace onnxopt
