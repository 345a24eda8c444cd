// fuse-layer-norm: the decomposed layer normalization
//   d = Sub(x, ReduceMean(x)); Y = d / Sqrt(ReduceMean(d^2) + eps) [* scale] [+ bias]
// over the last k axes (keepdims=1, the same axes twice), eps a positive constant, becomes
// Y = LayerNormalization<axis = -k, epsilon = eps>(x, scale, bias) at opset 17 and later; a
// Cast to float and back around an fp16/bf16 body becomes the op on the fp16/bf16 value.
// See docs/passes/fuse-layer-norm.md.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "norm_match.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

using norm_match::Verdict;

// A normalization read from its last node, ready to rewrite.
struct LayerNormMatch {
  norm_match::Tail tail;
  norm_match::Core core;
  const ir::Node* center = nullptr;  // Sub(x, mean)
  const ir::Node* mean = nullptr;    // ReduceMean(x)
  int64_t k = 0;                     // normalized trailing axes
  norm_match::FusedOperands operands;
  ir::Value* bias = nullptr;
  std::optional<onnx::TensorProto> bias_tensor;

  std::vector<const ir::Node*> absorbed() const {
    std::vector<const ir::Node*> nodes;
    for (const ir::Node* n : {tail.cast_back, tail.bias_add, tail.scale_mul, core.node, core.reciprocal,
                              core.sqrt, core.add_eps, core.mean, core.square, center, mean}) {
      if (n != nullptr && n != tail.root) nodes.push_back(n);
    }
    return nodes;
  }
};

// Reads the normalization ending at `root`, without changing anything.
Verdict readLayerNorm(const ir::Node& root, PatternRewriter& rewriter, LayerNormMatch* m) {
  *m = LayerNormMatch();
  Verdict v = norm_match::readTail(root, /*allow_bias=*/true, rewriter.shapes(), &m->tail, &m->core);
  if (!v.ok()) return v;
  m->center = producerOf(m->core.numerator, "Sub");
  if (m->center == nullptr || m->center->numInputs() != 2) return Verdict::none();
  ir::Value* x = m->center->input(0);
  m->mean = norm_match::centeringMeanOf(*m->center);
  if (x == nullptr || m->mean == nullptr) {
    return Verdict::decline("the Sub does not subtract the ReduceMean of its first operand from it");
  }
  const std::optional<int64_t> rank = rewriter.shapes().inferredTypeOf(*x).rank();
  const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*x).shape();
  if (!rank || *rank == 0 || !shape) {
    return Verdict::decline(absl::StrCat("the rank of '", x->name(), "' is not known"));
  }
  v = norm_match::readCoreBody(&m->core, *rank);
  if (!v.ok()) return v;
  if (m->core.squared != m->core.numerator) {
    return Verdict::decline("the variance is not the mean of the square of the centered value");
  }
  std::string why;
  absl::StatusOr<int64_t> k_mean = norm_match::trailingAxesOf(*m->mean, *rank, &why);
  if (!k_mean.ok()) return Verdict::fail(k_mean.status());
  if (*k_mean == 0) return Verdict::decline(why);
  absl::StatusOr<int64_t> k_var = norm_match::trailingAxesOf(*m->core.mean, *rank, &why);
  if (!k_var.ok()) return Verdict::fail(k_var.status());
  if (*k_var == 0) return Verdict::decline(why);
  if (*k_mean != *k_var) {
    return Verdict::decline(absl::StrCat("the mean is over the last ", *k_mean, " axes, the variance over the last ",
                                         *k_var));
  }
  m->k = *k_mean;

  v = norm_match::readFusedOperands("LayerNormalization", m->tail, x, *shape, *rank, m->k, rewriter.shapes(),
                                    &m->operands);
  if (!v.ok()) return v;
  if (m->tail.bias != nullptr) {
    const norm_match::FusedOperands& o = m->operands;
    v = norm_match::shapeParameter(*m->tail.bias, "bias", *rank, o.normalized,
                                   m->tail.bias_in_body ? o.body_type : o.out_type, o.out_type, &m->bias_tensor);
    if (!v.ok()) return v;
    if (!m->bias_tensor) m->bias = const_cast<ir::Value*>(m->tail.bias);
  }
  return Verdict::match();
}

class FuseLayerNormAt final : public RewritePattern {
 public:
  // LayerNormalization exists from opset 17 (one version through 23). The ops of the
  // decomposition keep their meaning over 17-23 (Add/Sub/Mul/Div 14, Pow 15, Sqrt and
  // Reciprocal 13, Cast's later versions add types); ReduceMean moves axes to an input at 18.
  explicit FuseLayerNormAt(const char* op)
      : RewritePattern(absl::StrCat("fuse-layer-norm-at-", op), {op, 17}) {
    // Mul (scale), Div, Sqrt, Add (eps), ReduceMean, Pow, Sub, ReduceMean, and a Cast pair.
    setMatchDepth(10);
  }

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    LayerNormMatch m;
    Verdict v = readLayerNorm(root, rewriter, &m);
    if (!v.ok()) return norm_match::report(root, v, rewriter);
    if (failed(norm_match::endsLongestMatch(root, m, rewriter, readLayerNorm, {"Mul", "Add", "Cast"}))) return failure();
    if (failed(rewriter.match(root, m.absorbed()))) return failure();
    ir::Value* scale = norm_match::fusedScale(m.operands, m.tail, "ln", rewriter);
    ir::Value* bias = m.bias;
    if (bias == nullptr && m.bias_tensor) {
      bias = rewriter.createInitializer(absl::StrCat(m.tail.bias->name(), "_ln"), std::move(*m.bias_tensor));
    }
    std::vector<ir::Value*> inputs = {m.operands.input, scale};
    if (bias != nullptr) inputs.push_back(bias);
    ir::Node* fused = rewriter.replaceRootWithNewNode("LayerNormalization", inputs);
    norm_match::setNormAttributes(rewriter, *fused, m.k, m.core.epsilon);
    return success();
  }
};

class FuseLayerNorm final : public PatternPass {
 public:
  FuseLayerNorm() : PatternPass("fuse-layer-norm") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    for (const char* op : {"Div", "Mul", "Add", "Cast"}) patterns.add<FuseLayerNormAt>(op);
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseLayerNormPass() { return std::make_unique<FuseLayerNorm>(); }

}  // namespace onnxopt
