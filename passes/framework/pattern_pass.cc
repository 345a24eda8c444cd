#include "onnxopt/rewrite/pattern_pass.h"

#include "absl/strings/str_cat.h"

namespace onnxopt {

absl::StatusOr<bool> PatternPass::run(ir::Model& model, PassContext& context) {
  if (patterns_ == nullptr) {
    patterns_ = std::make_unique<RewritePatternSet>();
    populatePatterns(*patterns_);
  }
  if (*max_iterations_ < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("option 'max-iterations' of pass '", name(), "' must be at least 1"));
  }
  GreedyRewriteConfig config;
  config.max_iterations = *max_iterations_;
  config.revisit_touched_after = context.revisitTouchedAfter();
  absl::StatusOr<GreedyRewriteResult> result =
      GreedyRewriteDriver(*patterns_, config, context).run(model);
  if (!result.ok()) return result.status();
  if (result->converged) context.setFixedPointTick(model.advanceTouchClock());
  return result->changed;
}

}  // namespace onnxopt
