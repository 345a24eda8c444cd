// fuse-transposes-across-elementwise: Transpose(p2) of a chain of elementwise nodes that starts
// at Transpose(X, p1) becomes the chain computed on X, read through one Transpose of
// q[i] = p1[p2[i]], or through none when q is the identity. An elementwise node computes each
// element from the elements at the same index, so it commutes with moving axes: its other
// operands move with it, which takes no node when they are of 1s only, and a transposed copy
// when they are constants. Softmax and LogSoftmax (opset 13 on) compute along one axis: they
// join the chain with that axis moved too. A broadcasting node or a Concat whose operands are all
// Transposes of one perm runs on their sources, read through one Transpose
// (merge-operand-transposes). See docs/passes/fuse-transposes-across-elementwise.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

using ir::describe;

// A side constant read by other nodes too is transposed into a copy only up to this size.
constexpr int64_t kSharedConstantCopyBytes = 4096;
// The walk up from a Transpose stops after this many elementwise nodes: each rewrite joins two
// chains into one (the rebuilt chain reads the next one's result), so an unbounded walk from
// every later Transpose would cost the length of all the chains before it. Converters wrap one
// to three nodes so.
constexpr size_t kMaxChainNodes = 8;
// Softmax and LogSoftmax compute along one axis from opset 13; before, along the 2-D flattening at
// their axis, which moving axes changes. ONNX Runtime computes each row alike in either layout
// (checked bit for bit on 1.30, 96 layouts and axes).
constexpr int64_t kSingleAxisSoftmaxSince = 13;

bool isSingleAxisSoftmax(const ir::Node& node, int64_t opset) {
  return (node.is("Softmax") || node.is("LogSoftmax")) && opset >= kSingleAxisSoftmaxSince;
}

// A node of the chain: which of its operands carry the chain's value, what each other operand
// becomes once the chain runs in X's layout, and a Softmax's axis there.
struct Link {
  const ir::Node* node;
  struct Side {
    size_t index;
    std::optional<onnx::TensorProto> transposed;  // nullopt: the operand stays as it is
  };
  std::vector<size_t> chain_operands;
  std::vector<Side> sides;
  std::optional<int64_t> source_axis;
};

// The operands of `node` that carry the chain's value: input 0 of a unary elementwise node or a
// single-axis Softmax; of a broadcasting one, those reading its one operand that is neither a
// constant nor of 1s only. Empty when `node` is none of these, has several outputs, or no single
// operand is the data.
std::vector<size_t> chainOperands(const ir::Node& node, PatternRewriter& rewriter) {
  std::vector<size_t> operands;
  if (node.numOutputs() != 1 || node.output(0) == nullptr) return operands;
  ShapeOracle& shapes = rewriter.shapes();
  const ir::Value* data = nullptr;
  if (isUnaryElementwise(node) ||
      isSingleAxisSoftmax(node, rewriter.opsetVersion(node).value_or(0))) {
    data = node.input(0);
  } else if (broadcastingOpOf(node) != nullptr) {
    std::vector<const ir::Value*> candidates;
    for (const ir::Value* input : node.inputs()) {
      if (input != nullptr && !isConstant(*input) &&
          std::find(candidates.begin(), candidates.end(), input) == candidates.end()) {
        candidates.push_back(input);
      }
    }
    if (candidates.size() > 1) {
      candidates.erase(std::remove_if(candidates.begin(), candidates.end(),
                                      [&](const ir::Value* v) {
                                        return allKnownOnes(shapes.inferredTypeOf(*v).shape());
                                      }),
                       candidates.end());
    }
    if (candidates.size() == 1) data = candidates.front();
  }
  for (size_t i = 0; data != nullptr && i < node.numInputs(); ++i) {
    if (node.input(i) == data) operands.push_back(i);
  }
  return operands;
}

