#include "onnxopt/rewrite/shape_oracle.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "onnx/shape_inference/implementation.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/schema.h"
#include "../../ir/proto_io.h"

namespace onnxopt {
namespace {

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
// graph or from the enclosing scopes' `typed` names.
bool everyShapeInputIsTyped(const onnx::GraphProto& graph, absl::flat_hash_set<std::string> typed) {
  for (const auto* infos : {&graph.input(), &graph.value_info(), &graph.output()}) {
    for (const onnx::ValueInfoProto& info : *infos) {
      if (info.has_type()) typed.insert(info.name());
    }
  }
  for (const onnx::TensorProto& initializer : graph.initializer()) typed.insert(initializer.name());
  for (const onnx::NodeProto& node : graph.node()) {
    if (isShape(node) && (node.input_size() == 0 || !typed.contains(node.input(0)))) return false;
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g() && !everyShapeInputIsTyped(attribute.g(), typed)) return false;
      for (const onnx::GraphProto& subgraph : attribute.graphs()) {
        if (!everyShapeInputIsTyped(subgraph, typed)) return false;
      }
    }
  }
  return true;
}

using ir::Dim;
using ir::Shape;
using ir::Type;

const Dim kOne = Dim::known(1);

bool isKnownOne(const Dim& dim) { return dim.isKnown() && dim.value() == 1; }

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
    for (const char* op : {"IsNaN", "IsInf", "Not"}) rules->emplace(op, RuleOf{Rule::kBoolOfInput});
    const std::pair<const char*, int64_t> kBroadcasting[] = {
        {"Add", 7}, {"Sub", 7}, {"Mul", 7}, {"Div", 7}, {"Pow", 7}, {"Max", 8}, {"Min", 8},
        {"Sum", 8}, {"Mean", 8}, {"Where", 9}, {"Mod", 10}, {"BitShift", 11},
        {"BitwiseAnd", 18}, {"BitwiseOr", 18}, {"BitwiseXor", 18}};
    for (const auto& [op, since] : kBroadcasting) {
      rules->emplace(op, RuleOf{Rule::kBroadcasting, since});
    }
    const std::pair<const char*, int64_t> kComparisons[] = {
        {"Equal", 7}, {"Greater", 7}, {"Less", 7}, {"And", 7}, {"Or", 7}, {"Xor", 7},
        {"GreaterOrEqual", 12}, {"LessOrEqual", 12}};
    for (const auto& [op, since] : kComparisons) {
      rules->emplace(op, RuleOf{Rule::kBroadcasting, since, /*gives_bool=*/true});
    }
    rules->emplace("Gemm", RuleOf{Rule::kGemm});
    rules->emplace("MatMul", RuleOf{Rule::kMatMul});
    rules->emplace("Transpose", RuleOf{Rule::kTranspose});
    rules->emplace("Flatten", RuleOf{Rule::kFlatten});
    rules->emplace("Expand", RuleOf{Rule::kExpand});
    rules->emplace("Reshape", RuleOf{Rule::kReshape});
    return rules;
  }();
  if (!node.op().domain().empty()) return nullptr;
  auto it = kRules->find(node.opType());
  return it == kRules->end() ? nullptr : &it->second;
}

}  // namespace

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

void ShapeOracle::switchToGraph(const ir::Graph& graph) {
  last_graph_ = &graph;
  last_answers_ = &known_by_graph_[&graph];
}

std::optional<int64_t> ShapeOracle::rankOf(const ir::Value& value) { return typeOf(value).rank(); }

void ShapeOracle::forget(const ir::Node& node) {
  for (const ir::Value* output : node.outputs()) {
    if (output == nullptr) continue;
    std::vector<const Type*>& answers = answersIn(*output->graph());
    if (output->ordinal() < answers.size()) answers[output->ordinal()] = nullptr;
  }
}

namespace {
// Declared dims win; an unknown declared dim takes the inferred one.
Type merge(Type declared, Type inferred) {
  if (!declared.isTensor()) return inferred;
  if (!inferred.isTensor()) return declared;
  const int32_t elem = declared.elemType() != 0 ? declared.elemType() : inferred.elemType();
  if (!declared.shape()) return Type::tensor(elem, std::move(inferred).takeShape());
  if (!inferred.shape() || inferred.shape()->size() != declared.shape()->size()) {
    return Type::tensor(elem, std::move(declared).takeShape());
  }
  Shape shape = *std::move(declared).takeShape();
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i].isUnknown()) shape[i] = (*inferred.shape())[i];
  }
  return Type::tensor(elem, std::move(shape));
}

