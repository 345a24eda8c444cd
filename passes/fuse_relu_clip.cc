// fuse-relu-clip: Clip(Relu(x), min, max) and Relu(Clip(x, min, max)) become Clip(x, min', max),
// min' the larger of min and +0 (+0 when min is absent): ONNX Runtime's FuseReluClip, and the
// other order as onnxscript's fuse_relus_clips. Exact for numbers. For NaN and -0 it rests on
// what ONNX Runtime's CPU kernels do, checked in float, double and float16: both ops pass NaN
// through and keep -0 (Relu(-0) = -0, Clip(-0, +0, max) = -0). Before a Clip, a min of -0 becomes
// +0: Relu gives +0 for a negative x, and Clip(-3, -0, max) would give -0. After a Clip, a min of
// -0 stays unfused: the Clip gives -0 for a negative x, Relu keeps it, and a min of +0 would not.
// Relu after Clip also needs a max above 0 (or none): below, Relu would turn every number into
// +0, which no Clip of x gives for x = -0.
//
// Clip 6 takes min and max as float attributes (min defaults to the lowest float, max to the
// largest), Clip 11 on as optional scalar inputs, which must then be constants. Relu and Clip
// before opset 6 carry consumed_inputs: not handled. See docs/passes/fuse-relu-clip.md.

#include <cmath>
#include <string>
#include <vector>

#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// Whether a lower bound already keeps out everything below +0: it is +0 or larger.
bool atLeastPositiveZero(double bound) { return bound > 0 || (bound == 0 && !std::signbit(bound)); }

// Replaces `root` (the Clip, or the Relu after it) and the absorbed `other` by Clip(x, min', max)
// of `clip`'s `bounds`: min' = max(min, +0).
LogicalResult fuse(const ir::Node& root, const ir::Node& other, const ir::Node& clip,
                   const ClipBounds& bounds, ir::Value& x, PatternRewriter& rewriter) {
  if (bounds.min.given && !bounds.min.value) {
    return rewriter.notifyMatchFailure(root, "the Clip's min is not a constant scalar");
  }
  const bool keep_min = bounds.min.value && atLeastPositiveZero(*bounds.min.value);
  if (rewriter.opsetVersion(clip).value_or(0) < 11) {
    const float min = keep_min ? static_cast<float>(*bounds.min.value) : 0.0f;
    if (bounds.max.given && min > *bounds.max.value) {
      return rewriter.notifyMatchFailure(root, "the Clip's max is below 0, and Clip 6 (in ONNX "
                                               "Runtime) wants min <= max");
    }
    if (failed(rewriter.match(root, {&other}))) return failure();
    ir::Node* fused = rewriter.replaceRootWithNewNode("Clip", {&x}, "", clip.name());
    rewriter.copyAttrs(clip, *fused, {"min"});
    rewriter.setAttr(*fused, ir::Attribute::makeFloat("min", min, rewriter.model().arena()));
    return success();
  }
  const int32_t elem_type = rewriter.shapes().elemTypeOf(x);
  const int64_t elem_size = ir::elemTypeSize(elem_type);
  if (!keep_min && elem_size <= 0) {
    return rewriter.notifyMatchFailure(root, "the element type of x is not known");
  }
  if (failed(rewriter.match(root, {&other}))) return failure();
  ir::Value* lower =
      keep_min ? clip.input(1)
               : rewriter.createInitializer(
                     root.output(0)->name() + "_min",
                     makeTensor(elem_type, {}, std::string(static_cast<size_t>(elem_size), '\0')));
  std::vector<ir::Value*> inputs = {&x, lower};
  if (clip.input(2) != nullptr) inputs.push_back(clip.input(2));
  ir::Node* fused = rewriter.replaceRootWithNewNode("Clip", inputs, "", clip.name());
  rewriter.copyAttrs(clip, *fused);
  return success();
}

class FoldReluIntoClip final : public RewritePattern {
 public:
  FoldReluIntoClip() : RewritePattern("fold-relu-into-clip", {"Clip", 6}) {}

  LogicalResult matchAndRewrite(const ir::Node& clip, PatternRewriter& rewriter) const override {
    const ir::Node* relu = absorbableProducer(clip, "Relu", rewriter);
    if (relu == nullptr) return failure();
    absl::StatusOr<ClipBounds> bounds = readClipBounds(clip);
    if (!bounds.ok()) return rewriter.emitError(clip, bounds.status());
    return fuse(clip, *relu, clip, *bounds, *relu->input(0), rewriter);
  }
};

class FoldReluAfterClip final : public RewritePattern {
 public:
  FoldReluAfterClip() : RewritePattern("fold-relu-after-clip", {"Relu", 6}) {}

  LogicalResult matchAndRewrite(const ir::Node& relu, PatternRewriter& rewriter) const override {
    const ir::Node* clip = absorbableProducer(relu, "Clip", rewriter);
    if (clip == nullptr) return failure();
    absl::StatusOr<ClipBounds> bounds = readClipBounds(*clip);
    if (!bounds.ok()) return rewriter.emitError(*clip, bounds.status());
    if (bounds->max.given && !(bounds->max.value.value_or(0) > 0)) {
      return rewriter.notifyMatchFailure(relu, "the Clip's max is not a constant above 0");
    }
    const std::optional<double>& min = bounds->min.value;
    if (min && *min == 0 && std::signbit(*min)) {
      return rewriter.notifyMatchFailure(
          relu, "the Clip's min is -0: Relu keeps the -0 it gives a negative x, a min of +0 would not");
    }
    return fuse(relu, *clip, *clip, *bounds, *clip->input(0), rewriter);
  }
};

class FuseReluClip final : public PatternPass {
 public:
  FuseReluClip() : PatternPass("fuse-relu-clip") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldReluIntoClip>();
    patterns.add<FoldReluAfterClip>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseReluClipPass() { return std::make_unique<FuseReluClip>(); }

}  // namespace onnxopt
