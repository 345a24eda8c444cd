#include "onnxopt/rewrite/greedy_driver.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "describe.h"
#include "onnxopt/rewrite/rewriter.h"
#include "worklist.h"

namespace onnxopt {
namespace {

using detail::describe;

// PassContext::progress() is called every 4096 node visits (the count & this mask is 0): often
// enough for a display, too rarely to cost anything.
constexpr int64_t kProgressMask = 4095;

uint64_t keyBit(uint32_t op_key) { return uint64_t{1} << (op_key % 64); }

}  // namespace

GreedyRewriteDriver::GreedyRewriteDriver(const RewritePatternSet& patterns,
                                         GreedyRewriteConfig config, PassContext& context)
    : config_(config), context_(context) {
  for (const auto& pattern : patterns.patterns()) {
    const ir::OpName* op = &ir::OpName::of(pattern->rootOpType(), pattern->rootDomain());
    auto root =
        std::find_if(roots_.begin(), roots_.end(), [op](const Root& r) { return r.op == op; });
    if (root == roots_.end()) root = roots_.insert(roots_.end(), Root{op, {}});
    root->patterns.push_back(pattern.get());
    root_key_bits_ |= keyBit(op->key());
  }
}

const std::vector<const RewritePattern*>* GreedyRewriteDriver::patternsFor(
    const ir::Node& node) const {
  for (const Root& root : roots_) {
    if (node.is(*root.op)) return &root.patterns;
  }
  return nullptr;
}

absl::StatusOr<GreedyRewriteResult> GreedyRewriteDriver::run(ir::Model& model) {
  PassStatistics& statistics = context_.statistics();
  detail::Worklist worklist;
  PatternRewriter rewriter(model, worklist, context_);
  GreedyRewriteResult result;
  worklist.setTouchTick(model.advanceTouchClock());
  std::vector<ir::Node*> all_nodes;

  for (int64_t iteration = 1; iteration <= config_.max_iterations; ++iteration) {
    result.iterations = iteration;
    all_nodes.clear();
    const uint64_t touched_after = iteration == 1 ? config_.revisit_touched_after : 0;
    int64_t live_nodes = 0;
    if (touched_after != 0 && model.mainGraphNodesTouchedAfter(touched_after, &all_nodes)) {
      live_nodes = static_cast<int64_t>(model.graph().numNodes());
    } else if (model.numGraphs() == 1) {
      // One graph: walked backwards and seeded on the way, so that nodes pop in list order and
      // each node is read once here rather than twice.
      worklist.reserve(model.graph().numNodes());
      for (ir::Node* node = model.graph().lastNode(); node != nullptr; node = node->prev()) {
        detail::prefetchNodeAt(node, -8);  // the walk goes backwards
        ++live_nodes;
        if (touched_after == 0 || node->touchedAt() > touched_after) worklist.seed(node);
      }
    } else {
      ir::forEachGraph(model.graph(), [&all_nodes, &live_nodes, touched_after](ir::Graph& graph) {
        for (ir::Node& node : graph) {
          ++live_nodes;
          if (touched_after == 0 || node.touchedAt() > touched_after) all_nodes.push_back(&node);
        }
      });
    }
    // Pushed in reverse so that they pop in order: list order (producers before their users),
    // or for a later round, the order of their last touch.
    worklist.reserve(all_nodes.size());
    for (auto it = all_nodes.rbegin(); it != all_nodes.rend(); ++it) worklist.seed(*it);
    const int64_t rewrite_limit = config_.max_rewrites_per_iteration > 0
                                      ? config_.max_rewrites_per_iteration
                                      : 10 * live_nodes + 100;
    int64_t rewrites = 0;
    bool changed = false;

    while (ir::Node* node = worklist.pop()) {
      if ((++statistics.nodes_visited & kProgressMask) == 0) context_.progress();
      // Nodes have no side effects in ONNX, so a node whose outputs nothing reads computes
      // nothing observable. That includes a node with no outputs at all.
      if (!node->hasUsedOutputs()) {
        if (context_.debugEnabled()) context_.debug(absl::StrCat("erased dead ", describe(*node)));
        rewriter.eraseDeadNode(*node);
        changed = true;
        continue;
      }
      // The key rules out nearly every other node without reading its NodeProto.
      if ((root_key_bits_ & keyBit(node->opKey())) == 0) continue;
      const std::vector<const RewritePattern*>* patterns = patternsFor(*node);
      if (patterns == nullptr) continue;
      for (const RewritePattern* pattern : *patterns) {
        rewriter.beginPattern(pattern, node);
        const uint64_t changes_before = rewriter.changeCount();
        const LogicalResult outcome = pattern->matchAndRewrite(*node, rewriter);
        if (!rewriter.error().ok()) return rewriter.error();
        const bool changed_ir = rewriter.changeCount() != changes_before;
        if (outcome.succeeded() != changed_ir) {
          return absl::InternalError(
              absl::StrCat(describe(*node), ": pattern '", pattern->name(),
                           outcome.succeeded() ? "' reported success but changed nothing"
                                               : "' changed the IR but reported failure",
                           "; a pattern must change the IR if and only if it succeeds"));
        }
        if (outcome.failed()) continue;
        ++statistics.nodes_rewritten;
        changed = true;
        if (context_.debugEnabled()) {
          context_.debug(absl::StrCat("[", pattern->name(), "] rewrote ", describe(*node)));
        }
        if (++rewrites > rewrite_limit) {
          result.changed = true;
          result.non_convergence =
              absl::StrCat("more than ", rewrite_limit, " rewrites in iteration ", iteration,
                           ", the last by pattern '", pattern->name(), "' on ", describe(*node),
                           ": patterns may be undoing each other");
        }
        break;  // the node changed or is gone: it is back on the worklist if it still exists
      }
      if (!result.non_convergence.empty()) break;
    }
    if (!result.non_convergence.empty()) break;
    result.changed |= changed;
    // The worklist drained: every node was offered again after its last change. Only tests pay
    // for one more full iteration proving that nothing is left to do.
    if (!changed || !(config_.confirm_fixed_point || context_.requireConvergence())) {
      result.converged = true;
      break;
    }
  }

  if (!result.converged) {
    if (result.non_convergence.empty()) {
      result.non_convergence = absl::StrCat("still changing after ", config_.max_iterations,
                                            " iterations (max-iterations)");
    }
    const std::string message =
        absl::StrCat("the rewrite driver did not converge: ", result.non_convergence);
    if (context_.requireConvergence()) return absl::ResourceExhaustedError(message);
    context_.warn(message);
  }
  return result;
}

}  // namespace onnxopt
