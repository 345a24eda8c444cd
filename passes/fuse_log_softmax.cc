// fuse-log-softmax: Log(Softmax(x)) becomes LogSoftmax(x) on the same axis. See
// docs/passes/fuse-log-softmax.md.

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

class FuseLogOfSoftmax final : public RewritePattern {
 public:
  // Softmax and LogSoftmax got their versions together (1, 11, 13), and at each opset both read
  // `axis` the same way: the 2-D coercion before 13, one axis from 13, with their shared default.
  FuseLogOfSoftmax() : RewritePattern("fuse-log-of-softmax", {"Log", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& log, PatternRewriter& rewriter) const override {
    const ir::Node* softmax = absorbableProducer(log, "Softmax", rewriter);
    if (softmax == nullptr) return failure();
    if (failed(rewriter.match(log, {softmax}))) return failure();
    ir::Node* fused = rewriter.replaceRootWithNewNode("LogSoftmax", {softmax->input(0)}, "",
                                                      softmax->name());
    rewriter.copyAttrs(*softmax, *fused);
    return success();
  }
};

class FuseLogSoftmax final : public PatternPass {
 public:
  FuseLogSoftmax() : PatternPass("fuse-log-softmax") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseLogOfSoftmax>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseLogSoftmaxPass() { return std::make_unique<FuseLogSoftmax>(); }

}  // namespace onnxopt
