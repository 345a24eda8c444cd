// fuse-matmul-add-gemm: Y = Add(MatMul(A, B), bias) (bias on either side) becomes
// Y = Gemm(A, B, bias) when A and B are 2-D, the bias provably broadcasts to the MatMul's [M, N]
// result without changing the Add's output, and the element type is a floating type Gemm takes
// in the model's opset. With {allow-reshape=true}, an A of rank > 2 (with a 2-D B) is flattened
// to 2-D around the Gemm and the result reshaped back, where that leaves the graph no bigger
// (the 2-D A or the 2-D readers of the result are already there), or always with
// {allow-growth=true}. Before opset 7 Add and Gemm broadcast by legacy rules the spec leaves
// vague: only a bias of exactly [M, N] fuses there.
// See docs/passes/fuse-matmul-add-gemm.md.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

using ir::Dim;
using ir::Shape;

// Whether Gemm takes the element type in this opset (float, float16, double throughout;
// bfloat16 from Gemm 13). Integer types Gemm takes from opset 9 are left out on purpose: ONNX
// Runtime has no integer Gemm kernel, so the fused model would not run there.
bool isGemmFloatType(int32_t elem_type, int64_t opset) {
  switch (elem_type) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::FLOAT16:
    case onnx::TensorProto::DOUBLE:
      return true;
    case onnx::TensorProto::BFLOAT16:
      return opset >= 13;
    default:
      return false;
  }
}

// The best-known description of one run-time dim among several descriptions of it (all must
// describe the same quantity): a known size beats a symbol, which beats nothing.
Dim bestOf(std::initializer_list<const Dim*> dims) {
  const Dim* best = nullptr;
  for (const Dim* dim : dims) {
    if (dim == nullptr) continue;
    if (dim->isKnown()) return *dim;
    if (dim->isSymbolic() && best == nullptr) best = dim;
  }
  return best ? *best : Dim::unknown();
}

// Whether a bias dim provably equals one of the descriptions of the output dim.
bool provablyEqualsAny(const Dim& dim, std::initializer_list<const Dim*> targets) {
  for (const Dim* target : targets) {
    if (target != nullptr && dim.provablyEquals(*target)) return true;
  }
  return false;
}

const Dim* dimAt(const std::optional<Shape>& shape, size_t i) {
  return shape && i < shape->size() ? &(*shape)[i] : nullptr;
}

// The fused node's name: "<matmul>_<add>", sharing a common scope prefix once (torch's
// "/layer/linear1/MatMul" and "/layer/linear1/Add" give "/layer/linear1/MatMul_Add").
std::string fusedName(const std::string& matmul, const std::string& add) {
  if (matmul.empty() || add.empty()) {
    return !add.empty() ? add : !matmul.empty() ? matmul : std::string("Gemm");
  }
  size_t common = 0;
  for (size_t i = 0; i < matmul.size() && i < add.size() && matmul[i] == add[i]; ++i) {
    if (matmul[i] == '/') common = i + 1;
  }
  return absl::StrCat(matmul, "_", add.substr(common));
}

// The axis a Flatten of a rank-r input flattens at, negative axes counted from the end.
absl::StatusOr<int64_t> flattenAxis(const ir::Node& flatten, size_t r) {
  absl::StatusOr<int64_t> axis = getIntOr(flatten, "axis", 1);
  if (axis.ok() && *axis < 0) *axis += static_cast<int64_t>(r);
  return axis;
}

// The model's own 2-D form of a rank-r A, when A = Reshape(X, shape) with X of [P, K], K the
// same known positive size as A's last dim: then X is exactly Flatten<axis=r-1>(A) (a Reshape
// keeps the elements in order, and equal sizes with K > 0 make P the product of A's leading dims).
ir::Value* twoDimensionalSource(const ir::Value& a, const Shape& shape_a, ShapeOracle& shapes) {
  const ir::Node* reshape = producerOf(&a, "Reshape");
  if (reshape == nullptr || reshape->input(0) == nullptr) return nullptr;
  ir::Value& x = *reshape->input(0);
  const std::optional<Shape>& shape_x = shapes.inferredTypeOf(x).shape();
  const Dim& k = shape_a.back();
  if (!shape_x || shape_x->size() != 2 || !k.isKnown() || k.value() <= 0 ||
      !(*shape_x)[1].provablyEquals(k)) {
    return nullptr;
  }
  return &x;
}

