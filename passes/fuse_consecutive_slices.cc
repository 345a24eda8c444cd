// fuse-consecutive-slices: Slice(Slice(X, s1), s2) with constant arguments is one Slice of X.
// On an axis only one of them slices, its start, end and step apply to a dim of X either way
// (the other leaves that dim alone), so the entries are kept as they are. On an axis both slice,
// the outer one counts (and clamps) against the inner one's result: the pass merges the two only
// with steps 1 and X's dim known, computing the clamped ranges; otherwise it declines. Slice-1
// takes starts, ends and axes as attributes; Slice-10 on takes them, and steps, as inputs (the
// merged ones as int64 initializers); negative axes from opset 11. The outer Slice reads X; the
// inner one stays for its other readers. See docs/passes/fuse-consecutive-slices.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

constexpr int64_t kInputsSince = 10;
constexpr int64_t kNegativeAxesSince = 11;

class MergeSlices final : public RewritePattern {
 public:
  MergeSlices() : RewritePattern("merge-slices", {"Slice", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& outer, PatternRewriter& rewriter) const override {
    const ir::Node* inner = producerOf(outer.input(0), "Slice");
    if (inner == nullptr || inner->input(0) == nullptr || outer.output(0) == nullptr) {
      return failure();
    }
    ir::Value* source = inner->input(0);
    absl::StatusOr<std::optional<SliceArguments>> first = readSliceArguments(*inner);
    if (!first.ok()) return rewriter.emitError(*inner, first.status());
    absl::StatusOr<std::optional<SliceArguments>> second = readSliceArguments(outer);
    if (!second.ok()) return rewriter.emitError(outer, second.status());
    if (!*first || !*second) {
      return rewriter.notifyMatchFailure(outer, "a starts, ends, axes or steps input is not constant");
    }
    SliceArguments& merged = **first;
    const SliceArguments& next = **second;
    const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*source).shape();
    std::optional<int64_t> rank;
    if (!allNonNegative(merged.axes) || !allNonNegative(next.axes)) {
      if (rewriter.opsetVersion(outer).value_or(0) < kNegativeAxesSince) {
        return rewriter.notifyMatchFailure(outer, "negative axes before opset 11");
      }
      if (!shape) return rewriter.notifyMatchFailure(outer, "negative axes, and X's rank is not known");
      rank = static_cast<int64_t>(shape->size());
    }
    std::optional<std::vector<int64_t>> inner_axes = resolveAxes(merged.axes, rank);
    std::optional<std::vector<int64_t>> outer_axes = resolveAxes(next.axes, rank);
    if (!inner_axes || !outer_axes) {
      return rewriter.notifyMatchFailure(outer, "an axis is out of range or repeated");
    }
    merged.axes = *inner_axes;
    for (size_t j = 0; j < outer_axes->size(); ++j) {
      const int64_t axis = (*outer_axes)[j];
      if (next.steps[j] == 0) return rewriter.notifyMatchFailure(outer, "a step is 0");
      const auto found = std::find(merged.axes.begin(), merged.axes.end(), axis);
      if (found == merged.axes.end()) {
        merged.starts.push_back(next.starts[j]);
        merged.ends.push_back(next.ends[j]);
        merged.axes.push_back(axis);
        merged.steps.push_back(next.steps[j]);
        continue;
      }
      const size_t i = static_cast<size_t>(found - merged.axes.begin());
      if (merged.steps[i] != 1 || next.steps[j] != 1) {
        return rewriter.notifyMatchFailure(outer, [&] {
          return absl::StrCat("both slice axis ", axis, ", not both with step 1");
        });
      }
      if (!shape || axis >= static_cast<int64_t>(shape->size()) || !(*shape)[axis].isKnown()) {
        return rewriter.notifyMatchFailure(outer, [&] {
          return absl::StrCat("both slice axis ", axis, " of X ", shapeText(shape),
                              ", whose dim is not known");
        });
      }
      const std::optional<SliceRange> taken =
          sliceRange((*shape)[axis].value(), merged.starts[i], merged.ends[i], 1);
      const std::optional<SliceRange> retaken = sliceRange(taken->count, next.starts[j], next.ends[j], 1);
      merged.starts[i] = taken->first + retaken->first;
      merged.ends[i] = merged.starts[i] + retaken->count;
    }
    if (failed(rewriter.match(outer))) return failure();
    rewriter.setInput(outer, 0, source);
    if (rewriter.opsetVersion(outer).value_or(0) < kInputsSince) {
      rewriter.setAttr(outer, ir::Attribute::makeInts("starts", merged.starts));
      rewriter.setAttr(outer, ir::Attribute::makeInts("ends", merged.ends));
      rewriter.setAttr(outer, ir::Attribute::makeInts("axes", merged.axes));
      return success();
    }
    const std::string& name = outer.output(0)->name();
    const std::pair<const char*, const std::vector<int64_t>*> operands[] = {
        {"_starts", &merged.starts}, {"_ends", &merged.ends}, {"_axes", &merged.axes},
        {"_steps", &merged.steps}};
    for (size_t k = 0; k < 4; ++k) {
      ir::Value* value = rewriter.createInitializer(absl::StrCat(name, operands[k].first),
                                                    makeInt64Tensor(*operands[k].second));
      rewriter.setInput(outer, k + 1, value);
    }
    return success();
  }
};

class FuseConsecutiveSlices final : public PatternPass {
 public:
  FuseConsecutiveSlices() : PatternPass("fuse-consecutive-slices") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<MergeSlices>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveSlicesPass() {
  return std::make_unique<FuseConsecutiveSlices>();
}

}  // namespace onnxopt
