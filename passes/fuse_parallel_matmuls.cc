// fuse-parallel-matmuls: MatMuls that multiply one value X by constant 2-D weights of one height
// (the query, key and value projections of an attention block) become one MatMul of X by the
// weights side by side, and a Split of its result along the last axis. When every product is read
// only by an Add of a constant bias along its last axis, the biases join too: one Add before the
// Split. Gemms of one X with the same settings (the heads of a classifier or detector on one
// feature vector) join alike, their C side by side. Each element of each product is the same dot
// product as before (ONNX Runtime's kernels sum each one alike whatever the width; checked bit for
// bit), so the outputs do not change. See docs/passes/fuse-parallel-matmuls.md.

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// How far before a MatMul the walk looks for another MatMul of its group: the group is rewritten
// from its first node, before which the new nodes go. Exporters put the projections right after
// the node that makes X.
constexpr int kMaxNodesWalkedBack = 256;

// One product of a group: X times a constant 2-D weight read by it alone (a Gemm's weight
// [N, K] under transB), a Gemm's constant C of [N] or [1, N] read by it alone, and the bias Add
// after a MatMul when there is one. A product that nothing live reads is none (readByLiveNode).
struct Member {
  const ir::Node* product;
  ConstantView weight;
  bool transposed_weight = false;
  std::optional<ConstantView> c;
  const ir::Node* add = nullptr;
  std::optional<ConstantView> bias;

  int64_t width() const { return weight.dims()[transposed_weight ? 0 : 1]; }
  int64_t height() const { return weight.dims()[transposed_weight ? 1 : 0]; }
  // The value the rewrite replaces: the Add's result when the biases join, else the product.
  const ir::Value& result() const { return add ? *add->output(0) : *product->output(0); }
};

// A constant `value` read by one node alone, of `elem_type`, of shape [N] or [1, ..., 1, N]
// with N = `width` and a rank of at most `max_rank`: a bias along the last axis of a product.
std::optional<ConstantView> lastAxisBias(const ir::Value& value, int64_t width, int64_t max_rank,
                                         int32_t elem_type) {
  if (!hasSingleReader(value)) return {};
  absl::StatusOr<std::optional<ConstantView>> read = readConstant(value);
  if (!read.ok() || !*read || (*read)->elemType() != elem_type || (*read)->rank() == 0 ||
      (*read)->rank() > max_rank) {
    return {};
  }
  const absl::Span<const int64_t> dims = (*read)->dims();
  if (dims.back() != width ||
      std::any_of(dims.begin(), dims.end() - 1, [](int64_t d) { return d != 1; })) {
    return {};
  }
  return *std::move(read);
}

// Whether a graph, or a node with a read output, reads `value`. A product nothing reads (a
// rewrite has just left it for the driver to erase), or read only by dead nodes, is no member:
// the rewrite would replace no use of it, leave it in place, and find it again.
bool readByLiveNode(const ir::Value& value) {
  return std::any_of(value.uses().begin(), value.uses().end(), [](const ir::Use& use) {
    return use.isGraphOutput() || (use.user() != nullptr && use.user()->hasUsedOutputs());
  });
}

// `product` as a member: a MatMul without attributes, or a Gemm of `settings` whose C, when it
// has one, is a bias along its last axis.
std::optional<Member> memberOf(const ir::Node& product,
                               const std::optional<GemmAttributes>& settings) {
  const bool gemm = settings.has_value();
  const size_t max_inputs = gemm ? 3 : 2;
  if (product.numInputs() < 2 || product.numInputs() > max_inputs || product.input(0) == nullptr ||
      product.input(1) == nullptr || product.numOutputs() != 1 || product.output(0) == nullptr ||
      !readByLiveNode(*product.output(0)) || !hasSingleReader(*product.input(1))) {
    return std::nullopt;
  }
  if (gemm) {
    absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(product);
    if (!attributes.ok() || !(*attributes == *settings)) return std::nullopt;
  } else if (!product.attributes().empty()) {
    return std::nullopt;
  }
  absl::StatusOr<std::optional<ConstantView>> weight = readConstant(*product.input(1));
  if (!weight.ok() || !*weight || (*weight)->rank() != 2) return std::nullopt;
  Member member{&product, **weight, gemm && settings->trans_b, std::nullopt, nullptr,
                std::nullopt};
  const ir::Value* c = product.numInputs() == 3 ? product.input(2) : nullptr;
  if (c != nullptr) {
    member.c = lastAxisBias(*c, member.width(), 2, member.weight.elemType());
    if (!member.c) return std::nullopt;
  }
  return member;
}

