#include "onnxopt/rewrite/greedy_driver.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "describe.h"
#include "onnxopt/rewrite/node_check.h"
#include "onnxopt/rewrite/rewriter.h"
#include "worklist.h"

namespace onnxopt {
namespace {

using detail::describe;

// PassContext::progress() is called every 4096 node visits (the count & this mask is 0): often
// enough for a display, too rarely to cost anything.
constexpr int64_t kProgressMask = 4095;

bool handlesOpset(const PatternRoot& root, std::optional<int64_t> opset) {
  return opset && *opset >= root.min_opset && *opset <= root.max_opset;
}

// Every live node, producers before their users (each graph in list order, outer graphs first).
std::vector<ir::Node*> allNodes(ir::Model& model) {
  std::vector<ir::Node*> nodes;
  nodes.reserve(model.graph().numNodes());
  ir::forEachGraph(model.graph(), [&nodes](ir::Graph& graph) {
    for (ir::Node& node : graph) nodes.push_back(&node);
  });
  return nodes;
}

// The nodes of every graph of the model: the main graph's and its bodies'.
size_t nodeCount(ir::Model& model) {
  size_t count = 0;
  ir::forEachGraph(model.graph(), [&count](ir::Graph& graph) { count += graph.numNodes(); });
  return count;
}

// `nodes`, then every node that reads an output of one of them, directly or through at most
// `hops - 1` others: each once.
std::vector<ir::Node*> withDownstream(std::vector<ir::Node*> nodes, int64_t hops) {
  if (hops == 0) return nodes;
  absl::flat_hash_set<const ir::Node*> listed(nodes.begin(), nodes.end());
  size_t level_end = nodes.size();
  for (size_t i = 0; i < nodes.size() && hops > 0; ++i) {
    for (const ir::Value* output : nodes[i]->outputs()) {
      if (output == nullptr) continue;
      for (const ir::Use& use : output->uses()) {
        ir::Node* user = use.user();
        if (user != nullptr && listed.insert(user).second) nodes.push_back(user);
      }
    }
    if (i + 1 == level_end) {
      --hops;
      level_end = nodes.size();
    }
  }
  return nodes;
}

// Keys that order main-graph nodes as the graph's list did when `listed` was made: a listed node
// at position p has p << 32; a node made since comes right after the last listed node it reads,
// directly or through other new nodes, ties in the order they were made.
class ListOrder {
 public:
  explicit ListOrder(const NodesByOp& listed) : listed_(listed) {}

  uint64_t keyOf(const ir::Node& node) {
    if (std::optional<uint32_t> position = listedPosition(node)) return uint64_t{*position} << 32;
    return (uint64_t{after(node)} << 32) | (uint64_t{1} << 31) | (node.ordinal() & 0x7fffffffu);
  }

 private:
  std::optional<uint32_t> listedPosition(const ir::Node& node) const {
    if (node.ordinal() >= listed_.position_by_ordinal.size()) return std::nullopt;
    const uint32_t position = listed_.position_by_ordinal[node.ordinal()];
    if (position == NodesByOp::kUnlisted) return std::nullopt;
    return position;
  }

  // The last listed position a new node reads; each new node is searched once (producers first,
  // without recursion).
  uint32_t after(const ir::Node& node) {
    std::vector<const ir::Node*> pending = {&node};
    while (!pending.empty()) {
      const ir::Node* current = pending.back();
      if (after_.contains(current)) {
        pending.pop_back();
        continue;
      }
      uint32_t last = 0;
      bool ready = true;
      for (const ir::Value* input : current->inputs()) {
        const ir::Node* producer = input != nullptr ? input->producer() : nullptr;
        if (producer == nullptr || producer->graph() != node.graph()) continue;
        if (std::optional<uint32_t> position = listedPosition(*producer)) {
          last = std::max(last, *position);
        } else if (auto known = after_.find(producer); known != after_.end()) {
          last = std::max(last, known->second);
        } else {
          pending.push_back(producer);
          ready = false;
        }
      }
      if (!ready) continue;
      after_.emplace(current, last);
      pending.pop_back();
    }
    return after_.at(&node);
  }

