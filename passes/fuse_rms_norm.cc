// fuse-rms-norm: the decomposed RMS normalization
//   Y = x / Sqrt(ReduceMean(x^2) + eps) [* scale]   (or x * Reciprocal(Sqrt(...)), x * 1/Sqrt(...))
// over the last k axes (keepdims=1), eps a positive constant, becomes
// Y = RMSNormalization<axis = -k, epsilon = eps>(x, scale) at opset 23; a Cast to float and
// back around an fp16/bf16 body becomes the op on the fp16/bf16 value.
// See docs/passes/fuse-rms-norm.md.

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

struct RmsNormMatch {
  norm_match::Tail tail;
  norm_match::Core core;
  int64_t k = 0;
  norm_match::FusedOperands operands;

  std::vector<const ir::Node*> absorbed() const {
    std::vector<const ir::Node*> nodes;
    for (const ir::Node* n : {tail.cast_back, tail.scale_mul, core.node, core.reciprocal, core.sqrt, core.add_eps,
                              core.mean, core.square}) {
      if (n != nullptr && n != tail.root) nodes.push_back(n);
    }
    return nodes;
  }
};

Verdict readRmsNorm(const ir::Node& root, PatternRewriter& rewriter, RmsNormMatch* m) {
  *m = RmsNormMatch();
  Verdict v = norm_match::readTail(root, /*allow_bias=*/false, rewriter.shapes(), &m->tail, &m->core);
  if (!v.ok()) return v;
  ir::Value* x = const_cast<ir::Value*>(m->core.numerator);
  if (x == nullptr) return Verdict::none();
  const std::optional<int64_t> rank = rewriter.shapes().inferredTypeOf(*x).rank();
  const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*x).shape();
  if (!rank || *rank == 0 || !shape) {
    return Verdict::decline(absl::StrCat("the rank of '", x->name(), "' is not known"));
  }
  v = norm_match::readCoreBody(&m->core, *rank);
  if (!v.ok()) return v;
  if (m->core.squared != x) {
    return Verdict::decline("the mean square is of another value than the one divided by its root");
  }
  // x - ReduceMean(x) normalized so is a layer normalization: fuse-layer-norm's, which takes
  // the centering in too.
  if (const ir::Node* sub = producerOf(x, "Sub");
      sub != nullptr && sub->numInputs() == 2 && norm_match::centeringMeanOf(*sub) != nullptr) {
    return Verdict::decline("it normalizes x - ReduceMean(x): a layer normalization (fuse-layer-norm)");
  }
  std::string why;
  absl::StatusOr<int64_t> k = norm_match::trailingAxesOf(*m->core.mean, *rank, &why);
  if (!k.ok()) return Verdict::fail(k.status());
  if (*k == 0) return Verdict::decline(why);
  m->k = *k;

  v = norm_match::readFusedOperands("RMSNormalization", m->tail, x, *shape, *rank, m->k, rewriter.shapes(),
                                    &m->operands);
  if (!v.ok()) return v;
  return Verdict::match();
}

class FuseRmsNormAt final : public RewritePattern {
 public:
  // RMSNormalization is new in opset 23, the newest known.
  explicit FuseRmsNormAt(const char* op)
      : RewritePattern(absl::StrCat("fuse-rms-norm-at-", op), {op, 23}) {
    // Div or Mul and Reciprocal, Sqrt, Add (eps), ReduceMean, Pow, and a Cast pair.
    setMatchDepth(8);
  }

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    RmsNormMatch m;
    Verdict v = readRmsNorm(root, rewriter, &m);
    if (!v.ok()) return norm_match::report(root, v, rewriter);
    if (failed(norm_match::endsLongestMatch(root, m, rewriter, readRmsNorm, {"Mul", "Cast"}))) return failure();
    if (failed(rewriter.match(root, m.absorbed()))) return failure();
    ir::Value* scale = norm_match::fusedScale(m.operands, m.tail, "rms", rewriter);
    ir::Node* fused = rewriter.replaceRootWithNewNode("RMSNormalization", {m.operands.input, scale});
    norm_match::setNormAttributes(rewriter, *fused, m.k, m.core.epsilon);
    return success();
  }
};

class FuseRmsNorm final : public PatternPass {
 public:
  FuseRmsNorm() : PatternPass("fuse-rms-norm") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    for (const char* op : {"Div", "Mul", "Cast"}) patterns.add<FuseRmsNormAt>(op);
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseRmsNormPass() { return std::make_unique<FuseRmsNorm>(); }

}  // namespace onnxopt
