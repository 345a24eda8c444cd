#include "onnxopt/rewrite/match.h"

#include <initializer_list>

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

}  // namespace onnxopt
