#include "onnxopt/pass/analysis.h"

#include <vector>

#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

ChangeJournal::ChangeJournal(const ir::Model& model)
    : accounted_(model.modificationCount()), main_graph_(&model.graph()) {}

void ChangeJournal::touch(ir::Node* node) {
  ir::Node* entry = node->graph() == main_graph_ ? node : nullptr;
  if (!entries_.empty() && entries_.back() == entry) return;
  entries_.push_back(entry);
}

void ChangeJournal::recordUntracked(const ir::Model& model) {
  if (entries_.empty() || entries_.back() != nullptr) entries_.push_back(nullptr);
  account(model);
}

std::optional<std::vector<ir::Node*>> ChangeJournal::touchedSince(Mark mark) const {
  std::vector<ir::Node*> nodes;
  // Entries are main-graph nodes, so their ordinals index one flat table: every pass of a
  // round asks this, and a hash set of the nodes would cost more than the pass.
  std::vector<bool> seen(main_graph_->nodeOrdinalBound());
  for (size_t i = mark; i < entries_.size(); ++i) {
    ir::Node* node = entries_[i];
    if (node == nullptr) return std::nullopt;
    if (node->isErased() || seen[node->ordinal()]) continue;
    seen[node->ordinal()] = true;
    nodes.push_back(node);
  }
  return nodes;
}

AnalysisManager::AnalysisManager(ir::Model& model) : model_(model) {}
AnalysisManager::~AnalysisManager() = default;

ShapeOracle& AnalysisManager::shapes() {
  if (!shapes_) {
    shapes_ = std::make_unique<ShapeOracle>(model_);
    shapes_computed_at_ = model_.modificationCount();
    ++shape_computations_;
  }
  return *shapes_;
}

void AnalysisManager::beginRound() {
  if (shapes_ && shapes_computed_at_ != model_.modificationCount()) invalidateAll();
}

void AnalysisManager::nodeChanged(const ir::Node& node) {
  if (shapes_) shapes_->forget(node);
}

void AnalysisManager::invalidateAll() {
  shapes_.reset();
  retired_.clear();
  nodes_by_op_.reset();
}

void AnalysisManager::retire(ir::Attribute attribute) { retired_.push_back(std::move(attribute)); }

}  // namespace onnxopt
