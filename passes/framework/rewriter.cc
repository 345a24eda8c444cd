#include "onnxopt/rewrite/rewriter.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "describe.h"
#include "onnxopt/rewrite/node_check.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/shape_oracle.h"
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

bool contains(absl::Span<const ir::Node* const> nodes, const ir::Node* node) {
  return std::find(nodes.begin(), nodes.end(), node) != nodes.end();
}

// The nodes nested in `attribute`'s subgraphs, and the values those read from outside them (whose
// producers may die with the subgraphs).
struct Region {
  std::vector<ir::Node*> nodes;
  std::vector<const ir::Value*> outer_operands;
};

// Whether `value` is visible in `graph`: defined there or in an enclosing graph.
bool isVisibleIn(const ir::Value& value, const ir::Graph* graph) {
  for (; graph != nullptr; graph = graph->parentGraph()) {
    if (value.graph() == graph) return true;
  }
  return false;
}

void collectRegion(const ir::Attribute& attribute, const ir::Graph& owner, Region* region) {
  // A value read inside is from outside exactly when it is defined in the owning graph or one
  // enclosing it.
  auto is_outer = [&owner](const ir::Value* value) { return isVisibleIn(*value, &owner); };
  for (const auto& subgraph : attribute.graphs()) {
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

PatternRewriter::PatternRewriter(ir::Model& model, detail::Worklist& worklist,
                                 AnalysisManager& analyses, ChangeJournal& journal,
                                 PassContext& context, int match_depth)
    : model_(model), worklist_(worklist), analyses_(analyses), journal_(journal),
      context_(context), match_depth_(match_depth) {}

PatternRewriter::~PatternRewriter() = default;

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
  // With --no-check a node that fails its schema may lie beyond the neighbourhood the driver
  // checked before offering the root (a shape computation a pattern follows upstream): what it
  // makes a helper refuse is a decline there too, as the passes leave such nodes as they are.
  if (context_.skipMalformedNodes() && error.code() == absl::StatusCode::kInvalidArgument) {
    return notifyMatchFailure(node, [&] { return std::string(error.message()); });
  }
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

LogicalResult PatternRewriter::match(const ir::Node& root,
                                     absl::Span<const ir::Node* const> absorbed) {
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
  // The driver offered no root near a malformed node; the nodes a match absorbs may reach
  // further.
  if (context_.skipMalformedNodes()) {
    for (const ir::Node* node : absorbed) {
      if (absl::Status malformed = checkNodeNeighbourhood(*node); !malformed.ok()) {
        return notifyMatchFailure(
            root, absl::StrCat("absorbs ", describe(*node), ", near a node that fails the check: ",
                               malformed.message()));
      }
    }
  }
  matched_root_ = offered_root_;
  absorbed_.assign(absorbed.begin(), absorbed.end());
  return success();
}

bool PatternRewriter::createdHere(const ir::Value& value) const {
  if (value.producer() == nullptr) {
    return std::find(created_initializers_.begin(), created_initializers_.end(), &value) !=
           created_initializers_.end();
  }
  return std::find(created_.begin(), created_.end(), value.producer()) != created_.end();
}

bool PatternRewriter::canTakeGraphOutput(const ir::Graph& graph, const ir::Value& from,
                                         const ir::Value& to) const {
  if (&from == &to) return true;
  if (graph.parentNode() == nullptr) {
    // The output keeps its name: `to` must be able to take it over, and one that is a graph
    // output already (a created value that took over another output) has a name to keep. A
    // graph input or initializer keeps its own, except an initializer this rewrite made.
    if (to.isGraphOutput() || to.isGraphInput()) return false;
    if (to.producer() == nullptr) return createdHere(to);
    return createdHere(to) || to.graph() == &graph;
  }
  // A body output stays a value of the body: a node output, or an initializer this rewrite made
  // there (ONNX Runtime runs a body that returns its own initializer, as one that returns a node
  // output; not one that returns an outer value or its input). One returned once stays too.
  return to.graph() == &graph && !to.isGraphOutput() &&
         (to.producer() != nullptr || createdHere(to));
}

bool PatternRewriter::canReplaceAllUsesWith(const ir::Value& from, const ir::Value& to) const {
  if (&from == &to || !isVisibleIn(to, from.graph())) return false;
  for (const ir::Use& use : from.uses()) {
    if (use.isGraphOutput() && !canTakeGraphOutput(*use.graphOutputOf(), from, to)) return false;
  }
  return true;
}

bool PatternRewriter::canReplaceAnyUseWith(const ir::Value& from, const ir::Value& to) const {
  if (&from == &to || !isVisibleIn(to, from.graph())) return false;
  return std::any_of(from.uses().begin(), from.uses().end(), [&](const ir::Use& use) {
    return !use.isGraphOutput() || canTakeGraphOutput(*use.graphOutputOf(), from, to);
  });
}

bool PatternRewriter::beginChange(const ir::Node& node) {
  if (!error_.ok()) return false;
  if (matched_root_ == nullptr) {
    recordError(node, "changed the IR without a successful match()");
    return false;
  }
  return true;
}

void PatternRewriter::endChange() {
  ++change_count_;
  journal_.account(model_);
}

void PatternRewriter::notifyChanged(ir::Node& node) {
  revisitWithReaders(node);
  endChange();
}

void PatternRewriter::analysesChanged(const ir::Node& node) {
  // Their matches may depend on what the analyses now know better (a Shape of a value whose dims
  // just became known), though nothing they read changed: offered again, not recorded as touched.
  for (ir::Node* reader : analyses_.nodeChanged(node)) worklist_.seed(reader);
}

ShapeOracle& PatternRewriter::shapes() {
  context_.noteTypesRead();
  return analyses_.shapes();
}

void PatternRewriter::offerAgain(const ir::Node& node) { worklist_.seed(&mutableNode(node)); }

void PatternRewriter::pushProducer(const ir::Value* value) {
  if (value != nullptr && value->producer() != nullptr) worklist_.push(value->producer());
}

void PatternRewriter::correctStaleDeclaration(ir::Value* value) {
  if (value == nullptr || value->valueInfo() == nullptr || value->producer() == nullptr ||
      value->isGraphOutput()) {
    return;
  }
  const ir::Type declared = value->type();
  if (std::optional<ir::Type> type =
          correctedDeclaration(declared, analyses_.shapes().inferredTypeOf(*value))) {
    value->setType(*type);
  }
}

void PatternRewriter::lostAReader(const ir::Value* value) {
  if (value == nullptr) return;
  pushProducer(value);
  if (value->uses().size() <= kFewReadersToRevisit) pushReaders(*value);
}

void PatternRewriter::pushUsers(const ir::Value& value) {
  for (const ir::Use& use : value.uses()) {
    if (use.user() != nullptr) worklist_.push(use.user());
  }
}

void PatternRewriter::operandsReplaced(const ir::Value& value) {
  for (const ir::Use& use : value.uses()) {
    if (use.user() == nullptr) continue;
    revisitWithReaders(*use.user());
  }
}

void PatternRewriter::revisitWithReaders(ir::Node& node) {
  worklist_.push(&node);
  // A pattern rooted at a reader looks at its producer's operands and attributes too (the Conv at
  // the pads of the Pad feeding it, which just became a constant; the BatchNormalization at the
  // transB and weight of the Gemm feeding it), and a deeper one further (matchDepth): the readers
  // that far down are offered again, here and in later fixed-point rounds.
  for (const ir::Value* output : node.outputs()) {
    if (output != nullptr) pushReaders(*output);
  }
  analysesChanged(node);
}

void PatternRewriter::pushReaders(const ir::Value& value) {
  pushUsers(value);
  if (match_depth_ == 1) return;
  // Readers of readers, down to match_depth_ below `value`, each once, and no more than a
  // budget: a node whose output fans out widely would otherwise make each change cost a walk
  // of much of the graph (beyond the budget a deep pattern may miss a rewrite, never make a
  // wrong one).
  constexpr size_t kBudgetPerLevel = 64;
  size_t budget = kBudgetPerLevel * static_cast<size_t>(match_depth_);
  std::vector<const ir::Node*> level;
  absl::flat_hash_set<const ir::Node*> seen;
  for (const ir::Use& use : value.uses()) {
    if (use.user() != nullptr && seen.insert(use.user()).second) level.push_back(use.user());
  }
  for (int hop = 1; hop < match_depth_ && !level.empty() && budget > 0; ++hop) {
    std::vector<const ir::Node*> next;
    for (const ir::Node* reached : level) {
      for (const ir::Value* output : reached->outputs()) {
        if (output == nullptr) continue;
        for (const ir::Use& use : output->uses()) {
          ir::Node* user = use.user();
          if (user == nullptr || budget == 0 || !seen.insert(user).second) continue;
          worklist_.push(user);
          next.push_back(user);
          --budget;
        }
      }
    }
    level = std::move(next);
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
  for (ir::Value* input : inputs) correctStaleDeclaration(input);
  const std::string& name_hint = !node_name_hint.empty() ? node_name_hint
                                 : !before->name().empty() ? before->name()
                                                           : op_type;
  // An absorbed node goes with the rewrite (endRewrite() makes sure): its name can pass on.
  const auto absorbed = std::find_if(absorbed_.begin(), absorbed_.end(), [&](const ir::Node* a) {
    return !a->name().empty() && a->name() == name_hint;
  });
  const bool taken = std::any_of(names_taken_.begin(), names_taken_.end(),
                                 [&](const auto& entry) { return entry.first->name() == name_hint; });
  if (absorbed != absorbed_.end() && !taken) {
    node->setName(name_hint);
    names_taken_.emplace_back(node, *absorbed);
  } else {
    node->setName(model_.nodeNames().fresh(name_hint));
  }
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
  ir::Value* value =
      root->graph()->addInitializer(name, std::make_shared<ir::Tensor>(std::move(tensor)));
  created_initializers_.push_back(value);
  endChange();
  return value;
}

void PatternRewriter::replaceAllUsesWith(const ir::Value& from_value, ir::Value& to) {
  if (!beginChange(*offered_root_)) return;
  ir::Value& from = mutableValue(from_value);
  if (!canReplaceAllUsesWith(from, to)) {
    recordError(*offered_root_,
                absl::StrCat("replacing '", from.name(), "' with '", to.name(),
                             "' would change the model's interface or return a value a subgraph "
                             "may not return (see canReplaceAllUsesWith)"));
    return;
  }
  operandsReplaced(from);
  const bool swap_names = createdHere(to) || isMainGraphOutput(from);
  // The replacement computes the same thing, so it has the same type. When it takes over the
  // name, it takes over the declaration too, in its place in value_info. A weight or graph input
  // keeps the type its tensor or the graph's interface gives it.
  if (to.producer() != nullptr && to.valueInfo() == nullptr) {
    if (swap_names && from.valueInfo() != nullptr && to.graph() == from.graph()) {
      to.swapValueInfo(from);
    } else if (from.type().isTensor()) {
      to.setType(from.type());
    }
  }
  from.replaceAllUsesWith(&to);
  if (swap_names) to.swapName(from);
  correctStaleDeclaration(&to);
  pushProducer(&from);
  endChange();
}

size_t PatternRewriter::replaceUsesWhereAllowed(const ir::Value& from_value, ir::Value& to) {
  if (canReplaceAllUsesWith(from_value, to)) {
    replaceAllUsesWith(from_value, to);
    return 0;
  }
  if (!beginChange(*offered_root_)) return 0;
  ir::Value& from = mutableValue(from_value);
  if (&from == &to || !isVisibleIn(to, from.graph())) {
    recordError(*offered_root_, absl::StrCat("'", to.name(), "' cannot stand in for '",
                                             from.name(), "' anywhere (it is not visible there)"));
    return 0;
  }
  size_t kept = 0;
  const std::vector<ir::Use> uses(from.uses().begin(), from.uses().end());
  for (const ir::Use& use : uses) {
    if (!use.isGraphOutput()) {
      use.user()->setInput(use.index(), &to);
      revisitWithReaders(*use.user());
    } else if (canTakeGraphOutput(*use.graphOutputOf(), from, to)) {
      use.graphOutputOf()->setOutput(use.index(), &to);
    } else {
      ++kept;
    }
  }
  correctStaleDeclaration(&to);
  pushProducer(&to);
  endChange();
  return kept;
}

void PatternRewriter::replaceNode(const ir::Node& node_ref,
                                  absl::Span<ir::Value* const> replacements) {
  if (!beginChange(node_ref)) return;
  ir::Node& node = mutableNode(node_ref);
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
  // The root goes: a replacement named after it takes its name as it is, not a fresh "_1" one.
  if (!root.name().empty() && (node_name_hint.empty() || node_name_hint == root.name())) {
    replacement->setName(root.name());
  }
  // Their operand's producer changes: patterns rooted at the users may match now.
  for (const ir::Value* output : root.outputs()) {
    if (output != nullptr) pushUsers(*output);
  }
  root.graph()->moveOutputs(&root, replacement);
  // The replacement computes the root's values: what the analyses know of them stays true.
  worklist_.push(replacement);
  endChange();
  erase(root);
  return replacement;
}

void PatternRewriter::eraseNode(const ir::Node& node) {
  if (!beginChange(node)) return;
  for (const ir::Value* output : node.outputs()) {
    if (output != nullptr && output->hasUses()) {
      recordError(node, absl::StrCat("eraseNode() on a node whose output '", output->name(),
                                     "' is still used"));
      return;
    }
  }
  erase(mutableNode(node));
}

std::vector<ir::Value*> PatternRewriter::inlineSubgraph(const ir::Graph& body_ref) {
  if (!beginChange(*offered_root_)) return {};
  ir::Node& root = *matched_root_;
  ir::Graph& body = const_cast<ir::Graph&>(body_ref);
  const std::vector<ir::Value*> initializers = body.initializers();
  const bool sparse = std::any_of(initializers.begin(), initializers.end(),
                                  [](const ir::Value* v) { return v->isSparseInitializer(); });
  if (body.parentNode() != &root || !body.inputs().empty() || sparse) {
    recordError(root, "inlineSubgraph() of a graph that is not a subgraph of the match root "
                      "without inputs or sparse initializers");
    return {};
  }
  ir::Graph& graph = *root.graph();
  // Each moved value takes over every use of the one it replaces, which is what lets the nodes
  // that follow, the nested subgraphs and the body's outputs read it.
  auto take_over = [](ir::Value& from, ir::Value& to) {
    if (from.valueInfo() != nullptr) to.setType(from.valueInfo()->type());
    from.replaceAllUsesWith(&to);
  };
  for (ir::Value* initializer : initializers) {
    ir::Value* moved = graph.addInitializer(model_.valueNames().fresh(initializer->name()),
                                            initializer->initializer());
    created_initializers_.push_back(moved);
    take_over(*initializer, *moved);
  }
  for (ir::Node& node : body) {
    absl::InlinedVector<std::string, 2> names;
    for (const ir::Value* output : node.outputs()) {
      names.push_back(output ? model_.valueNames().fresh(output->name()) : std::string());
    }
    ir::Node* moved = graph.createNode(node.opType(), node.inputs(), names, &root, node.domain());
    // The residue carries the doc string and fields the IR does not model.
    moved->mutableProto() = node.proto();
    if (!node.name().empty()) moved->setName(model_.nodeNames().fresh(node.name()));
    node.moveAttributesTo(moved);
    for (size_t i = 0; i < node.numOutputs(); ++i) {
      if (node.output(i) != nullptr) take_over(*node.output(i), *moved->output(i));
    }
    created_.push_back(moved);
    for (const ir::Attribute& attribute : moved->attributes()) {
      for (const auto& subgraph : attribute.graphs()) {
        // What they read is now defined in another scope: patterns may decide otherwise there.
        ir::forEachGraph(*subgraph, [this](ir::Graph& nested) {
          for (ir::Node& inner : nested) worklist_.push(&inner);
        });
      }
    }
    notifyChanged(*moved);
  }
  std::vector<ir::Value*> outputs = body.outputs();
  // The values now belong to the root's outputs: as body outputs they could take none.
  for (size_t i = 0; i < outputs.size(); ++i) body.setOutput(i, nullptr);
  endChange();
  return outputs;
}

void PatternRewriter::eraseDeadNode(ir::Node& node) { erase(node); }

void PatternRewriter::erase(ir::Node& node) {
  Region region;
  for (const ir::Attribute& attribute : node.attributes()) {
    collectRegion(attribute, *node.graph(), &region);
  }
  const absl::InlinedVector<const ir::Value*, 4> operands(node.inputs().begin(),
                                                         node.inputs().end());
  // The erased node stays allocated until its graph goes, and a subgraph's node until the
  // retired attribute goes: the journal may keep pointing at them.
  if (!region.nodes.empty()) journal_.touch(region.nodes.front());
  node.graph()->eraseNode(&node);
  worklist_.forget(node);
  for (ir::Node* nested : region.nodes) worklist_.forget(*nested);
  context_.statistics().nodes_removed += 1 + static_cast<int64_t>(region.nodes.size());
  for (const ir::Value* operand : operands) lostAReader(operand);
  for (const ir::Value* operand : region.outer_operands) lostAReader(operand);
  for (const ir::Value* operand : operands) dropIfUnreadInitializer(operand);
  for (const ir::Value* operand : region.outer_operands) dropIfUnreadInitializer(operand);
  endChange();
}

// A weight whose last reader a rewrite erased goes with it, so that a fold or fusion never holds
// the old weight next to the new one until dead-code elimination (twice the weights' memory).
// A graph input stays: the caller may feed it.
void PatternRewriter::dropIfUnreadInitializer(const ir::Value* value) {
  if (value == nullptr || !value->isInitializer() || value->isGraphInput() || value->hasUses() ||
      value->isGraphOutput()) {
    return;
  }
  value->graph()->removeInitializer(&mutableValue(*value));
  ++context_.statistics().initializers_removed;
}

std::vector<const ir::Value*> PatternRewriter::forgetSubgraphs(ir::Node& node,
                                                               absl::string_view attribute_name) {
  Region region;
  for (const ir::Attribute& attribute : node.attributes()) {
    if (attribute.name() == attribute_name) collectRegion(attribute, *node.graph(), &region);
  }
  for (ir::Node* nested : region.nodes) worklist_.forget(*nested);
  if (!region.nodes.empty()) journal_.touch(region.nodes.front());
  context_.statistics().nodes_removed += static_cast<int64_t>(region.nodes.size());
  return std::move(region.outer_operands);
}

void PatternRewriter::setInput(const ir::Node& node_ref, size_t index, ir::Value* value) {
  if (!beginChange(node_ref)) return;
  ir::Node& node = mutableNode(node_ref);
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
  correctStaleDeclaration(value);
  lostAReader(old);
  if (old != nullptr && old->isInitializer()) replaced_operands_.push_back(old);
  notifyChanged(node);
}

void PatternRewriter::copyAttrs(const ir::Node& from, const ir::Node& to,
                                std::initializer_list<absl::string_view> except) {
  for (const ir::Attribute& attribute : from.attributes()) {
    if (std::find(except.begin(), except.end(), attribute.name()) != except.end()) continue;
    if (!attribute.graphs().empty()) {
      recordError(to, absl::StrCat("copyAttrs cannot copy the subgraph attribute '",
                                   attribute.name(), "'"));
      return;
    }
    setAttr(to, ir::Attribute(onnx::AttributeProto(attribute.proto())));
  }
}

void PatternRewriter::setAttr(const ir::Node& node_ref, ir::Attribute attribute) {
  if (!beginChange(node_ref)) return;
  ir::Node& node = mutableNode(node_ref);
  const std::string name = attribute.name();
  const std::vector<const ir::Value*> outer_operands = forgetSubgraphs(node, name);
  if (std::optional<ir::Attribute> old = node.takeAttr(name)) analyses_.retire(std::move(*old));
  node.setAttr(std::move(attribute));
  for (const ir::Value* operand : outer_operands) lostAReader(operand);
  for (const auto& subgraph : node.attr(name)->graphs()) {
    ir::forEachGraph(*subgraph, [this](ir::Graph& graph) {
      for (ir::Node& nested : graph) worklist_.push(&nested);
    });
  }
  notifyChanged(node);
}

void PatternRewriter::setIntAttr(const ir::Node& node, const std::string& name, int64_t value) {
  setAttr(node, ir::Attribute::makeInt(name, value, model_.arena()));
}

bool PatternRewriter::removeAttr(const ir::Node& node_ref, absl::string_view name) {
  if (!beginChange(node_ref)) return false;
  ir::Node& node = mutableNode(node_ref);
  if (node.attr(name) == nullptr) return false;
  const std::vector<const ir::Value*> outer_operands = forgetSubgraphs(node, name);
  analyses_.retire(*node.takeAttr(name));
  for (const ir::Value* operand : outer_operands) lostAReader(operand);
  notifyChanged(node);
  return true;
}

void PatternRewriter::beginPattern(const RewritePattern* pattern, ir::Node* root) {
  pattern_ = pattern;
  offered_root_ = root;
  matched_root_ = nullptr;
  absorbed_.clear();
  created_.clear();
  created_initializers_.clear();
  names_taken_.clear();
  replaced_operands_.clear();
}

void PatternRewriter::endRewrite() {
  for (const auto& [node, absorbed_node] : names_taken_) {
    if (absorbed_node->isErased() || node->isErased()) continue;
    ir::Node& absorbed = mutableNode(*absorbed_node);
    if (!absorbed.hasUsedOutputs()) {
      if (context_.debugEnabled()) context_.debug(absl::StrCat("erased dead ", describe(absorbed)));
      eraseDeadNode(absorbed);
    } else {
      node->setName(model_.nodeNames().fresh(node->name()));
    }
  }
  names_taken_.clear();
  for (const ir::Value* operand : replaced_operands_) dropIfUnreadInitializer(operand);
  replaced_operands_.clear();
  // A root the rewrite left in place (its graph-output use kept by replaceUsesWhereAllowed) may
  // match another pattern now: offered again.
  if (!offered_root_->isErased()) worklist_.push(offered_root_);
  journal_.account(model_);
}

}  // namespace onnxopt
