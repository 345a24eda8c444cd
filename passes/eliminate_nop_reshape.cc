// eliminate-nop-reshape: a Reshape whose output provably has its input's shape is its input, so
// its readers read the input. The target S (a constant, or a shape computed from known or
// symbolic dims: ShapeOracle::shapeValueOf) must have the input's rank, and each entry give the
// input's dim there: the same known size or symbol; 0, which copies the input's dim unless
// allowzero = 1 (opset 14 on: then 0 is a size, right only where the input's dim is a known 0);
// or one -1, which takes what the other entries leave, the input's dim once they all match (and
// none is a known 0, which leaves -1 undefined). From opset 5 (the target was an attribute
// before). See docs/passes/eliminate-nop-reshape.md.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

// "" when reshaping a tensor of `input` to `target` keeps `input`; the reason otherwise.
std::string whyNotSameShape(const ir::Shape& input, const ir::Shape& target, bool allow_zero) {
  if (target.size() != input.size()) {
    return absl::StrCat("the target ", shapeText(target), " has another rank than the input ",
                        shapeText(input));
  }
  bool has_minus_one = false;
  bool has_zero = false;
  bool has_known_zero_dim = false;
  for (size_t i = 0; i < target.size(); ++i) {
    const ir::Dim& entry = target[i];
    const ir::Dim& dim = input[i];
    if (entry.isKnown() && entry.value() == -1 && !has_minus_one) {
      has_minus_one = true;
      continue;
    }
    const bool copies = entry.isKnown() && entry.value() == 0 && !allow_zero;
    if (entry.isKnown() && entry.value() == 0) has_zero = true;
    if (!copies && !entry.provablyEquals(dim)) {
      return absl::StrCat("entry ", i, " (", dimText(entry), ") of the target ", shapeText(target),
                          " is not provably the input's dim ", dimText(dim));
    }
    if (dim.isKnown() && dim.value() == 0) has_known_zero_dim = true;
  }
  if (has_minus_one && allow_zero && has_zero) {
    return "the target has both -1 and 0 with allowzero = 1, which the spec forbids";
  }
  if (has_minus_one && has_known_zero_dim) {
    return "the target's -1 is undefined next to a dim of 0";
  }
  return "";
}

class RemoveNopReshape final : public RewritePattern {
 public:
  RemoveNopReshape() : RewritePattern("remove-nop-reshape", {"Reshape", 5}) {}

  LogicalResult matchAndRewrite(const ir::Node& reshape, PatternRewriter& rewriter) const override {
    ir::Value* input = reshape.input(0);
    if (input == nullptr || reshape.input(1) == nullptr || reshape.output(0) == nullptr) return failure();
    ShapeOracle& shapes = rewriter.shapes();
    absl::StatusOr<int64_t> allow_zero = rewriter.opsetVersion(reshape).value_or(0) >= 14
                                             ? getIntOr(reshape, "allowzero", 0)
                                             : absl::StatusOr<int64_t>(0);
    if (!allow_zero.ok()) return rewriter.emitError(reshape, allow_zero.status());
    absl::StatusOr<std::optional<ShapeValue>> target = shapes.inferredShapeValueOf(*reshape.input(1));
    if (!target.ok()) return rewriter.emitError(reshape, target.status());
    if (!*target || (*target)->scalar) {
      return rewriter.notifyMatchFailure(reshape, "the target shape is not known");
    }
    const std::optional<ir::Shape>& input_shape = shapes.inferredTypeOf(*input).shape();
    if (!input_shape) return rewriter.notifyMatchFailure(reshape, "the input's rank is not known");
    const std::string why_not = whyNotSameShape(*input_shape, (*target)->elems, *allow_zero != 0);
    if (!why_not.empty()) return rewriter.notifyMatchFailure(reshape, why_not);
    return forwardOperand(reshape, *input, rewriter);
  }
};

class EliminateNopReshape final : public PatternPass {
 public:
  EliminateNopReshape() : PatternPass("eliminate-nop-reshape") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RemoveNopReshape>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopReshapePass() {
  return std::make_unique<EliminateNopReshape>();
}

}  // namespace onnxopt
