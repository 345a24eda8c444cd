// fuse-add-bias-into-conv: Y = Add(Conv(x, W[, b]), B), or Add(B, Conv(...)), with B a constant
// that provably varies per output channel only ([1,C,1,1], [C,1,1], all ones; never [C] against
// a rank-4 output, which broadcasts along the last axis), becomes Y = Conv(x, W, b + B); the same
// for ConvTranspose. Computed in double and rounded once to the weight's type.
// See docs/passes/fuse-add-bias-into-conv.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "conv_fusion.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

using conv_fusion::FusableConv;

class FoldAddIntoConvBias final : public RewritePattern {
 public:
  // Add 7, 13, 14 broadcast as numpy does (before 7: a `broadcast` attribute, not handled).
  FoldAddIntoConvBias() : RewritePattern("fold-add-into-conv-bias", {"Add", 7}) {}

  LogicalResult matchAndRewrite(const ir::Node& add, PatternRewriter& rewriter) const override {
    conv_fusion::ConvWithChannelConstant operands;
    if (failed(conv_fusion::readConvWithChannelConstant(add, rewriter, &operands))) return failure();
    const FusableConv& fusable = operands.conv;
    std::vector<double> bias = std::move(operands.per_channel);
    if (fusable.bias) {
      for (size_t c = 0; c < bias.size(); ++c) bias[c] += (*fusable.bias)[c];
    }
    if (!conv_fusion::roundsFinite(fusable.elem_type, bias)) {
      return rewriter.notifyMatchFailure(add, [&] {
        return absl::StrCat("the summed bias overflows ", ir::elemTypeName(fusable.elem_type));
      });
    }
    if (!rewriter.canReplaceAllUsesWith(*add.output(0), *fusable.node->output(0))) {
      return rewriter.notifyMatchFailure(add, "the Conv's output cannot take the place of the sum");
    }
    if (failed(rewriter.match(add, {fusable.node}))) return failure();
    conv_fusion::rewriteConv(add, fusable, std::nullopt, &bias, rewriter);
    return success();
  }
};

class FuseAddBiasIntoConv final : public PatternPass {
 public:
  FuseAddBiasIntoConv() : PatternPass("fuse-add-bias-into-conv") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldAddIntoConvBias>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseAddBiasIntoConvPass() {
  return std::make_unique<FuseAddBiasIntoConv>();
}

}  // namespace onnxopt