std::vector<int64_t> inverse(const std::vector<int64_t>& perm) {
  std::vector<int64_t> inverted(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverted[perm[i]] = static_cast<int64_t>(i);
  return inverted;
}

class FuseTransposesAcrossElementwisePattern final : public RewritePattern {
 public:
  // Transpose is the same from opset 1 to 23; the broadcasting nodes are taken from the opset
  // that gave them numpy broadcasting.
  FuseTransposesAcrossElementwisePattern()
      : RewritePattern("fuse-transposes-across-elementwise", {"Transpose", 1}) {
    // The chain, the opening Transpose above it, and the producer of its input (the rank).
    setMatchDepth(kMaxChainNodes + 2);
  }

  LogicalResult matchAndRewrite(const ir::Node& closing, PatternRewriter& rewriter) const override {
    ir::Value* top = closing.input(0);
    if (top == nullptr || closing.output(0) == nullptr) return failure();
    // Up from the closing Transpose, through nodes whose result only the node below reads.
    std::vector<Link> chain;  // bottom first
    const ir::Node* below = &closing;
    const ir::Node* opening = nullptr;
    while (opening == nullptr) {
      const ir::Node* producer = top->producer();
      if (producer == nullptr || producer->graph() != closing.graph()) return failure();
      if (producer->is("Transpose")) {
        opening = producer;
        break;
      }
      if (chain.size() == kMaxChainNodes || !onlyReadBy(*top, {below})) return failure();
      std::vector<size_t> operands = chainOperands(*producer, rewriter);
      if (operands.empty()) return failure();
      chain.push_back(Link{producer, std::move(operands), {}, std::nullopt});
      below = producer;
      top = producer->input(chain.back().chain_operands.front());
    }
    if (chain.empty() || opening->input(0) == nullptr) return failure();
    ir::Value& source = *opening->input(0);

    // The chain keeps the rank of the source: planSides declines an operand that would raise
    // it. That rank is the opening Transpose's, from its perm or its input; the closing one's perm
    // does not give it, since an operand may have raised the rank in between.
    std::optional<int64_t> rank = rankFromPerm(*opening);
    if (!rank) rank = rewriter.shapes().inferredTypeOf(source).rank();
    if (!rank) {
      return rewriter.notifyMatchFailure(closing, [&] {
        return absl::StrCat(describe(*opening), " has no perm and its input's rank is not known");
      });
    }
    absl::StatusOr<std::optional<std::vector<int64_t>>> p1 = readTransposePerm(*opening, rank);
    if (!p1.ok()) return rewriter.emitError(*opening, p1.status());
    absl::StatusOr<std::optional<std::vector<int64_t>>> p2 = readTransposePerm(closing, rank);
    if (!p2.ok()) return rewriter.emitError(closing, p2.status());
    if ((*p1)->size() != (*p2)->size()) {
      return rewriter.notifyMatchFailure(closing, [&] {
        return absl::StrCat(describe(*opening), " moves ", (*p1)->size(), " axes, this one ",
                            (*p2)->size(), ": an operand broadcasts the chain to a higher rank");
      });
    }
    const std::vector<int64_t> composed = composePerms(**p1, **p2);
    const bool identity = isIdentityPerm(composed);
    const bool opening_goes = onlyReadBy(*opening->output(0), {chain.back().node});
    if (!opening_goes && !identity) {
      return rewriter.notifyMatchFailure(closing, [&] {
        return absl::StrCat(describe(*opening), " has other readers and the two compose to [",
                            absl::StrJoin(composed, ", "), "]: no Transpose would go");
      });
    }
    const std::vector<int64_t> to_source_layout = inverse(**p1);
    for (Link& link : chain) {
      if (link.node->is("Softmax") || link.node->is("LogSoftmax")) {
        const int64_t axis = link.node->intAttr("axis", -1);
        if (axis < -*rank || axis >= *rank) {
          return rewriter.notifyMatchFailure(closing, [&] {
            return absl::StrCat(describe(*link.node), " has axis ", axis, ", outside rank ", *rank);
          });
        }
        link.source_axis = (**p1)[axis < 0 ? axis + *rank : axis];
      }
      if (LogicalResult planned = planSides(link, to_source_layout, closing, rewriter);
          failed(planned)) {
        return planned;
      }
    }

    std::vector<const ir::Node*> absorbed;
    for (const Link& link : chain) absorbed.push_back(link.node);
    if (opening_goes) absorbed.push_back(opening);
    if (failed(rewriter.match(closing, absorbed))) return failure();
    ir::Value* value = &source;
    for (auto link = chain.rbegin(); link != chain.rend(); ++link) {
      const ir::Node& node = *link->node;
      std::vector<ir::Value*> inputs(node.inputs().begin(), node.inputs().end());
      for (size_t i : link->chain_operands) inputs[i] = value;
      for (Link::Side& side : link->sides) {
        if (!side.transposed) continue;
        const std::string hint = node.input(side.index)->name() + "_transposed";
        inputs[side.index] = rewriter.createInitializer(hint, std::move(*side.transposed));
      }
      ir::Node* moved = rewriter.createNode(node.opType(), inputs, {node.output(0)->name()}, "",
                                            node.name());
      rewriter.copyAttrs(node, *moved);
      if (link->source_axis) rewriter.setIntAttr(*moved, "axis", *link->source_axis);
      value = moved->output(0);
    }
    rewriter.setInput(closing, 0, value);
    rewriter.setAttr(closing, ir::Attribute::makeInts("perm", composed));
    if (identity) rewriter.replaceUsesWhereAllowed(*closing.output(0), *value);
    return success();
  }

 private:
  // What each operand of `link` other than the chain's becomes in the source's layout: a value of
  // 1s only stays, a constant is transposed by `to_source_layout` (as if ones were put in front of
  // its dims up to the chain's rank).
  static LogicalResult planSides(Link& link, const std::vector<int64_t>& to_source_layout,
                                 const ir::Node& closing, PatternRewriter& rewriter) {
    const ir::Node& node = *link.node;
    const size_t rank = to_source_layout.size();
    auto decline = [&](size_t i, absl::string_view why) {
      return rewriter.notifyMatchFailure(closing, [&] {
        return absl::StrCat("operand ", i, " of ", describe(node), " ('", node.input(i)->name(),
                            "') ", why);
      });
    };
    if (const BroadcastingOp* op = broadcastingOpOf(node); op != nullptr) {
      const int64_t opset = *rewriter.opsetVersion(node);
      if (opset < op->since) {
        return rewriter.notifyMatchFailure(closing, [&] {
          return absl::StrCat(describe(node), " at opset ", opset,
                              " does not broadcast by numpy's rules (from opset ", op->since, ")");
        });
      }
    }
    for (size_t i = 0; i < node.numInputs(); ++i) {
      const ir::Value* operand = node.input(i);
      if (operand == nullptr ||
          std::find(link.chain_operands.begin(), link.chain_operands.end(), i) !=
              link.chain_operands.end()) {
        continue;
      }
      const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(*operand).shape();
      if (!shape) return decline(i, "has no known rank");
      if (shape->size() > rank) {
        return decline(i,
                       absl::StrCat("has rank ", shape->size(), ", more than the chain's ", rank));
      }
      if (allKnownOnes(shape)) {
        link.sides.push_back({i, std::nullopt});
        continue;
      }
      absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*operand);
      if (!constant.ok()) return rewriter.emitError(node, constant.status());
      if (!*constant) return decline(i, "is neither a constant nor of 1s only");
      const ConstantView& view = **constant;
      if (!onlyReadBy(*operand, {&node})) {
        const std::optional<int64_t> bytes = dataBytes(view.proto(), view.numElements());
        if (!bytes || *bytes > kSharedConstantCopyBytes) {
          return decline(i, absl::StrCat("has other readers and more than ",
                                         kSharedConstantCopyBytes, " bytes to copy"));
        }
      }
      // Axis j of the constant padded to the chain's rank is its own axis j - padding; the
      // padding's 1s move no element, so one transpose of the constant's own axes lays the data
      // out, and the dims come from the padded order.
      const int64_t padding = static_cast<int64_t>(rank) - view.rank();
      std::vector<int64_t> own_axes;
      std::vector<int64_t> dims;
      for (int64_t axis : to_source_layout) {
        dims.push_back(axis < padding ? 1 : view.dims()[axis - padding]);
        if (axis >= padding) own_axes.push_back(axis - padding);
      }
      absl::StatusOr<onnx::TensorProto> transposed = transposeTensor(view.proto(), own_axes);
      if (!transposed.ok()) return rewriter.emitError(node, transposed.status());
      transposed->clear_dims();
      for (int64_t dim : dims) transposed->add_dims(dim);
      link.sides.push_back({i, *std::move(transposed)});
    }
    return success();
  }
};

