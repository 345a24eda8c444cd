// fuse-bn-into-gemm: Y = BatchNormalization(Gemm(A, B[, C]), scale, shift, mean, var) in inference
// form on the Gemm's [N, M] output becomes Y = Gemm(A, B', C') with s = scale / sqrt(var +
// epsilon) per column j, B' = B with column j (row j when transB) times s[j], and C'[j] =
// (beta * C[j] - mean[j]) * s[j] + shift[j], beta 1. MatMul(A, B) of a 2-D A becomes such a
// Gemm. Computed in double, rounded once to the weight's type. See docs/passes/fuse-bn-into-gemm.md.

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "batch_norm_fusion.h"
#include "conv_fusion.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

class FoldBatchNormIntoGemm final : public RewritePattern {
 public:
  // BatchNormalization 1, 6, 7, 9, 14, 15; Gemm 7, 9, 11 (C optional), 13; MatMul 1, 9, 13. From
  // opset 7: Gemm-6's C broadcasts only with its `broadcast` attribute.
  explicit FoldBatchNormIntoGemm(const PassOption<int64_t>& max_copy_size)
      : RewritePattern("fold-batch-norm-into-gemm", {"BatchNormalization", 7}), max_copy_size_(max_copy_size) {}

  LogicalResult matchAndRewrite(const ir::Node& bn, PatternRewriter& rewriter) const override {
    const ir::Node* producer = producerOf(bn.input(0), "Gemm");
    const bool is_matmul = producer == nullptr;
    if (is_matmul) producer = producerOf(bn.input(0), "MatMul");
    if (producer == nullptr || bn.output(0) == nullptr) return failure();
    auto decline = [&](absl::string_view why) {
      return rewriter.notifyMatchFailure(bn, [&] { return absl::StrCat(ir::describe(*producer), ": ", why); });
    };
    float epsilon = 0;
    if (failed(batch_norm_fusion::readInferenceForm(bn, rewriter, &epsilon))) return failure();
    ir::Value* a = producer->input(0);
    const ir::Value* b = producer->numInputs() > 1 ? producer->input(1) : nullptr;
    if (a == nullptr || b == nullptr || producer->numOutputs() != 1 || producer->output(0) == nullptr) {
      return decline("not two inputs and one output");
    }

    GemmAttributes gemm_attributes;
    if (is_matmul) {
      // MatMul's output is [N, M] with BatchNormalization's channel axis 1 its last only when A
      // is 2-D (N-D: axis 1 is a batch axis; 1-D: a 1-D output).
      const std::optional<int64_t> rank = rewriter.shapes().inferredTypeOf(*a).rank();
      if (rank != 2) return decline("its A is not known to be 2-D");
    } else {
      absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(*producer);
      if (!attributes.ok()) return rewriter.emitError(*producer, attributes.status());
      gemm_attributes = *attributes;
    }
    const bool trans_b = gemm_attributes.trans_b;
    const double beta = gemm_attributes.beta;

    absl::StatusOr<std::optional<ConstantView>> weight = readConstant(*b);
    if (!weight.ok()) return rewriter.emitError(*producer, weight.status());
    if (!*weight) return decline(absl::StrCat("the weight '", b->name(), "' is not a constant"));
    const ConstantView& w = **weight;
    if (!conv_fusion::isFusableElemType(w.elemType()) || w.rank() != 2) {
      return decline("the weight is not a 2-D float16, bfloat16, float or double");
    }
    if (b->uses().size() > 1 && w.numElements() > *max_copy_size_) {
      return decline(absl::StrCat("the weight '", b->name(), "' has other readers and ", w.numElements(),
                                  " elements, more than max-copy-size (", *max_copy_size_, ")"));
    }
    const int64_t k = trans_b ? w.dims()[1] : w.dims()[0];
    const int64_t m = trans_b ? w.dims()[0] : w.dims()[1];
    std::optional<std::vector<double>> weight_values = w.asDoubles();
    if (!weight_values) return decline("the weight's data cannot be read");

    // beta * C, one value per column: C is a scalar, [M], [1, M] or [1, 1] (it may not vary per
    // row: C' is one bias per column).
    std::vector<double> prior(static_cast<size_t>(m), 0.0);
    const ir::Value* c = !is_matmul && producer->numInputs() > 2 ? producer->input(2) : nullptr;
    if (c != nullptr) {
      absl::StatusOr<std::optional<ConstantView>> bias = readConstant(*c);
      if (!bias.ok()) return rewriter.emitError(*producer, bias.status());
      if (!*bias) return decline(absl::StrCat("C '", c->name(), "' is not a constant"));
      const ConstantView& cv = **bias;
      const auto dims = cv.dims();
      const bool per_column = cv.elemType() == w.elemType() && cv.rank() <= 2 &&
                              (cv.rank() < 2 || dims[0] == 1) &&
                              (cv.rank() == 0 || dims.back() == 1 || dims.back() == m);
      std::optional<std::vector<double>> values = cv.asDoubles();
      if (!per_column || !values) {
        return decline(absl::StrCat("C is not a readable ", ir::elemTypeName(w.elemType()),
                                    " that is one value per column (scalar, [", m, "] or [1, ", m, "])"));
      }
      for (size_t j = 0; j < prior.size(); ++j) prior[j] = beta * (*values)[values->size() == 1 ? 0 : j];
    }

    batch_norm_fusion::ChannelAffine affine;
    if (failed(batch_norm_fusion::readChannelAffine(bn, m, epsilon, rewriter, &affine))) return failure();
    std::vector<double> bias(static_cast<size_t>(m));
    for (size_t j = 0; j < bias.size(); ++j) {
      bias[j] = affine.biasAfter(j, prior[j]);
      if (!std::isfinite(bias[j])) {
        return rewriter.notifyMatchFailure(bn, absl::StrCat("column ", j, " has a shift that is not finite"));
      }
    }
    std::vector<double>& scaled = *weight_values;
    for (size_t e = 0; e < scaled.size(); ++e) {
      const int64_t column = trans_b ? static_cast<int64_t>(e) / k : static_cast<int64_t>(e) % m;
      scaled[e] *= affine.s[static_cast<size_t>(column)];
    }
    if (!conv_fusion::roundsFinite(w.elemType(), scaled) || !conv_fusion::roundsFinite(w.elemType(), bias)) {
      return decline(absl::StrCat("a fused weight or bias overflows ", ir::elemTypeName(w.elemType())));
    }
    if (!is_matmul && !rewriter.canReplaceAllUsesWith(*bn.output(0), *producer->output(0))) {
      return rewriter.notifyMatchFailure(bn, "the Gemm's output cannot take the place of Y");
    }
    if (failed(rewriter.match(bn, {producer}))) return failure();

    ir::Value* new_b = rewriter.createInitializer(absl::StrCat(b->name(), "_fused"),
                                                  conv_fusion::encode(w.elemType(), w.dims(), scaled));
    const int64_t bias_dims[] = {m};
    ir::Value* new_c = rewriter.createInitializer(c != nullptr ? absl::StrCat(c->name(), "_fused")
                                                               : absl::StrCat(b->name(), "_bias"),
                                                  conv_fusion::encode(w.elemType(), bias_dims, bias));
    if (is_matmul) {
      ir::Value* inputs[] = {a, new_b, new_c};
      rewriter.replaceRootWithNewNode("Gemm", inputs);
      return success();
    }
    rewriter.setInput(*producer, 1, new_b);
    rewriter.setInput(*producer, std::min<size_t>(2, producer->numInputs()), new_c);
    if (beta != 1.0) rewriter.setAttr(*producer, ir::Attribute::makeFloat("beta", 1.0f));
    rewriter.replaceAllUsesWith(*bn.output(0), *producer->output(0));
    return success();
  }

 private:
  const PassOption<int64_t>& max_copy_size_;
};

class FuseBnIntoGemm final : public PatternPass {
 public:
  FuseBnIntoGemm() : PatternPass("fuse-bn-into-gemm") {}

 private:
  PassOption<int64_t> max_copy_size_{*this, "max-copy-size", 0,
                                     "fold a weight that other nodes also read into a copy when it has at most this many elements",
                                     atLeast(0)};

  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldBatchNormIntoGemm>(max_copy_size_);
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseBnIntoGemmPass() { return std::make_unique<FuseBnIntoGemm>(); }

}  // namespace onnxopt
