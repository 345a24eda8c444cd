// fold-shapes: Shape and Size of a value whose dims are known become constants, and so do a
// Gather or Slice of the known part of a partly dynamic shape. Dims come from
// ShapeOracle::inferredTypeOf(), never from declarations of intermediate values. See
// docs/passes/fold-shapes.md.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "shape_folding.h"

namespace onnxopt {
namespace {

// The dims a Shape node reports (its start and end applied, opset 15 on), as inferred from the
// model's inputs; nullopt when its input's rank is not known. An error for malformed attributes.
absl::StatusOr<std::optional<ir::Shape>> reportedDims(const ir::Node& shape,
                                                      PatternRewriter& rewriter) {
  const ir::Value* data = shape.input(0);
  if (data == nullptr) return std::nullopt;
  const std::optional<ir::Shape>& dims = rewriter.shapes().inferredTypeOf(*data).shape();
  if (!dims) return std::nullopt;
  const auto rank = static_cast<int64_t>(dims->size());
  int64_t start = 0, end = rank;
  if (rewriter.opsetVersion(shape).value_or(0) >= 15) {
    absl::StatusOr<int64_t> start_attribute = getIntOr(shape, "start", 0);
    if (!start_attribute.ok()) return start_attribute.status();
    absl::StatusOr<int64_t> end_attribute = getIntOr(shape, "end", rank);
    if (!end_attribute.ok()) return end_attribute.status();
    auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
    start = clamp(*start_attribute);
    end = std::max(start, clamp(*end_attribute));
  }
  return ir::Shape(dims->begin() + start, dims->begin() + end);
}

// Replaces the root's only output by `tensor`, an initializer of its name.
LogicalResult replaceByConstant(const ir::Node& root, onnx::TensorProto tensor,
                                PatternRewriter& rewriter) {
  const ir::Value* output = root.output(0);
  if (failed(rewriter.match(root))) return failure();
  rewriter.replaceAllUsesWith(*output,
                              *rewriter.createInitializer(output->name(), std::move(tensor)));
  return success();
}

bool hasOneOutput(const ir::Node& node) {
  return node.numOutputs() == 1 && node.output(0) != nullptr;
}

class FoldKnownShape final : public RewritePattern {
 public:
  FoldKnownShape() : RewritePattern("fold-known-shape", {"Shape", 1, kNewestKnownOpset}) {}

  LogicalResult matchAndRewrite(const ir::Node& shape, PatternRewriter& rewriter) const override {
    if (!hasOneOutput(shape)) return failure();
    absl::StatusOr<std::optional<ir::Shape>> dims = reportedDims(shape, rewriter);
    if (!dims.ok()) return rewriter.emitError(shape, dims.status());
    if (!*dims) return rewriter.notifyMatchFailure(shape, "the input's rank is not known");
    std::optional<std::vector<int64_t>> sizes = knownSizes(**dims);
    if (!sizes) {
      return rewriter.notifyMatchFailure(
          shape, [&] { return absl::StrCat("dims ", shapeText(**dims), " are not all known"); });
    }
    return replaceByConstant(shape, makeInt64Tensor(*sizes), rewriter);
  }
};

class FoldKnownSize final : public RewritePattern {
 public:
  FoldKnownSize() : RewritePattern("fold-known-size", {"Size", 1, kNewestKnownOpset}) {}

  LogicalResult matchAndRewrite(const ir::Node& size, PatternRewriter& rewriter) const override {
    if (!hasOneOutput(size) || size.input(0) == nullptr) return failure();
    const std::optional<ir::Shape>& dims = rewriter.shapes().inferredTypeOf(*size.input(0)).shape();
    if (!dims) return rewriter.notifyMatchFailure(size, "the input's rank is not known");
    std::optional<std::vector<int64_t>> sizes = knownSizes(*dims);
    if (!sizes) {
      return rewriter.notifyMatchFailure(
          size, [&] { return absl::StrCat("dims ", shapeText(*dims), " are not all known"); });
    }
    int64_t count = 1;
    for (int64_t dim : *sizes) {
      if (__builtin_mul_overflow(count, dim, &count)) {
        return rewriter.notifyMatchFailure(size, "the element count overflows int64");
      }
    }
    return replaceByConstant(size, makeInt64Scalar(count), rewriter);
  }
};

// The dims of the Shape that `value` is the output of, if it is one; for Gather and Slice roots.
absl::StatusOr<std::optional<ir::Shape>> dimsOfShapeOutput(const ir::Value* value,
                                                           PatternRewriter& rewriter) {
  const ir::Node* shape = producerOf(value, "Shape");
  if (shape == nullptr) return std::nullopt;
  return reportedDims(*shape, rewriter);
}

class FoldGatherOfShape final : public RewritePattern {
 public:
  FoldGatherOfShape() : RewritePattern("fold-gather-of-shape", {"Gather", 1, kNewestKnownOpset}) {}

