// fuse-hardsigmoid: Clip(x + 3, 0, 6) / 6 (or * (1/6), the Clip also as torch's
// Clip(Relu(x + 3), 0, 6)) becomes HardSigmoid<alpha=1/6, beta=0.5>(x), and
// Clip(x * alpha + beta, 0, 1) becomes HardSigmoid<alpha, beta>(x), from opset 7. Equal in exact
// arithmetic; in floating point the last bits may differ (x/6 + 0.5 is not (x + 3) / 6 rounded).
// See docs/passes/fuse-hardsigmoid.md.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "activation_fusion.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

using activation_fusion::ChainMatcher;
using onnx::TensorProto;

// HardSigmoid-6 also allows double, and HardSigmoid-22 bfloat16, but ONNX Runtime (1.30, CPU)
// runs neither (no double kernel; bfloat16 untested), and alpha and beta are float attributes,
// which would round a double's constants.
constexpr int32_t kHardSigmoidTypes[] = {TensorProto::FLOAT, TensorProto::FLOAT16};

// HardSigmoid is the same function from 6 to 22. Before 7, Add, Mul and Div broadcast only
// under their legacy `broadcast` attribute (and ONNX Runtime runs no Add-6): from 7, where
// numpy broadcasting begins. Clip takes its bounds as attributes up to 10, as operands from 11
// (activation_fusion::clipBoundsNear).
constexpr int64_t kFirstOpset = 7;

void replaceWithHardSigmoid(PatternRewriter& rewriter, ir::Value* x, float alpha, float beta) {
  ir::Node* hard_sigmoid = rewriter.replaceRootWithNewNode("HardSigmoid", {x});
  rewriter.setAttr(*hard_sigmoid, ir::Attribute::makeFloat("alpha", alpha));
  rewriter.setAttr(*hard_sigmoid, ir::Attribute::makeFloat("beta", beta));
}

// Rooted at the Div (by 6) or the Mul (by 1/6) of Clip(x + 3, 0, 6).
class FuseScaledRelu6 final : public RewritePattern {
 public:
  explicit FuseScaledRelu6(const std::string& op_type)
      : RewritePattern(absl::StrCat("fuse-scaled-relu6-", op_type), {op_type, kFirstOpset}) {
    setMatchDepth(4);  // Clip, Relu, Add up to x
  }

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    if (root.numInputs() != 2) return failure();
    const bool divides = root.opType() == "Div";
    std::optional<size_t> clip_index;
    for (size_t i : {size_t{0}, size_t{1}}) {
      if (divides && i == 1) break;  // 6 / Clip(...) is no HardSigmoid
      if (producerOf(root.input(i), "Clip") != nullptr) {
        clip_index = i;
        break;
      }
    }
    if (!clip_index) return failure();
    ChainMatcher m(rewriter);
    ir::Value* x = activation_fusion::relu6OfInputPlus3(m, root.input(*clip_index));
    if (x == nullptr ||
        !m.constantNear(root.input(1 - *clip_index), divides ? 6 : 1.0 / 6,
                        divides ? "the divisor" : "the scale") ||
        !m.finish(*x, kHardSigmoidTypes, "HardSigmoid")) {
      return m.decline(root);
    }
    if (failed(rewriter.match(root, m.absorbed()))) return failure();
    replaceWithHardSigmoid(rewriter, x, 1.0f / 6, 0.5f);
    return success();
  }
};

// Rooted at the Clip of Clip(x * alpha + beta, 0, 1).
class FuseClippedAffine final : public RewritePattern {
 public:
  FuseClippedAffine() : RewritePattern("fuse-clipped-affine", {"Clip", kFirstOpset}) {
    setMatchDepth(3);  // Add, Mul up to x
  }

  LogicalResult matchAndRewrite(const ir::Node& clip, PatternRewriter& rewriter) const override {
    const ir::Node* add = producerOf(clip.input(0), "Add");
    if (add == nullptr || add->numInputs() != 2) return failure();
    ChainMatcher m(rewriter);
    if (!activation_fusion::clipBoundsNear(m, clip, 0, 1)) return m.decline(clip);
    if (m.absorb(clip.input(0), "Add", "the Clip's input") == nullptr) return m.decline(clip);
    for (size_t beta_index : {size_t{1}, size_t{0}}) {
      const ChainMatcher::Mark before = m.mark();
      if (producerOf(add->input(1 - beta_index), "Mul") == nullptr ||
          !isConstant(*add->input(beta_index))) {
        continue;
      }
      const std::optional<double> beta = m.constantValue(add->input(beta_index), "beta");
      const ir::Node* mul =
          beta ? m.absorb(add->input(1 - beta_index), "Mul", "the Add's other operand") : nullptr;
      if (mul != nullptr && mul->numInputs() == 2) {
        for (size_t alpha_index : {size_t{1}, size_t{0}}) {
          if (!isConstant(*mul->input(alpha_index))) continue;
          const ChainMatcher::Mark before_alpha = m.mark();
          const std::optional<double> alpha = m.constantValue(mul->input(alpha_index), "alpha");
          ir::Value* x = mul->input(1 - alpha_index);
          if (alpha && x != nullptr && m.finish(*x, kHardSigmoidTypes, "HardSigmoid")) {
            if (failed(rewriter.match(clip, m.absorbed()))) return failure();
            // Exact: the constants are float or float16 (finish()).
            replaceWithHardSigmoid(rewriter, x, static_cast<float>(*alpha),
                                   static_cast<float>(*beta));
            return success();
          }
          m.rewind(before_alpha);
        }
        m.fail("the Mul has no constant operand alpha");
      }
      if (m.hasError()) break;
      m.rewind(before);
    }
    m.fail("the Clip's input is not x * alpha + beta with constant alpha and beta");
    return m.decline(clip);
  }
};

class FuseHardsigmoid final : public PatternPass {
 public:
  FuseHardsigmoid() : PatternPass("fuse-hardsigmoid") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseScaledRelu6>("Div");
    patterns.add<FuseScaledRelu6>("Mul");
    patterns.add<FuseClippedAffine>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseHardsigmoidPass() { return std::make_unique<FuseHardsigmoid>(); }

}  // namespace onnxopt
