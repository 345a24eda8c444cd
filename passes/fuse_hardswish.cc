// fuse-hardswish: x * HardSigmoid<alpha=1/6, beta=0.5>(x), and x * Clip(x + 3, 0, 6) / 6 written
// out (in any grouping and operand order, / 6 also as * (1/6), the Clip also as torch's
// Clip(Relu(x + 3), 0, 6)), become HardSwish(x) (opset 14). See docs/passes/fuse-hardswish.md.

#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "activation_fusion.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

using activation_fusion::ChainMatcher;
using activation_fusion::ThreeFactors;
using onnx::TensorProto;

// HardSwish-14 also allows double, and HardSwish-22 bfloat16, but ONNX Runtime (1.30, CPU) runs
// neither (no double HardSigmoid kernel; bfloat16 untested): a fusion must not turn a model it
// runs into one it cannot.
constexpr int32_t kHardSwishTypes[] = {TensorProto::FLOAT, TensorProto::FLOAT16};

// HardSwish-14 and -22 compute the same function (22 adds bfloat16); Mul and Div have no newer
// version than 14 up to 23, Clip none than 13, Add none than 14, HardSigmoid the same function
// at 6 and 22.
constexpr int64_t kHardSwishOpset = 14;

class FuseMulOfHardSigmoid final : public RewritePattern {
 public:
  FuseMulOfHardSigmoid() : RewritePattern("fuse-mul-of-hardsigmoid", {"Mul", kHardSwishOpset}) {
    setMatchDepth(2);  // the HardSigmoid and its x
  }

  LogicalResult matchAndRewrite(const ir::Node& mul, PatternRewriter& rewriter) const override {
    if (mul.numInputs() != 2) return failure();
    for (size_t i : {size_t{0}, size_t{1}}) {
      const ir::Node* hard_sigmoid = producerOf(mul.input(i), "HardSigmoid");
      if (hard_sigmoid == nullptr) continue;
      ir::Value* x = mul.input(1 - i);
      if (x == nullptr || hard_sigmoid->input(0) != x) {
        return rewriter.notifyMatchFailure(mul, "the HardSigmoid reads another value than the Mul's other operand");
      }
      absl::StatusOr<float> alpha = getFloatOr(*hard_sigmoid, "alpha", 0.2f);
      if (!alpha.ok()) return rewriter.emitError(*hard_sigmoid, alpha.status());
      absl::StatusOr<float> beta = getFloatOr(*hard_sigmoid, "beta", 0.5f);
      if (!beta.ok()) return rewriter.emitError(*hard_sigmoid, beta.status());
      if (!activation_fusion::isNear(*alpha, 1.0 / 6, TensorProto::FLOAT) ||
          !activation_fusion::isNear(*beta, 0.5, TensorProto::FLOAT)) {
        return rewriter.notifyMatchFailure(mul, [&] {
          return absl::StrCat("the HardSigmoid's alpha, beta are ", *alpha, ", ", *beta,
                              ", not 1/6, 0.5");
        });
      }
      ChainMatcher m(rewriter);
      if (!hasSingleReader(*mul.input(i))) {
        return rewriter.notifyMatchFailure(mul, "the HardSigmoid has another reader");
      }
      if (!m.finish(*x, kHardSwishTypes, "HardSwish")) return m.decline(mul);
      if (failed(rewriter.match(mul, {hard_sigmoid}))) return failure();
      rewriter.replaceRootWithNewNode("HardSwish", {x}, "", hard_sigmoid->name());
      return success();
    }
    return failure();
  }
};

// Rooted at the Mul or the Div that ends x * Clip(x + 3, 0, 6) / 6.
class FuseRelu6Product final : public RewritePattern {
 public:
  explicit FuseRelu6Product(const std::string& op_type)
      : RewritePattern(absl::StrCat("fuse-relu6-product-", op_type), {op_type, kHardSwishOpset}) {
    setMatchDepth(5);  // Mul, Clip, Relu, Add up to x
  }

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    ChainMatcher m(rewriter);
    bool candidate = false;
    for (const ThreeFactors& reading : activation_fusion::threeFactorReadings(root)) {
      for (size_t clip = 0; clip < 3; ++clip) {
        if (producerOf(reading.factors[clip].value, "Clip") == nullptr) continue;
        candidate = true;
        const ChainMatcher::Mark before = m.mark();
        ir::Value* x = matchReading(m, reading, clip);
        if (m.hasError()) return m.decline(root);
        if (x != nullptr) {
          if (failed(rewriter.match(root, m.absorbed()))) return failure();
          rewriter.replaceRootWithNewNode("HardSwish", {x});
          return success();
        }
        m.rewind(before);
      }
    }
    if (!candidate) return failure();
    return m.decline(root);
  }

 private:
  // x, when the reading is x * relu6(x + 3) * (1/6) with factor `clip` the relu6; null
  // otherwise (reasons recorded).
  static ir::Value* matchReading(ChainMatcher& m, const ThreeFactors& reading, size_t clip) {
    if (reading.factors[clip].divides) {
      m.fail("the Clip divides the product");
      return nullptr;
    }
    m.absorbNode(*reading.inner);
    ir::Value* clipped = activation_fusion::relu6OfInputPlus3(m, reading.factors[clip].value);
    if (clipped == nullptr) return nullptr;
    ir::Value* x = activation_fusion::inputBesideConstantFactor(m, reading, clip, 1.0 / 6, 6, "1/6");
    if (x == nullptr) return nullptr;
    if (x != clipped) {
      m.fail("the Clip's input adds 3 to another value than the product's x");
      return nullptr;
    }
    if (!m.finish(*x, kHardSwishTypes, "HardSwish")) return nullptr;
    return x;
  }
};

// An Einsum in an If branch, at any depth, or null. ONNX Runtime (1.30, CPU) has no HardSwish
// kernel: it inlines the definition and infers the model's shapes a second time, and its Einsum
// inference then gives a label the size of the first operand that has it, also a 1 its kernel
// broadcasts; the If preallocates its output from that and fails at run time (docs/limits.md).
const ir::Node* einsumInAnIfBranch(ir::Graph& graph, bool in_branch = false) {
  for (const ir::Node& node : graph) {
    if (in_branch && node.is("Einsum")) return &node;
    for (const ir::Attribute& attribute : node.attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        const bool branch = in_branch || node.is("If");
        if (const ir::Node* einsum = einsumInAnIfBranch(*subgraph, branch)) return einsum;
      }
    }
  }
  return nullptr;
}

class FuseHardswish final : public PatternPass {
 public:
  FuseHardswish() : PatternPass("fuse-hardswish") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    if (model.numGraphs() > 1) {
      if (const ir::Node* einsum = einsumInAnIfBranch(model.graph())) {
        if (context.debugEnabled()) {
          context.debug(absl::StrCat("[fuse-hardswish] declines the model: ", ir::describe(*einsum),
                                     " is in an If branch, which ONNX Runtime fails once a "
                                     "HardSwish makes it infer shapes again"));
        }
        return false;
      }
    }
    return PatternPass::run(model, context);
  }

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseMulOfHardSigmoid>();
    patterns.add<FuseRelu6Product>("Mul");
    patterns.add<FuseRelu6Product>("Div");
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseHardswishPass() { return std::make_unique<FuseHardswish>(); }

}  // namespace onnxopt
