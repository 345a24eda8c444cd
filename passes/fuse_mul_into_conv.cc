// fuse-mul-into-conv: Y = Mul(Conv(x, W[, b]), S), or Mul(S, Conv(...)), with S a finite constant
// that provably varies per output channel only ([1,C,1,1], [C,1,1], all ones; never [C] against
// a rank-4 output, which broadcasts along the last axis), becomes Y = Conv(x, W * S, b * S) with
// S applied along the output channels; the same for ConvTranspose. Computed in double and
// rounded once to the weight's type. See docs/passes/fuse-mul-into-conv.md.

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

class FoldMulIntoConvWeight final : public RewritePattern {
 public:
  // Mul 7, 13, 14 broadcast as numpy does (before 7: a `broadcast` attribute, not handled).
  FoldMulIntoConvWeight() : RewritePattern("fold-mul-into-conv-weight", {"Mul", 7}) {}

  LogicalResult matchAndRewrite(const ir::Node& mul, PatternRewriter& rewriter) const override {
    conv_fusion::ConvWithChannelConstant operands;
    if (failed(conv_fusion::readConvWithChannelConstant(mul, rewriter, &operands))) return failure();
    const FusableConv& fusable = operands.conv;
    const std::vector<double>& scale = operands.per_channel;
    std::optional<onnx::TensorProto> weight = conv_fusion::scaledWeight(fusable, scale);
    std::optional<std::vector<double>> bias = fusable.bias;
    if (bias) {
      for (size_t c = 0; c < bias->size(); ++c) (*bias)[c] *= scale[c];
    }
    if (!weight || (bias && !conv_fusion::roundsFinite(fusable.elem_type, *bias))) {
      return rewriter.notifyMatchFailure(mul, [&] {
        return absl::StrCat("a scaled weight or bias overflows ", ir::elemTypeName(fusable.elem_type));
      });
    }
    if (!rewriter.canReplaceAllUsesWith(*mul.output(0), *fusable.node->output(0))) {
      return rewriter.notifyMatchFailure(mul, "the Conv's output cannot take the place of the product");
    }
    if (failed(rewriter.match(mul, {fusable.node}))) return failure();
    conv_fusion::rewriteConv(mul, fusable, std::move(weight), bias ? &*bias : nullptr, rewriter);
    return success();
  }
};

class FuseMulIntoConv final : public PatternPass {
 public:
  FuseMulIntoConv() : PatternPass("fuse-mul-into-conv") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldMulIntoConvWeight>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseMulIntoConvPass() { return std::make_unique<FuseMulIntoConv>(); }

}  // namespace onnxopt
