#pragma once

// What fuse-bn-into-conv and fuse-bn-into-gemm share: whether a BatchNormalization normalizes
// with its constant statistics (inference form), and its per-channel scale and shift read from
// them. Header-only: passes/CMakeLists.txt compiles every .cc here as a pass.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt::batch_norm_fusion {

// Why the BatchNormalization does not normalize with its `mean` and `var` inputs, producing Y
// only; "" when it does. An error for a malformed node.
inline absl::StatusOr<std::string> whyNotInference(const ir::Node& bn, int64_t opset) {
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

// An inference BatchNormalization as Y = (X - mean) * s + B per channel, s = scale /
// sqrt(var + epsilon), in double.
struct ChannelAffine {
  std::vector<double> s;
  std::vector<double> mean;
  std::vector<double> shift;  // B

  // The shift that makes a producer's per-channel `prior` bias give Y.
  double biasAfter(size_t c, double prior) const { return (prior - mean[c]) * s[c] + shift[c]; }
};

// Checks that `bn` is an inference BatchNormalization with five inputs and reads its epsilon
// (1e-5 by default in every version). Declines with a reason; an error for a malformed node.
inline LogicalResult readInferenceForm(const ir::Node& bn, PatternRewriter& rewriter, float* epsilon) {
  if (bn.numInputs() != 5) return rewriter.notifyMatchFailure(bn, "not five inputs");
  const int64_t opset = rewriter.opsetVersion(bn).value_or(0);
  absl::StatusOr<std::string> why_not = whyNotInference(bn, opset);
  if (!why_not.ok()) return rewriter.emitError(bn, why_not.status());
  if (!why_not->empty()) return rewriter.notifyMatchFailure(bn, *why_not);
  absl::StatusOr<float> value = getFloatOr(bn, "epsilon", 1e-5f);
  if (!value.ok()) return rewriter.emitError(bn, value.status());
  *epsilon = *value;
  return success();
}

// Reads scale, B, mean and var, each a constant of [channels], into `out`. Declines when one is
// not, or when some s is not finite (var + epsilon <= 0): an infinite weight would meet the
// producer's zeros as Inf * 0 = NaN, where the unfused model's numbers differ.
inline LogicalResult readChannelAffine(const ir::Node& bn, int64_t channels, float epsilon,
                                       PatternRewriter& rewriter, ChannelAffine* out) {
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
        return absl::StrCat("'", input->name(), "' is not a readable [", channels, "] for the ", channels,
                            " channels of its producer");
      });
    }
    params[i] = std::move(*values);
  }
  out->s.resize(static_cast<size_t>(channels));
  for (size_t c = 0; c < out->s.size(); ++c) {
    out->s[c] = params[0][c] / std::sqrt(params[3][c] + static_cast<double>(epsilon));
    if (!std::isfinite(out->s[c])) {
      return rewriter.notifyMatchFailure(bn, absl::StrCat("channel ", c, " has a scale that is not finite"));
    }
  }
  out->shift = std::move(params[1]);
  out->mean = std::move(params[2]);
  return success();
}

}  // namespace onnxopt::batch_norm_fusion
