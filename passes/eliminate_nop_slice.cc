// eliminate-nop-slice: a Slice that keeps every element of every axis it names, in order, is its
// input. See docs/passes/eliminate-nop-slice.md.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

// Slice-1 reads starts, ends and axes from attributes; Slice-10 and later from inputs 1-4
// (axes and steps optional).
struct SliceArguments {
  std::vector<int64_t> starts, ends, axes, steps;
};

// Operand `index`, a constant list of integers: nullopt when absent, an error string when not
// constant.
absl::StatusOr<std::optional<std::vector<int64_t>>> operandInts(const ir::Node& slice, size_t index) {
  if (slice.input(index) == nullptr) return std::nullopt;
  absl::StatusOr<std::optional<std::vector<int64_t>>> ints = readConstantInts(*slice.input(index));
  if (!ints.ok()) return ints.status();
  if (!*ints) return absl::FailedPreconditionError("not constant");
  return ints;
}

class ForwardUnslicedInput final : public RewritePattern {
 public:
  ForwardUnslicedInput() : RewritePattern("forward-unsliced-input", {"Slice", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& slice, PatternRewriter& rewriter) const override {
    ir::Value* data = slice.input(0);
    const std::optional<int64_t> version = sinceVersionOf(slice);
    if (data == nullptr || !version) return failure();
    SliceArguments arguments;
    if (*version < 10) {
      for (auto [name, target] : {std::pair{"starts", &arguments.starts}, {"ends", &arguments.ends},
                                 {"axes", &arguments.axes}}) {
        absl::StatusOr<std::optional<std::vector<int64_t>>> ints = getInts(slice, name);
        if (!ints.ok()) return rewriter.check(slice, ints.status());
        if (*ints) *target = **ints;
      }
    } else {
      std::vector<int64_t>* targets[] = {&arguments.starts, &arguments.ends, &arguments.axes,
                                         &arguments.steps};
      for (size_t i = 0; i < 4; ++i) {
        absl::StatusOr<std::optional<std::vector<int64_t>>> ints = operandInts(slice, i + 1);
        if (!ints.ok()) {
          return rewriter.notifyMatchFailure(slice, "its starts, ends, axes or steps are not constant");
        }
        if (*ints) *targets[i] = **ints;
      }
    }
    const size_t count = arguments.starts.size();
    if (arguments.ends.size() != count || (!arguments.axes.empty() && arguments.axes.size() != count) ||
        (!arguments.steps.empty() && arguments.steps.size() != count)) {
      return failure();
    }
    const ir::Type& type = rewriter.shapes().inferredTypeOf(*data);
    const std::optional<ir::Shape>& shape = type.shape();
    for (size_t i = 0; i < count; ++i) {
      if (!arguments.steps.empty() && arguments.steps[i] != 1) {
        return rewriter.notifyMatchFailure(slice, "a step is not 1");
      }
      const int64_t axis = arguments.axes.empty() ? static_cast<int64_t>(i) : arguments.axes[i];
      std::optional<int64_t> dim;
      if (shape) {
        const int64_t rank = static_cast<int64_t>(shape->size());
        const int64_t normalized = axis < 0 ? axis + rank : axis;
        if (normalized >= 0 && normalized < rank && (*shape)[normalized].isKnown()) {
          dim = (*shape)[normalized].value();
        }
      }
      const int64_t start = arguments.starts[i];
      const int64_t end = arguments.ends[i];
      // A start clamps to 0 when it is 0 or reaches back past the first element; an end keeps
      // the last element when it is at or past the dim, or is INT64_MAX ("to the end").
      const bool from_first = start == 0 || (dim && start <= -*dim);
      const bool to_last = end == std::numeric_limits<int64_t>::max() || (dim && end >= *dim);
      if (!from_first || !to_last) {
        return rewriter.notifyMatchFailure(slice, [&] {
          return absl::StrCat("axis ", axis, " is sliced [", start, ", ", end, ") of a dim ",
                              dim ? absl::StrCat(*dim) : std::string("not known"));
        });
      }
    }
    return forwardOperand(slice, *data, rewriter);
  }
};

class EliminateNopSlice final : public PatternPass {
 public:
  EliminateNopSlice() : PatternPass("eliminate-nop-slice") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardUnslicedInput>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopSlicePass() { return std::make_unique<EliminateNopSlice>(); }

}  // namespace onnxopt