// What flattening A and reshaping the product back changes in the graph, for the rule that
// the fusion must leave it no bigger.
struct ReshapeSites {
  // The Gemm's A: the model's own 2-D form of A (twoDimensionalSource), or null for a new
  // Flatten.
  ir::Value* a_2d = nullptr;
  // A's producer is read only by the MatMul: it goes with it.
  bool a_producer_goes = false;
  // Readers Flatten<axis=r-1>(Y): each computes the Gemm's result, which replaces it. At most
  // one whose output is a graph output, and it comes last: the Gemm's result then takes that
  // output's name, which a later replacement would pass on.
  std::vector<const ir::Node*> flatten_readers;
  // Readers Reshape(Y, shape) whose result does not depend on Y's dims (allowzero=1, or a
  // constant shape without a 0): they may read the Gemm's result instead.
  std::vector<const ir::Node*> reshape_readers;
  // Some other use of Y (another node, a subgraph, a graph output) needs Y's own shape.
  bool needs_reshape_back = false;
};

// An error when a Flatten or Reshape reader has an attribute of the wrong kind.
absl::StatusOr<ReshapeSites> surveyReshapeSites(const ir::Node& add, const ir::Value& a,
                                                const Shape& shape_a, int64_t opset,
                                                ShapeOracle& shapes) {
  ReshapeSites sites;
  sites.a_2d = twoDimensionalSource(a, shape_a, shapes);
  sites.a_producer_goes = sites.a_2d != nullptr && a.hasOneUse() && !a.isGraphOutput();
  const size_t r = shape_a.size();
  const ir::Node* output_flatten = nullptr;
  for (const ir::Use& use : add.output(0)->uses()) {
    const ir::Node* reader = use.user();
    if (reader != nullptr && reader->graph() == add.graph() && use.index() == 0 &&
        reader->domain().empty()) {
      if (reader->opType() == "Flatten") {
        absl::StatusOr<int64_t> axis = flattenAxis(*reader, r);
        if (!axis.ok()) return axis.status();
        if (*axis == static_cast<int64_t>(r - 1)) {
          if (!reader->output(0)->isGraphOutput()) {
            sites.flatten_readers.push_back(reader);
            continue;
          }
          // A second graph output needs a value of its own: that Flatten stays.
          if (output_flatten == nullptr) {
            output_flatten = reader;
            continue;
          }
        }
      }
      if (reader->opType() == "Reshape" && reader->input(1) != nullptr) {
        const std::optional<std::vector<int64_t>> target = shapes.constantInts(*reader->input(1));
        const bool has_zero =
            !target || std::find(target->begin(), target->end(), 0) != target->end();
        // Before Reshape-14 a 0 copies a dim of the input whatever an allowzero says.
        absl::StatusOr<int64_t> allowzero = opset >= 14 ? getIntOr(*reader, "allowzero", 0) : 0;
        if (!allowzero.ok()) return allowzero.status();
        if (*allowzero == 1 || !has_zero) {
          sites.reshape_readers.push_back(reader);
          continue;
        }
      }
    }
    sites.needs_reshape_back = true;
  }
  if (output_flatten != nullptr) sites.flatten_readers.push_back(output_flatten);
  return sites;
}

class FuseMatMulAdd final : public RewritePattern {
 public:
  FuseMatMulAdd(const PassOption<bool>* allow_reshape, const PassOption<bool>* allow_growth)
      : RewritePattern("fuse-matmul-add", {"Add", 1}),
        allow_reshape_(allow_reshape),
        allow_growth_(allow_growth) {}

