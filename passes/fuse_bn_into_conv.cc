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
#include "conv_fusion.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

using conv_fusion::FusableConv;

// Why the BatchNormalization does not normalize with its `mean` and `var` inputs, producing Y
// only; "" when it does. An error for a malformed node.
absl::StatusOr<std::string> whyNotInference(const ir::Node& bn, int64_t opset) {
  // Before opset 14 ONNX Runtime computes batch statistics (training) whenever the node has
  // more than one output, read or not; from 14 the extra outputs exist in training mode only.
  for (size_t i = 1; i < bn.numOutputs(); ++i) {
    if (bn.output(i) != nullptr) {
      return absl::StrCat("output ", i, " '", bn.output(i)->name(), "' exists: training form");
    }
  }
  if (opset < 7) {
    absl::StatusOr<int64_t> is_test = getIntOr(bn, "is_test", 0);
    if (!is_test.ok()) return is_test.status();
    if (*is_test == 0) return std::string("is_test is not set: the node trains");
  }
  if (opset < 9) {
    // spatial=0 normalizes each (channel, position) with its own statistics.
    absl::StatusOr<int64_t> spatial = getIntOr(bn, "spatial", 1);
    if (!spatial.ok()) return spatial.status();
    if (*spatial != 1) return std::string("spatial is not 1: statistics per position");
  }
  if (opset >= 14) {
    absl::StatusOr<int64_t> training_mode = getIntOr(bn, "training_mode", 0);
    if (!training_mode.ok()) return training_mode.status();
    if (*training_mode != 0) return std::string("training_mode is set");
  }
  return std::string();
}

class FoldBatchNormIntoConv final : public RewritePattern {
 public:
  // BatchNormalization 1, 6, 7, 9, 14, 15 (none since, through opset 23); Conv and
  // ConvTranspose 1, 11, 22 compute the same sum of weight * input plus bias in each.
  FoldBatchNormIntoConv() : RewritePattern("fold-batch-norm-into-conv", {"BatchNormalization", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& bn, PatternRewriter& rewriter) const override {
    const ir::Node* conv = conv_fusion::convProducerOf(bn.input(0));
    if (conv == nullptr || bn.output(0) == nullptr) return failure();
    if (bn.numInputs() != 5) return rewriter.notifyMatchFailure(bn, "not five inputs");
    const int64_t opset = rewriter.opsetVersion(bn).value_or(0);
    absl::StatusOr<std::string> why_not = whyNotInference(bn, opset);
    if (!why_not.ok()) return rewriter.emitError(bn, why_not.status());
    if (!why_not->empty()) return rewriter.notifyMatchFailure(bn, *why_not);
    absl::StatusOr<float> epsilon = getFloatOr(bn, "epsilon", 1e-5f);
    if (!epsilon.ok()) return rewriter.emitError(bn, epsilon.status());

    FusableConv fusable;
    if (failed(conv_fusion::readFusableConv(bn, *conv, rewriter, &fusable))) return failure();
    const int64_t channels = fusable.out_channels;

    // scale, B, mean, var: each a constant of [channels].
    std::vector<double> params[4];
    for (size_t i = 0; i < 4; ++i) {
      const ir::Value* input = bn.input(i + 1);
      if (input == nullptr) return rewriter.notifyMatchFailure(bn, absl::StrCat("input ", i + 1, " is missing"));
      absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*input);
      if (!constant.ok()) return rewriter.emitError(bn, constant.status());
      if (!*constant) {
        return rewriter.notifyMatchFailure(bn, [&] { return absl::StrCat("'", input->name(), "' is not a constant"); });
      }
      std::optional<std::vector<double>> values = (*constant)->asDoubles();
      if ((*constant)->rank() != 1 || (*constant)->dims()[0] != channels || !values) {
        return rewriter.notifyMatchFailure(bn, [&] {
          return absl::StrCat("'", input->name(), "' is not a readable [", channels,
                              "] for the Conv's ", channels, " output channels");
        });
      }
      params[i] = std::move(*values);
    }
    const std::vector<double>& scale = params[0];
    const std::vector<double>& shift = params[1];
    const std::vector<double>& mean = params[2];
    const std::vector<double>& var = params[3];

    std::vector<double> s(static_cast<size_t>(channels));
    std::vector<double> bias(static_cast<size_t>(channels));
    for (size_t c = 0; c < s.size(); ++c) {
      s[c] = scale[c] / std::sqrt(var[c] + static_cast<double>(*epsilon));
      const double conv_bias = fusable.bias ? (*fusable.bias)[c] : 0.0;
      bias[c] = (conv_bias - mean[c]) * s[c] + shift[c];
      // Inf or NaN folded into the weight would meet the Conv's zeros (padding, zero inputs) as
      // Inf * 0 = NaN, where the unfused model's numbers differ.
      if (!std::isfinite(s[c]) || !std::isfinite(bias[c])) {
        return rewriter.notifyMatchFailure(bn, absl::StrCat("channel ", c, " has a scale or shift that is not finite"));
      }
    }
    if (!rewriter.canReplaceAllUsesWith(*bn.output(0), *conv->output(0))) {
      return rewriter.notifyMatchFailure(bn, "the Conv's output cannot take the place of Y");
    }
    if (failed(rewriter.match(bn, {conv}))) return failure();

    std::vector<double> weight = std::move(fusable.weight);
    for (size_t e = 0; e < weight.size(); ++e) {
      weight[e] *= s[static_cast<size_t>(fusable.outputChannelOf(static_cast<int64_t>(e)))];
    }
    conv_fusion::rewriteConv(bn, fusable, &weight, &bias, rewriter);
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
