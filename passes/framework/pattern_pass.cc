#include "onnxopt/rewrite/pattern_pass.h"

namespace onnxopt {

absl::StatusOr<bool> PatternPass::run(ir::Model& model, PassContext& context) {
  if (patterns_ == nullptr) {
    patterns_ = std::make_unique<RewritePatternSet>();
    populatePatterns(*patterns_);
  }
  GreedyRewriteConfig config;
  config.max_iterations = *max_iterations_;
  config.confirm_fixed_point = *confirm_fixed_point_;
  absl::StatusOr<GreedyRewriteResult> result =
      GreedyRewriteDriver(*patterns_, config, context).run(model);
  if (!result.ok()) return result.status();
  if (result->converged && context.journal() != nullptr) {
    // Sticky: a node whose match read types before and was not touched since is not offered
    // again unless it is downstream of a change.
    const bool read_types_before = context.revisitFrom() && context.revisitFrom()->reads_types;
    context.setFixedPoint({context.journal()->mark(), read_types_before || context.typesRead()});
  }
  return result->changed;
}

}  // namespace onnxopt
