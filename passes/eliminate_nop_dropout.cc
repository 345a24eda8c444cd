// eliminate-nop-dropout: an inference Dropout's output is its input, so its readers read the
// input. Inference is: `is_test` set before opset 7, always from 7 to 11, and from 12 a
// `training_mode` that is absent or a constant false (the ratio then does not matter). From 12 a
// training Dropout of a constant ratio of 0 drops nothing and scales by 1: its output is its input
// too, and its mask all true (torchvision's Swin exports one per attention). A used mask
// is replaced only from opset 12, by ConstantOfShape(true) of the input's fully known shape: ONNX
// Runtime returns all-false masks for opsets 7 to 11 (zeros of T before 10), which the spec does
// not define, so there the pass declines. Graph outputs the input may not become (a main-graph
// output of a graph input, a body output of an outer value) get an Identity of the input
// instead, so no inference Dropout stays. See docs/passes/eliminate-nop-dropout.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

constexpr int64_t kFirstOpsetWithTrainingMode = 12;

// Whether the ratio input is a constant 0 (from opset 12): a training Dropout then drops nothing.
// An error for a malformed constant.
absl::StatusOr<bool> hasRatioZero(const ir::Node& dropout) {
  const ir::Value* ratio = dropout.input(1);
  if (ratio == nullptr) return false;  // 0.5 by default
  absl::StatusOr<std::optional<double>> value = readConstantScalar(*ratio);
  if (!value.ok()) return value.status();
  return *value == 0.0;
}

// Whether the Dropout's output is its input (it runs in inference mode, or drops nothing): ""
// when it is, the reason otherwise. An error for a malformed node.
absl::StatusOr<std::string> whyNotIdentity(const ir::Node& dropout, int64_t opset) {
  if (opset < 7) {
    absl::StatusOr<int64_t> is_test = getIntOr(dropout, "is_test", 0);
    if (!is_test.ok()) return is_test.status();
    return std::string(*is_test != 0 ? "" : "is_test is not set: the Dropout trains");
  }
  if (opset < kFirstOpsetWithTrainingMode) return std::string();
  const ir::Value* training_mode = dropout.input(2);
  if (training_mode == nullptr) return std::string();
  absl::StatusOr<bool> ratio_zero = hasRatioZero(dropout);
  if (!ratio_zero.ok()) return ratio_zero.status();
  if (*ratio_zero) return std::string();
  absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*training_mode);
  if (!constant.ok()) return constant.status();
  if (!*constant) return absl::StrCat("training_mode '", training_mode->name(), "' is not a constant");
  const std::optional<std::vector<int64_t>> values = (*constant)->asInts();
  if ((*constant)->elemType() != onnx::TensorProto::BOOL || !values || values->size() != 1) {
    return absl::StrCat("training_mode '", training_mode->name(), "' is not one bool");
  }
  return std::string((*values)[0] == 0 ? "" : "training_mode is true and the ratio not a constant 0");
}

onnx::TensorProto oneElementTrue() {
  return makeTensor(onnx::TensorProto::BOOL, {1}, std::string(1, '\1'));
}

class RemoveInferenceDropout final : public RewritePattern {
 public:
  RemoveInferenceDropout() : RewritePattern("remove-inference-dropout", {"Dropout", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& dropout, PatternRewriter& rewriter) const override {
    ir::Value* input = dropout.input(0);
    const ir::Value* output = dropout.output(0);
    if (input == nullptr || output == nullptr) return failure();
    const int64_t opset = rewriter.opsetVersion(dropout).value_or(0);
    absl::StatusOr<std::string> why_not = whyNotIdentity(dropout, opset);
    if (!why_not.ok()) return rewriter.emitError(dropout, why_not.status());
    if (!why_not->empty()) return rewriter.notifyMatchFailure(dropout, *why_not);

    const ir::Value* mask = dropout.output(1);
    const bool mask_used = mask != nullptr && mask->hasUses();
    std::optional<std::vector<int64_t>> mask_dims;
    if (mask_used) {
      if (opset < kFirstOpsetWithTrainingMode) {
        return rewriter.notifyMatchFailure(
            dropout, "the mask is read, and before opset 12 its inference value is not defined "
                     "(ONNX Runtime returns all false)");
      }
      // The all-true mask takes the shape as a constant: what the graph computes, as shape
      // folding believes it, not a declaration that may be stale.
      const std::optional<ir::Shape>& input_shape =
          rewriter.shapes().inferredTypeOf(*input).shape();
      mask_dims = input_shape ? knownSizes(*input_shape) : std::nullopt;
      if (!mask_dims) {
        return rewriter.notifyMatchFailure(dropout, [&] {
          return absl::StrCat("the mask is read, and the input's shape ",
                              shapeText(rewriter.shapes().inferredTypeOf(*input).shape()),
                              " is not fully known from the graph's inputs");
        });
      }
    }
    if (!output->hasUses() && !mask_used) return failure();  // dead: the driver erases it
    if (failed(rewriter.match(dropout))) return failure();
    const bool output_moves = rewriter.canReplaceAnyUseWith(*output, *input);
    const size_t kept = output_moves ? rewriter.replaceUsesWhereAllowed(*output, *input)
                                     : output->uses().size();
    if (kept > 0) {
      // Graph outputs the input may not become: an Identity the rewrite creates may.
      ir::Node* identity = rewriter.createNode("Identity", {input}, {output->name()});
      rewriter.replaceAllUsesWith(*output, *identity->output(0));
    }
    if (mask_used) {
      ir::Value* shape = rewriter.createInitializer(mask->name() + "_shape",
                                                    makeInt64Tensor(*mask_dims));
      ir::Node* all_true = rewriter.createNode("ConstantOfShape", {shape}, {mask->name()});
      rewriter.setAttr(*all_true, ir::Attribute::makeTensor("value", oneElementTrue()));
      rewriter.replaceAllUsesWith(*mask, *all_true->output(0));
    }
    return success();
  }
};

class EliminateNopDropout final : public PatternPass {
 public:
  EliminateNopDropout() : PatternPass("eliminate-nop-dropout") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<RemoveInferenceDropout>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopDropoutPass() {
  return std::make_unique<EliminateNopDropout>();
}

}  // namespace onnxopt
