#include "onnxopt/rewrite/match.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {

const ir::Node* producerOf(const ir::Value* value, absl::string_view op_type,
                           absl::string_view domain) {
  const ir::Node* producer = value != nullptr ? value->producer() : nullptr;
  return producer != nullptr && producer->is(op_type, domain) ? producer : nullptr;
}

bool hasSingleReader(const ir::Value& value) {
  return value.hasOneUse() && !value.uses().front().isGraphOutput();
}

bool onlyReadBy(const ir::Value& value, absl::Span<const ir::Node* const> readers) {
  // The readers can account for as many uses as they have operands: beyond that, the answer is
  // no without a walk of the uses, which a value read by thousands of nodes makes long for each.
  size_t operands = 0;
  for (const ir::Node* reader : readers) operands += reader->numInputs();
  if (value.uses().size() > operands) return false;
  return std::all_of(value.uses().begin(), value.uses().end(), [&](const ir::Use& use) {
    return use.user() != nullptr &&
           std::find(readers.begin(), readers.end(), use.user()) != readers.end();
  });
}

const ir::Node* absorbableProducer(const ir::Node& root, absl::string_view op_type,
                                   PatternRewriter& rewriter) {
  const ir::Node* producer = producerOf(root.input(0), op_type);
  if (producer == nullptr || producer->input(0) == nullptr) return nullptr;
  if (!hasSingleReader(*producer->output(0))) {
    (void)rewriter.notifyMatchFailure(root, [&] {
      return absl::StrCat("the ", op_type, " it reads has other readers, which keep it");
    });
    return nullptr;
  }
  return producer;
}

LogicalResult forwardOperand(const ir::Node& node, ir::Value& operand, PatternRewriter& rewriter) {
  const ir::Value* output = node.output(0);
  if (output == nullptr) return failure();
  if (!rewriter.canReplaceAnyUseWith(*output, operand)) {
    return rewriter.notifyMatchFailure(node, "only graph outputs read it, and they keep it");
  }
  if (failed(rewriter.match(node))) return failure();
  rewriter.replaceUsesWhereAllowed(*output, operand);
  return success();
}

bool isDeterministic(const ir::Node& node) {
  static constexpr absl::string_view kRandom[] = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
      "Multinomial",  "Bernoulli",     "Dropout"};
  if (!node.op().domain().empty()) return false;
  for (const absl::string_view op : kRandom) {
    if (node.opType() == op) return false;
  }
  return true;
}

namespace {

bool isOneOf(const ir::Node& node, std::initializer_list<absl::string_view> op_types) {
  if (!node.op().domain().empty()) return false;
  for (const absl::string_view op_type : op_types) {
    if (node.opType() == op_type) return true;
  }
  return false;
}

}  // namespace

bool keepsElementOrder(const ir::Node& node) {
  return isOneOf(node, {"Reshape", "Flatten", "Squeeze", "Unsqueeze"});
}

bool onlyMovesElements(const ir::Node& node) {
  return keepsElementOrder(node) ||
         isOneOf(node, {"Identity", "Transpose", "Slice", "Gather", "Expand", "Tile"});
}

bool isUnaryElementwise(const ir::Node& node) {
  static const auto* const kOps = new absl::flat_hash_set<absl::string_view>{
      "Relu",  "LeakyRelu", "Sigmoid", "Tanh",  "Neg",   "Abs",   "Exp",         "Log",
      "Sqrt",  "Reciprocal", "Erf",    "Elu",   "Selu",  "Softplus", "Softsign", "HardSigmoid",
      "HardSwish", "Floor", "Ceil",    "Round", "Sign",  "Sin",   "Cos",         "Tan",
      "Asin",  "Acos",      "Atan",    "Sinh",  "Cosh",  "Asinh", "Acosh",       "Atanh",
      "ThresholdedRelu", "Celu", "Gelu", "Mish", "BitwiseNot", "Shrink", "Cast",   "IsNaN",
      "IsInf", "Not",       "Identity", "Clip"};
  return node.op().domain().empty() && kOps->contains(node.opType());
}

absl::Span<const BroadcastingOp> broadcastingOps() {
  static constexpr BroadcastingOp kOps[] = {
      {"Add", 7, false},         {"Sub", 7, false},           {"Mul", 7, false},
      {"Div", 7, false},         {"Pow", 7, false},           {"Max", 8, false},
      {"Min", 8, false},         {"Sum", 8, false},           {"Mean", 8, false},
      {"Where", 9, false},       {"Mod", 10, false},          {"BitShift", 11, false},
      {"BitwiseAnd", 18, false}, {"BitwiseOr", 18, false},    {"BitwiseXor", 18, false},
      {"Equal", 7, true},        {"Greater", 7, true},        {"Less", 7, true},
      {"And", 7, true},          {"Or", 7, true},             {"Xor", 7, true},
      {"GreaterOrEqual", 12, true}, {"LessOrEqual", 12, true}};
  return kOps;
}

