#pragma once

// A pass that applies its patterns with the GreedyRewriteDriver: most passes are one.

#include <memory>
#include <string>

#include "onnxopt/export.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/greedy_driver.h"
#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

class ONNXOPT_API PatternPass : public Pass {
 public:
  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override;

 protected:
  explicit PatternPass(std::string name) : Pass(std::move(name)) {}
  // Called once, on the first run.
  virtual void populatePatterns(RewritePatternSet& patterns) const = 0;

 private:
  PassOption<int64_t> max_iterations_{
      *this, "max-iterations", GreedyRewriteConfig().max_iterations,
      "rewrite driver iterations before giving up on a fixed point", atLeast(1)};
  std::unique_ptr<RewritePatternSet> patterns_;
};

}  // namespace onnxopt
