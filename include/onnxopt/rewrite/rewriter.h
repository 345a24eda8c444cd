#pragma once

// PatternRewriter: the only way a pattern reads model-level facts and changes the IR. Every change
// goes through it so that the driver's worklist, the shared analyses and the change journal stay
// current, and so that the rules every pattern would otherwise have to remember hold by
// construction: an intermediate read outside the match blocks it, new nodes go before the match
// root (topological order), names come from the model's NameTables, and forwarding a value never
// changes the model's interface or makes a subgraph return what ONNX Runtime refuses.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/analysis.h"
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

  const ir::Model& model() const { return model_; }
  // The opset version the model imports for the node's domain; nullopt if none. The driver has
  // checked that it is in the root pattern's declared range.
  std::optional<int64_t> opsetVersion(const ir::Node& node) const;

  // Types and constant contents of values, shared by the passes of a pipeline and kept current
  // as rewrites change nodes.
  ShapeOracle& shapes();

  // Records why the pattern did not match (shown by --debug) and returns failure(). Patterns
  // record a reason only once their root and first operand matched; earlier misses return a
  // plain failure(), so that --debug tells what almost matched.
  LogicalResult notifyMatchFailure(const ir::Node& node, absl::string_view reason);
  // The same, with the reason composed only when it is kept: `reason()` returns it.
  template <typename ReasonFn, typename = std::enable_if_t<std::is_invocable_v<ReasonFn&>>>
  LogicalResult notifyMatchFailure(const ir::Node& node, ReasonFn&& reason) {
    if (!explainsFailures()) return failure();
    return notifyMatchFailure(node, absl::string_view(reason()));
  }
  // Whether reasons given to notifyMatchFailure are kept (--debug).
  bool explainsFailures() const;
  // Stops the driver with `error` (a malformed model, unreadable external data). Returns
  // failure(); the pass then fails with the error, naming the node and the pattern. Rewrites
  // already applied stay: each one is complete. With --no-check (PassContext::skipMalformedNodes)
  // an InvalidArgument error, which is what a node failing its schema gives, is a decline.
  LogicalResult emitError(const ir::Node& node, const absl::Status& error);
  // emitError(node, status) when `status` is an error; success() otherwise. For helpers that
  // return a Status: `if (failed(rewriter.check(node, status))) return failure();`.
  LogicalResult check(const ir::Node& node, const absl::Status& status) {
    return status.ok() ? success() : emitError(node, status);
  }

  // Declares the match: `root` is the node whose outputs the rewrite replaces (the node the
  // driver offered), `absorbed` the producers the rewrite folds into its replacement. Blocks the
  // match (returns a failure, reason recorded) when an output of an absorbed node is a graph
  // output, has a user outside the match, or feeds nothing in the match. New nodes are created
  // right before the root. Every change below requires a successful match() first.
  LogicalResult match(const ir::Node& root, absl::Span<const ir::Node* const> absorbed = {});

  // Whether replaceAllUsesWith(from, to) is allowed: `to` is visible wherever `from` is read
  // (defined in from's graph or an enclosing one), an output of the main graph keeps its name
  // (so `to` must be able to take it: a value this rewrite created, or a main-graph node output,
  // that is not itself a graph output already), and an output of a subgraph stays a value
  // computed in that subgraph (ONNX Runtime refuses a body that returns an outer-scope value or
  // its own input).
  bool canReplaceAllUsesWith(const ir::Value& from, const ir::Value& to) const;
  // Whether replaceUsesWhereAllowed(from, to) would move at least one use: `to` is visible where
  // `from` is, and `from` has a node reader or a graph output that `to` may become.
  bool canReplaceAnyUseWith(const ir::Value& from, const ir::Value& to) const;
  // Whether `to` may become output `index` of `graph` in place of `from`: the graph-output part
  // of canReplaceAllUsesWith, for one output.
  bool canTakeGraphOutput(const ir::Graph& graph, const ir::Value& from, const ir::Value& to) const;

  // Asks the driver to offer `node` again, changing nothing (no match() needed): for a pattern
  // that finds, at the node offered, a rewrite that must be rooted at another node (the first of
  // a group of nodes, before which the new nodes go). The driver would otherwise not offer that
  // node again when only the offered one changed.
  void offerAgain(const ir::Node& node);

  // ---- rewriting (after a successful match) ----

  // A new node before the match root, in its graph, with one fresh output per name hint (names
  // come from Model::valueNames(), so "Y" may become "Y_1"; a replaced value passes its name on,
  // see replaceAllUsesWith) and a fresh node name from Model::nodeNames(): `node_name_hint`, or
  // the match root's name when it is empty. A hint that names a node the match absorbs is taken
  // as it is when the rewrite leaves that node dead (it is erased at the rewrite's end).
  ir::Node* createNode(const std::string& op_type, absl::Span<ir::Value* const> inputs,
                       absl::Span<const std::string> output_name_hints,
                       const std::string& domain = "", const std::string& node_name_hint = "");

  // A new initializer holding `tensor`, in the match root's graph, named after `name_hint` (made
  // unique). Like a created node's output, it takes over the name of a value it replaces
  // (replaceAllUsesWith), a main-graph output's and a body output's included.
  ir::Value* createInitializer(const std::string& name_hint, onnx::TensorProto tensor);

  // Every use of `from` (graph outputs included) reads `to` instead. When `to` was created by
  // this rewrite, or `from` is an output of the main graph, the two swap names, so the model's
  // interface and readable names survive. Requires canReplaceAllUsesWith(from, to): a pattern
  // that calls it otherwise has broken the contract, and the pass fails.
  void replaceAllUsesWith(const ir::Value& from, ir::Value& to);
  // Every use of `from` that may read `to` instead does: all of them when
  // canReplaceAllUsesWith(from, to), else every node use and the graph outputs that `to` may
  // become. Returns how many graph outputs kept `from` (0: `from` is no longer read).
  size_t replaceUsesWhereAllowed(const ir::Value& from, ir::Value& to);
  // Replaces output i of `node` with replacements[i] (null: that output has no uses) and erases
  // `node`.
  void replaceNode(const ir::Node& node, absl::Span<ir::Value* const> replacements);
  // A new node that computes what the match root computed, in its place: it takes over the
  // root's output values (names, uses, declarations and all) and the root is erased. Named like
  // createNode's, except that named after the root (the default) it takes the root's name as it
  // is. Returns the node (with no outputs if there was no match).
  ir::Node* replaceRootWithNewNode(const std::string& op_type, absl::Span<ir::Value* const> inputs,
                                   const std::string& domain = "",
                                   const std::string& node_name_hint = "");
  // Erases a node none of whose outputs is used, with its subgraphs.
  void eraseNode(const ir::Node& node);
  // Moves the initializers and nodes of `body`, a subgraph of the match root without inputs or
  // sparse initializers, into the root's graph before the root, and returns what now stands for
  // each output of `body`: a moved value, or the outer value the body returned. Moved values and
  // nodes get fresh names from the model's NameTables (the body's own names may be defined in
  // other scopes too, which the tables cannot rule out), keep their declared types, and nodes
  // keep their attributes and subgraphs, which go on reading the moved values. Tensors are
  // shared, not copied. The body is left with its old nodes and initializers, which nothing
  // outside it reads, and no outputs (what it returned is free to take the root's outputs):
  // replace the root's outputs with what this returns, then erase the root, in the same rewrite.
  std::vector<ir::Value*> inlineSubgraph(const ir::Graph& body);

  // `index` may be numInputs(), to append an input.
  void setInput(const ir::Node& node, size_t index, ir::Value* value);
  void setAttr(const ir::Node& node, ir::Attribute attribute);
  // setAttr of an INT attribute, made on the model's arena (no heap allocation).
  void setIntAttr(const ir::Node& node, const std::string& name, int64_t value);
  // setAttr of a copy of each attribute of `from` not named in `except`: a fused node taking over
  // an absorbed one's settings. A subgraph attribute cannot be copied so: an error.
  void copyAttrs(const ir::Node& from, const ir::Node& to,
                 std::initializer_list<absl::string_view> except = {});
  bool removeAttr(const ir::Node& node, absl::string_view name);
  // Other in-place changes of `node` (op type, domain, name): `change(node)` runs, then the
  // driver revisits the node. Change operands with setInput, attributes with setAttr/removeAttr.
  template <typename Change>
  void modifyInPlace(const ir::Node& node, Change&& change) {
    if (!beginChange(node)) return;
    change(mutableNode(node));
    notifyChanged(mutableNode(node));
  }

 private:
  friend class GreedyRewriteDriver;
  // `match_depth`: the largest RewritePattern::matchDepth() of the driver's patterns.
  PatternRewriter(ir::Model& model, detail::Worklist& worklist, AnalysisManager& analyses,
                  ChangeJournal& journal, PassContext& context, int match_depth);

  // The IR is the rewriter's to change; patterns see it const.
  static ir::Node& mutableNode(const ir::Node& node) { return const_cast<ir::Node&>(node); }
  static ir::Value& mutableValue(const ir::Value& value) { return const_cast<ir::Value&>(value); }

  // The driver calls this before offering `root` to `pattern`.
  void beginPattern(const RewritePattern* pattern, ir::Node* root);
  // And this after a rewrite: an absorbed node whose name a new node took is erased when the
  // rewrite left it dead, else the new node gets a fresh name (node names stay unique); a
  // weight setInput() replaced goes when the rewrite left it unread; a root still there is
  // offered again.
  void endRewrite();
  uint64_t changeCount() const { return change_count_; }
  const absl::Status& error() const { return error_; }
  // Erases a node the driver found dead; not a pattern's change.
  void eraseDeadNode(ir::Node& node);

  bool beginChange(const ir::Node& node);
  // Every change ends here: the node and its readers are revisited (revisitWithReaders),
  // analyses forget it, the journal accounts.
  void notifyChanged(ir::Node& node);
  // `node` changed, or is about to read other operands: what the analyses knew of its outputs
  // goes, and the nodes that read what they knew less of are offered again.
  void analysesChanged(const ir::Node& node);
  void endChange();
  void recordError(const ir::Node& node, absl::string_view message);
  void erase(ir::Node& node);
  void dropIfUnreadInitializer(const ir::Value* value);
  bool createdHere(const ir::Value& value) const;
  // Takes the subgraphs of `node`'s attribute `attribute_name` (about to go) off the worklist;
  // returns the outer values they read.
  std::vector<const ir::Value*> forgetSubgraphs(ir::Node& node, absl::string_view attribute_name);
  void pushProducer(const ir::Value* value);
  // `value` gets a new reader: a declaration (value_info) of it that contradicts what the graph
  // computes is corrected first, as legalize-value-info would. The old reader may have been an op
  // ONNX Runtime checks loosely (Einsum) or none; the new one may be strict (MatMul), and a
  // stale size would make the model fail to load.
  void correctStaleDeclaration(ir::Value* value);
  // `value` lost a reader: its producer and, when only a few remain, its other readers (and
  // theirs, for deep patterns) are pushed.
  void lostAReader(const ir::Value* value);
  // Every node that reads `value` (its users inside subgraphs included).
  void pushUsers(const ir::Value& value);
  // Every node that reads `value` is about to read another value instead (revisitWithReaders).
  void operandsReplaced(const ir::Value& value);
  // `node` changed or is about to read another operand: it and its readers are pushed, and what
  // the analyses know of its outputs goes (the new operand may tell more, a constant for
  // instance).
  void revisitWithReaders(ir::Node& node);
  // Pushes the nodes that read `value`, and their readers down to match_depth_ below it.
  void pushReaders(const ir::Value& value);

  ir::Model& model_;
  detail::Worklist& worklist_;
  AnalysisManager& analyses_;
  ChangeJournal& journal_;
  PassContext& context_;
  const int match_depth_;
  const RewritePattern* pattern_ = nullptr;
  ir::Node* offered_root_ = nullptr;
  ir::Node* matched_root_ = nullptr;  // set by a successful match()
  std::vector<const ir::Node*> absorbed_;  // by the successful match()
  std::vector<ir::Node*> created_;    // nodes this rewrite created
  // A created node named after an absorbed one, and that absorbed node.
  std::vector<std::pair<ir::Node*, const ir::Node*>> names_taken_;
  std::vector<ir::Value*> created_initializers_;  // initializers this rewrite created
  // Operands setInput() replaced: an initializer among them that the finished rewrite left
  // unread goes at its end, as one an erase left unread.
  std::vector<const ir::Value*> replaced_operands_;
  uint64_t change_count_ = 0;
  absl::Status error_;
};

}  // namespace onnxopt