  LogicalResult matchAndRewrite(const ir::Node& gather, PatternRewriter& rewriter) const override {
    if (!hasOneOutput(gather) || producerOf(gather.input(0), "Shape") == nullptr) return failure();
    absl::StatusOr<std::optional<ir::Shape>> dims = dimsOfShapeOutput(gather.input(0), rewriter);
    if (!dims.ok()) return rewriter.emitError(gather, dims.status());
    if (!*dims) return rewriter.notifyMatchFailure(gather, "the shape's rank is not known");
    absl::StatusOr<int64_t> axis = getIntOr(gather, "axis", 0);
    if (!axis.ok()) return rewriter.emitError(gather, axis.status());
    if (*axis != 0 && *axis != -1) return rewriter.notifyMatchFailure(gather, "axis is not 0");
    if (gather.input(1) == nullptr) return failure();
    absl::StatusOr<std::optional<ConstantView>> indices = readConstant(*gather.input(1));
    if (!indices.ok()) return rewriter.emitError(gather, indices.status());
    std::optional<std::vector<int64_t>> values =
        *indices && ((*indices)->elemType() == onnx::TensorProto::INT64 ||
                     (*indices)->elemType() == onnx::TensorProto::INT32)
            ? (*indices)->asInts()
            : std::nullopt;
    if (!values) return rewriter.notifyMatchFailure(gather, "the indices are not a constant");
    // Negative indices count from the end from Gather-11 on; before, the spec gives them no
    // meaning.
    const bool negative_allowed = rewriter.opsetVersion(gather).value_or(0) >= 11;
    const auto size = static_cast<int64_t>((*dims)->size());
    std::vector<int64_t> picked;
    picked.reserve(values->size());
    for (int64_t index : *values) {
      if (index < 0 && negative_allowed) index += size;
      if (index < 0 || index >= size) {
        return rewriter.notifyMatchFailure(gather, [&] {
          return absl::StrCat("index ", index, " is out of range for ", size, " dims");
        });
      }
      const ir::Dim& dim = (**dims)[index];
      if (!dim.isKnown()) {
        return rewriter.notifyMatchFailure(
            gather, [&] { return absl::StrCat("dim ", index, " is ", dimText(dim)); });
      }
      picked.push_back(dim.value());
    }
    std::string bytes(reinterpret_cast<const char*>(picked.data()), picked.size() * sizeof(int64_t));
    std::vector<int64_t> result_dims((*indices)->dims().begin(), (*indices)->dims().end());
    return replaceByConstant(
        gather, makeTensor(onnx::TensorProto::INT64, result_dims, std::move(bytes)), rewriter);
  }
};

class FoldSliceOfShape final : public RewritePattern {
 public:
  FoldSliceOfShape() : RewritePattern("fold-slice-of-shape", {"Slice", 1, kNewestKnownOpset}) {}

  LogicalResult matchAndRewrite(const ir::Node& slice, PatternRewriter& rewriter) const override {
    if (!hasOneOutput(slice) || producerOf(slice.input(0), "Shape") == nullptr) return failure();
    absl::StatusOr<std::optional<ir::Shape>> dims = dimsOfShapeOutput(slice.input(0), rewriter);
    if (!dims.ok()) return rewriter.emitError(slice, dims.status());
    if (!*dims) return rewriter.notifyMatchFailure(slice, "the shape's rank is not known");
    absl::StatusOr<std::optional<SliceArguments>> arguments = readSliceArguments(slice);
    if (!arguments.ok()) return rewriter.emitError(slice, arguments.status());
    if (!*arguments) {
      return rewriter.notifyMatchFailure(slice, "starts, ends, axes or steps are not constants");
    }
    const SliceArguments& a = **arguments;
    if (a.starts.size() != 1) {
      return rewriter.notifyMatchFailure(slice, "not one slice of the shape's one axis");
    }
    if (a.axes[0] != 0 && a.axes[0] != -1) {
      return rewriter.notifyMatchFailure(slice, "axes is not [0]");
    }
    std::optional<SliceRange> range =
        sliceRange(static_cast<int64_t>((*dims)->size()), a.starts[0], a.ends[0], a.steps[0]);
    if (!range) return rewriter.notifyMatchFailure(slice, "the step is 0");
    std::vector<int64_t> picked;
    picked.reserve(static_cast<size_t>(range->count));
    for (int64_t i = 0, index = range->first; i < range->count; ++i, index += range->step) {
      const ir::Dim& dim = (**dims)[index];
      if (!dim.isKnown()) {
        return rewriter.notifyMatchFailure(
            slice, [&] { return absl::StrCat("dim ", index, " is ", dimText(dim)); });
      }
      picked.push_back(dim.value());
    }
    return replaceByConstant(slice, makeInt64Tensor(picked), rewriter);
  }
};

class FoldShapes final : public PatternPass {
 public:
  FoldShapes() : PatternPass("fold-shapes") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    addShapeFoldingPatterns(patterns);
  }
};

}  // namespace

void addShapeFoldingPatterns(RewritePatternSet& patterns) {
  patterns.add<FoldKnownShape>();
  patterns.add<FoldKnownSize>();
  patterns.add<FoldGatherOfShape>();
  patterns.add<FoldSliceOfShape>();
}

std::unique_ptr<Pass> createFoldShapesPass() { return std::make_unique<FoldShapes>(); }

}  // namespace onnxopt
