// fuse-consecutive-clips: Clip(Clip(x, a, b), c, d) becomes Clip(x, max(a, c), min(b, d)) when
// the two intervals overlap. Where they do not, the fused Clip would have min > max and give its
// max, while the pair gives the outer bound nearer the inner interval: onnxscript's
// fuse_successive_clip makes that Clip; this pass declines. A bound that is absent is ONNX's
// default (the type's lowest or largest value), so the other one replaces it only when finite.
// Bounds that tie with different signs of zero decline: which one the pair gives rests on the
// order ONNX Runtime's kernel compares in. See docs/passes/fuse-consecutive-clips.md.

#include <cmath>
#include <optional>
#include <vector>

#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"

namespace onnxopt {
namespace {

// One bound of one of the Clips: its value (nullopt when absent) and, from opset 11, its input.
struct Bound {
  std::optional<double> value;
  ir::Value* input = nullptr;
};

// The bound of the fused Clip: the larger (`lower`) or smaller of two, nullopt when that is not
// known exactly.
std::optional<Bound> combine(const Bound& inner, const Bound& outer, bool lower) {
  if (!inner.value || !outer.value) {
    const Bound& given = inner.value ? inner : outer;
    if (given.value && !std::isfinite(*given.value)) return std::nullopt;
    return given;
  }
  if (*inner.value == *outer.value) {
    if (std::signbit(*inner.value) != std::signbit(*outer.value)) return std::nullopt;
    return outer;
  }
  return (*outer.value > *inner.value) == lower ? outer : inner;
}

class FuseClipIntoClip final : public RewritePattern {
 public:
  // Clip 6 (float attributes min and max), 11 (optional scalar inputs), 12 (integer types) and 13
  // (bfloat16): the same function, min(max(x, min), max).
  FuseClipIntoClip() : RewritePattern("fuse-clip-into-clip", {"Clip", 6}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = absorbableProducer(outer, "Clip", rewriter);
    if (inner == nullptr) return failure();
    std::vector<Bound> bounds;
    if (failed(readBounds(outer, *inner, rewriter, bounds))) return failure();
    const Bound &a = bounds[0], &b = bounds[1], &c = bounds[2], &d = bounds[3];
    for (const Bound& bound : bounds) {
      if (bound.value && std::isnan(*bound.value)) {
        return rewriter.notifyMatchFailure(outer, "a bound is NaN");
      }
    }
    if ((a.value && b.value && *a.value > *b.value) ||
        (c.value && d.value && *c.value > *d.value)) {
      return rewriter.notifyMatchFailure(outer, "a Clip's min is above its max");
    }
    const std::optional<Bound> lo = combine(a, c, /*lower=*/true);
    const std::optional<Bound> hi = combine(b, d, /*lower=*/false);
    if (!lo || !hi) {
      return rewriter.notifyMatchFailure(
          outer, "an absent bound meets an infinite one, or two bounds are zeros of either sign");
    }
    if (lo->value && hi->value && *lo->value > *hi->value) {
      return rewriter.notifyMatchFailure(outer, "the Clips' intervals do not overlap");
    }
    if (failed(rewriter.match(outer, {inner}))) return failure();
    if (rewriter.opsetVersion(outer).value_or(0) < 11) {
      ir::Node* fused = rewriter.replaceRootWithNewNode("Clip", {inner->input(0)}, "", outer.name());
      rewriter.copyAttrs(outer, *fused, {"min", "max"});
      for (const auto& [name, bound] : {std::pair{"min", lo}, std::pair{"max", hi}}) {
        if (!bound->value) continue;
        rewriter.setAttr(*fused, ir::Attribute::makeFloat(name, static_cast<float>(*bound->value),
                                                         rewriter.model().arena()));
      }
      return success();
    }
    std::vector<ir::Value*> inputs = {inner->input(0), lo->input};
    if (hi->input != nullptr) inputs.push_back(hi->input);
    rewriter.replaceRootWithNewNode("Clip", inputs, "", outer.name());
    return success();
  }

 private:
  // The min and max of each Clip into `bounds`: a, b of `inner`, then c, d of `outer`. A failure
  // (the decline recorded) when a bound is not a constant scalar or not exactly a double (an int64
  // beyond 2^53 that a double rounds): exact doubles compare as the bounds do.
  static LogicalResult readBounds(const ir::Node& outer, const ir::Node& inner,
                                  PatternRewriter& rewriter, std::vector<Bound>& bounds) {
    for (const ir::Node* clip : {&inner, &outer}) {
      absl::StatusOr<ClipBounds> read = readClipBounds(*clip);
      if (!read.ok()) return rewriter.emitError(*clip, read.status());
      const bool from_inputs = rewriter.opsetVersion(*clip).value_or(0) >= 11;
      size_t input_index = 1;
      for (const ClipBound* bound : {&read->min, &read->max}) {
        ir::Value* input = from_inputs ? clip->input(input_index++) : nullptr;
        if (bound->given && !bound->value) {
          return rewriter.notifyMatchFailure(
              outer, "a bound is not a constant scalar a double holds exactly");
        }
        bounds.push_back({bound->value, input});
      }
    }
    return success();
  }
};

class FuseConsecutiveClips final : public PatternPass {
 public:
  FuseConsecutiveClips() : PatternPass("fuse-consecutive-clips") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseClipIntoClip>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveClipsPass() {
  return std::make_unique<FuseConsecutiveClips>();
}

}  // namespace onnxopt
