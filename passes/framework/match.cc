#include "onnxopt/rewrite/match.h"

#include "absl/strings/str_cat.h"

namespace onnxopt {

const ir::Node* producerOf(const ir::Value* value, absl::string_view op_type,
                           absl::string_view domain) {
  const ir::Node* producer = value != nullptr ? value->producer() : nullptr;
  return producer != nullptr && producer->is(op_type, domain) ? producer : nullptr;
}

bool hasSingleReader(const ir::Value& value) {
  return value.hasOneUse() && !value.uses().front().isGraphOutput();
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