// Float and float16, whose products ONNX Runtime sums the same way in any width, and the integer
// types, whose sums are exact. Not double: its kernels sum a product of another width otherwise.
bool joinableType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT || elem_type == onnx::TensorProto::FLOAT16 ||
         elem_type == onnx::TensorProto::INT32 || elem_type == onnx::TensorProto::INT64;
}

// The operand of `add` other than `product`, when it is a bias along the product's last axis of
// a rank no higher than `product_rank` (so that the Add's result has the product's shape; 1 when
// that rank is not known).
std::optional<ConstantView> biasOf(const ir::Node& add, const ir::Value& product, int64_t width,
                                   int64_t product_rank, int32_t elem_type) {
  if (add.numInputs() != 2 || add.numOutputs() != 1 || add.output(0) == nullptr) return {};
  const ir::Value* bias = add.input(0) == &product ? add.input(1) : add.input(0);
  if (bias == nullptr || bias == &product) return {};
  return lastAxisBias(*bias, width, product_rank, elem_type);
}

// Sets `member`'s bias Add when its product is read by one Add alone, of a bias biasOf takes.
bool attachBias(Member& member, int64_t product_rank) {
  const ir::Value& product = *member.product->output(0);
  const ir::Node* add = hasSingleReader(product) ? product.uses().front().user() : nullptr;
  if (add == nullptr || !add->is("Add") || add->graph() != member.product->graph()) return false;
  member.bias =
      biasOf(*add, product, member.width(), product_rank, member.weight.elemType());
  member.add = member.bias ? add : nullptr;
  return member.add != nullptr;
}

// Where `root` stands in `group`: first, or after `earlier`, another member; or too far from
// the node making `x` (or the graph's start) to tell, when that is more than kMaxNodesWalkedBack
// nodes back.
struct Order {
  bool too_far = false;
  const ir::Node* earlier = nullptr;
};

Order orderInGroup(const ir::Node& root, const ir::Value& x, const std::vector<Member>& group) {
  const ir::Node* node = root.prev();
  for (int walked = 0; node != nullptr && node != x.producer(); node = node->prev(), ++walked) {
    if (walked == kMaxNodesWalkedBack) return Order{true, nullptr};
    if (std::any_of(group.begin(), group.end(),
                    [&](const Member& member) { return member.product == node; })) {
      return Order{false, node};
    }
  }
  return Order{};
}

class FuseParallelProductsPattern final : public RewritePattern {
 public:
  // MatMul 1, 9 and 13 differ in the types they take only. Gemm from opset 7, where C
  // broadcasts by numpy's rules (a `broadcast` attribute before); C is optional from 11. The
  // Split the rewrite makes takes `split` as an attribute before opset 13 and as an input from 13
  // on (18 adds num_outputs beside it), and its axis, the product's last, as -1 from opset 11 on.
  // Of Gemm nodes when `gemm`, of MatMul nodes otherwise.
  explicit FuseParallelProductsPattern(bool gemm)
      : RewritePattern(gemm ? "fuse-parallel-gemms" : "fuse-parallel-matmuls",
                       gemm ? PatternRoot{"Gemm", 7} : PatternRoot{"MatMul", 1}),
        gemm_(gemm) {}

