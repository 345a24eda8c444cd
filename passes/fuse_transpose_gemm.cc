// fuse-transpose-gemm: folds a Transpose that swaps the two axes of a 2-D tensor into the Gemm
// that reads it (transA/transB), and a Transpose of a Gemm's output into the Gemm itself.
//
// 1. fold-transpose-into-gemm-operand (root: Gemm), and the same for B/transB:
//      At = Transpose<perm=[1,0]>(X); Y = Gemm<transA=t>(At, B, C)  =>  Y = Gemm<transA=!t>(X, B, C)
// 2. fold-gemm-output-transpose (root: Transpose)
//      Y = Gemm<transA=a, transB=b>(A, B, C); T = Transpose<perm=[1,0]>(Y)
//      =>  T = Gemm<transA=!b, transB=!a>(B, A, C')
//    since T = (alpha op(A) op(B) + beta C)' = alpha op(B)' op(A)' + beta C'. C' broadcasts to
//    [N, M] exactly as C did to [M, N]: no C (opset 11+), a C whose dims are all known 1s, or a
//    constant C, transposed.
//
// A "swap" is perm = [1, 0], or no perm (which reverses the axes) on an input of rank 2.
// See docs/passes/fuse-transpose-gemm.md.

#include <algorithm>
#include <optional>
#include <string>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

using ir::describe;
using onnx::TensorProto;

// Whether `transpose` swaps the axes of a 2-D tensor: nullopt when it does, else why not (or an
// error for a malformed perm). `input_is_2d` when the caller knows the input's rank is 2.
absl::StatusOr<std::optional<std::string>> whyNotAxisSwap(const ir::Node& transpose,
                                                          bool input_is_2d,
                                                          PatternRewriter& rewriter) {
  absl::StatusOr<std::optional<std::vector<int64_t>>> perm = getInts(transpose, "perm");
  if (!perm.ok()) return perm.status();
  if (*perm) {
    if (**perm == std::vector<int64_t>{1, 0}) return std::nullopt;
    return absl::StrCat(describe(transpose), " has perm [", absl::StrJoin(**perm, ", "),
                        "], not [1, 0]");
  }
  if (input_is_2d || rewriter.shapes().inferredTypeOf(*transpose.input(0)).rank() == 2) return std::nullopt;
  return absl::StrCat(describe(transpose), " has no perm and its input is not known to be 2-D");
}