  LogicalResult matchAndRewrite(const ir::Node& add, PatternRewriter& rewriter) const override {
    const ir::Node* matmuls[2] = {producerOf(add.input(0), "MatMul"),
                                  producerOf(add.input(1), "MatMul")};
    if (matmuls[0] == nullptr && matmuls[1] == nullptr) return failure();
    const std::optional<int64_t> opset = rewriter.opsetVersion(add);
    if (add.numInputs() != 2 || add.numOutputs() != 1 || !add.input(0) || !add.input(1) ||
        !add.output(0)) {
      return rewriter.notifyMatchFailure(add, "Add does not have two inputs and one output");
    }
    if (LogicalResult attrs = checkAddAttributes(add, *opset, rewriter); failed(attrs)) {
      return attrs;
    }
    // Either operand may be the MatMul (torch exports Add(bias, MatMul) too). When both are,
    // the first that fuses wins.
    for (size_t i = 0; i < 2; ++i) {
      if (matmuls[i] == nullptr) continue;
      if (succeeded(tryFuse(add, *matmuls[i], *add.input(1 - i), i, *opset, rewriter))) {
        return success();
      }
    }
    return failure();
  }

 private:
  // Add 1 and 6 have `broadcast` and `axis` (irrelevant: only equal shapes fuse there) and Add 1
  // an in-place hint, `consumed_inputs`; from 7 on Add has no attributes.
  static LogicalResult checkAddAttributes(const ir::Node& add, int64_t opset,
                                          PatternRewriter& rewriter) {
    for (const ir::Attribute& attribute : add.attributes()) {
      const std::string& name = attribute.name();
      if (opset >= 7 || (name != "broadcast" && name != "axis" && name != "consumed_inputs")) {
        return rewriter.notifyMatchFailure(
            add, absl::StrCat("unexpected attribute '", name, "' on Add at opset ", opset));
      }
    }
    return rewriter.check(add, checkAttributes(add));
  }

