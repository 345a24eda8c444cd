#pragma once

// GreedyRewriteDriver: applies a set of patterns to every node of a model, subgraphs included,
// until nothing changes, erasing nodes that become dead on the way.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

struct GreedyRewriteConfig {
  // An iteration offers every live node to the patterns in the graph's order (the first
  // iteration, after an earlier pass listed the nodes by operator, only the root operators' nodes
  // and the changed ones), then every node the rewrites touched, until the worklist is empty: a
  // fixed point for patterns that look only at the nodes a rewrite requeues (the rewriter
  // requeues the users, producers and operands of what it changes, and the readers of values
  // whose types a change may have made better known).
  // Another iteration follows only when one hit its rewrite limit, or, with confirm_fixed_point,
  // until one changes nothing; max_iterations caps them.
  int64_t max_iterations = 10;
  bool confirm_fixed_point = false;
  // Rewrites allowed in one iteration; 0 means 10 per node of the model (bodies included) when
  // the run starts, plus 100. Patterns that undo each other, or grow the graph without end, hit
  // it in every iteration instead of looping forever.
  int64_t max_rewrites_per_iteration = 0;
};

struct GreedyRewriteResult {
  bool changed = false;
  bool converged = false;
  int64_t iterations = 0;
  // Why it did not converge; empty when it did.
  std::string non_convergence;
};

class ONNXOPT_API GreedyRewriteDriver {
 public:
  // `patterns` must outlive the driver. Statistics and --debug lines go to `context`, and so do
  // the shared analyses and the change journal when the context has them (a PassManager's).
  GreedyRewriteDriver(const RewritePatternSet& patterns, GreedyRewriteConfig config,
                      PassContext& context);

  // Errors: a pattern's emitError, a broken pattern contract (the status names the pattern and
  // the node), a rewrite found by context.verifyFixedPoint() after convergence, or, when
  // context.requireConvergence(), not converging. Without that, not converging is reported in
  // the result and as a warning in the context. When context.revisitFrom() is set, the journal
  // can tell and few nodes were touched since, and the patterns read no types, the first
  // iteration offers only the nodes touched since and as many readers down as the patterns look
  // up (RewritePattern::matchDepth); otherwise what firstSeeds() lists, a superset.
  absl::StatusOr<GreedyRewriteResult> run(ir::Model& model);

 private:
  struct Root {
    const ir::OpName* op;
    std::vector<const RewritePattern*> patterns;  // by decreasing benefit
  };
  const Root* rootFor(const ir::Node& node) const;
  // What the first iteration offers when this pass has no fixed point to resume from: the nodes
  // of its root operators and those changed since an earlier pass listed the nodes by operator
  // (AnalysisManager::nodesByOp), or every node, listed for the passes after.
  std::vector<ir::Node*> firstSeeds(ir::Model& model, AnalysisManager& analyses,
                                    ChangeJournal& journal) const;
  // Whether the first iteration of a pass resuming from a fixed point walks from the nodes
  // touched since (and the readers its patterns look up from) rather than from firstSeeds().
  bool revisitsTouchedNodes(const ir::Model& model, const ChangeJournal& journal) const;
  absl::StatusOr<GreedyRewriteResult> runWith(ir::Model& model, AnalysisManager& analyses,
                                              ChangeJournal& journal);

  GreedyRewriteConfig config_;
  PassContext& context_;
  std::vector<Root> roots_;
  // Every node is looked up, and a pass may have dozens of roots (fold-constants, every op it
  // folds): OpName keys are small and dense, so a table indexed by key answers in one load.
  std::vector<const Root*> root_by_key_;
  // The largest RewritePattern::matchDepth() of the patterns.
  int match_depth_ = 1;
};

}  // namespace onnxopt
