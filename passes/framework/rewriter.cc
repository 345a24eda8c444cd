#include "onnxopt/rewrite/rewriter.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "describe.h"
#include "onnxopt/pass/pass.h"
#include "worklist.h"

namespace onnxopt {
namespace {

using detail::describe;

bool isMainGraphOutput(const ir::Value& value) {
  for (const ir::Use& use : value.uses()) {
    if (use.isGraphOutput() && use.graphOutputOf()->parentNode() == nullptr) return true;
  }
  return false;
}

bool contains(absl::Span<ir::Node* const> nodes, const ir::Node* node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// The nodes nested in `attribute`'s subgraphs, and the values those read from outside them (whose
// producers may die with the subgraphs).
struct Region {
  std::vector<ir::Node*> nodes;
  std::vector<const ir::Value*> outer_operands;
};

void collectRegion(ir::Attribute& attribute, const ir::Graph& owner, Region* region) {
  // A value read inside is from outside exactly when it is defined in the owning graph or one
  // enclosing it.
  auto is_outer = [&owner](const ir::Value* value) {
    for (const ir::Graph* graph = &owner; graph != nullptr; graph = graph->parentGraph()) {
      if (value->graph() == graph) return true;
    }
    return false;
  };
  for (auto& subgraph : attribute.mutableGraphs()) {
    ir::forEachGraph(*subgraph, [&](ir::Graph& graph) {
      for (ir::Node& node : graph) {
        region->nodes.push_back(&node);
        for (const ir::Value* input : node.inputs()) {
          if (input != nullptr && is_outer(input)) region->outer_operands.push_back(input);
        }
      }
      for (const ir::Value* output : graph.outputs()) {
        if (output != nullptr && is_outer(output)) region->outer_operands.push_back(output);
      }
    });
  }
}

}  // namespace

PatternRewriter::PatternRewriter(ir::Model& model, detail::Worklist& worklist, PassContext& context)
    : model_(model), worklist_(worklist), context_(context) {}

PatternRewriter::~PatternRewriter() {
  // Before retired_ goes: nodes of retired subgraphs may still be on the worklist.
  worklist_.clear();
}

std::optional<int64_t> PatternRewriter::opsetVersion(const ir::Node& node) const {
  return model_.opsetVersion(node.op().domain());
}

bool PatternRewriter::explainsFailures() const { return context_.debugEnabled(); }

LogicalResult PatternRewriter::notifyMatchFailure(const ir::Node& node, absl::string_view reason) {
  if (context_.debugEnabled()) {
    context_.debug(absl::StrCat("[", pattern_ ? pattern_->name() : "driver", "] ", describe(node),
                                ": no match: ", reason));
  }
  return failure();
}

LogicalResult PatternRewriter::emitError(const ir::Node& node, const absl::Status& error) {
  if (error_.ok()) {
    error_ = absl::Status(error.code(), absl::StrCat(describe(node), ": ", error.message(),
                                                     " (pattern '", pattern_->name(), "')"));
  }
  return failure();
}

void PatternRewriter::recordError(const ir::Node& node, absl::string_view message) {
  if (error_.ok()) {
    error_ = absl::InternalError(absl::StrCat(describe(node), ": pattern '", pattern_->name(),
                                              "' broke the rewriter contract: ", message));
  }
}

LogicalResult PatternRewriter::match(ir::Node& root, absl::Span<ir::Node* const> absorbed) {
  ++context_.statistics().nodes_matched;
  if (&root != offered_root_) {
    recordError(root, "match() must be rooted at the node the driver offered");
    return failure();
  }
  for (size_t i = 0; i < absorbed.size(); ++i) {
    const ir::Node* node = absorbed[i];
    if (node == nullptr || node == &root || node->isErased() || contains(absorbed.first(i), node)) {
      recordError(root, "match() lists a null, erased, repeated or root node as absorbed");
      return failure();
    }
    if (node->graph() != root.graph()) {
      return notifyMatchFailure(root, absl::StrCat(describe(*node), " is in another graph"));
    }
    bool feeds_match = false;
    for (const ir::Value* output : node->outputs()) {
      if (output == nullptr) continue;
      for (const ir::Use& use : output->uses()) {
        if (use.isGraphOutput()) {
          return notifyMatchFailure(root, absl::StrCat("intermediate '", output->name(), "' of ",
                                                       describe(*node), " is a graph output"));
        }
        if (use.user() != &root && !contains(absorbed, use.user())) {
          return notifyMatchFailure(
              root, absl::StrCat("intermediate '", output->name(), "' of ", describe(*node),
                                 " is also read by ", describe(*use.user())));
        }
        feeds_match = true;
      }
    }
    if (!feeds_match) {
      return notifyMatchFailure(root, absl::StrCat(describe(*node), " feeds nothing in the match"));
    }
  }
  matched_root_ = &root;
  return success();
}

bool PatternRewriter::canReplaceAllUsesWith(const ir::Value& from, const ir::Value& to) const {
  if (&from == &to) return false;
  if (!isMainGraphOutput(from)) return true;
  const ir::Node* producer = to.producer();
  if (producer == nullptr) return false;  // a graph input or initializer keeps its own name
  if (std::find(created_.begin(), created_.end(), producer) != created_.end()) return true;
  return to.graph() == &model_.graph() && !to.isGraphOutput();
}

bool PatternRewriter::beginChange(const ir::Node& node) {
  if (!error_.ok()) return false;
  if (matched_root_ == nullptr) {
    recordError(node, "changed the IR without a successful match()");
    return false;
  }
  return true;
}

void PatternRewriter::notifyChanged(ir::Node& node) {
  worklist_.push(&node);
  ++change_count_;
  if (shapes_) shapes_->forget(node);
}

ShapeOracle& PatternRewriter::shapes() {
  if (!shapes_) shapes_ = std::make_unique<ShapeOracle>(model_);
  return *shapes_;
}

void PatternRewriter::pushProducer(const ir::Value* value) {
  if (value != nullptr && value->producer() != nullptr) worklist_.push(value->producer());
}

void PatternRewriter::pushUsers(const ir::Value& value) {
  for (const ir::Use& use : value.uses()) {
    if (use.user() != nullptr) worklist_.push(use.user());
  }
}

ir::Node* PatternRewriter::createNode(const std::string& op_type,
                                      absl::Span<ir::Value* const> inputs,
                                      absl::Span<const std::string> output_name_hints,
                                      const std::string& domain,
                                      const std::string& node_name_hint) {
  // Without a match the run fails, but the pattern still gets a node: a dead node keeps the model
  // valid, a null would crash the pattern.
  beginChange(*offered_root_);
  ir::Node* before = matched_root_ ? matched_root_ : offered_root_;
  absl::InlinedVector<std::string, 2> names;
  names.reserve(output_name_hints.size());
  for (const std::string& hint : output_name_hints) {
    names.push_back(model_.valueNames().fresh(hint.empty() ? op_type : hint));
  }
  ir::Node* node = before->graph()->createNode(op_type, inputs, names, before, domain);
  const std::string& name_hint = !node_name_hint.empty() ? node_name_hint
                                 : !before->name().empty() ? before->name()
                                                           : op_type;
  node->setName(model_.nodeNames().fresh(name_hint));
  created_.push_back(node);
  notifyChanged(*node);
  return node;
}

ir::Value* PatternRewriter::createInitializer(const std::string& name_hint,
                                             onnx::TensorProto tensor) {
  beginChange(*offered_root_);
  ir::Node* root = matched_root_ ? matched_root_ : offered_root_;
  const std::string name = model_.valueNames().fresh(name_hint);
  tensor.set_name(name);
  ++change_count_;
  return root->graph()->addInitializer(name, std::make_shared<ir::Tensor>(std::move(tensor)));
}

void PatternRewriter::replaceAllUsesWith(ir::Value& from, ir::Value& to) {
  if (!beginChange(*offered_root_)) return;
  if (!canReplaceAllUsesWith(from, to)) {
    recordError(*offered_root_,
                absl::StrCat("replacing '", from.name(), "' with '", to.name(),
                             "' would change the model's interface (see canReplaceAllUsesWith)"));
    return;
  }
  pushUsers(from);
  const bool to_is_new = to.producer() != nullptr && std::find(created_.begin(), created_.end(),
                                                               to.producer()) != created_.end();
  const bool swap_names = to_is_new || isMainGraphOutput(from);
  // The replacement computes the same thing, so it has the same type. When it takes over the
  // name, it takes over the declaration too, in its place in value_info.
  if (swap_names && to.valueInfo() == nullptr && from.valueInfo() != nullptr &&
      to.graph() == from.graph()) {
    to.swapValueInfo(from);
  } else if (to.valueInfo() == nullptr && from.type().isTensor()) {
    to.setType(from.type());
  }
  from.replaceAllUsesWith(&to);
  if (swap_names) to.swapName(from);
  pushProducer(&from);
  ++change_count_;
}

void PatternRewriter::replaceNode(ir::Node& node, absl::Span<ir::Value* const> replacements) {
  if (!beginChange(node)) return;
  if (replacements.size() != node.numOutputs()) {
    recordError(node, absl::StrCat("replaceNode() got ", replacements.size(), " replacements for ",
                                   node.numOutputs(), " outputs"));
    return;
  }
  // Every check before the first change, so that a contract error leaves no half-done rewrite.
  for (size_t i = 0; i < replacements.size(); ++i) {
    const ir::Value* output = node.output(i);
    if (output == nullptr || !output->hasUses()) continue;
    if (replacements[i] == nullptr || !canReplaceAllUsesWith(*output, *replacements[i])) {
      recordError(node, absl::StrCat("output '", output->name(),
                                     "' has uses and no replacement that can take them"));
      return;
    }
  }
  for (size_t i = 0; i < replacements.size(); ++i) {
    ir::Value* output = node.output(i);
    if (output != nullptr && output->hasUses()) replaceAllUsesWith(*output, *replacements[i]);
  }
  erase(node);
}

ir::Node* PatternRewriter::replaceRootWithNewNode(const std::string& op_type,
                                                  absl::Span<ir::Value* const> inputs,
                                                  const std::string& domain,
                                                  const std::string& node_name_hint) {
  ir::Node* replacement = createNode(op_type, inputs, {}, domain, node_name_hint);
  if (!beginChange(*offered_root_)) return replacement;
  ir::Node& root = *matched_root_;
  // Their operand's producer changes: patterns rooted at the users may match now.
  for (const ir::Value* output : root.outputs()) {
    if (output != nullptr) pushUsers(*output);
  }
  root.graph()->moveOutputs(&root, replacement);
  notifyChanged(*replacement);  // the shape oracle forgets what it knew of the outputs
  erase(root);
  return replacement;
}

void PatternRewriter::eraseNode(ir::Node& node) {
  if (!beginChange(node)) return;
  for (const ir::Value* output : node.outputs()) {
    if (output != nullptr && output->hasUses()) {
      recordError(node, absl::StrCat("eraseNode() on a node whose output '", output->name(),
                                     "' is still used"));
      return;
    }
  }
  erase(node);
}

void PatternRewriter::eraseDeadNode(ir::Node& node) { erase(node); }

void PatternRewriter::erase(ir::Node& node) {
  Region region;
  for (ir::Attribute& attribute : node.mutableAttributes()) {
    collectRegion(attribute, *node.graph(), &region);
  }
  const absl::InlinedVector<const ir::Value*, 4> operands(node.inputs().begin(),
                                                         node.inputs().end());
  node.graph()->eraseNode(&node);
  worklist_.forget(&node);
  for (ir::Node* nested : region.nodes) worklist_.forget(nested);
  context_.statistics().nodes_removed += 1 + static_cast<int64_t>(region.nodes.size());
  for (const ir::Value* operand : operands) pushProducer(operand);
  for (const ir::Value* operand : region.outer_operands) pushProducer(operand);
  ++change_count_;
}

std::vector<const ir::Value*> PatternRewriter::forgetSubgraphs(ir::Node& node,
                                                               absl::string_view attribute_name) {
  Region region;
  for (ir::Attribute& attribute : node.mutableAttributes()) {
    if (attribute.name() == attribute_name) collectRegion(attribute, *node.graph(), &region);
  }
  for (ir::Node* nested : region.nodes) worklist_.forget(nested);
  context_.statistics().nodes_removed += static_cast<int64_t>(region.nodes.size());
  return std::move(region.outer_operands);
}

void PatternRewriter::setInput(ir::Node& node, size_t index, ir::Value* value) {
  if (!beginChange(node)) return;
  if (index > node.numInputs()) {
    recordError(node, absl::StrCat("setInput() at ", index, " past the end of ", node.numInputs(),
                                   " inputs"));
    return;
  }
  const ir::Value* old = node.input(index);
  if (index == node.numInputs()) {
    node.addInput(value);
  } else {
    node.setInput(index, value);
  }
  pushProducer(old);
  notifyChanged(node);
}

void PatternRewriter::setAttr(ir::Node& node, ir::Attribute attribute) {
  if (!beginChange(node)) return;
  const std::string name = attribute.name();
  const std::vector<const ir::Value*> outer_operands = forgetSubgraphs(node, name);
  if (std::optional<ir::Attribute> old = node.takeAttr(name)) retired_.push_back(std::move(*old));
  node.setAttr(std::move(attribute));
  for (const ir::Value* operand : outer_operands) pushProducer(operand);
  for (const auto& subgraph : node.attr(name)->graphs()) {
    ir::forEachGraph(*subgraph, [this](ir::Graph& graph) {
      for (ir::Node& nested : graph) worklist_.push(&nested);
    });
  }
  notifyChanged(node);
}

void PatternRewriter::setIntAttr(ir::Node& node, const std::string& name, int64_t value) {
  setAttr(node, ir::Attribute::makeInt(name, value, model_.arena()));
}

bool PatternRewriter::removeAttr(ir::Node& node, absl::string_view name) {
  if (!beginChange(node)) return false;
  if (node.attr(name) == nullptr) return false;
  const std::vector<const ir::Value*> outer_operands = forgetSubgraphs(node, name);
  retired_.push_back(*node.takeAttr(name));
  for (const ir::Value* operand : outer_operands) pushProducer(operand);
  notifyChanged(node);
  return true;
}

void PatternRewriter::beginPattern(const RewritePattern* pattern, ir::Node* root) {
  pattern_ = pattern;
  offered_root_ = root;
  matched_root_ = nullptr;
  created_.clear();
}

}  // namespace onnxopt