  LogicalResult matchAndRewrite(const ir::Node& root, PatternRewriter& rewriter) const override {
    std::optional<GemmAttributes> settings;
    if (gemm_) {
      absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(root);
      if (!attributes.ok()) return rewriter.emitError(root, attributes.status());
      settings = *attributes;
    }
    std::optional<Member> own = memberOf(root, settings);
    if (!own) return failure();
    const ir::Value& x = *root.input(0);
    const int32_t elem_type = own->weight.elemType();
    std::vector<Member> group{*own};
    for (const ir::Use& use : x.uses()) {
      const ir::Node* reader = use.user();
      if (reader == nullptr || use.index() != 0 || reader->graph() != root.graph() ||
          !reader->is(root.opType()) ||
          std::any_of(group.begin(), group.end(),
                      [&](const Member& member) { return member.product == reader; })) {
        continue;
      }
      std::optional<Member> member = memberOf(*reader, settings);
      if (member && member->weight.elemType() == elem_type &&
          member->height() == own->height() && member->c.has_value() == own->c.has_value()) {
        group.push_back(*std::move(member));
      }
    }
    if (group.size() < 2) return failure();
    if (!joinableType(elem_type)) {
      return rewriter.notifyMatchFailure(root, [&] {
        return absl::StrCat("its weights are ", ir::elemTypeName(elem_type),
                            "; it joins float, float16, int32 and int64 weights only");
      });
    }
    const Order order = orderInGroup(root, x, group);
    if (order.too_far) {
      return rewriter.notifyMatchFailure(root, [&] {
        return absl::StrCat("'", x.name(), "' is made more than ", kMaxNodesWalkedBack,
                            " nodes before it: the other products reading it are not looked for");
      });
    }
    if (order.earlier != nullptr) {
      // The new nodes go before the group's first product: the rewrite is rooted there.
      rewriter.offerAgain(*order.earlier);
      return failure();
    }
    // A MatMul's products have X's rank (1 for a 1-D X), a Gemm's are 2-D. The Split's axis
    // counts from the end from opset 11 on; before, from the front, which needs that rank.
    const int64_t opset = rewriter.opsetVersion(root).value_or(0);
    const std::optional<int64_t> product_rank =
        gemm_ ? std::optional<int64_t>(2) : rewriter.shapes().inferredTypeOf(x).rank();
    if (product_rank && *product_rank < 1) {
      return rewriter.notifyMatchFailure(root, "its first operand is a scalar");
    }
    if (opset < 11 && !product_rank) {
      return rewriter.notifyMatchFailure(
          root, "the rank of its first operand is not known (Split counts axes from the end from "
                "opset 11 on)");
    }
    // A MatMul's bias Adds join only when every product has one (numpy broadcasting: Add 7 on).
    bool join_biases = !gemm_ && opset >= 7;
    for (Member& member : group) {
      join_biases = join_biases && attachBias(member, product_rank.value_or(1));
    }
    if (!join_biases) {
      for (Member& member : group) member.add = nullptr;
    }

    std::vector<const onnx::TensorProto*> weights, biases;
    std::vector<int64_t> widths;
    for (const Member& member : group) {
      weights.push_back(&member.weight.proto());
      if (join_biases) biases.push_back(&member.bias->proto());
      if (member.c) biases.push_back(&member.c->proto());
      widths.push_back(member.width());
    }
    const int64_t width = std::accumulate(widths.begin(), widths.end(), int64_t{0});
    const int64_t height = own->height();
    // A weight used transposed ([N, K] under transB) joins along its first axis: its rows follow
    // one another.
    std::optional<onnx::TensorProto> joined_weight =
        own->transposed_weight ? joinLastAxis(weights, 1, {width, height}, elem_type)
                               : joinLastAxis(weights, height, {height, width}, elem_type);
    std::optional<onnx::TensorProto> joined_bias;
    if (!biases.empty()) joined_bias = joinLastAxis(biases, 1, {width}, elem_type);
    if (!joined_weight || (!biases.empty() && !joined_bias)) {
      return rewriter.notifyMatchFailure(root, "a weight's or bias's elements cannot be read");
    }

    if (failed(rewriter.match(root))) return failure();
    const std::string& hint = root.output(0)->name();
    std::vector<ir::Value*> operands{root.input(0),
                                     rewriter.createInitializer(hint + "_weights",
                                                                *std::move(joined_weight))};
    ir::Value* bias =
        joined_bias ? rewriter.createInitializer(hint + "_biases", *std::move(joined_bias))
                    : nullptr;
    if (gemm_ && bias != nullptr) operands.push_back(bias);
    ir::Node* product = rewriter.createNode(root.opType(), operands, {hint + "_joined"});
    if (gemm_) rewriter.copyAttrs(root, *product);
    ir::Value* joined = product->output(0);
    if (join_biases) {
      joined = rewriter.createNode("Add", {joined, bias}, {hint + "_biased"}, "",
                                   group.front().add->name())
                   ->output(0);
    }
    std::vector<std::string> names;
    for (const Member& member : group) names.push_back(member.result().name());
    std::vector<ir::Value*> split_inputs{joined};
    if (opset >= 13) split_inputs.push_back(rewriter.createInitializer(hint + "_widths",
                                                                       makeInt64Tensor(widths)));
    ir::Node* split = rewriter.createNode("Split", split_inputs, names);
    rewriter.setIntAttr(*split, "axis", opset >= 11 ? -1 : *product_rank - 1);
    if (opset < 13) {
      rewriter.setAttr(*split, ir::Attribute::makeInts("split", widths, rewriter.model().arena()));
    }
    for (size_t i = 0; i < group.size(); ++i) {
      rewriter.replaceAllUsesWith(group[i].result(), *split->output(i));
    }
    return success();
  }

 private:
  bool gemm_;
};

class FuseParallelMatMuls final : public PatternPass {
 public:
  FuseParallelMatMuls() : PatternPass("fuse-parallel-matmuls") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FuseParallelProductsPattern>(/*gemm=*/false);
    patterns.add<FuseParallelProductsPattern>(/*gemm=*/true);
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseParallelMatmulsPass() {
  return std::make_unique<FuseParallelMatMuls>();
}

}  // namespace onnxopt
