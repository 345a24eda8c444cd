#pragma once

// The greedy driver's worklist: nodes still to offer to the patterns. A stack plus a flag on each
// node, so that pushing a node already queued, and forgetting a node, are O(1) without hashing.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "onnxopt/ir/ir.h"

namespace onnxopt::detail {

// Asks the cache for the memory `steps` nodes away from `node` in its graph's node pool. An
// imported graph's nodes sit there in list order, so in a walk along the list that is usually the
// node as many steps ahead. On graphs bigger than the caches, the driver's walks stall on memory
// without prefetching (docs/performance.md, the pipeline's run L). A wrong guess wastes a
// prefetch; a prefetch never faults.
inline void prefetchNodeAt(const ir::Node* node, ptrdiff_t steps) {
#if defined(__GNUC__)
  const ptrdiff_t bytes = steps * static_cast<ptrdiff_t>(sizeof(ir::Node));
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(node) + bytes));
#endif
}

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
    prefetchAhead();
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
  // The stack knows which nodes pop next. The node kPrefetchDistance pops away is fetched; so
  // are the input values of the node half as far, whose own memory an earlier pop fetched:
  // patterns read those values first, and they live in another pool, where no walk along the
  // list could guess them.
  void prefetchAhead() const {
#if defined(__GNUC__)
    const size_t size = stack_.size();
    if (size <= kPrefetchDistance) return;
    const char* later = reinterpret_cast<const char*>(stack_[size - kPrefetchDistance]);
    for (size_t offset = 0; offset < sizeof(ir::Node); offset += 64) {
      __builtin_prefetch(later + offset);
    }
    for (const ir::Value* input : stack_[size - kPrefetchDistance / 2]->inputs()) {
      if (input != nullptr) __builtin_prefetch(input);
    }
#endif
  }

  static constexpr size_t kPrefetchDistance = 16;
  std::vector<ir::Node*> stack_;
  uint64_t touch_tick_ = 0;
};

}  // namespace onnxopt::detail
