#pragma once

// The greedy driver's worklist: nodes still to offer to the patterns. A stack, and queued and
// recorded marks per node kept here, indexed by the node's ordinal in its graph, so that pushing a
// node already queued and forgetting a node are O(1) without hashing.

#include <cstdint>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/analysis.h"

namespace onnxopt::detail {

class Worklist {
 public:
  explicit Worklist(ChangeJournal& journal) : journal_(journal) {}

  void reserve(size_t count) { stack_.reserve(count); }

  // A node a rewrite touched: queued, and recorded in the journal once per run (no pass takes a
  // journal mark while the run lasts, so a second record would tell nothing more).
  void push(ir::Node* node) {
    if (node->isErased()) return;
    uint8_t& marks = markOf(*node);
    if (!(marks & kRecorded)) {
      journal_.touch(node);
      marks |= kRecorded;
    }
    seed(node);
  }
  // A node offered because an iteration starts: queued, not recorded.
  void seed(ir::Node* node) {
    if (node->isErased()) return;
    uint8_t& marks = markOf(*node);
    if (marks & kQueued) return;
    marks |= kQueued;
    stack_.push_back(node);
  }
  // Null when empty. Forgotten nodes stay on the stack until popped, and are skipped then.
  ir::Node* pop() {
    while (!stack_.empty()) {
      ir::Node* node = stack_.back();
      stack_.pop_back();
      uint8_t& marks = markOf(*node);
      if (marks & kQueued) {
        marks &= ~kQueued;
        return node;
      }
    }
    return nullptr;
  }
  // For nodes being erased: the stack may keep the pointer (erased nodes live until their graph
  // goes, and the rewriter keeps retired subgraphs alive), but it is skipped.
  void forget(const ir::Node& node) { markOf(node) &= ~kQueued; }

 private:
  uint8_t& markOf(const ir::Node& node) {
    if (node.graph() != last_graph_) {
      last_graph_ = node.graph();
      last_marks_ = &marks_[last_graph_];
    }
    if (node.ordinal() >= last_marks_->size()) last_marks_->resize(node.graph()->nodeOrdinalBound());
    return (*last_marks_)[node.ordinal()];
  }

  static constexpr uint8_t kQueued = 1;
  static constexpr uint8_t kRecorded = 2;

  ChangeJournal& journal_;
  std::vector<ir::Node*> stack_;
  // Almost every node asked about is in the same graph as the one before.
  absl::node_hash_map<const ir::Graph*, std::vector<uint8_t>> marks_;  // stable addresses
  const ir::Graph* last_graph_ = nullptr;
  std::vector<uint8_t>* last_marks_ = nullptr;
};

}  // namespace onnxopt::detail
