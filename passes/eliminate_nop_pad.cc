// eliminate-nop-pad: a Pad whose pads are all zero is its input, whatever its mode. See
// docs/passes/eliminate-nop-pad.md.

#include <algorithm>
#include <optional>
#include <vector>

#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

class ForwardUnpaddedInput final : public RewritePattern {
 public:
  // Pad-1 has `paddings`, Pad-2 `pads` (attributes); from Pad-11 the pads are input 1 (Pad-18
  // adds `axes`, whose pads are still all of them). Zero padding changes nothing in any mode.
  ForwardUnpaddedInput() : RewritePattern("forward-unpadded-input", {"Pad", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& pad, PatternRewriter& rewriter) const override {
    ir::Value* data = pad.input(0);
    if (data == nullptr) return failure();
    const std::optional<int64_t> version = sinceVersionOf(pad);
    if (!version) return failure();
    std::optional<std::vector<int64_t>> pads;
    if (*version < 11) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> attribute =
          getInts(pad, *version < 2 ? "paddings" : "pads");
      if (!attribute.ok()) return rewriter.check(pad, attribute.status());
      pads = *std::move(attribute);
    } else {
      if (pad.input(1) == nullptr) return failure();
      absl::StatusOr<std::optional<std::vector<int64_t>>> operand = readConstantInts(*pad.input(1));
      if (!operand.ok()) return rewriter.check(pad, operand.status());
      if (!*operand) return rewriter.notifyMatchFailure(pad, "the pads are not a constant");
      pads = *std::move(operand);
    }
    if (!pads || !std::all_of(pads->begin(), pads->end(), [](int64_t p) { return p == 0; })) {
      return rewriter.notifyMatchFailure(pad, "it pads (or crops) something");
    }
    return forwardOperand(pad, *data, rewriter);
  }
};

class EliminateNopPad final : public PatternPass {
 public:
  EliminateNopPad() : PatternPass("eliminate-nop-pad") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardUnpaddedInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopPadPass() { return std::make_unique<EliminateNopPad>(); }

}  // namespace onnxopt
