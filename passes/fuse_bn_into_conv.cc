// fuse-bn-into-conv: Y = BatchNormalization(Conv(x, W[, b]), scale, B, mean, var) in inference
// form becomes Y = Conv(x, W', b') with s = scale / sqrt(var + epsilon) per output channel,
// W' = W * s along the output channels and b' = (b - mean) * s + B; the same for ConvTranspose.
// Computed in double and rounded once to the weight's type. See docs/passes/fuse-bn-into-conv.md.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "batch_norm_fusion.h"
#include "conv_fusion.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

using conv_fusion::FusableConv;

class FoldBatchNormIntoConv final : public RewritePattern {
 public:
  // BatchNormalization 1, 6, 7, 9, 14, 15 (none since, through opset 23); Conv and
  // ConvTranspose 1, 11, 22 compute the same sum of weight * input plus bias in each.
  FoldBatchNormIntoConv() : RewritePattern("fold-batch-norm-into-conv", {"BatchNormalization", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& bn, PatternRewriter& rewriter) const override {
    const ir::Node* conv = conv_fusion::convProducerOf(bn.input(0));
    if (conv == nullptr || bn.output(0) == nullptr) return failure();
    float epsilon = 0;
    if (failed(batch_norm_fusion::readInferenceForm(bn, rewriter, &epsilon))) return failure();

    FusableConv fusable;
    if (failed(conv_fusion::readFusableConv(bn, *conv, rewriter, &fusable))) return failure();
    const int64_t channels = fusable.out_channels;
    batch_norm_fusion::ChannelAffine affine;
    if (failed(batch_norm_fusion::readChannelAffine(bn, channels, epsilon, rewriter, &affine))) return failure();

    std::vector<double> bias(static_cast<size_t>(channels));
    for (size_t c = 0; c < bias.size(); ++c) {
      bias[c] = affine.biasAfter(c, fusable.bias ? (*fusable.bias)[c] : 0.0);
      if (!std::isfinite(bias[c])) {
        return rewriter.notifyMatchFailure(bn, absl::StrCat("channel ", c, " has a shift that is not finite"));
      }
    }
    std::optional<onnx::TensorProto> weight = conv_fusion::scaledWeight(fusable, affine.s);
    if (!weight || !conv_fusion::roundsFinite(fusable.elem_type, bias)) {
      return rewriter.notifyMatchFailure(bn, [&] {
        return absl::StrCat("a fused weight or bias overflows ", ir::elemTypeName(fusable.elem_type));
      });
    }
    if (!rewriter.canReplaceAllUsesWith(*bn.output(0), *conv->output(0))) {
      return rewriter.notifyMatchFailure(bn, "the Conv's output cannot take the place of Y");
    }
    if (failed(rewriter.match(bn, {conv}))) return failure();

    conv_fusion::rewriteConv(bn, fusable, std::move(weight), &bias, rewriter);
    return success();
  }
};

class FuseBnIntoConv final : public PatternPass {
 public:
  FuseBnIntoConv() : PatternPass("fuse-bn-into-conv") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldBatchNormIntoConv>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseBnIntoConvPass() { return std::make_unique<FuseBnIntoConv>(); }

}  // namespace onnxopt
