// eliminate-dequantize-quantize: QuantizeLinear(DequantizeLinear(q, s, z), s, z) is q when the
// two use the same scale and zero point: the readers of the QuantizeLinear read q. With q of
// int8 or uint8 and a float scale of normal magnitude, ONNX Runtime's (q - z) * s rounds within
// a few parts in 2^24 of the exact product, so its / s rounds back to q - z exactly, and adding z
// saturates nothing. See docs/passes/eliminate-dequantize-quantize.md.

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

using ir::describe;

// Whether `a` and `b` hold the same operand: one value, both absent, or constants of equal type,
// dims and elements.
absl::StatusOr<bool> sameOperand(const ir::Value* a, const ir::Value* b) {
  if (a == b) return true;
  if (a == nullptr || b == nullptr) return false;
  absl::StatusOr<std::optional<ConstantView>> first = readConstant(*a);
  if (!first.ok()) return first.status();
  absl::StatusOr<std::optional<ConstantView>> second = readConstant(*b);
  if (!second.ok()) return second.status();
  return *first && *second && sameTensorContents((*first)->proto(), (*second)->proto());
}

// Whether every scale is a float whose products with the differences of two 8-bit integers (at
// most 255 in size) are normal floats: no subnormal rounding, no overflow, no division by zero.
bool scalesRoundTrip(const ConstantView& scale) {
  if (scale.elemType() != onnx::TensorProto::FLOAT) return false;
  const std::optional<std::vector<double>> values = scale.asDoubles();
  if (!values || values->empty()) return false;
  for (double value : *values) {
    const double size = std::fabs(value);
    if (!(size >= std::numeric_limits<float>::min() &&
          size <= std::numeric_limits<float>::max() / 256)) {
      return false;
    }
  }
  return true;
}

class ReadAroundDequantizeQuantize final : public RewritePattern {
 public:
  // QuantizeLinear 10 (scalars), 13 (axis), 19 (saturate, float8), 21 (block_size,
  // output_dtype), 23: the same formula throughout for int8 and uint8.
  ReadAroundDequantizeQuantize()
      : RewritePattern("read-around-dequantize-quantize", {"QuantizeLinear", 10}) {
    setMatchDepth(2);  // the DequantizeLinear, and the Constants of its scale and zero point
  }

  LogicalResult matchAndRewrite(const ir::Node& quantize,
                                PatternRewriter& rewriter) const override {
    const ir::Node* dequantize = producerOf(quantize.input(0), "DequantizeLinear");
    if (dequantize == nullptr || dequantize->input(0) == nullptr ||
        dequantize->graph() != quantize.graph() || quantize.output(0) == nullptr ||
        quantize.input(1) == nullptr) {
      return failure();
    }
    auto decline = [&](absl::string_view why) {
      return rewriter.notifyMatchFailure(quantize, [&] {
        return absl::StrCat("with ", describe(*dequantize), ": ", why);
      });
    };
    ir::Value& q = *dequantize->input(0);
    ShapeOracle& shapes = rewriter.shapes();
    const int32_t q_type = shapes.elemTypeOf(q);
    if (q_type != onnx::TensorProto::INT8 && q_type != onnx::TensorProto::UINT8) {
      return decline(absl::StrCat("the quantized input is ", ir::elemTypeName(q_type),
                                  ", not int8 or uint8"));
    }
    if (shapes.elemTypeOf(*quantize.output(0)) != q_type) {
      return decline("the QuantizeLinear gives another type than the DequantizeLinear reads");
    }
    for (const ir::Node* node : {dequantize, &quantize}) {
      absl::StatusOr<int64_t> block_size = getIntOr(*node, "block_size", 0);
      if (!block_size.ok()) return rewriter.emitError(*node, block_size.status());
      if (*block_size != 0) return decline("blocked quantization");
    }

    absl::StatusOr<bool> same_scale = sameOperand(dequantize->input(1), quantize.input(1));
    if (!same_scale.ok()) return rewriter.emitError(quantize, same_scale.status());
    if (!*same_scale) return decline("the scales differ, or are not both constants");
    absl::StatusOr<bool> same_zero_point = sameOperand(dequantize->input(2), quantize.input(2));
    if (!same_zero_point.ok()) return rewriter.emitError(quantize, same_zero_point.status());
    if (!*same_zero_point) return decline("the zero points differ, or are not both constants");
    absl::StatusOr<std::optional<ConstantView>> scale = readConstant(*quantize.input(1));
    if (!scale.ok()) return rewriter.emitError(quantize, scale.status());
    if (!*scale) return decline("the scale is not a constant");
    if (!scalesRoundTrip(**scale)) {
      return decline("a scale is not a float of normal size up to 2^120 (zero, subnormal, "
                     "infinite, NaN or of another type): q * s / s may not round back to q");
    }
    if ((*scale)->numElements() > 1) {
      absl::StatusOr<int64_t> dequantize_axis = getIntOr(*dequantize, "axis", 1);
      if (!dequantize_axis.ok()) return rewriter.emitError(*dequantize, dequantize_axis.status());
      absl::StatusOr<int64_t> quantize_axis = getIntOr(quantize, "axis", 1);
      if (!quantize_axis.ok()) return rewriter.emitError(quantize, quantize_axis.status());
      const std::optional<int64_t> rank = shapes.inferredTypeOf(q).rank();
      auto resolved = [&](int64_t axis) { return axis < 0 && rank ? axis + *rank : axis; };
      if (resolved(*dequantize_axis) != resolved(*quantize_axis)) {
        return decline("the two scale different axes");
      }
    }
    return forwardOperand(quantize, q, rewriter);
  }
};

class EliminateDequantizeQuantize final : public PatternPass {
 public:
  EliminateDequantizeQuantize() : PatternPass("eliminate-dequantize-quantize") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadAroundDequantizeQuantize>();
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateDequantizeQuantizePass() {
  return std::make_unique<EliminateDequantizeQuantize>();
}

}  // namespace onnxopt
