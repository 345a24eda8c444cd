// fuse-reduce-unsqueeze: Unsqueeze(R(X, keepdims=0), A) is R(X, keepdims=1) when A puts back
// exactly the axes R removed, for R a ReduceX, ArgMax or ArgMin: the same elements, with dims of 1
// where the reduced axes were. R's axes count against X's rank r and A against the Unsqueeze's
// output rank, which is r again: X's rank is needed only for negative axes and for a Reduce of
// every axis (no axes, noop_with_empty_axes 0). See docs/passes/fuse-reduce-unsqueeze.md.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

constexpr int64_t kUnsqueezeAxesInputSince = 13;
constexpr int64_t kNegativeAxesSince = 11;

// The reductions with `keepdims`, and the opset from which each reads its axes from input 1
// (with noop_with_empty_axes); 0 for ArgMax/ArgMin, which reduce the one axis `axis` names.
struct Reduction {
  const char* op_type;
  int64_t axes_input_since;
};
constexpr Reduction kReductions[] = {
    {"ReduceSum", 13},       {"ReduceMean", 18}, {"ReduceMax", 18},       {"ReduceMin", 18},
    {"ReduceProd", 18},      {"ReduceL1", 18},   {"ReduceL2", 18},        {"ReduceLogSum", 18},
    {"ReduceLogSumExp", 18}, {"ReduceSumSquare", 18}, {"ArgMax", 0},     {"ArgMin", 0}};

const Reduction* reductionOf(const ir::Node& node) {
  if (!node.domain().empty()) return nullptr;
  for (const Reduction& reduction : kReductions) {
    if (node.opType() == reduction.op_type) return &reduction;
  }
  return nullptr;
}

class FuseReduceKeepdims final : public RewritePattern {
 public:
  FuseReduceKeepdims() : RewritePattern("fuse-reduce-keepdims", {"Unsqueeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& unsqueeze, PatternRewriter& rewriter) const override {
    const ir::Node* reduce = unsqueeze.input(0) ? unsqueeze.input(0)->producer() : nullptr;
    const Reduction* reduction = reduce ? reductionOf(*reduce) : nullptr;
    if (reduction == nullptr || reduce->input(0) == nullptr || unsqueeze.output(0) == nullptr) {
      return failure();
    }
    if (LogicalResult checked = rewriter.check(*reduce, checkAttributes(*reduce)); failed(checked)) {
      return checked;
    }
    absl::StatusOr<int64_t> keepdims = getIntOr(*reduce, "keepdims", 1);
    if (!keepdims.ok()) return rewriter.emitError(*reduce, keepdims.status());
    if (*keepdims != 0) {
      return rewriter.notifyMatchFailure(unsqueeze, "the reduction keeps its dims already");
    }
    if (!hasSingleReader(*reduce->output(0))) {
      return rewriter.notifyMatchFailure(unsqueeze, "the reduction has other readers, which keep it");
    }

    std::vector<int64_t> reduced;
    bool reduces_every_axis = false;
    if (reduction->axes_input_since == 0) {
      absl::StatusOr<int64_t> axis = getIntOr(*reduce, "axis", 0);
      if (!axis.ok()) return rewriter.emitError(*reduce, axis.status());
      reduced.push_back(*axis);
    } else {
      absl::StatusOr<AxesOperand> axes = readAxesOperand(*reduce, reduction->axes_input_since);
      if (!axes.ok()) return rewriter.emitError(*reduce, axes.status());
      if (axes->given && !axes->values) {
        return rewriter.notifyMatchFailure(unsqueeze, "the reduction's axes are not constant");
      }
      if (!axes->given || axes->values->empty()) {
        absl::StatusOr<int64_t> noop = getIntOr(*reduce, "noop_with_empty_axes", 0);
        if (!noop.ok()) return rewriter.emitError(*reduce, noop.status());
        if (*noop != 0) {
          return rewriter.notifyMatchFailure(
              unsqueeze, "the reduction has no axes and noop_with_empty_axes: it reduces nothing");
        }
        reduces_every_axis = true;
      } else {
        reduced = std::move(*axes->values);
      }
    }

    absl::StatusOr<AxesOperand> inserted = readAxesOperand(unsqueeze, kUnsqueezeAxesInputSince);
    if (!inserted.ok()) return rewriter.emitError(unsqueeze, inserted.status());
    if (!inserted->given || !inserted->values || inserted->values->empty()) {
      return rewriter.notifyMatchFailure(unsqueeze, "its axes are not a constant, non-empty list");
    }
    const std::vector<int64_t>& unsqueezed = *inserted->values;
    if ((!allNonNegative(reduced) || !allNonNegative(unsqueezed)) &&
        rewriter.opsetVersion(unsqueeze).value_or(0) < kNegativeAxesSince) {
      return rewriter.notifyMatchFailure(unsqueeze, "negative axes before opset 11");
    }

    std::optional<int64_t> rank;
    if (reduces_every_axis || !allNonNegative(reduced) || !allNonNegative(unsqueezed)) {
      const std::optional<ir::Shape>& shape =
          rewriter.shapes().inferredTypeOf(*reduce->input(0)).shape();
      if (!shape) {
        return rewriter.notifyMatchFailure(
            unsqueeze, reduces_every_axis ? "the reduction reduces every axis of X, whose rank is "
                                            "not known"
                                          : "negative axes, and X's rank is not known");
      }
      rank = static_cast<int64_t>(shape->size());
    }
    if (reduces_every_axis) {
      for (int64_t axis = 0; axis < *rank; ++axis) reduced.push_back(axis);
    }
    std::optional<std::vector<int64_t>> removed = resolveAxesSorted(reduced, rank);
    std::optional<std::vector<int64_t>> restored = resolveAxesSorted(unsqueezed, rank);
    if (!removed || !restored) {
      return rewriter.notifyMatchFailure(unsqueeze, "an axis is out of range or repeated");
    }
    if (*removed != *restored) {
      return rewriter.notifyMatchFailure(unsqueeze, [&] {
        return absl::StrCat("it inserts axes [", absl::StrJoin(*restored, ", "),
                            "], the reduction removed [", absl::StrJoin(*removed, ", "), "]");
      });
    }

    if (failed(rewriter.match(unsqueeze, {reduce}))) return failure();
    ir::Node* fused =
        rewriter.replaceRootWithNewNode(reduce->opType(), reduce->inputs(), "", reduce->name());
    rewriter.copyAttrs(*reduce, *fused, {"keepdims"});  // 1 by default in every version
    return success();
  }
};

class FuseReduceUnsqueeze final : public PatternPass {
 public:
  FuseReduceUnsqueeze() : PatternPass("fuse-reduce-unsqueeze") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseReduceKeepdims>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseReduceUnsqueezePass() {
  return std::make_unique<FuseReduceUnsqueeze>();
}

}  // namespace onnxopt
