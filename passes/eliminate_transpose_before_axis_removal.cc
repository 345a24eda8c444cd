// eliminate-transpose-before-axis-removal: a Gather of one index and a Squeeze each remove axes
// of their input. When they read Transpose(X, p) and the axes they keep come out of p in X's
// own order, the removal done on X's axes p[a] gives the same tensor: Gather(T, i, axis=a)
// reads Gather(X, i, axis=p[a]), Squeeze(T, A) reads Squeeze(X, p[A]). Only elements move, so
// the result is exact; the Transpose goes with its last reader. The batch-first RNN exports'
// Transpose -> Gather (the last step of the sequence) is the case met in practice. A Shape of
// Transpose(X, p) whose dims only Gathers read reads X, the Gathers dims p[i]. See
// docs/passes/eliminate-transpose-before-axis-removal.md.

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

constexpr int64_t kSqueezeAxesInputSince = 13;
constexpr int64_t kSqueezeNegativeAxesSince = 11;

// The Transpose `node` reads as input 0, with its perm; nullopt (reason recorded) when there is
// none or its rank is not known.
struct TransposeRead {
  const ir::Node* transpose;
  std::vector<int64_t> perm;
};

std::optional<TransposeRead> transposeRead(const ir::Node& node, PatternRewriter& rewriter,
                                           LogicalResult& status) {
  status = failure();
  const ir::Node* transpose = producerOf(node.input(0), "Transpose");
  if (transpose == nullptr || transpose->input(0) == nullptr || node.output(0) == nullptr) {
    return std::nullopt;
  }
  std::optional<int64_t> rank = rankFromPerm(*transpose);
  if (!rank) rank = rewriter.shapes().inferredTypeOf(*transpose->input(0)).rank();
  absl::StatusOr<std::optional<std::vector<int64_t>>> perm = readTransposePerm(*transpose, rank);
  if (!perm.ok()) {
    status = rewriter.emitError(*transpose, perm.status());
    return std::nullopt;
  }
  if (!*perm) {
    status = rewriter.notifyMatchFailure(node, [&] {
      return absl::StrCat(describe(*transpose), " has no perm and its input's rank is not known");
    });
    return std::nullopt;
  }
  return TransposeRead{transpose, **std::move(perm)};
}

// Whether the axes of the Transpose's output outside `removed` (sorted) come from its input in
// that input's order: then removing the input's axes perm[removed] leaves them so.
bool keptAxesInOrder(const std::vector<int64_t>& perm, const std::vector<int64_t>& removed) {
  int64_t previous = -1;
  for (size_t axis = 0; axis < perm.size(); ++axis) {
    if (std::binary_search(removed.begin(), removed.end(), static_cast<int64_t>(axis))) continue;
    if (perm[axis] < previous) return false;
    previous = perm[axis];
  }
  return true;
}

LogicalResult declineOrder(const ir::Node& node, const TransposeRead& read,
                           PatternRewriter& rewriter) {
  return rewriter.notifyMatchFailure(node, [&] {
    return absl::StrCat("the axes it keeps leave ", describe(*read.transpose), " (perm [",
                        absl::StrJoin(read.perm, ", "), "]) out of their order: a Transpose stays");
  });
}

