#pragma once

// What passes of one pipeline share: the analyses (shapes), kept valid through rewrites, and the
// journal of what rewriters changed, which lets a later fixed-point round offer a pattern pass
// only the nodes changed since it last converged. The PassManager owns both for one run; a pass
// run on its own gets fresh ones from PatternPass.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

class ShapeOracle;

// When a value loses a reader and is left with this many or fewer, its readers are revisited: a
// match absorbs an intermediate only when every reader is inside it, and a match holds a few
// nodes. A value with more keeps its readers where they are (offering them all at each loss
// would be quadratic). Its producer is always revisited.
inline constexpr size_t kFewReadersToRevisit = 4;

// Which nodes rewriters changed, in order, and where something happened that no list of nodes
// describes (a change in a subgraph, or one made other than through a rewriter). A change is
// untracked unless a rewriter recorded it: the journal compares the model's modification count
// with the count it last accounted for, so forgetting to record makes passes slower, never wrong.
class ONNXOPT_API ChangeJournal {
 public:
  // A position in the journal, to ask later what changed since.
  using Mark = size_t;

  explicit ChangeJournal(const ir::Model& model);

  // A rewriter changed `node`, or something its patterns read. Call account() after the change.
  void touch(ir::Node* node);
  // Every change of the model so far is described by touch() calls (or needs no revisit).
  void account(const ir::Model& model) { accounted_ = model.modificationCount(); }
  // Whether the model changed since the last account().
  bool hasUnaccountedChanges(const ir::Model& model) const {
    return model.modificationCount() != accounted_;
  }
  // Records that what changed since the last account() is not described by touches: everything
  // may have to be revisited. Then accounts for it.
  void recordUntracked(const ir::Model& model);

  Mark mark() const {
    marked_ = entries_.size();
    return entries_.size();
  }
  // How many touches were recorded after `mark`, repeats included: at least as many as
  // touchedSince(mark) lists, and known without reading them.
  size_t entriesSince(Mark mark) const { return entries_.size() - mark; }
  // The main-graph nodes touched after `mark`, not erased, each once, in the order of their
  // first touch since; null when an untracked change or a subgraph change happened since. The
  // list is the journal's own (every pass of a round asks): valid until the next ask.
  const std::vector<ir::Node*>* touchedSince(Mark mark) const;

 private:
  // Main-graph nodes live as long as the model, so the pointers never dangle; a subgraph may go,
  // so its nodes are recorded as nullptr: "revisit everything".
  std::vector<ir::Node*> entries_;
  uint64_t accounted_;
  const ir::Graph* main_graph_;
  // The last mark handed out: a touch repeating the entry before it is still recorded after it.
  mutable size_t marked_ = 0;
  // Every pass of a round asks touchedSince() for the same mark: what the last ask found is kept,
  // so that each asks only about the entries since (else a round would read its touches once
  // per pass).
  struct TouchedSinceMark {
    Mark mark;
    size_t scanned;          // entries_ read so far
    bool untracked = false;  // a nullptr entry was among them
    std::vector<bool> seen;  // by node ordinal
    std::vector<ir::Node*> nodes;
  };
  mutable std::optional<TouchedSinceMark> last_asked_;
};

// The main graph's nodes by operator, as they were at a journal mark. With the nodes touched since
// (ChangeJournal::touchedSince), they are every node a pattern pass must offer its patterns: the
// nodes of its root operators, and the changed ones (a node becomes dead only through a change).
// So only the pass that lists the nodes walks the whole model.
struct NodesByOp {
  ChangeJournal::Mark mark = 0;
  // Per op key (ir::Node::opKey): the node and its position in the graph's list, in list order.
  absl::flat_hash_map<uint32_t, std::vector<std::pair<uint32_t, ir::Node*>>> nodes;
  size_t num_nodes = 0;
  // Per node ordinal, the position in the list; kUnlisted for a node made since.
  static constexpr uint32_t kUnlisted = UINT32_MAX;
  std::vector<uint32_t> position_by_ordinal;
};

// The analyses passes share. Shapes are computed once, on first use, and kept through the
// pipeline: rewriters tell the oracle what they change, ONNX shape inference runs at most once per
// round, and a change no rewriter recorded drops everything.
class ONNXOPT_API AnalysisManager {
 public:
  explicit AnalysisManager(ir::Model& model);
  ~AnalysisManager();
  AnalysisManager(const AnalysisManager&) = delete;
  AnalysisManager& operator=(const AnalysisManager&) = delete;

  ShapeOracle& shapes();
  // How many times the shapes were computed afresh (each may run ONNX shape inference once).
  int shapeComputations() const { return shape_computations_; }
  // A fixed-point round starts: if the model changed since the shapes were computed, they are
  // computed anew (and ONNX inference may run once more).
  void beginRound();
  // A rewriter changed `node` (its operands, attributes or op): what analyses know about its
  // outputs goes, and what they derived from that. Returns the nodes whose operands the analyses
  // now know less about (ShapeOracle::forget()), valid until the next call.
  absl::Span<ir::Node* const> nodeChanged(const ir::Node& node);
  // Something changed that no rewriter described: every analysis goes.
  void invalidateAll();
  // A rewriter replaced or removed `attribute`: its subgraphs stay alive as long as analyses may
  // hold answers about their values.
  void retire(ir::Attribute attribute);
  // The nodes by operator a rewrite driver listed, or null; invalidateAll() drops them.
  const NodesByOp* nodesByOp() const { return nodes_by_op_ ? &*nodes_by_op_ : nullptr; }
  void setNodesByOp(NodesByOp listing) { nodes_by_op_ = std::move(listing); }

 private:
  void dropShapes();

  ir::Model& model_;
  std::unique_ptr<ShapeOracle> shapes_;
  uint64_t shapes_computed_at_ = 0;  // the model's modification count then
  int shape_computations_ = 0;
  std::vector<ir::Attribute> retired_;
  std::optional<NodesByOp> nodes_by_op_;
};

}  // namespace onnxopt
