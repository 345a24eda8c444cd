// eliminate-unsqueeze-squeeze: a Squeeze that removes exactly the 1s an Unsqueeze inserted reads
// the Unsqueeze's input, and so does an Unsqueeze that puts back exactly the dims of 1 a Squeeze
// removed. Unsqueeze's axes count against its output's rank and Squeeze's against its input's:
// in Squeeze(Unsqueeze(X, A), B) both are the middle's rank, and in Unsqueeze(Squeeze(X, B), A)
// both are X's rank when A and B are as long. A Squeeze without axes removes every dim of 1, so
// it needs X's dims known (none of them 1 after an Unsqueeze; the 1s exactly at A before one).
// Squeeze(X, B) fails at run time unless X's dims B are 1; the pattern reads X only when they are
// known to be, so that no model that fails runs after it. Axes are an attribute before opset 13
// and input 1 from then on, negative from opset 11. See docs/passes/eliminate-unsqueeze-squeeze.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

constexpr int64_t kAxesInputSince = 13;
constexpr int64_t kNegativeAxesSince = 11;

struct Axes {
  std::vector<int64_t> values;
  bool given = false;
};

// The axes of `node` when given: constant and not empty, else a decline recorded on `root`.
LogicalResult readAxes(const ir::Node& node, const ir::Node& root, PatternRewriter& rewriter,
                       Axes& axes) {
  absl::StatusOr<AxesOperand> operand = readAxesOperand(node, kAxesInputSince);
  if (!operand.ok()) return rewriter.emitError(node, operand.status());
  axes.given = operand->given;
  if (!operand->given) return success();
  if (!operand->values) return rewriter.notifyMatchFailure(root, "an axes operand is not constant");
  if (operand->values->empty()) return rewriter.notifyMatchFailure(root, "an axes list is empty");
  if (!allNonNegative(*operand->values) &&
      rewriter.opsetVersion(root).value_or(0) < kNegativeAxesSince) {
    return rewriter.notifyMatchFailure(root, "negative axes before opset 11");
  }
  axes.values = std::move(*operand->values);
  return success();
}

class ReadAroundUnsqueezeSqueeze final : public RewritePattern {
 public:
  ReadAroundUnsqueezeSqueeze() : RewritePattern("read-around-unsqueeze-squeeze", {"Squeeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& squeeze, PatternRewriter& rewriter) const override {
    const ir::Node* unsqueeze = producerOf(squeeze.input(0), "Unsqueeze");
    if (unsqueeze == nullptr || unsqueeze->input(0) == nullptr) return failure();
    ir::Value* source = unsqueeze->input(0);
    Axes inserted, removed;
    if (failed(readAxes(*unsqueeze, squeeze, rewriter, inserted)) ||
        failed(readAxes(squeeze, squeeze, rewriter, removed))) {
      return failure();
    }
    if (!inserted.given) return rewriter.notifyMatchFailure(squeeze, "the Unsqueeze has no axes");
    const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*source).shape();
    if (!removed.given) {
      if (!shape || !std::all_of(shape->begin(), shape->end(), isKnownNotOne)) {
        return rewriter.notifyMatchFailure(squeeze, [&] {
          return absl::StrCat("the Squeeze has no axes and X ", shapeText(shape),
                              " may have dims of 1 it would remove too");
        });
      }
      return forwardOperand(squeeze, *source, rewriter);
    }
    std::optional<int64_t> middle_rank;
    if (!allNonNegative(inserted.values) || !allNonNegative(removed.values)) {
      if (!shape) return rewriter.notifyMatchFailure(squeeze, "negative axes, and X's rank is not known");
      middle_rank = static_cast<int64_t>(shape->size() + inserted.values.size());
    }
    std::optional<std::vector<int64_t>> a = resolveAxesSorted(inserted.values, middle_rank);
    std::optional<std::vector<int64_t>> b = resolveAxesSorted(removed.values, middle_rank);
    if (!a || !b) return rewriter.notifyMatchFailure(squeeze, "an axis is out of range or repeated");
    if (*a != *b) {
      return rewriter.notifyMatchFailure(squeeze, [&] {
        return absl::StrCat("it removes axes [", absl::StrJoin(*b, ", "),
                            "], the Unsqueeze inserted [", absl::StrJoin(*a, ", "), "]");
      });
    }
    return forwardOperand(squeeze, *source, rewriter);
  }
};

class ReadAroundSqueezeUnsqueeze final : public RewritePattern {
 public:
  ReadAroundSqueezeUnsqueeze() : RewritePattern("read-around-squeeze-unsqueeze", {"Unsqueeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& unsqueeze, PatternRewriter& rewriter) const override {
    const ir::Node* squeeze = producerOf(unsqueeze.input(0), "Squeeze");
    if (squeeze == nullptr || squeeze->input(0) == nullptr) return failure();
    ir::Value* source = squeeze->input(0);
    Axes inserted, removed;
    if (failed(readAxes(unsqueeze, unsqueeze, rewriter, inserted)) ||
        failed(readAxes(*squeeze, unsqueeze, rewriter, removed))) {
      return failure();
    }
    if (!inserted.given) return rewriter.notifyMatchFailure(unsqueeze, "it has no axes");
    const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*source).shape();
    if (!shape) return rewriter.notifyMatchFailure(unsqueeze, "X's shape is not known");
    const auto rank = static_cast<int64_t>(shape->size());
    std::vector<int64_t> squeezed;
    if (removed.given) {
      std::optional<std::vector<int64_t>> b = resolveAxesSorted(removed.values, rank);
      if (!b) return rewriter.notifyMatchFailure(unsqueeze, "an axis is out of range or repeated");
      squeezed = std::move(*b);
    } else {
      for (int64_t i = 0; i < rank; ++i) {
        if (!(*shape)[i].isKnown()) {
          return rewriter.notifyMatchFailure(unsqueeze, [&] {
            return absl::StrCat("the Squeeze has no axes and dim ", i, " of X ", shapeText(shape),
                                " is not known");
          });
        }
        if ((*shape)[i].value() == 1) squeezed.push_back(i);
      }
    }
    for (int64_t axis : squeezed) {
      if (!isKnownOne((*shape)[axis])) {
        return rewriter.notifyMatchFailure(unsqueeze, [&] {
          return absl::StrCat("dim ", axis, " of X ", shapeText(shape),
                              " is squeezed but not known to be 1");
        });
      }
    }
    if (inserted.values.size() != squeezed.size()) {
      return rewriter.notifyMatchFailure(unsqueeze, "it does not restore X's rank");
    }
    std::optional<std::vector<int64_t>> a = resolveAxesSorted(inserted.values, rank);
    if (!a) return rewriter.notifyMatchFailure(unsqueeze, "an axis is out of range or repeated");
    if (*a != squeezed) {
      return rewriter.notifyMatchFailure(unsqueeze, [&] {
        return absl::StrCat("it inserts axes [", absl::StrJoin(*a, ", "),
                            "], the Squeeze removed [", absl::StrJoin(squeezed, ", "), "]");
      });
    }
    return forwardOperand(unsqueeze, *source, rewriter);
  }
};

class EliminateUnsqueezeSqueeze final : public PatternPass {
 public:
  EliminateUnsqueezeSqueeze() : PatternPass("eliminate-unsqueeze-squeeze") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadAroundUnsqueezeSqueeze>();
    patterns.add<ReadAroundSqueezeUnsqueeze>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateUnsqueezeSqueezePass() {
  return std::make_unique<EliminateUnsqueezeSqueeze>();
}

}  // namespace onnxopt