// Gather(Transpose(X, p), i, axis=a) with i a scalar is Gather(X, i, axis=p[a]). Gather's axis
// may be negative from opset 1, and its indices from 11; an index counts along T's axis a,
// which is X's axis p[a], of the same size.
class GatherOfTranspose final : public RewritePattern {
 public:
  GatherOfTranspose() : RewritePattern("gather-of-transpose", {"Gather", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& gather, PatternRewriter& rewriter) const override {
    LogicalResult status = failure();
    std::optional<TransposeRead> read = transposeRead(gather, rewriter, status);
    if (!read) return status;
    const ir::Value* indices = gather.input(1);
    if (indices == nullptr) return failure();
    const std::optional<ir::Shape>& index_shape =
        rewriter.shapes().inferredTypeOf(*indices).shape();
    if (!index_shape || !index_shape->empty()) {
      return rewriter.notifyMatchFailure(gather, [&] {
        return absl::StrCat("its indices '", indices->name(), "' are not known to be a scalar (",
                            shapeText(index_shape), "): Gather puts their dims in axis ",
                            "a's place, where no Transpose of X's axes can follow");
      });
    }
    const int64_t rank = static_cast<int64_t>(read->perm.size());
    const int64_t axis = gather.intAttr("axis", 0);
    if (axis < -rank || axis >= rank) {
      return rewriter.notifyMatchFailure(gather, [&] {
        return absl::StrCat("its axis ", axis, " is outside its input's rank ", rank);
      });
    }
    const int64_t removed = axis < 0 ? axis + rank : axis;
    if (!keptAxesInOrder(read->perm, {removed})) return declineOrder(gather, *read, rewriter);
    if (failed(rewriter.match(gather))) return failure();
    rewriter.setInput(gather, 0, read->transpose->input(0));
    rewriter.setIntAttr(gather, "axis", read->perm[removed]);
    return success();
  }
};

// Squeeze(Transpose(X, p), A) is Squeeze(X, p[A]): T's axes A are X's axes p[A], of size 1 in
// both. Axes: an attribute before opset 13 and input 1 from then on, negative from opset 11.
class SqueezeOfTranspose final : public RewritePattern {
 public:
  SqueezeOfTranspose() : RewritePattern("squeeze-of-transpose", {"Squeeze", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& squeeze, PatternRewriter& rewriter) const override {
    LogicalResult status = failure();
    std::optional<TransposeRead> read = transposeRead(squeeze, rewriter, status);
    if (!read) return status;
    absl::StatusOr<AxesOperand> axes = readAxesOperand(squeeze, kSqueezeAxesInputSince);
    if (!axes.ok()) return rewriter.emitError(squeeze, axes.status());
    // Without axes (or with an empty list, which ONNX leaves open) the dims of 1 decide which
    // axes go.
    if (!axes->given || (axes->values && axes->values->empty())) {
      return rewriter.notifyMatchFailure(squeeze, "it names no axes: the dims of 1 would decide");
    }
    if (!axes->values) return rewriter.notifyMatchFailure(squeeze, "its axes are not constant");
    if (!allNonNegative(*axes->values) &&
        rewriter.opsetVersion(squeeze).value_or(0) < kSqueezeNegativeAxesSince) {
      return rewriter.notifyMatchFailure(squeeze, "negative axes before opset 11");
    }
    const int64_t rank = static_cast<int64_t>(read->perm.size());
    std::optional<std::vector<int64_t>> removed = resolveAxesSorted(*axes->values, rank);
    if (!removed) {
      return rewriter.notifyMatchFailure(squeeze, [&] {
        return absl::StrCat("an axis is outside its input's rank ", rank, " or repeated");
      });
    }
    if (!keptAxesInOrder(read->perm, *removed)) return declineOrder(squeeze, *read, rewriter);
    std::vector<int64_t> source_axes;
    for (int64_t axis : *removed) source_axes.push_back(read->perm[axis]);
    std::sort(source_axes.begin(), source_axes.end());
    if (failed(rewriter.match(squeeze))) return failure();
    rewriter.setInput(squeeze, 0, read->transpose->input(0));
    setAxesOperand(rewriter, squeeze, kSqueezeAxesInputSince, source_axes);
    return success();
  }
};

// Shape(Transpose(X, p)) read only by Gathers of constant indices along axis 0 is Shape(X) read
// by Gathers of p[indices]: dim i of T is dim p[i] of X. Shape's start and end (opset 15) would
// slice the dims first, so such a Shape stays. torch's attention exports read a batch or head
// count this way off a Transpose that nothing else needs.
class ShapeOfTranspose final : public RewritePattern {
 public:
  ShapeOfTranspose() : RewritePattern("shape-of-transpose", {"Shape", 1}) {}