class FoldTransposeIntoGemmOperand final : public RewritePattern {
 public:
  FoldTransposeIntoGemmOperand()
      : RewritePattern("fold-transpose-into-gemm-operand", {"Gemm", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& gemm, PatternRewriter& rewriter) const override {
    struct Fold {
      size_t operand;
      ir::Value* source;  // the Transpose's input
    };
    absl::InlinedVector<Fold, 2> folds;
    std::vector<std::string> reasons;
    for (size_t operand = 0; operand < 2; ++operand) {
      const ir::Node* transpose = producerOf(gemm.input(operand), "Transpose");
      if (transpose == nullptr || transpose->input(0) == nullptr) continue;
      absl::StatusOr<std::optional<std::string>> why =
          whyNotAxisSwap(*transpose, /*input_is_2d=*/false, rewriter);
      if (!why.ok()) return rewriter.emitError(*transpose, why.status());
      if (*why) {
        reasons.push_back(**why);
        continue;
      }
      folds.push_back({operand, transpose->input(0)});
    }
    if (folds.empty()) {
      if (reasons.empty()) return failure();  // no operand is a Transpose
      return rewriter.notifyMatchFailure(gemm, [&] { return absl::StrJoin(reasons, "; "); });
    }
    absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(gemm);
    if (!attributes.ok()) return rewriter.emitError(gemm, attributes.status());
    static constexpr const char* kFlags[2] = {"transA", "transB"};
    const bool flags[2] = {attributes->trans_a, attributes->trans_b};

    // The Gemm only stops reading the Transposes: the driver erases one nobody else reads.
    if (failed(rewriter.match(gemm))) return failure();
    for (const Fold& fold : folds) {
      rewriter.setInput(gemm, fold.operand, fold.source);
      if (!flags[fold.operand]) {
        rewriter.setIntAttr(gemm, kFlags[fold.operand], 1);
      } else {
        rewriter.removeAttr(gemm, kFlags[fold.operand]);  // absent means 0 in every opset
      }
    }
    return success();
  }
};

class FoldGemmOutputTranspose final : public RewritePattern {
 public:
  FoldGemmOutputTranspose() : RewritePattern("fold-gemm-output-transpose", {"Transpose", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& transpose,
                                PatternRewriter& rewriter) const override {
    ir::Value* y = transpose.input(0);
    const ir::Node* gemm = producerOf(y, "Gemm");
    if (gemm == nullptr || gemm->output(0) != y) return failure();
    // A Gemm's output is always 2-D, so a Transpose without perm swaps its axes.
    absl::StatusOr<std::optional<std::string>> why =
        whyNotAxisSwap(transpose, /*input_is_2d=*/true, rewriter);
    if (!why.ok()) return rewriter.emitError(transpose, why.status());
    if (*why) return rewriter.notifyMatchFailure(transpose, **why);
    if (gemm->input(0) == nullptr || gemm->input(1) == nullptr) {
      return rewriter.notifyMatchFailure(transpose, "the Gemm lacks A or B");
    }
    const int64_t opset = *rewriter.opsetVersion(*gemm);
    absl::StatusOr<GemmAttributes> attributes = readGemmAttributes(*gemm);
    if (!attributes.ok()) return rewriter.emitError(*gemm, attributes.status());
    // broadcast exists in Gemm 1 and 6 only.
    absl::StatusOr<int64_t> broadcast = opset < 7 ? getIntOr(*gemm, "broadcast", 0) : 0;
    if (!broadcast.ok()) return rewriter.emitError(*gemm, broadcast.status());

    // What C becomes: the same value, or a new constant.
    ir::Value* c = gemm->input(2);
    std::optional<TensorProto> new_c;
    if (c == nullptr && opset < 11) {
      return rewriter.notifyMatchFailure(transpose, "the Gemm has no C, optional only from opset 11");
    }
    if (c != nullptr) {
      absl::StatusOr<std::optional<std::string>> reason =
          planC(*c, *gemm, opset, *broadcast, rewriter, &new_c);
      if (!reason.ok()) return rewriter.emitError(*gemm, reason.status());
      if (*reason) return rewriter.notifyMatchFailure(transpose, **reason);
    }

    if (failed(rewriter.match(transpose, {gemm}))) return failure();
    ir::Value* c_operand =
        new_c ? rewriter.createInitializer(c->name() + "_transposed", std::move(*new_c)) : c;
    std::vector<ir::Value*> inputs = {gemm->input(1), gemm->input(0)};
    if (c_operand != nullptr) inputs.push_back(c_operand);
    // The fused node is the Gemm, read transposed: it takes the Gemm's name (or the Transpose's).
    ir::Node* fused = rewriter.replaceRootWithNewNode("Gemm", inputs, "", gemm->name());
    rewriter.copyAttrs(*gemm, *fused, {"transA", "transB"});
    // B is read as the new A, transposed unless transB was set; A as the new B likewise.
    if (!attributes->trans_b) rewriter.setIntAttr(*fused, "transA", 1);
    if (!attributes->trans_a) rewriter.setIntAttr(*fused, "transB", 1);
    return success();
  }

 private:
  // How C changes so that C' broadcasts to [N, M] exactly as C did to [M, N]; nullopt when it
  // can, with `new_c` set when C cannot stay as it is; else the reason.
  static absl::StatusOr<std::optional<std::string>> planC(const ir::Value& c, const ir::Node& gemm,
                                                          int64_t opset, int64_t broadcast,
                                                          PatternRewriter& rewriter,
                                                          std::optional<TensorProto>* new_c) {
    // From opset 7 (numpy broadcasting) a C of known 1s broadcasts alike to any shape.
    const std::optional<ir::Shape>& shape = rewriter.shapes().inferredTypeOf(c).shape();
    if (opset >= 7 && allKnownOnes(shape) && shape->size() <= 2) {
      return std::nullopt;
    }
    absl::StatusOr<std::optional<ConstantView>> constant = readConstant(c);
    if (!constant.ok()) return constant.status();
    if (!*constant) return absl::StrCat("C ('", c.name(), "') is not a constant");
    const ConstantView& view = **constant;
    if (!elemTypeAllowed(gemm, "T", view.elemType())) {
      return absl::StrCat("C has element type ", ir::elemTypeName(view.elemType()),
                          ", which Gemm does not take here");
    }
    if (view.rank() > 2) return absl::StrCat("C has rank ", view.rank(), ", more than Gemm's 2");
    // C as a [rows, cols] matrix (a vector [n] broadcasts as [1, n]).
    const int64_t rows = view.rank() == 2 ? view.dims()[0] : 1;
    const int64_t cols = view.rank() >= 1 ? view.dims()[view.rank() - 1] : 1;
    // Gemm 1 and 6 broadcast C by legacy rules the spec leaves vague: only an exact [M, N] is
    // transposed, a rank-2 C that needs no broadcast.
    if (opset < 7 && (view.rank() != 2 || (broadcast != 0 && (rows == 1 || cols == 1)))) {
      return absl::StrCat("at opset ", opset, " only a C of exactly [M, N] is transposed");
    }
    if (rows == 1 && cols == 1) return std::nullopt;  // broadcasts anywhere
    absl::StatusOr<TensorProto> tensor =
        view.rank() == 2 && rows != 1 && cols != 1
            ? transposeTensor(view.proto(), {1, 0})
            : absl::StatusOr<TensorProto>(view.proto());  // one dim is 1: same data order
    if (!tensor.ok()) return tensor.status();
    tensor->clear_dims();
    tensor->add_dims(cols);
    tensor->add_dims(rows);
    *new_c = *std::move(tensor);
    return std::nullopt;
  }
};

class FuseTransposeGemm final : public PatternPass {
 public:
  FuseTransposeGemm() : PatternPass("fuse-transpose-gemm") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<FoldTransposeIntoGemmOperand>();
    patterns.add<FoldGemmOutputTranspose>();
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseTransposeGemmPass() {
  return std::make_unique<FuseTransposeGemm>();
}

}  // namespace onnxopt