  LogicalResult tryFuse(const ir::Node& add, const ir::Node& matmul, ir::Value& bias,
                        size_t product_index,
                        int64_t opset, PatternRewriter& rewriter) const {
    auto decline = [&](absl::string_view reason) {
      return rewriter.notifyMatchFailure(add, [&] {
        return absl::StrCat("with MatMul '", matmul.name(), "' as operand ", product_index, ": ",
                            reason);
      });
    };
    if (matmul.numInputs() != 2 || !matmul.input(0) || !matmul.input(1) ||
        matmul.numOutputs() != 1) {
      return decline("MatMul does not have two inputs and one output");
    }
    if (!matmul.attributes().empty()) {
      return decline(absl::StrCat("MatMul has an unexpected attribute '",
                                  matmul.attributes().front().name(), "'"));
    }
    ir::Value& a = *matmul.input(0);
    ir::Value& b = *matmul.input(1);
    ir::Value& product = *matmul.output(0);
    if (&bias == &product) return decline("the bias is the MatMul's own result");

    ShapeOracle& shapes = rewriter.shapes();
    // Element type: from the operands or the bias, else from the MatMul's result (all are the
    // same in a valid model; the result's costs a shape rule).
    int32_t elem_type = 0;
    for (const ir::Value* v : {&a, &b, &bias, &product}) {
      elem_type = shapes.inferredTypeOf(*v).elemType();
      if (elem_type != 0) break;
    }
    if (!isGemmFloatType(elem_type, opset)) {
      return decline(absl::StrCat("element type ", ir::elemTypeName(elem_type),
                                  " is not a floating type Gemm takes at opset ", opset));
    }

    const std::optional<Shape>& shape_a = shapes.inferredTypeOf(a).shape();
    const std::optional<Shape>& shape_b = shapes.inferredTypeOf(b).shape();
    const std::optional<Shape>& shape_bias = shapes.inferredTypeOf(bias).shape();
    if (!shape_a || !shape_b || !shape_bias) {
      return decline("the rank of A, B or the bias is unknown");
    }
    if (shape_b->size() != 2) return decline(absl::StrCat("B has rank ", shape_b->size(), ", not 2"));
    if (shape_a->size() < 2) return decline(absl::StrCat("A has rank ", shape_a->size(), ", not 2"));
    const size_t r = shape_a->size();
    const bool reshape = r > 2;
    if (reshape && !**allow_reshape_) {
      return decline(absl::StrCat("A has rank ", r, ", not 2 (allow-reshape=true would flatten it)"));
    }
    const int64_t rank_bias = static_cast<int64_t>(shape_bias->size());
    if (opset >= 7 && !reshape && rank_bias > 2) {
      return decline(absl::StrCat("the bias ", shapeText(*shape_bias),
                                  " has rank > 2: it would broadcast the output"));
    }
    // The MatMul's result is A's leading dims + [N]; each known from A/B or from the result's
    // own type (declared or inferred), whichever says more. The result's type costs a shape
    // rule: it is asked only when A and B do not settle the bias, or when A is flattened (the
    // reshape plan reads it).
    const std::optional<Shape> not_asked;
    const std::optional<Shape>* y = &not_asked;
    const Shape& s = *shape_bias;
    if (reshape || !biasFits(s, *shape_a, *shape_b, *y, opset, reshape)) {
      const std::optional<Shape>& shape_y = shapes.inferredTypeOf(product).shape();
      if (shape_y && shape_y->size() == r) y = &shape_y;
    }
    const Dim n = bestOf({&(*shape_b)[1], dimAt(*y, r - 1)});
    if (!biasFits(s, *shape_a, *shape_b, *y, opset, reshape)) {
      if (opset < 7) {
        return decline(absl::StrCat("at opset ", opset,
                                    " (legacy broadcasting) only a bias of exactly the MatMul's "
                                    "shape [M,N] fuses; the bias is ",
                                    shapeText(s)));
      }
      if (!reshape) {
        return decline(absl::StrCat("the bias ", shapeText(s),
                                    " does not provably broadcast to [M,N] = [",
                                    dimText(bestOf({&(*shape_a)[r - 2], dimAt(*y, r - 2)})), ",",
                                    dimText(n), "] without changing it"));
      }
      return decline(absl::StrCat("A has rank ", r, " and the bias ", shapeText(s),
                                  " is not a scalar, [1], [N], [1,1] or [1,N]: it does not "
                                  "broadcast the same way over the flattened rows"));
    }

    // With a flattened A: what it reuses and replaces, how to build the shape to reshape the
    // result back to, and whether all that leaves the graph no bigger.
    ReshapeSites sites;
    ReshapePlan plan;
    if (reshape) {
      // The shape back is an int64 Constant, which opset 9 brought (and before opset 7 the
      // bias broadcasts by legacy rules against the unflattened [M, N]).
      if (opset < 9) {
        return decline("reshaping around the Gemm needs an int64 Constant (opset 9 on)");
      }
      absl::StatusOr<ReshapeSites> surveyed = surveyReshapeSites(add, a, *shape_a, opset, shapes);
      if (!surveyed.ok()) return rewriter.emitError(add, surveyed.status());
      sites = *std::move(surveyed);
      if (sites.needs_reshape_back) {
        if (LogicalResult planned = planReshape(*shape_a, *y, n, opset, &plan); failed(planned)) {
          return decline(plan.why_not);
        }
      }
      const size_t added = 1 + (sites.a_2d ? 0 : 1) +
                           (sites.needs_reshape_back ? reshapeBackNodes(plan, n, opset) : 0);
      const size_t removed = 2 + (sites.a_producer_goes ? 1 : 0) + sites.flatten_readers.size();
      if (added > removed && !**allow_growth_) {
        return decline(absl::StrCat("A has rank ", r, ": the Gemm with its Flatten/Reshape would "
                                    "add ", added, " nodes for the ", removed,
                                    " it removes (allow-growth=true would fuse anyway)"));
      }
    }

    if (failed(rewriter.match(add, {&matmul}))) return failure();

    // ---- rewrite ----
    const std::string gemm_name = fusedName(matmul.name(), add.name());
    // The Add's output value, and its name, go to the last node made (replaceRootWithNewNode).
    const std::string& out_name = add.output(0)->name();
    auto create = [&rewriter](const std::string& op_type, absl::Span<ir::Value* const> inputs,
                              const std::string& output_hint, const std::string& node_name) {
      return rewriter.createNode(op_type, inputs, absl::MakeConstSpan(&output_hint, 1), "",
                                 node_name);
    };

    if (!reshape) {
      rewriter.replaceRootWithNewNode("Gemm", {&a, &b, &bias}, "", gemm_name);
      return success();
    }

    // Flatten<axis=r-1>(A) is [d0*...*d(r-2), K] (no need to know K), unless the model has it.
    ir::Value* a_2d = sites.a_2d;
    if (a_2d == nullptr) {
      ir::Node* flatten = create("Flatten", {&a}, a.name() + "_2d", gemm_name + "_flatten");
      rewriter.setIntAttr(*flatten, "axis", static_cast<int64_t>(r - 1));
      a_2d = flatten->output(0);
    }
    ir::Node* gemm = create("Gemm", {a_2d, &b, &bias}, out_name + "_2d", gemm_name);
    ir::Value& product_2d = *gemm->output(0);
    // The readers that want the 2-D result take it (a Flatten reader's output becomes the
    // Gemm's, name and all).
    for (const ir::Node* flatten : sites.flatten_readers) {
      rewriter.replaceAllUsesWith(*flatten->output(0), product_2d);
      rewriter.eraseNode(*flatten);
    }
    for (const ir::Node* reader : sites.reshape_readers) rewriter.setInput(*reader, 0, &product_2d);
    if (!sites.needs_reshape_back) {
      rewriter.eraseNode(add);
      return success();
    }

    ir::Value* target = nullptr;
    auto constant = [&](const std::vector<int64_t>& values, const std::string& hint) {
      ir::Node* node = create("Constant", {}, out_name + "_" + hint, gemm_name + "_" + hint);
      rewriter.setAttr(*node, ir::Attribute::makeTensor("value", makeInt64Tensor(values)));
      return node->output(0);
    };
    // Shape(v)[start:end], as the opset allows.
    auto shape_slice = [&](ir::Value* v, int64_t start, int64_t end, const std::string& hint) {
      ir::Node* shape = create("Shape", {v}, out_name + "_" + hint, gemm_name + "_shape");
      if (opset >= 15) {
        rewriter.setIntAttr(*shape, "start", start);
        rewriter.setIntAttr(*shape, "end", end);
        return shape->output(0);
      }
      ir::Value* starts = constant({start}, "starts");
      ir::Value* ends = constant({end}, "ends");
      ir::Node* slice = create("Slice", {shape->output(0), starts, ends}, out_name + "_" + hint,
                               gemm_name + "_slice");
      return slice->output(0);
    };
    if (plan.static_shape) {
      target = constant(*plan.static_shape, "shape");
    } else {
      ir::Value* lead = shape_slice(&a, 0, static_cast<int64_t>(r - 1), "leading_dims");
      ir::Value* last = n.isKnown() ? constant({n.value()}, "n") : shape_slice(&b, 1, 2, "n");
      ir::Node* concat = create("Concat", {lead, last}, out_name + "_shape", gemm_name + "_concat");
      rewriter.setIntAttr(*concat, "axis", 0);
      target = concat->output(0);
    }
    ir::Node* back = rewriter.replaceRootWithNewNode("Reshape", {&product_2d, target}, "",
                                                     gemm_name + "_reshape");
    // The run-time shape may hold a 0 (an empty tensor): with allowzero=1 it means 0, not "copy
    // the input's dim". planReshape only goes there from opset 14, where allowzero exists.
    if (!plan.static_shape) rewriter.setIntAttr(*back, "allowzero", 1);
    return success();
  }

