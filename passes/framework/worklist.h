#pragma once

// The greedy driver's worklist: nodes still to offer to the patterns. A stack plus a flag on each
// node, so that pushing a node already queued, and forgetting a node, are O(1) without hashing.

#include <cstdint>
#include <vector>

#include "onnxopt/ir/ir.h"

namespace onnxopt::detail {

class Worklist {
 public:
  void reserve(size_t count) { stack_.reserve(count); }

  // Nodes pushed from now on are marked touched at `tick` (ir::Node::touchedAt()).
  void setTouchTick(uint64_t tick) { touch_tick_ = tick; }

  // A node a rewrite touched: queued, and marked.
  void push(ir::Node* node) {
    if (node->isErased()) return;
    if (ir::Model* model = node->graph()->model()) {
      model->touch(node, touch_tick_);
    } else {
      node->setTouchedAt(touch_tick_);
    }
    seed(node);
  }
  // A node offered because an iteration starts: queued, not marked.
  void seed(ir::Node* node) {
    if (node->isErased() || node->isQueued()) return;
    node->setQueued(true);
    stack_.push_back(node);
  }
  // Null when empty. Forgotten nodes stay on the stack until popped, and are skipped then.
  ir::Node* pop() {
    while (!stack_.empty()) {
      ir::Node* node = stack_.back();
      stack_.pop_back();
      if (node->isQueued()) {
        node->setQueued(false);
        return node;
      }
    }
    return nullptr;
  }
  // For nodes being erased: the stack may keep the pointer (erased nodes live until their graph
  // goes), but it is skipped.
  void forget(ir::Node* node) { node->setQueued(false); }
  // Leaves no node marked queued, so that the next driver starts clean.
  void clear() {
    while (pop() != nullptr) {
    }
  }

 private:
  std::vector<ir::Node*> stack_;
  uint64_t touch_tick_ = 0;
};

}  // namespace onnxopt::detail
