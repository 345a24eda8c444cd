// fuse-consecutive-casts: C2(C1(X)), each a Cast or CastLike, reads X when that changes no output
// value: X's type T0 is known for sure (ShapeOracle::inferredTypeOf), C1 to T1 represents every
// T0 value exactly, and converting that value to T2 gives what converting it from T1 gives. That
// holds when T0 -> T2 is exact too, when T2 is bool (nonzero is true either way, NaN included),
// when T0, T1, T2 are all integers (two's complement wraps by value), and when all are floating
// (the same value rounds the same way). Not otherwise: float -> int32 -> float truncates,
// float -> float16 -> float rounds, and uint8 -> float -> int8 overflows where uint8 -> int8
// wraps. When T2 is T0 the pair is X itself, and C2's readers read X. The first cast stays for
// its other readers. Strings, complex and 8-bit-or-less floating types are left alone. Cast from
// opset 6 (`to` was a string before), CastLike from 15. See docs/passes/fuse-consecutive-casts.md.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/operands.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"

namespace onnxopt {
namespace {

using onnx::TensorProto;

enum class Kind { kBool, kSigned, kUnsigned, kFloating, kOther };

// What the pass knows of an element type: its kind, and for integers their bits, for floating
// types the bits of their significand (the implicit one included) and of their exponent.
struct Numeric {
  Kind kind = Kind::kOther;
  int bits = 0;
  int exponent_bits = 0;
};

Numeric numericOf(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::BOOL: return {Kind::kBool, 1, 0};
    case TensorProto::INT8: return {Kind::kSigned, 8, 0};
    case TensorProto::INT16: return {Kind::kSigned, 16, 0};
    case TensorProto::INT32: return {Kind::kSigned, 32, 0};
    case TensorProto::INT64: return {Kind::kSigned, 64, 0};
    case TensorProto::UINT8: return {Kind::kUnsigned, 8, 0};
    case TensorProto::UINT16: return {Kind::kUnsigned, 16, 0};
    case TensorProto::UINT32: return {Kind::kUnsigned, 32, 0};
    case TensorProto::UINT64: return {Kind::kUnsigned, 64, 0};
    case TensorProto::FLOAT16: return {Kind::kFloating, 11, 5};
    case TensorProto::BFLOAT16: return {Kind::kFloating, 8, 8};
    case TensorProto::FLOAT: return {Kind::kFloating, 24, 8};
    case TensorProto::DOUBLE: return {Kind::kFloating, 53, 11};
    default: return {};
  }
}

bool isInteger(const Numeric& n) { return n.kind == Kind::kSigned || n.kind == Kind::kUnsigned; }

// Whether every value of `from` is exactly a value of `to`.
bool representsExactly(const Numeric& from, const Numeric& to) {
  if (from.kind == Kind::kOther || to.kind == Kind::kOther) return false;
  if (from.kind == Kind::kBool) return true;
  switch (to.kind) {
    case Kind::kBool:
      return false;
    case Kind::kSigned:
      return isInteger(from) && (from.kind == Kind::kSigned ? to.bits >= from.bits : to.bits > from.bits);
    case Kind::kUnsigned:
      return from.kind == Kind::kUnsigned && to.bits >= from.bits;
    case Kind::kFloating:
      // Integers of magnitude below 2^p are exact in a significand of p bits (every exponent
      // range here reaches well past 2^p).
      if (from.kind == Kind::kSigned) return from.bits - 1 <= to.bits;
      if (from.kind == Kind::kUnsigned) return from.bits <= to.bits;
      return from.kind == Kind::kFloating && to.bits >= from.bits &&
             to.exponent_bits >= from.exponent_bits;
    case Kind::kOther:
      return false;
  }
  return false;
}

// "" when converting each T0 value through T1 to T2 gives what converting it directly gives.
std::string whyNotFusable(int32_t t0, int32_t t1, int32_t t2) {
  const Numeric n0 = numericOf(t0);
  const Numeric n1 = numericOf(t1);
  const Numeric n2 = numericOf(t2);
  if (n0.kind == Kind::kOther || n1.kind == Kind::kOther || n2.kind == Kind::kOther) {
    return "a type is not one the pass reasons about (string, complex, 8-bit or less floating)";
  }
  if (!representsExactly(n0, n1)) {
    return absl::StrCat("the first cast ", ir::elemTypeName(t0), " -> ", ir::elemTypeName(t1),
                        " loses values");
  }
  const bool all_integers = isInteger(n0) && isInteger(n1) && isInteger(n2);
  const bool all_floating =
      n0.kind == Kind::kFloating && n1.kind == Kind::kFloating && n2.kind == Kind::kFloating;
  if (representsExactly(n0, n2) || n2.kind == Kind::kBool || all_integers || all_floating) return "";
  return absl::StrCat(ir::elemTypeName(t1), " -> ", ir::elemTypeName(t2), " may differ from ",
                      ir::elemTypeName(t0), " -> ", ir::elemTypeName(t2), " for some value");
}

// The Cast or CastLike producing `value`, at an opset where its target is an int, or null.
const ir::Node* castProducing(const ir::Value* value, PatternRewriter& rewriter) {
  if (value == nullptr || value->producer() == nullptr) return nullptr;
  const ir::Node* producer = value->producer();
  if (!producer->op().domain().empty() || producer->input(0) == nullptr) return nullptr;
  const int64_t opset = rewriter.opsetVersion(*producer).value_or(0);
  if (producer->opType() == "Cast" && opset >= 6) return producer;
  if (producer->opType() == "CastLike" && opset >= 15) return producer;
  return nullptr;
}

class ReadAroundLosslessCast final : public RewritePattern {
 public:
  ReadAroundLosslessCast(const std::string& op_type, int64_t since)
      : RewritePattern(absl::StrCat("read-around-lossless-cast-", op_type), {op_type, since}) {}