  // Whether the bias broadcasts as the fused Gemm needs, with [M, N] described by A, B and, when
  // asked, the MatMul's result shape `y`:
  // - before opset 7 (legacy broadcasting, Add and Gemm): only a bias of exactly [M, N];
  // - from 7, A 2-D: a unidirectional broadcast to [M, N], each dim (right-aligned) a known 1 or
  //   provably the output's, so that the Add's output is [M, N] too (rank <= 2 checked before);
  // - A flattened: the Gemm's output is [d0*...*d(r-2), N], so a bias may vary along N only.
  static bool biasFits(const Shape& s, const Shape& shape_a, const Shape& shape_b,
                       const std::optional<Shape>& y, int64_t opset, bool reshape) {
    const size_t r = shape_a.size();
    const Dim* n_dims[] = {&shape_b[1], dimAt(y, r - 1)};
    const Dim* m_dims[] = {&shape_a[r - 2], dimAt(y, r - 2)};
    auto is_n = [&](const Dim& dim) { return provablyEqualsAny(dim, {n_dims[0], n_dims[1]}); };
    auto is_m = [&](const Dim& dim) { return provablyEqualsAny(dim, {m_dims[0], m_dims[1]}); };
    if (opset < 7) return s.size() == 2 && is_m(s[0]) && is_n(s[1]);
    if (s.size() > 2) return false;
    if (s.size() >= 1 && !isKnownOne(s.back()) && !is_n(s.back())) return false;
    if (s.size() == 2) return isKnownOne(s[0]) || (!reshape && is_m(s[0]));
    return true;
  }

