#pragma once

// The greedy driver's worklist: nodes still to offer to the patterns. A stack with a membership
// set, so that pushing a node already queued, and forgetting a node, are O(1).

#include <vector>

#include "absl/container/flat_hash_set.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt::detail {

class Worklist {
 public:
  void reserve(size_t count) { queued_.reserve(count); }

  void push(ir::Node* node) {
    if (!node->isErased() && queued_.insert(node).second) stack_.push_back(node);
  }
  // Null when empty. Forgotten nodes stay on the stack until popped, and are skipped then.
  ir::Node* pop() {
    while (!stack_.empty()) {
      ir::Node* node = stack_.back();
      stack_.pop_back();
      if (queued_.erase(node) != 0) return node;
    }
    return nullptr;
  }
  // For nodes being erased or destroyed: the stack may keep a stale pointer, never used.
  void forget(ir::Node* node) { queued_.erase(node); }

 private:
  std::vector<ir::Node*> stack_;
  absl::flat_hash_set<ir::Node*> queued_;
};

}  // namespace onnxopt::detail