  LogicalResult matchAndRewrite(const ir::Node& cast, PatternRewriter& rewriter) const override {
    const ir::Node* first = castProducing(cast.input(0), rewriter);
    const ir::Value* output = cast.output(0);
    if (first == nullptr || output == nullptr) return failure();
    ir::Value* source = first->input(0);
    ShapeOracle& shapes = rewriter.shapes();
    const int32_t t0 = shapes.inferredTypeOf(*source).elemType();
    absl::StatusOr<int32_t> t1 = readCastTarget(*first, shapes);
    if (!t1.ok()) return rewriter.emitError(*first, t1.status());
    absl::StatusOr<int32_t> t2 = readCastTarget(cast, shapes);
    if (!t2.ok()) return rewriter.emitError(cast, t2.status());
    if (t0 == 0 || *t1 == 0 || *t2 == 0) {
      return rewriter.notifyMatchFailure(cast, [&] {
        return absl::StrCat("a type of ", describe(*first), " or of this cast is not known for sure");
      });
    }
    const std::string why_not = whyNotFusable(t0, *t1, *t2);
    if (!why_not.empty()) return rewriter.notifyMatchFailure(cast, why_not);
    if (failed(rewriter.match(cast))) return failure();
    rewriter.setInput(cast, 0, source);
    if (*t2 == t0 && rewriter.canReplaceAnyUseWith(*output, *source)) {
      rewriter.replaceUsesWhereAllowed(*output, *source);
    }
    return success();
  }
};

class FuseConsecutiveCasts final : public PatternPass {
 public:
  FuseConsecutiveCasts() : PatternPass("fuse-consecutive-casts") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ReadAroundLosslessCast>("Cast", 6);
    patterns.add<ReadAroundLosslessCast>("CastLike", 15);
  }
};

}  // namespace

std::unique_ptr<Pass> createFuseConsecutiveCastsPass() {
  return std::make_unique<FuseConsecutiveCasts>();
}

}  // namespace onnxopt