  struct ReshapePlan {
    // The shape to reshape back to, when it is a constant (at most one -1); else it is built at
    // run time from Shape(A).
    std::optional<std::vector<int64_t>> static_shape;
    std::string why_not;
  };

  // The nodes tryFuse makes to reshape the result back by `plan`: the Reshape and its shape (a
  // Constant, or Shape(A)[0:r-1] and N (a Constant or Shape(B)[1:2]) into a Concat, each slice
  // one Shape<start, end> from opset 15, else Shape, Slice and two Constants).
  static size_t reshapeBackNodes(const ReshapePlan& plan, const Dim& n, int64_t opset) {
    if (plan.static_shape) return 2;
    const size_t slice = opset >= 15 ? 1 : 4;
    return 2 + slice + (n.isKnown() ? 1 : slice);
  }

  // Decides how the [P, N] Gemm result is reshaped back to A's leading dims + [N].
  static LogicalResult planReshape(const Shape& shape_a, const std::optional<Shape>& y,
                                   const Dim& n, int64_t opset, ReshapePlan* plan) {
    const size_t r = shape_a.size();
    // Known positive sizes stay; one dim that is not gets -1 (Reshape infers it, correctly
    // even for an empty tensor as the other sizes are positive); a known 0 would mean "copy".
    std::vector<int64_t> values;
    int unknowns = 0;
    for (size_t i = 0; i + 1 <= r; ++i) {
      const Dim d = i + 1 < r ? bestOf({&shape_a[i], dimAt(y, i)}) : n;
      if (d.isKnown() && d.value() > 0) {
        values.push_back(d.value());
      } else {
        values.push_back(-1);
        ++unknowns;
      }
    }
    if (unknowns <= 1) {
      plan->static_shape = std::move(values);
      return success();
    }
    if (opset < 14) {
      // The shape then comes from Shape(A) at run time, and a 0 in it would mean "copy".
      plan->why_not = absl::StrCat(unknowns, " sizes of the result are unknown, and Reshape has "
                                   "no allowzero before opset 14");
      return failure();
    }
    return success();
  }

  const PassOption<bool>* allow_reshape_;
  const PassOption<bool>* allow_growth_;
};

class FuseMatMulAddGemm final : public PatternPass {
 public:
  FuseMatMulAddGemm() : PatternPass("fuse-matmul-add-gemm") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseMatMulAdd>(&allow_reshape_, &allow_growth_);
  }

  PassOption<bool> allow_reshape_{
      *this, "allow-reshape", false,
      "also fuse when A has rank > 2 (B 2-D): flatten A to 2-D around the Gemm and reshape back, "
      "where the graph gets no bigger"};
  PassOption<bool> allow_growth_{
      *this, "allow-growth", false,
      "with allow-reshape, fuse even where the Flatten/Reshape around the Gemm add more nodes "
      "than the fusion removes"};
};

}  // namespace

std::unique_ptr<Pass> createFuseMatmulAddGemmPass() {
  return std::make_unique<FuseMatMulAddGemm>();
}

}  // namespace onnxopt
