// fuse-gelu: the GELU formulas written out elementwise become one Gelu (opset 20):
//   x * 0.5 * (1 + Erf(x / sqrt(2)))                                  -> Gelu(x)
//   x * 0.5 * (1 + Tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))           -> Gelu<approximate="tanh">(x)
// The product in any grouping and operand order (0.5 may also be a Div by 2), x / sqrt(2) also
// as x * (1/sqrt(2)), x^3 as Pow(x, 3), x * (x * x) or (x * x) * x. Constants have one element
// and are near the formula's values (activation_fusion::isNear); no intermediate has another
// reader. See docs/passes/fuse-gelu.md.

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
using activation_fusion::ThreeFactors;
using onnx::TensorProto;

constexpr double kSqrt2 = 1.41421356237309504880;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kCubeCoefficient = 0.044715;  // the formula's own constant, not an approximation

// Gelu-20's type constraint T.
constexpr int32_t kGeluTypes[] = {TensorProto::FLOAT16, TensorProto::FLOAT, TensorProto::DOUBLE,
                                  TensorProto::BFLOAT16};
// The tanh form without double: ONNX Runtime 1.30's double Gelu<approximate = "tanh"> computes
// to float precision (relative errors up to 6e-8 against the formula in double, which its
// written-out ops compute exactly), so fusing would change a double model's outputs.
constexpr int32_t kGeluTanhTypes[] = {TensorProto::FLOAT16, TensorProto::FLOAT,
                                      TensorProto::BFLOAT16};

// Whether `v` is x^3: Pow(x, 3) (exactly 3: a negative base to any other power is NaN),
// x * (x * x) or (x * x) * x.
bool isCubeOf(ChainMatcher& m, const ir::Value* v, const ir::Value* x) {
  if (producerOf(v, "Pow") != nullptr) {
    const ir::Node* pow = m.absorb(v, "Pow", "x^3");
    if (pow == nullptr) return false;
    if (pow->input(0) != x) {
      m.fail("the Pow's base is not x");
      return false;
    }
    const std::optional<double> exponent =
        m.constantValue(pow->input(1), "the Pow's exponent", /*same_type_as_input=*/false);
    if (!exponent) return false;
    if (*exponent != 3) {
      m.fail(absl::StrCat("the Pow's exponent is ", *exponent, ", not 3"));
      return false;
    }
    return true;
  }
  const ir::Node* outer = m.absorb(v, "Mul", "x^3");
  if (outer == nullptr) return false;
  for (size_t i : {size_t{0}, size_t{1}}) {
    if (outer->input(1 - i) != x) continue;
    const ir::Node* square = producerOf(outer->input(i), "Mul");
    if (square == nullptr || square->input(0) != x || square->input(1) != x) continue;
    return m.absorb(outer->input(i), "Mul", "x * x") != nullptr;
  }
  m.fail("x^3 is not Pow(x, 3), x * (x * x) or (x * x) * x of the same x");
  return false;
}

// Whether `v` is x / sqrt(2) or x * (1/sqrt(2)).
bool isInputOverSqrt2(ChainMatcher& m, const ir::Value* v, const ir::Value* x) {
  const bool divides = producerOf(v, "Div") != nullptr;
  const ir::Node* scale = m.absorb(v, divides ? "Div" : "Mul", "the Erf's operand");
  if (scale == nullptr) return false;
  const ir::Value* scaled =
      divides ? m.otherThanConstantNear(*scale, kSqrt2, "the Erf's divisor", /*either_order=*/false)
              : m.otherThanConstantNear(*scale, 1 / kSqrt2, "the Erf's scale");
  if (scaled == nullptr) return false;
  if (scaled != x) {
    m.fail("the Erf's operand scales another value than the product's x");
    return false;
  }
  return true;
}

// Whether `v` is sqrt(2/pi) * (x + 0.044715 * x^3).
bool isTanhOperand(ChainMatcher& m, const ir::Value* v, const ir::Value* x) {
  const ir::Node* scale = m.absorb(v, "Mul", "the Tanh's operand");
  if (scale == nullptr) return false;
  const ir::Value* sum = m.otherThanConstantNear(*scale, kSqrt2OverPi, "the Tanh's scale");
  if (sum == nullptr) return false;
  const ir::Node* add = m.absorb(sum, "Add", "x + 0.044715 * x^3");
  if (add == nullptr) return false;
  const ir::Value* term = add->input(0) == x ? add->input(1)
                          : add->input(1) == x ? add->input(0)
                                               : nullptr;
  if (term == nullptr) {
    m.fail("x + 0.044715 * x^3 does not add the product's x");
    return false;
  }
  const ir::Node* scaled_cube = m.absorb(term, "Mul", "0.044715 * x^3");
  if (scaled_cube == nullptr) return false;
  const ir::Value* cube = m.otherThanConstantNear(*scaled_cube, kCubeCoefficient, "the x^3 coefficient");
  return cube != nullptr && isCubeOf(m, cube, x);
}