bool fullyKnown(const Type& type) {
  if (!type.isTensor() || type.elemType() == 0 || !type.shape()) return false;
  for (const Dim& dim : *type.shape()) {
    if (dim.isUnknown()) return false;
  }
  return true;
}

// fullyKnown(value.type()), read off the declaration without building the Type: the oracle asks
// this of every value it meets, most of which an exporter declared completely.
bool declaredFullyKnown(const ir::Value& value) {
  const onnx::ValueInfoProto* info =
      value.valueInfo() && value.valueInfo()->has_type() ? value.valueInfo()
      : value.inputInfo() && value.inputInfo()->has_type() ? value.inputInfo()
                                                          : nullptr;
  if (info == nullptr) return value.isInitializer() && value.initializer()->dataType() != 0;
  if (!info->type().has_tensor_type()) return false;
  const onnx::TypeProto::Tensor& tensor = info->type().tensor_type();
  if (tensor.elem_type() == 0 || !tensor.has_shape()) return false;
  for (const auto& dim : tensor.shape().dim()) {
    if (!dim.has_dim_value() && (!dim.has_dim_param() || dim.dim_param().empty())) return false;
  }
  return true;
}

const Type kNothingKnown;
}  // namespace

const Type& ShapeOracle::resolve(const ir::Value& value) {
  if (value.producer() == nullptr || declaredFullyKnown(value)) return remember(value, infer(value));
  // Producers are resolved first, without recursion, so a chain of a million nodes is fine.
  absl::InlinedVector<const ir::Value*, 8> pending = {&value};
  while (!pending.empty()) {
    const ir::Value* current = pending.back();
    if (known(*current) != nullptr) {
      pending.pop_back();
      continue;
    }
    bool ready = true;
    if (const ir::Node* producer = current->producer();
        producer && !declaredFullyKnown(*current)) {
      for (const ir::Value* input : producer->inputs()) {
        if (input && known(*input) == nullptr) {
          pending.push_back(input);
          ready = false;
        }
      }
    }
    if (!ready) continue;
    pending.pop_back();
    remember(*current, infer(*current));
  }
  return *known(value);
}

const Type& ShapeOracle::remember(const ir::Value& value, Type type) {
  const Type* answer = answers_.create(std::move(type));
  std::vector<const Type*>& answers = answersIn(*value.graph());
  if (value.ordinal() >= answers.size()) answers.resize(value.graph()->valueOrdinalBound());
  answers[value.ordinal()] = answer;
  return *answer;
}

Type ShapeOracle::infer(const ir::Value& value) {
  Type type = value.type();
  if (!fullyKnown(type) && value.producer() != nullptr) {
    type = merge(std::move(type), applyLocalRule(*value.producer(), value.producerOutputIndex()));
  }
  if (!type.shape()) {
    if (!onnx_inference_ran_) runOnnxShapeInference();
    auto inferred = onnx_inferred_.find(&value);
    if (inferred != onnx_inferred_.end()) type = merge(std::move(type), inferred->second);
  }
  return type;
}