const BroadcastingOp* broadcastingOpOf(const ir::Node& node) {
  static const auto* const kByType = [] {
    auto* by_type = new absl::flat_hash_map<absl::string_view, const BroadcastingOp*>();
    for (const BroadcastingOp& op : broadcastingOps()) by_type->emplace(op.op_type, &op);
    return by_type;
  }();
  if (!node.op().domain().empty()) return nullptr;
  const auto it = kByType->find(node.opType());
  return it != kByType->end() ? it->second : nullptr;
}

std::optional<std::vector<int64_t>> knownSizes(const ir::Shape& shape) {
  std::vector<int64_t> sizes;
  sizes.reserve(shape.size());
  for (const ir::Dim& dim : shape) {
    if (!dim.isKnown()) return std::nullopt;
    sizes.push_back(dim.value());
  }
  return sizes;
}

std::string dimText(const ir::Dim& dim) {
  if (dim.isKnown()) return absl::StrCat(dim.value());
  if (dim.isSymbolic()) return dim.symbol();
  return "?";
}

std::string shapeText(const std::optional<ir::Shape>& shape) {
  if (!shape) return "[rank unknown]";
  std::string text = "[";
  for (size_t i = 0; i < shape->size(); ++i) absl::StrAppend(&text, i ? "," : "", dimText((*shape)[i]));
  return text + "]";
}

namespace {

// An attribute's value: kinds whose value is a few fields are compared field by field, and the
// rest (tensors, graphs, type protos) by their serialized proto. The doc string says nothing about
// what the node computes.
std::string canonicalBytes(const ir::Attribute& attribute) {
  onnx::AttributeProto canonical = attribute.proto();
  canonical.clear_doc_string();
  return canonical.SerializeAsString();
}

bool isPlainKind(ir::Attribute::Kind kind) {
  switch (kind) {
    case onnx::AttributeProto::INT:
    case onnx::AttributeProto::FLOAT:
    case onnx::AttributeProto::STRING:
    case onnx::AttributeProto::INTS:
    case onnx::AttributeProto::FLOATS:
    case onnx::AttributeProto::STRINGS: return true;
    default: return false;
  }
}

// Floats compare by their bits, as their serialized form would: -0.0 is not 0.0, and NaN is
// itself.
uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}

size_t hashOf(const ir::Attribute& attribute) {
  size_t hash = absl::HashOf(attribute.name(), static_cast<int>(attribute.kind()));
  switch (attribute.kind()) {
    case onnx::AttributeProto::INT: return absl::HashOf(hash, attribute.i());
    case onnx::AttributeProto::FLOAT: return absl::HashOf(hash, bitsOf(attribute.f()));
    case onnx::AttributeProto::STRING: return absl::HashOf(hash, attribute.s());
    case onnx::AttributeProto::INTS:
      for (int64_t i : attribute.ints()) hash = absl::HashOf(hash, i);
      return hash;
    case onnx::AttributeProto::FLOATS:
      for (float f : attribute.floats()) hash = absl::HashOf(hash, bitsOf(f));
      return hash;
    case onnx::AttributeProto::STRINGS:
      for (const std::string& str : attribute.proto().strings()) hash = absl::HashOf(hash, str);
      return hash;
    default: return absl::HashOf(hash, canonicalBytes(attribute));
  }
}

bool sameValue(const ir::Attribute& a, const ir::Attribute& b) {
  if (a.name() != b.name() || a.kind() != b.kind()) return false;
  if (!isPlainKind(a.kind())) return canonicalBytes(a) == canonicalBytes(b);
  const onnx::AttributeProto& pa = a.proto();
  const onnx::AttributeProto& pb = b.proto();
  if (pa.i() != pb.i() || bitsOf(pa.f()) != bitsOf(pb.f()) || pa.s() != pb.s()) return false;
  if (!std::equal(pa.ints().begin(), pa.ints().end(), pb.ints().begin(), pb.ints().end())) {
    return false;
  }
  if (!std::equal(pa.floats().begin(), pa.floats().end(), pb.floats().begin(), pb.floats().end(),
                  [](float x, float y) { return bitsOf(x) == bitsOf(y); })) {
    return false;
  }
  return std::equal(pa.strings().begin(), pa.strings().end(), pb.strings().begin(),
                    pb.strings().end());
}

}  // namespace

size_t computationHash(const ir::Node& node) {
  size_t hash = absl::HashOf(&node.op(), node.numOutputs(), node.numInputs());  // OpNames are interned
  for (const ir::Value* input : node.inputs()) hash = absl::HashOf(hash, input);
  size_t attributes = 0;  // a sum: the same whatever the order
  for (const ir::Attribute& attribute : node.attributes()) attributes += hashOf(attribute);
  return absl::HashOf(hash, attributes);
}

bool sameComputation(const ir::Node& a, const ir::Node& b) {
  if (&a.op() != &b.op() || a.numOutputs() != b.numOutputs() ||
      !std::equal(a.inputs().begin(), a.inputs().end(), b.inputs().begin(), b.inputs().end())) {
    return false;
  }
  if (a.attributes().size() != b.attributes().size()) return false;
  for (const ir::Attribute& attribute : a.attributes()) {
    const ir::Attribute* other = b.attr(attribute.name());
    if (other == nullptr || !sameValue(attribute, *other)) return false;
  }
  return true;
}

}  // namespace onnxopt