  LogicalResult matchAndRewrite(const ir::Node& shape, PatternRewriter& rewriter) const override {
    LogicalResult status = failure();
    std::optional<TransposeRead> read = transposeRead(shape, rewriter, status);
    if (!read) return status;
    if (shape.attr("start") != nullptr || shape.attr("end") != nullptr) {
      return rewriter.notifyMatchFailure(shape, "it has start or end");
    }
    const ir::Value& dims = *shape.output(0);
    if (dims.isGraphOutput() || !dims.hasUses()) {
      return rewriter.notifyMatchFailure(shape, "its result is a graph output or unread");
    }
    const int64_t rank = static_cast<int64_t>(read->perm.size());
    struct Remapped {
      const ir::Node* gather;
      onnx::TensorProto indices;
    };
    std::vector<Remapped> remapped;
    for (const ir::Use& use : dims.uses()) {
      const ir::Node* gather = use.user();
      if (gather == nullptr || !gather->is("Gather") || use.index() != 0 ||
          gather->graph() != shape.graph() || gather->input(1) == nullptr) {
        return rewriter.notifyMatchFailure(shape, "a reader of its result is not a Gather of it");
      }
      const int64_t axis = gather->intAttr("axis", 0);
      if (axis != 0 && axis != -1) {
        return rewriter.notifyMatchFailure(shape, "a Gather of its result has an axis other than 0");
      }
      absl::StatusOr<std::optional<ConstantView>> indices = readConstant(*gather->input(1));
      if (!indices.ok()) return rewriter.emitError(*gather, indices.status());
      const std::optional<std::vector<int64_t>> values =
          *indices ? (*indices)->asInts() : std::nullopt;
      if (!values || ((*indices)->elemType() != onnx::TensorProto::INT64 &&
                      (*indices)->elemType() != onnx::TensorProto::INT32)) {
        return rewriter.notifyMatchFailure(shape, "a Gather of its result has indices that are not int constants");
      }
      std::vector<int64_t> sources;
      for (int64_t index : *values) {
        if (index < -rank || index >= rank) {
          return rewriter.notifyMatchFailure(shape, "a Gather of its result has an index out of range");
        }
        sources.push_back(read->perm[index < 0 ? index + rank : index]);
      }
      remapped.push_back({gather, intTensorLike(**indices, sources)});
    }
    if (failed(rewriter.match(shape))) return failure();
    for (Remapped& entry : remapped) {
      ir::Value* indices = rewriter.createInitializer(entry.gather->input(1)->name() + "_of_source",
                                                      std::move(entry.indices));
      rewriter.setInput(*entry.gather, 1, indices);
    }
    rewriter.setInput(shape, 0, read->transpose->input(0));
    return success();
  }

 private:
  // `values` in a tensor of `like`'s element type (int32 or int64) and dims.
  static onnx::TensorProto intTensorLike(const ConstantView& like, const std::vector<int64_t>& values) {
    std::string bytes;
    for (int64_t value : values) {
      if (like.elemType() == onnx::TensorProto::INT32) {
        const int32_t narrow = static_cast<int32_t>(value);
        bytes.append(reinterpret_cast<const char*>(&narrow), sizeof(narrow));
      } else {
        bytes.append(reinterpret_cast<const char*>(&value), sizeof(value));
      }
    }
    return makeTensor(like.elemType(), like.dims(), std::move(bytes));
  }
};

class EliminateTransposeBeforeAxisRemoval final : public PatternPass {
 public:
  EliminateTransposeBeforeAxisRemoval() : PatternPass("eliminate-transpose-before-axis-removal") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<GatherOfTranspose>();
    patterns.add<SqueezeOfTranspose>();
    patterns.add<ShapeOfTranspose>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateTransposeBeforeAxisRemovalPass() {
  return std::make_unique<EliminateTransposeBeforeAxisRemoval>();
}

}  // namespace onnxopt
