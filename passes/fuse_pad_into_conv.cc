// fuse-pad-into-conv: Conv(Pad(x, pads), W[, B]) becomes Conv(x, W[, B]) with the Pad's spatial
// pads added to the Conv's own, when the Pad adds +0 on the spatial axes only (constant mode):
// what Conv's implicit zero padding adds. See docs/passes/fuse-pad-into-conv.md.

#include <cstdint>
#include <vector>

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "pad_fusion.h"

namespace onnxopt {
namespace {

class FoldPadIntoConv final : public RewritePattern {
 public:
  // Conv 1, 11, 22 pad X with zeros by `pads` in each ([x1_begin, x2_begin, ..., x1_end, ...],
  // non-negative) unless auto_pad is set. ConvTranspose's pads crop its output instead: not a
  // root.
  FoldPadIntoConv() : RewritePattern("fold-pad-into-conv", {"Conv", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& conv, PatternRewriter& rewriter) const override {
    const ir::Node* pad = producerOf(conv.input(0), "Pad");
    if (pad == nullptr) return failure();
    std::vector<int64_t> spatial_pads;
    if (failed(pad_fusion::readSpatialZeroPad(conv, *pad, rewriter, &spatial_pads))) return failure();
    std::vector<int64_t> fused;
    if (failed(pad_fusion::fusedPads(conv, spatial_pads, rewriter, &fused))) return failure();
    if (failed(rewriter.match(conv, {pad}))) return failure();
    pad_fusion::rewriteConsumer(conv, *pad, fused, rewriter);
    return success();
  }
};

class FusePadIntoConv final : public PatternPass {
 public:
  FusePadIntoConv() : PatternPass("fuse-pad-into-conv") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldPadIntoConv>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFusePadIntoConvPass() { return std::make_unique<FusePadIntoConv>(); }

}  // namespace onnxopt
