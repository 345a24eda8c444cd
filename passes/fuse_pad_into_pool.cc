// fuse-pad-into-pool: AveragePool(Pad(x, pads)) with count_include_pad = 1 becomes
// AveragePool(x) with the Pad's spatial pads added to its own, when the Pad adds +0 on the
// spatial axes only (constant mode): such a pool counts its own padding as zeros, so the sums and
// divisors are those of the padded input. Never MaxPool (its padding is -inf, not 0) nor LpPool
// (the spec does not say what its padding holds). See docs/passes/fuse-pad-into-pool.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "pad_fusion.h"

namespace onnxopt {
namespace {

class FoldPadIntoAveragePool final : public RewritePattern {
 public:
  // AveragePool 7 (count_include_pad), 10 (ceil_mode), 11, 19 (dilations), 22 (bfloat16).
  // AveragePool-1 never counts its padding: not a root.
  FoldPadIntoAveragePool() : RewritePattern("fold-pad-into-average-pool", {"AveragePool", 7}) {}

  LogicalResult matchAndRewrite(const ir::Node& pool, PatternRewriter& rewriter) const override {
    const ir::Node* pad = producerOf(pool.input(0), "Pad");
    if (pad == nullptr) return failure();
    absl::StatusOr<int64_t> count_include_pad = getIntOr(pool, "count_include_pad", 0);
    if (!count_include_pad.ok()) return rewriter.emitError(pool, count_include_pad.status());
    if (*count_include_pad != 1) {
      return rewriter.notifyMatchFailure(pool, "count_include_pad is not 1: its padding is not counted as zeros");
    }
    // With ceil_mode a last window that starts in the right padding is dropped, and where the
    // padding starts moves with the fusion: the output's size could change.
    absl::StatusOr<int64_t> ceil_mode = getIntOr(pool, "ceil_mode", 0);
    if (!ceil_mode.ok()) return rewriter.emitError(pool, ceil_mode.status());
    if (*ceil_mode != 0) return rewriter.notifyMatchFailure(pool, "ceil_mode is set");
    std::vector<int64_t> spatial_pads;
    if (failed(pad_fusion::readSpatialZeroPad(pool, *pad, rewriter, &spatial_pads))) return failure();
    std::vector<int64_t> fused;
    if (failed(pad_fusion::fusedPads(pool, spatial_pads, rewriter, &fused))) return failure();
    // ONNX Runtime refuses a pool whose pads are not smaller than its kernel, where the Pad before
    // it pads as much as it likes.
    absl::StatusOr<std::optional<std::vector<int64_t>>> kernel = getInts(pool, "kernel_shape");
    if (!kernel.ok()) return rewriter.emitError(pool, kernel.status());
    if (!*kernel || 2 * (*kernel)->size() != fused.size()) {
      return rewriter.notifyMatchFailure(pool, "its kernel_shape does not cover the Pad's spatial axes");
    }
    for (size_t i = 0; i < fused.size(); ++i) {
      if (fused[i] >= (**kernel)[i % (*kernel)->size()]) {
        return rewriter.notifyMatchFailure(pool, absl::StrCat("the pads would not all be smaller than the kernel ",
                                                              "(ONNX Runtime refuses that)"));
      }
    }
    if (failed(rewriter.match(pool, {pad}))) return failure();
    pad_fusion::rewriteConsumer(pool, *pad, fused, rewriter);
    return success();
  }
};

class FusePadIntoPool final : public PatternPass {
 public:
  FusePadIntoPool() : PatternPass("fuse-pad-into-pool") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldPadIntoAveragePool>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFusePadIntoPoolPass() { return std::make_unique<FusePadIntoPool>(); }

}  // namespace onnxopt
