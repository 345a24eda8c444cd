// fuse-add-bias-into-gemm: Y = Add(Gemm(A, B), c) or Sum(Gemm(A, B), c), either operand order,
// becomes Y = Gemm(A, B, c) when the Gemm has no C of its own, alpha is 1, and c broadcasts
// unidirectionally to the Gemm's [M, N] (so that Y keeps that shape). ONNX Runtime's
// GemmSumFusion does it for Sum. Gemm's C is optional from opset 11, so the pattern starts there;
// Add and Sum broadcast as numpy does at every opset from 11. With alpha 1 the fused Gemm adds c
// to the same product the unfused one rounds, once either way; another alpha is declined (a
// kernel may fuse alpha * AB + c into one rounding). See docs/passes/fuse-add-bias-into-gemm.md.

#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

// A Gemm without C: A and B, and maybe an empty third input.
bool hasNoC(const ir::Node& gemm) {
  return gemm.input(0) != nullptr && gemm.input(1) != nullptr &&
         (gemm.numInputs() == 2 || (gemm.numInputs() == 3 && gemm.input(2) == nullptr));
}

class FoldBiasIntoGemm final : public RewritePattern {
 public:
  explicit FoldBiasIntoGemm(const std::string& op_type)
      : RewritePattern(absl::StrCat("fold-", op_type, "-into-gemm-c"), {op_type, 11}) {}

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    if (root.numInputs() != 2 || root.numOutputs() != 1 || root.output(0) == nullptr) {
      return failure();
    }
    for (size_t i = 0; i < 2; ++i) {
      const ir::Node* gemm = producerOf(root.input(i), "Gemm");
      ir::Value* bias = root.input(1 - i);
      if (gemm == nullptr || bias == nullptr) continue;
      absl::StatusOr<bool> folded = tryFold(root, *gemm, *bias, rewriter);
      if (!folded.ok()) return rewriter.emitError(*gemm, folded.status());
      if (*folded) return success();
    }
    return failure();
  }

 private:
  // Whether it folded; an error for a malformed Gemm.
  static absl::StatusOr<bool> tryFold(const ir::Node& root, const ir::Node& gemm, ir::Value& bias,
                                      PatternRewriter& rewriter) {
    auto decline = [&](absl::string_view reason) {
      // tryFold's bool, not this LogicalResult, tells the caller it declined.
      static_cast<void>(rewriter.notifyMatchFailure(
          root, [&] { return absl::StrCat("with Gemm '", gemm.name(), "': ", reason); }));
      return false;
    };
    if (gemm.graph() != root.graph()) return decline("the Gemm is in an enclosing graph");
    if (!hasNoC(gemm) || gemm.numOutputs() != 1) return decline("the Gemm has a C already");
    if (&bias == gemm.output(0)) return decline("the bias is the Gemm's own result");
    if (absl::Status checked = checkAttributes(gemm); !checked.ok()) return checked;
    absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(gemm);
    if (!attributes.ok()) return attributes.status();
    if (attributes->alpha != 1.0f) {
      return decline(absl::StrCat("alpha is ", attributes->alpha, ", not 1"));
    }

    ShapeOracle& shapes = rewriter.shapes();
    const std::optional<ir::Shape>& product = shapes.inferredTypeOf(*gemm.output(0)).shape();
    const std::optional<ir::Shape>& bias_shape = shapes.inferredTypeOf(bias).shape();
    if (!product || product->size() != 2 || !bias_shape) {
      return decline("the shapes of the product or the bias are not known");
    }
    if (!broadcastsUnidirectionally(*bias_shape, *product)) {
      return decline(absl::StrCat("the bias ", shapeText(*bias_shape),
                                  " does not provably broadcast to the product ",
                                  shapeText(*product), " without changing it"));
    }

    if (failed(rewriter.match(root, {&gemm}))) return false;
    ir::Node* fused = rewriter.replaceRootWithNewNode("Gemm", {gemm.input(0), gemm.input(1), &bias},
                                                      "", gemm.name());
    // Without C the Gemm ignored beta; with it, beta must be 1.
    rewriter.copyAttrs(gemm, *fused, {"beta"});
    return true;
  }
};

class FuseAddBiasIntoGemm final : public PatternPass {
 public:
  FuseAddBiasIntoGemm() : PatternPass("fuse-add-bias-into-gemm") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldBiasIntoGemm>("Add");
    patterns.add<FoldBiasIntoGemm>("Sum");
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseAddBiasIntoGemmPass() {
  return std::make_unique<FuseAddBiasIntoGemm>();
}

}  // namespace onnxopt
