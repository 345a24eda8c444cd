#pragma once

// PatternRewriter: the only way a pattern reads model-level facts and changes the IR. Every change
// goes through it so that the driver's worklist stays current and the change contract can be
// checked.

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/rewrite/pattern.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

class PassContext;

namespace detail {
class Worklist;
}  // namespace detail

class ONNXOPT_API PatternRewriter {
 public:
  PatternRewriter(const PatternRewriter&) = delete;
  PatternRewriter& operator=(const PatternRewriter&) = delete;
  ~PatternRewriter();

  // ---- while matching ----

  ir::Model& model() const { return model_; }
  // The opset version the model imports for the node's domain; nullopt if none.
  std::optional<int64_t> opsetVersion(const ir::Node& node) const;

  // Types and constant contents of values, kept current as rewrites change nodes.
  ShapeOracle& shapes();

  // Records why the pattern did not match (shown by --debug) and returns failure().
  LogicalResult notifyMatchFailure(const ir::Node& node, absl::string_view reason);
  // The same, with the reason composed only when it is kept: `reason()` returns it. Patterns on
  // hot paths use this, or check explainsFailures(), so a run without --debug builds no text.
  template <typename ReasonFn, typename = std::enable_if_t<std::is_invocable_v<ReasonFn&>>>
  LogicalResult notifyMatchFailure(const ir::Node& node, ReasonFn&& reason) {
    if (!explainsFailures()) return failure();
    return notifyMatchFailure(node, absl::string_view(reason()));
  }
  // Whether reasons given to notifyMatchFailure are kept (--debug).
  bool explainsFailures() const;
  // Stops the driver with `error` (a malformed model, unreadable external data). Returns
  // failure(); the pass then fails with the error, naming the node and the pattern. Rewrites
  // already applied stay: each one is complete.
  LogicalResult emitError(const ir::Node& node, const absl::Status& error);

  // Declares the match: `root` is the node whose outputs the rewrite replaces (the node the
  // driver offered), `absorbed` the producers the rewrite folds into its replacement. Blocks the
  // match (returns a failure, reason recorded) when an output of an absorbed node is a graph
  // output, has a user outside the match, or feeds nothing in the match. The root is then the
  // last matched node in topological order, and new nodes are created right before it. Every
  // change below requires a successful match() first.
  LogicalResult match(ir::Node& root, absl::Span<ir::Node* const> absorbed = {});

  // Whether replaceAllUsesWith(from, to) keeps the model's interface. An output of the main graph
  // keeps its name, so when `from` is one, `to` must be able to take that name: a value this
  // rewrite created, or a node output of the main graph that is not itself a graph output (a
  // graph input or initializer keeps its own name). Patterns that forward an existing value
  // check this along with their other checks.
  bool canReplaceAllUsesWith(const ir::Value& from, const ir::Value& to) const;

  // ---- rewriting (after a successful match) ----

  // A new node before the match root, in its graph, with one fresh output per name hint (names
  // come from Model::valueNames(), so "Y" may become "Y_1"; a replaced value passes its name on,
  // see replaceAllUsesWith) and a fresh node name from Model::nodeNames(): `node_name_hint`, or
  // the match root's name when it is empty.
  ir::Node* createNode(const std::string& op_type, absl::Span<ir::Value* const> inputs,
                       absl::Span<const std::string> output_name_hints,
                       const std::string& domain = "", const std::string& node_name_hint = "");

  // A new initializer holding `tensor`, in the match root's graph, named after `name_hint` (made
  // unique).
  ir::Value* createInitializer(const std::string& name_hint, onnx::TensorProto tensor);

  // Every use of `from` (graph outputs included) reads `to` instead. When `to` was created by
  // this rewrite, or `from` is an output of the main graph, the two swap names, so the model's
  // interface and readable names survive. Requires canReplaceAllUsesWith(from, to).
  void replaceAllUsesWith(ir::Value& from, ir::Value& to);
  // Replaces output i of `node` with replacements[i] (null: that output has no uses) and erases
  // `node`.
  void replaceNode(ir::Node& node, absl::Span<ir::Value* const> replacements);
  // A new node that computes what the match root computed, in its place: it takes over the
  // root's output values (names, uses, declarations and all) and the root is erased. Named like
  // createNode's. Cheaper than createNode + replaceNode, which make fresh output values, move
  // every use over and swap names and declarations back; as ONNX Runtime's fusions keep the
  // fused node's output names. Returns the node (with no outputs if there was no match).
  ir::Node* replaceRootWithNewNode(const std::string& op_type, absl::Span<ir::Value* const> inputs,
                                   const std::string& domain = "",
                                   const std::string& node_name_hint = "");
  // Erases a node none of whose outputs is used, with its subgraphs.
  void eraseNode(ir::Node& node);

  // `index` may be numInputs(), to append an input.
  void setInput(ir::Node& node, size_t index, ir::Value* value);
  void setAttr(ir::Node& node, ir::Attribute attribute);
  // setAttr of an INT attribute, made on the model's arena (no heap allocation).
  void setIntAttr(ir::Node& node, const std::string& name, int64_t value);
  bool removeAttr(ir::Node& node, absl::string_view name);
  // Other in-place changes of `node` (op type, domain): `change(node)` runs, then the driver
  // revisits the node. Change operands with setInput, attributes with setAttr/removeAttr.
  template <typename Change>
  void modifyInPlace(ir::Node& node, Change&& change) {
    if (!beginChange(node)) return;
    change(node);
    notifyChanged(node);
  }

 private:
  friend class GreedyRewriteDriver;
  PatternRewriter(ir::Model& model, detail::Worklist& worklist, PassContext& context);

  // The driver calls this before offering `root` to `pattern`.
  void beginPattern(const RewritePattern* pattern, ir::Node* root);
  uint64_t changeCount() const { return change_count_; }
  const absl::Status& error() const { return error_; }
  // Erases a node the driver found dead; not a pattern's change.
  void eraseDeadNode(ir::Node& node);

  bool beginChange(const ir::Node& node);
  void notifyChanged(ir::Node& node);
  void recordError(const ir::Node& node, absl::string_view message);
  void erase(ir::Node& node);
  // Takes the subgraphs of `node`'s attribute `attribute_name` (about to go) off the worklist;
  // returns the outer values they read.
  std::vector<const ir::Value*> forgetSubgraphs(ir::Node& node, absl::string_view attribute_name);
  void pushProducer(const ir::Value* value);
  // Every node that reads `value` (its users inside subgraphs included).
  void pushUsers(const ir::Value& value);

  ir::Model& model_;
  detail::Worklist& worklist_;
  PassContext& context_;
  const RewritePattern* pattern_ = nullptr;
  ir::Node* offered_root_ = nullptr;
  ir::Node* matched_root_ = nullptr;  // set by a successful match()
  std::vector<ir::Node*> created_;    // nodes this rewrite created
  std::unique_ptr<ShapeOracle> shapes_;
  // Attributes replaced or removed during the run: their subgraphs' nodes may still sit on the
  // worklist's stack, so they are freed with the rewriter, not before.
  std::vector<ir::Attribute> retired_;
  uint64_t change_count_ = 0;
  absl::Status error_;
};

}  // namespace onnxopt
