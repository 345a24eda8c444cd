#include "onnxopt/pass/analysis.h"

#include <algorithm>
#include <vector>

#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

ChangeJournal::ChangeJournal(const ir::Model& model)
    : accounted_(model.modificationCount()), main_graph_(&model.graph()) {}

void ChangeJournal::touch(ir::Node* node) {
  ir::Node* entry = node->graph() == main_graph_ ? node : nullptr;
  if (entries_.size() > marked_ && entries_.back() == entry) return;
  entries_.push_back(entry);
}

void ChangeJournal::recordUntracked(const ir::Model& model) {
  if (entries_.size() <= marked_ || entries_.back() != nullptr) entries_.push_back(nullptr);
  account(model);
}

const std::vector<ir::Node*>* ChangeJournal::touchedSince(Mark mark) const {
  if (!last_asked_ || last_asked_->mark != mark) last_asked_ = TouchedSinceMark{mark, mark, false, {}, {}};
  TouchedSinceMark& asked = *last_asked_;
  // Entries are main-graph nodes, so their ordinals index one flat table: a hash set of the
  // nodes would cost more than the pass asking.
  for (; !asked.untracked && asked.scanned < entries_.size(); ++asked.scanned) {
    ir::Node* node = entries_[asked.scanned];
    if (node == nullptr) {
      asked.untracked = true;
      break;
    }
    if (node->ordinal() >= asked.seen.size()) asked.seen.resize(main_graph_->nodeOrdinalBound());
    if (asked.seen[node->ordinal()]) continue;
    asked.seen[node->ordinal()] = true;
    asked.nodes.push_back(node);
  }
  if (asked.untracked) return nullptr;
  // An erased node is never touched again, so it can leave the list for good.
  asked.nodes.erase(std::remove_if(asked.nodes.begin(), asked.nodes.end(),
                                   [](const ir::Node* node) { return node->isErased(); }),
                    asked.nodes.end());
  return &asked.nodes;
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
  // The listing by operator stays: with the journal's touches since, it still says which nodes
  // a pass must be offered.
  if (shapes_ && shapes_computed_at_ != model_.modificationCount()) dropShapes();
}

absl::Span<ir::Node* const> AnalysisManager::nodeChanged(const ir::Node& node) {
  if (!shapes_) return {};
  return shapes_->forget(node);
}

void AnalysisManager::invalidateAll() {
  dropShapes();
  nodes_by_op_.reset();
}

void AnalysisManager::dropShapes() {
  shapes_.reset();
  retired_.clear();
}

void AnalysisManager::retire(ir::Attribute attribute) { retired_.push_back(std::move(attribute)); }

}  // namespace onnxopt
