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

  // Whether `option` is one of the options every PatternPass takes (its rewrite driver's), not
  // one of this pass's own: --list-passes shows those once.
  bool isDriverOption(const PassOptionBase& option) const {
    return &option == &max_iterations_ || &option == &confirm_fixed_point_;
  }

 protected:
  explicit PatternPass(std::string name) : Pass(std::move(name)) {}
  // Called once, on the first run.
  virtual void populatePatterns(RewritePatternSet& patterns) const = 0;

 private:
  PassOption<int64_t> max_iterations_{
      *this, "max-iterations", GreedyRewriteConfig().max_iterations,
      "sweeps before giving up, with confirm-fixed-point or when a sweep hits its rewrite limit",
      atLeast(1)};
  PassOption<bool> confirm_fixed_point_{
      *this, "confirm-fixed-point", false,
      "sweep every node again until a sweep changes nothing (for patterns that look further than "
      "the nodes a rewrite requeues)"};
  std::unique_ptr<RewritePatternSet> patterns_;
};

}  // namespace onnxopt
