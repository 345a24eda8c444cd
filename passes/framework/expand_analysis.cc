#include "onnxopt/rewrite/expand_analysis.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"

namespace onnxopt {
namespace {

// Combines what the target's value says about axis i (from the right) with X's dim there.
ExpandedDim expandedDimFrom(const std::optional<ir::Dim>& target_dim,
                            const std::optional<ir::Dim>& input_dim) {
  // E keeps X's dim where X's is a size other than 1 (a valid Expand has 1 or the same there),
  // where the target has no axis or a 1, and where the two provably agree.
  if (input_dim && (isKnownNotOne(*input_dim) || !target_dim || isKnownOne(*target_dim) ||
                    target_dim->provablyEquals(*input_dim))) {
    return {*input_dim, true};
  }
  if (!target_dim || isKnownOne(*target_dim)) return {ir::Dim::known(1), false};
  // X's dim is absent, 1, or may be either 1 or the target's: E has the target's dim then.
  if (!input_dim || isKnownOne(*input_dim) || isKnownNotOne(*target_dim)) {
    return {*target_dim, false};
  }
  return {};
}

}  // namespace

const ir::Value* shapeOfSource(const ir::Value* target) {
  const ir::Node* node = producerOf(target, "Shape");
  if (node == nullptr || node->input(0) == nullptr || node->attr("end") != nullptr) return nullptr;
  const ir::Attribute* start = node->attr("start");
  if (start != nullptr && (start->kind() != onnx::AttributeProto::INT || start->i() != 0)) {
    return nullptr;
  }
  return node->input(0);
}


ExpandFacts analyzeExpand(const ir::Node& expand, ShapeOracle& shapes) {
  ExpandFacts facts;
  facts.expand = &expand;
  facts.input = expand.input(0);
  facts.target = expand.input(1);
  facts.input_shape = shapes.inferredTypeOf(*facts.input).shape();
  facts.target_shape_of = shapeOfSource(facts.target);
  absl::StatusOr<std::optional<ShapeValue>> target = shapes.inferredShapeValueOf(*facts.target);
  if (!target.ok()) {
    facts.error = target.status();
    return facts;
  }
  // E's declared (or inferred) shape, asked only when needed: it may run shape inference.
  auto declared = [&]() -> const std::optional<ir::Shape>& {
    return shapes.inferredTypeOf(*expand.output(0)).shape();
  };
  // The target's dims; without them, or without X's rank (a target 1 may then be any of X's
  // dims), as many unknown dims as E's rank.
  std::optional<ir::Shape> target_shape;
  if (*target && !(*target)->scalar && facts.input_shape) target_shape = (*target)->elems;
  if (!target_shape && declared()) target_shape = ir::Shape(declared()->size(), ir::Dim::unknown());
  if (!target_shape) {
    facts.why_unknown = absl::StrCat("the rank of the Expand's output is unknown (input ",
                                     shapeText(facts.input_shape), ")");
    return facts;
  }
  const size_t rank =
      std::max(target_shape->size(), facts.input_shape ? facts.input_shape->size() : 0);
  std::vector<ExpandedDim> dims(rank);
  for (size_t i = 0; i < rank; ++i) {
    const std::optional<ir::Dim> target_dim = dimFromRight(target_shape, i);
    const std::optional<ir::Dim> input_dim = dimFromRight(facts.input_shape, i);
    if ((target_dim && target_dim->isKnown() && target_dim->value() < 0) ||
        (target_dim && input_dim && isKnownNotOne(*target_dim) && isKnownNotOne(*input_dim) &&
         target_dim->value() != input_dim->value())) {
      facts.why_unknown = absl::StrCat("the target ", shapeText(target_shape),
                                       " is not a valid Expand of the input ",
                                       shapeText(facts.input_shape));
      return facts;
    }
    ExpandedDim& out = dims[rank - 1 - i];
    out = expandedDimFrom(target_dim, input_dim);
    // The model's declaration, or shape inference, may name a dim the target left unknown.
    if (out.same_as_input || !out.dim.isUnknown() || !declared() || declared()->size() != rank) {
      continue;
    }
    out.dim = (*declared())[rank - 1 - i];
    out.same_as_input = input_dim && out.dim.provablyEquals(*input_dim);
  }
  facts.dims = std::move(dims);
  return facts;
}

bool expandIsNop(const ExpandFacts& facts) {
  return facts.dims && facts.input_shape && facts.dims->size() == facts.input_shape->size() &&
         std::all_of(facts.dims->begin(), facts.dims->end(),
                     [](const ExpandedDim& dim) { return dim.same_as_input; });
}

bool coversExpandTarget(const ir::Value* value, const ExpandFacts& facts) {
  if (value == nullptr) return false;
  if (value == facts.expand->output(0)) return true;  // broadcast(E, E) = E
  if (sameShapeByDefinition(value, facts.target_shape_of)) return true;
  const ir::Node* producer = producerOf(value, "Expand");
  if (producer == nullptr || producer->input(1) == nullptr) return false;
  const ir::Value* other_target = producer->input(1);
  return other_target == facts.target ||
         sameShapeByDefinition(shapeOfSource(other_target), facts.target_shape_of);
}


std::string proveBroadcastAbsorbsExpand(const ExpandFacts& facts,
                                        const std::vector<OtherOperand>& others) {
  for (const OtherOperand& other : others) {
    if (other.covers_target) return "";
  }
  if (!facts.dims) return facts.why_unknown;
  const std::vector<ExpandedDim>& dims = *facts.dims;
  const size_t rank = dims.size();
  for (size_t i = 0; i < rank; ++i) {
    const ExpandedDim& e = dims[rank - 1 - i];
    const std::optional<ir::Dim> x = dimFromRight(facts.input_shape, i);
    bool present = x.has_value();
    bool covered = e.same_as_input || (x && (isKnownNotOne(*x) || e.dim.provablyEquals(*x)));
    for (const OtherOperand& other : others) {
      const std::optional<ir::Dim> z = dimFromRight(other.shape, i);
      if (!z) continue;
      present = true;
      if (isKnownNotOne(*z) || e.dim.provablyEquals(*z)) covered = true;
    }
    const std::string where = absl::StrCat("axis -", i + 1, " of the Expand's output");
    if (!present) {
      return absl::StrCat(where, " exists in no other operand: reading around the Expand ",
                          "would lower the output's rank");
    }
    if (!covered && !isKnownOne(e.dim)) {
      return absl::StrCat(where, " (", dimText(e.dim),
                          ") is not provably given by the other operands or the input ",
                          shapeText(facts.input_shape));
    }
  }
  return "";
}

}  // namespace onnxopt