Type ShapeOracle::applyLocalRule(const ir::Node& node, size_t output_index) {
  // The driver loop in typeOf() resolved every input before asking for this rule.
  auto input_type = [&](size_t i) -> const Type& {
    const ir::Value* input = node.input(i);
    return input == nullptr ? kNothingKnown : typeOf(*input);
  };
  const RuleOf* rule = output_index == 0 ? ruleFor(node) : nullptr;
  if (rule == nullptr) return Type();
  switch (rule->rule) {
    case Rule::kSameAsInput:
      return input_type(0);
    case Rule::kCast: {
      const ir::Attribute* to = node.attr("to");
      return Type::tensor(to ? static_cast<int32_t>(to->i()) : 0, input_type(0).shape());
    }
    case Rule::kBoolOfInput:
      return Type::tensor(onnx::TensorProto::BOOL, input_type(0).shape());
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
      auto product = [&](int64_t begin, int64_t end) {
        int64_t size = 1;
        for (int64_t i = begin; i < end; ++i) {
          const Dim& dim = (*input.shape())[i];
          if (!dim.isKnown()) return (end - begin == 1) ? dim : Dim::unknown();
          size *= dim.value();
        }
        return Dim::known(size);
      };
      return Type::tensor(input.elemType(), Shape{product(0, axis), product(axis, rank)});
    }
    case Rule::kExpand: {
      const Type& input = input_type(0);
      std::optional<std::vector<int64_t>> target =
          node.input(1) ? constantInts(*node.input(1)) : std::nullopt;
      if (!input.shape() || !target) return Type::tensor(input.elemType());
      Shape target_shape;
      target_shape.reserve(target->size());
      for (int64_t dim : *target) target_shape.push_back(Dim::known(dim));
      std::optional<Shape> shape = broadcastShapes(*input.shape(), target_shape);
      return shape ? Type::tensor(input.elemType(), shape) : Type();
    }
    case Rule::kReshape: {
      const Type& input = input_type(0);
      std::optional<std::vector<int64_t>> target =
          node.input(1) ? constantInts(*node.input(1)) : std::nullopt;
      if (!target) return Type::tensor(input.elemType());
      const bool allow_zero = node.intAttr("allowzero", 0) != 0;
      Shape shape;
      shape.reserve(target->size());
      for (size_t i = 0; i < target->size(); ++i) {
        const int64_t dim = (*target)[i];
        if (dim == 0 && !allow_zero) {
          if (!input.shape() || i >= input.shape()->size()) return Type::tensor(input.elemType());
          shape.push_back((*input.shape())[i]);
        } else if (dim < 0) {
          shape.push_back(Dim::unknown());
        } else {
          shape.push_back(Dim::known(dim));
        }
      }
      return Type::tensor(input.elemType(), std::move(shape));
    }
  }
  return Type();
}

void ShapeOracle::runOnnxShapeInference() {
  onnx_inference_ran_ = true;
  onnx::ModelProto proto;
  ir::ProtoExporter exporter(ir::ProtoExporter::Mode::kLend);
  exporter.exportModel(model_, &proto);
  // Inference writes into value_info; the IR's own value_info entries are lent, so take the
  // results into a copy of the graph structure first.
  onnx::ModelProto inferred;
  inferred.CopyFrom(proto);
  exporter.restore();
  try {
    // ONNX 1.12's data propagation for Shape (opset 15+) dereferences its input's type without a
    // check, and crashes when inference left that input untyped (the output of a custom op, or of
    // a node whose inference failed). With a Shape node in the model, a plain inference runs
    // first, and data propagation only if it typed every Shape input.
    bool data_propagation_is_safe = true;
    if (hasShapeNode(inferred.graph())) {
      onnx::ModelProto plain;
      plain.CopyFrom(inferred);
      onnx::shape_inference::InferShapes(plain, onnx::OpSchemaRegistry::Instance(),
                                         {/*check_type=*/false, /*error_mode=*/0,
                                          /*enable_data_propagation=*/false});
      data_propagation_is_safe = everyShapeInputIsTyped(plain.graph(), {});
      if (!data_propagation_is_safe) inferred.Swap(&plain);
    }
    if (data_propagation_is_safe) {
      onnx::shape_inference::InferShapes(inferred, onnx::OpSchemaRegistry::Instance(),
                                         {/*check_type=*/false, /*error_mode=*/0,
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
      if (it != by_name.end() && info.has_type()) {
        onnx_inferred_[it->second] = Type::fromProto(info.type());
      }
    }
    for (const auto& info : graph_proto->output()) {
      auto it = by_name.find(info.name());
      if (it != by_name.end() && info.has_type()) {
        onnx_inferred_.emplace(it->second, Type::fromProto(info.type()));
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
  explicit ShapeValueWalk(ShapeOracle& shapes) : shapes_(shapes) {}

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
    const std::optional<Shape>& dims = shapes_.typeOf(*data).shape();
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

  ShapeOracle& shapes_;
  int budget_ = kShapeValueBudget;
};

absl::StatusOr<std::optional<ShapeValue>> ShapeOracle::shapeValueOf(const ir::Value& value) {
  return ShapeValueWalk(*this).evaluate(&value);
}

}  // namespace onnxopt