// A broadcasting node whose operands are all Transposes of one perm, of equal rank, computes the
// same elements before them: Add(Transpose(a, p), Transpose(b, p)) is Transpose(Add(a, b), p),
// one Transpose for several (the two branches of a residual Add in NHWC). A Concat only moves
// elements, so it joins along axis p[k] before them what it joined along k after them.
class MergeOperandTransposes final : public RewritePattern {
 public:
  explicit MergeOperandTransposes(const BroadcastingOp& op)
      : RewritePattern("merge-operand-transposes", {std::string(op.op_type), op.since}) {}
  // Concat: its axis attribute is optional (1) before opset 4 and may be negative from 11.
  MergeOperandTransposes() : RewritePattern("merge-operand-transposes", {"Concat", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    if (node.numOutputs() != 1 || node.output(0) == nullptr || node.numInputs() < 2) {
      return failure();
    }
    std::vector<const ir::Node*> transposes;
    for (const ir::Value* input : node.inputs()) {
      const ir::Node* transpose = producerOf(input, "Transpose");
      if (transpose == nullptr || transpose->graph() != node.graph() ||
          transpose->input(0) == nullptr) {
        return failure();
      }
      if (std::find(transposes.begin(), transposes.end(), transpose) == transposes.end()) {
        transposes.push_back(transpose);
      }
    }
    if (transposes.size() < 2) return failure();
    std::optional<std::vector<int64_t>> perm;
    for (const ir::Node* transpose : transposes) {
      std::optional<int64_t> rank = rankFromPerm(*transpose);
      if (!rank) rank = rewriter.shapes().inferredTypeOf(*transpose->input(0)).rank();
      absl::StatusOr<std::optional<std::vector<int64_t>>> its_perm =
          readTransposePerm(*transpose, rank);
      if (!its_perm.ok()) return rewriter.emitError(*transpose, its_perm.status());
      if (!*its_perm) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat(describe(*transpose),
                              " has no perm and its input's rank is not known");
        });
      }
      if (perm && *perm != **its_perm) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat("its operands are Transposes of perms [", absl::StrJoin(*perm, ", "),
                              "] and [", absl::StrJoin(**its_perm, ", "), "]");
        });
      }
      perm = **its_perm;
      if (!onlyReadBy(*transpose->output(0), {&node})) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat(describe(*transpose), " has other readers, which keep it");
        });
      }
    }

    std::optional<int64_t> concat_axis;
    if (node.is("Concat")) {
      const int64_t rank = static_cast<int64_t>(perm->size());
      const int64_t axis = node.intAttr("axis", 1);
      if (axis < -rank || axis >= rank) {
        return rewriter.notifyMatchFailure(node, [&] {
          return absl::StrCat("its axis ", axis, " is outside its operands' rank ", rank);
        });
      }
      concat_axis = (*perm)[axis < 0 ? axis + rank : axis];
    }

    if (failed(rewriter.match(node, transposes))) return failure();
    std::vector<ir::Value*> sources;
    for (const ir::Value* input : node.inputs()) sources.push_back(input->producer()->input(0));
    ir::Node* merged = rewriter.createNode(node.opType(), sources, {node.output(0)->name()}, "",
                                           node.name());
    rewriter.copyAttrs(node, *merged);
    if (concat_axis) rewriter.setIntAttr(*merged, "axis", *concat_axis);
    ir::Node* transpose = rewriter.replaceRootWithNewNode("Transpose", {merged->output(0)}, "",
                                                          transposes.front()->name());
    rewriter.setAttr(*transpose, ir::Attribute::makeInts("perm", *perm));
    return success();
  }
};

class FuseTransposesAcrossElementwise final : public PatternPass {
 public:
  FuseTransposesAcrossElementwise() : PatternPass("fuse-transposes-across-elementwise") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseTransposesAcrossElementwisePattern>();
    for (const BroadcastingOp& op : broadcastingOps()) patterns.add<MergeOperandTransposes>(op);
    patterns.add<MergeOperandTransposes>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseTransposesAcrossElementwisePass() {
  return std::make_unique<FuseTransposesAcrossElementwise>();
}

}  // namespace onnxopt