class FuseGeluPattern final : public RewritePattern {
 public:
  // Rooted at the Mul or the Div (by 2) that ends the product. Gelu is new in opset 20, and none
  // of Mul, Div, Add (14), Erf, Tanh (13) and Pow (15) has a newer version up to 23.
  explicit FuseGeluPattern(const std::string& op_type)
      : RewritePattern(absl::StrCat("fuse-gelu-", op_type), {op_type, 20}) {
    // The tanh form: Mul, Add, Tanh, Mul, Add, Mul, Pow up to the x * x of a cube.
    setMatchDepth(8);
  }

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    ChainMatcher m(rewriter);
    bool candidate = false;
    for (const ThreeFactors& reading : activation_fusion::threeFactorReadings(root)) {
      for (size_t phi = 0; phi < 3; ++phi) {
        // The factor 1 + Erf(...) or 1 + Tanh(...): a candidate from here on.
        const ir::Node* add = producerOf(reading.factors[phi].value, "Add");
        if (add == nullptr || add->numInputs() != 2) continue;
        std::optional<size_t> curve;
        bool tanh = false;
        for (size_t i : {size_t{0}, size_t{1}}) {
          if (curve) break;
          if (producerOf(add->input(i), "Erf") != nullptr) curve = i;
          if (producerOf(add->input(i), "Tanh") != nullptr) curve = i, tanh = true;
        }
        if (!curve) continue;
        candidate = true;
        const ChainMatcher::Mark before = m.mark();
        ir::Value* x = matchReading(m, reading, phi, *add, *curve, tanh);
        if (m.hasError()) return m.decline(root);
        if (x != nullptr) {
          if (failed(rewriter.match(root, m.absorbed()))) return failure();
          ir::Node* gelu = rewriter.replaceRootWithNewNode("Gelu", {x});
          if (tanh) rewriter.setAttr(*gelu, ir::Attribute::makeString("approximate", "tanh"));
          return success();
        }
        m.rewind(before);
      }
    }
    if (!candidate) return failure();
    return m.decline(root);
  }

 private:
  // x, when the reading is x * 0.5 * (1 + curve) with factor `phi` the Add `add` whose operand
  // `curve` is the Erf or Tanh; null otherwise (reasons recorded).
  static ir::Value* matchReading(ChainMatcher& m, const ThreeFactors& reading, size_t phi,
                                 const ir::Node& add, size_t curve, bool tanh) {
    if (reading.factors[phi].divides) {
      m.fail("1 + erf divides the product");
      return nullptr;
    }
    m.absorbNode(*reading.inner);
    if (m.absorb(reading.factors[phi].value, "Add", "1 + erf") == nullptr) return nullptr;
    if (!m.constantNear(add.input(1 - curve), 1, "the addend of the Erf or Tanh")) return nullptr;
    const ir::Node* erf_or_tanh =
        m.absorb(add.input(curve), tanh ? "Tanh" : "Erf", "the curve");
    if (erf_or_tanh == nullptr) return nullptr;

    ir::Value* x = activation_fusion::inputBesideConstantFactor(m, reading, phi, 0.5, 2, "0.5");
    if (x == nullptr) return nullptr;
    const bool curve_matches = tanh ? isTanhOperand(m, erf_or_tanh->input(0), x)
                                    : isInputOverSqrt2(m, erf_or_tanh->input(0), x);
    if (!curve_matches) return nullptr;
    if (tanh ? !m.finish(*x, kGeluTanhTypes, "Gelu<approximate = \"tanh\">")
             : !m.finish(*x, kGeluTypes, "Gelu")) {
      return nullptr;
    }
    return x;
  }
};

class FuseGelu final : public PatternPass {
 public:
  FuseGelu() : PatternPass("fuse-gelu") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseGeluPattern>("Mul");
    patterns.add<FuseGeluPattern>("Div");
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseGeluPass() { return std::make_unique<FuseGelu>(); }

}  // namespace onnxopt