  const NodesByOp& listed_;
  absl::flat_hash_map<const ir::Node*, uint32_t> after_;
};

}  // namespace

std::vector<ir::Node*> GreedyRewriteDriver::firstSeeds(ir::Model& model, AnalysisManager& analyses,
                                                       ChangeJournal& journal) const {
  // Subgraph nodes are not listed: the journal records their changes only as "anything".
  const bool one_graph = model.numGraphs() == 1;
  const NodesByOp* listed = one_graph ? analyses.nodesByOp() : nullptr;
  if (listed != nullptr) {
    const std::vector<ir::Node*>* touched = journal.touchedSince(listed->mark);
    // Past a quarter of the model, listing the nodes afresh costs less than what follows.
    if (touched && touched->size() <= listed->num_nodes / 4) {
      // Each op's list is in list order already: merging them keeps it, in linear time.
      std::vector<std::pair<uint64_t, ir::Node*>> seeds_in_order;
      for (const Root& root : roots_) {
        auto of_op = listed->nodes.find(root.op->key());
        if (of_op == listed->nodes.end()) continue;
        const auto middle = static_cast<std::ptrdiff_t>(seeds_in_order.size());
        for (const auto& [position, node] : of_op->second) {
          seeds_in_order.emplace_back(uint64_t{position} << 32, node);
        }
        std::inplace_merge(seeds_in_order.begin(), seeds_in_order.begin() + middle,
                           seeds_in_order.end());
      }
      // The touched nodes a pattern may root at, or that are dead (the driver erases them), take
      // their places among them, so that a node is offered after the nodes it reads have been (a
      // Shape after the Reshape whose shape a fold made constant).
      const auto middle = static_cast<std::ptrdiff_t>(seeds_in_order.size());
      ListOrder order(*listed);
      for (ir::Node* node : *touched) {
        if (rootFor(*node) == nullptr && node->hasUsedOutputs()) continue;
        seeds_in_order.emplace_back(order.keyOf(*node), node);
      }
      std::sort(seeds_in_order.begin() + middle, seeds_in_order.end());
      std::inplace_merge(seeds_in_order.begin(), seeds_in_order.begin() + middle,
                         seeds_in_order.end());
      std::vector<ir::Node*> seeds;
      seeds.reserve(seeds_in_order.size());
      for (const auto& [key, node] : seeds_in_order) {
        if (!node->isErased() && (seeds.empty() || seeds.back() != node)) seeds.push_back(node);
      }
      return seeds;
    }
  }
  std::vector<ir::Node*> nodes = allNodes(model);
  if (one_graph) {
    NodesByOp listing;
    listing.mark = journal.mark();
    listing.num_nodes = nodes.size();
    listing.position_by_ordinal.assign(model.graph().nodeOrdinalBound(), NodesByOp::kUnlisted);
    for (uint32_t position = 0; position < nodes.size(); ++position) {
      listing.nodes[nodes[position]->opKey()].emplace_back(position, nodes[position]);
      listing.position_by_ordinal[nodes[position]->ordinal()] = position;
    }
    analyses.setNodesByOp(std::move(listing));
  }
  return nodes;
}

GreedyRewriteDriver::GreedyRewriteDriver(const RewritePatternSet& patterns,
                                         GreedyRewriteConfig config, PassContext& context)
    : config_(config), context_(context) {
  for (const auto& pattern : patterns.patterns()) {
    const PatternRoot& declared = pattern->root();
    const ir::OpName* op = &ir::OpName::of(declared.op_type, declared.domain);
    auto root =
        std::find_if(roots_.begin(), roots_.end(), [op](const Root& r) { return r.op == op; });
    if (root == roots_.end()) root = roots_.insert(roots_.end(), Root{op, {}});
    root->patterns.push_back(pattern.get());
  }
  for (Root& root : roots_) {
    std::stable_sort(root.patterns.begin(), root.patterns.end(),
                     [](const RewritePattern* a, const RewritePattern* b) {
                       return a->root().benefit > b->root().benefit;
                     });
    const uint32_t key = root.op->key();
    if (key >= root_by_key_.size()) root_by_key_.resize(key + 1, nullptr);
    root_by_key_[key] = &root;
  }
  for (const auto& pattern : patterns.patterns()) {
    match_depth_ = std::max(match_depth_, pattern->matchDepth());
  }
}

bool GreedyRewriteDriver::revisitsTouchedNodes(const ir::Model& model,
                                               const ChangeJournal& journal) const {
  const std::optional<PassContext::FixedPoint>& from = context_.revisitFrom();
  // firstSeeds() offers a superset of what walking from the touched nodes would: every node of
  // the root operators, and the nodes changed since they were listed. That walk pays only while
  // the touches are few, and never for patterns that read types: those need every node
  // downstream of a touch (its operands' types may be better known now), which in a chain is
  // everything after the first one.
  return from && !from->reads_types &&
         (context_.revisitTouchedOnly() ||
          journal.entriesSince(from->mark) <= model.graph().numNodes() / 4);
}

const GreedyRewriteDriver::Root* GreedyRewriteDriver::rootFor(const ir::Node& node) const {
  const uint32_t key = node.opKey();
  return key < root_by_key_.size() ? root_by_key_[key] : nullptr;
}

absl::StatusOr<GreedyRewriteResult> GreedyRewriteDriver::run(ir::Model& model) {
  if (context_.analyses() != nullptr && context_.journal() != nullptr) {
    return runWith(model, *context_.analyses(), *context_.journal());
  }
  AnalysisManager analyses(model);
  ChangeJournal journal(model);
  return runWith(model, analyses, journal);
}

absl::StatusOr<GreedyRewriteResult> GreedyRewriteDriver::runWith(ir::Model& model,
                                                                 AnalysisManager& analyses,
                                                                 ChangeJournal& journal) {
  PassStatistics& statistics = context_.statistics();
  detail::Worklist worklist(journal);
  PatternRewriter rewriter(model, worklist, analyses, journal, context_, match_depth_);
  GreedyRewriteResult result;
  std::vector<const RewritePattern*> opset_declined;  // each reported once
  // Patterns do not change the opsets a model imports.
  const std::optional<int64_t> default_domain_opset = model.opsetVersion("");

  // A change found while verifying the fixed point: production would have missed it.
  auto missed = [](absl::string_view node, absl::string_view what) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the rewrite driver converged, but offering every node once more ", what, " ",
        node, ": an earlier rewrite made this possible without requeueing the node, so "
        "the production pipeline misses it"));
  };
  // Offers every node on the worklist to its patterns until none is left. Returns whether
  // anything changed; sets result.non_convergence when the rewrite limit is hit.
  auto drain = [&](int64_t rewrite_limit, int64_t iteration,
                   bool verifying) -> absl::StatusOr<bool> {
    int64_t rewrites = 0;
    bool changed = false;
    while (ir::Node* node = worklist.pop()) {
      if ((++statistics.nodes_visited & kProgressMask) == 0) context_.progress();
      // Nodes have no side effects in ONNX, so a node whose outputs nothing reads computes
      // nothing observable. That includes a node with no outputs at all.
      if (!node->hasUsedOutputs()) {
        if (verifying) return missed(describe(*node), "erased the dead");
        if (context_.debugEnabled()) context_.debug(absl::StrCat("erased dead ", describe(*node)));
        rewriter.eraseDeadNode(*node);
        changed = true;
        continue;
      }
      const Root* root = rootFor(*node);
      if (root == nullptr) continue;
      if (context_.skipMalformedNodes()) {
        if (absl::Status malformed = checkNodeNeighbourhood(*node, match_depth_);
            !malformed.ok()) {
          if (context_.debugEnabled()) {
            context_.debug(absl::StrCat("offers ", describe(*node),
                                        " to no pattern: it or a node its patterns read fails "
                                        "the check: ",
                                        malformed.message()));
          }
          continue;
        }
      }
      const std::optional<int64_t> opset = node->op().domain().empty()
                                               ? default_domain_opset
                                               : model.opsetVersion(node->op().domain());
      for (const RewritePattern* pattern : root->patterns) {
        if (!handlesOpset(pattern->root(), opset)) {
          if (context_.debugEnabled() &&
              std::find(opset_declined.begin(), opset_declined.end(), pattern) ==
                  opset_declined.end()) {
            opset_declined.push_back(pattern);
            context_.debug(absl::StrCat("[", pattern->name(), "] declines ", describe(*node),
                                        " and every such node: it handles opsets ",
                                        pattern->root().min_opset, " to ",
                                        pattern->root().max_opset, ", the model imports ",
                                        opset ? absl::StrCat(*opset) : "none"));
          }
          continue;
        }
        // A rewrite may erase the node: what --debug says of it is taken before.
        const std::string described =
            verifying || context_.debugEnabled() ? describe(*node) : std::string();
        rewriter.beginPattern(pattern, node);
        const uint64_t changes_before = rewriter.changeCount();
        const LogicalResult outcome = pattern->matchAndRewrite(*node, rewriter);
        if (!rewriter.error().ok()) return rewriter.error();
        if (journal.hasUnaccountedChanges(model)) {
          return absl::InternalError(absl::StrCat(
              describe(*node), ": pattern '", pattern->name(),
              "' changed the IR other than through the rewriter; every change must go through "
              "PatternRewriter"));
        }
        const bool changed_ir = rewriter.changeCount() != changes_before;
        if (outcome.succeeded() != changed_ir) {
          return absl::InternalError(
              absl::StrCat(describe(*node), ": pattern '", pattern->name(),
                           outcome.succeeded() ? "' reported success but changed nothing"
                                               : "' changed the IR but reported failure",
                           "; a pattern must change the IR if and only if it succeeds"));
        }
        if (outcome.failed()) continue;
        rewriter.endRewrite();
        if (verifying) {
          return missed(described, absl::StrCat("let pattern '", pattern->name(), "' rewrite"));
        }
        ++statistics.nodes_rewritten;
        changed = true;
        if (context_.debugEnabled()) {
          context_.debug(absl::StrCat("[", pattern->name(), "] rewrote ", described));
        }
        if (++rewrites > rewrite_limit) {
          result.non_convergence =
              absl::StrCat("more than ", rewrite_limit, " rewrites in iteration ", iteration,
                           ", the last by pattern '", pattern->name(), "' on ", describe(*node),
                           ": patterns may be undoing each other");
          return true;
        }
        break;  // the node changed or is gone: it is back on the worklist if it still exists
      }
    }
    return changed;
  };
  auto limit_for = [this](size_t live_nodes) {
    return config_.max_rewrites_per_iteration > 0
               ? config_.max_rewrites_per_iteration
               : 10 * static_cast<int64_t>(live_nodes) + 100;
  };
  // Pushed in reverse so that they pop in order. A live node no pattern roots at would only be
  // popped to be passed over: it counts as visited and stays off the worklist.
  auto seed = [&](const std::vector<ir::Node*>& nodes) {
    worklist.reserve(nodes.size());
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      ir::Node* node = *it;
      if (rootFor(*node) == nullptr && node->hasUsedOutputs()) {
        if ((++statistics.nodes_visited & kProgressMask) == 0) context_.progress();
        continue;
      }
      worklist.seed(node);
    }
  };

  // Set by the model's size before the run, bodies included: a pattern that grows the graph on
  // every rewrite would otherwise raise its own limit each iteration, exponentially.
  const int64_t rewrite_limit = limit_for(nodeCount(model));
  for (int64_t iteration = 1; iteration <= config_.max_iterations; ++iteration) {
    result.iterations = iteration;
    if (iteration > 1) {
      seed(allNodes(model));
    } else if (const std::vector<ir::Node*>* touched =
                   revisitsTouchedNodes(model, journal)
                       ? journal.touchedSince(context_.revisitFrom()->mark)
                       : nullptr) {
      // The journal holds the changed nodes and their readers: a pattern that looks further up
      // needs the readers' readers too.
      seed(withDownstream(*touched, match_depth_ - 1));
    } else {
      seed(firstSeeds(model, analyses, journal));
    }
    absl::StatusOr<bool> changed =
        drain(rewrite_limit, iteration, /*verifying=*/false);
    if (!changed.ok()) return changed.status();
    result.changed |= *changed;
    if (!result.non_convergence.empty()) {
      if (iteration == config_.max_iterations) break;
      result.non_convergence.clear();  // the next iteration gets a fresh count
      continue;
    }
    if (!*changed || !config_.confirm_fixed_point) {
      result.converged = true;
      break;
    }
  }

  if (result.converged && context_.verifyFixedPoint()) {
    const std::vector<ir::Node*> nodes = allNodes(model);
    seed(nodes);
    absl::StatusOr<bool> changed =
        drain(limit_for(nodes.size()), result.iterations + 1, /*verifying=*/true);
    if (!changed.ok()) return changed.status();
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
