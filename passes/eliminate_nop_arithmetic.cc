// eliminate-nop-arithmetic: X op C is X when C is a constant whose every element is op's identity
// and whose shape broadcasts into X's without changing it (X of [4] times ones of [3, 4] is
// [3, 4]: not X), so the node's readers read X. The identities: X + 0, 0 + X, X - 0, X * 1,
// 1 * X, X / 1, Pow(X, 1), And(X, true), And(true, X), Or(X, false), Or(false, X). IEEE floats:
// -0.0 + +0.0 is +0.0, so X + 0 is X only when every zero is -0.0, and X - 0 only when every zero
// is +0.0; X * 1, X / 1 and Pow(X, 1) are exact for every X, NaN and infinities included.
// Integers are exact. Pow only for a floating X: an int64 X goes through double in ONNX Runtime.
// From opset 7 (numpy broadcasting; before it, `broadcast`/`axis`). See
// docs/passes/eliminate-nop-arithmetic.md.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt {
namespace {

// Which zero a floating X + C or X - C needs to be exact.
enum class ZeroSign { kAny, kNegative, kPositive };

struct Identity {
  double value;
  ZeroSign floating_zero = ZeroSign::kAny;
  bool constant_first_too = false;  // C op X is X as well (commutative ops)
};

class ForwardAroundIdentityOperand final : public RewritePattern {
 public:
  ForwardAroundIdentityOperand(const std::string& op_type, Identity identity)
      : RewritePattern(absl::StrCat("forward-around-identity-", op_type), {op_type, 7}),
        identity_(identity),
        not_identity_(absl::StrCat("not every element is ", identity.value)) {}

  LogicalResult matchAndRewrite(const ir::Node& node, PatternRewriter& rewriter) const override {
    if (node.numInputs() != 2 || node.input(0) == nullptr || node.input(1) == nullptr ||
        node.output(0) == nullptr) {
      return failure();
    }
    std::vector<std::string> reasons;
    for (size_t constant_index : {size_t{1}, size_t{0}}) {
      if (constant_index == 0 && !identity_.constant_first_too) continue;
      const ir::Value& constant = *node.input(constant_index);
      if (!isConstant(constant)) continue;
      ir::Value* x = node.input(1 - constant_index);
      absl::StatusOr<std::string> why = whyNotIdentity(node, constant, *x, rewriter);
      if (!why.ok()) return rewriter.emitError(node, why.status());
      if (!why->empty()) {
        if (rewriter.explainsFailures()) {
          reasons.push_back(
              absl::StrCat("operand ", constant_index, " '", constant.name(), "': ", *why));
        }
        continue;
      }
      return forwardOperand(node, *x, rewriter);
    }
    if (reasons.empty()) return failure();  // no constant operand, or no --debug to tell
    return rewriter.notifyMatchFailure(node, absl::StrJoin(reasons, "; "));
  }

 private:
  // "" when `constant` is the identity of the node's op for `x`; the reason otherwise; an error
  // for a malformed constant.
  absl::StatusOr<std::string> whyNotIdentity(const ir::Node& node, const ir::Value& constant,
                                             const ir::Value& x, PatternRewriter& rewriter) const {
    if (node.attr("broadcast") != nullptr || node.attr("axis") != nullptr) {
      return std::string("has a legacy 'broadcast'/'axis' attribute that its opset does not define");
    }
    absl::StatusOr<std::optional<ConstantView>> read = readConstant(constant);
    if (!read.ok()) return read.status();
    if (!*read) return std::string("its data is not readable here (sparse, segmented or too large)");
    const ConstantView& c = **read;
    if (!c.allEqualTo(identity_.value)) return not_identity_;
    ShapeOracle& shapes = rewriter.shapes();
    const ir::Type& x_type = shapes.inferredTypeOf(x);
    if (node.opType() == "Pow") {
      if (!isFloatingElemType(x_type.elemType())) {
        return std::string("the base is not known to be floating (an integer Pow rounds through double)");
      }
    } else if (x_type.elemType() != 0 && x_type.elemType() != c.elemType()) {
      return absl::StrCat("its type ", ir::elemTypeName(c.elemType()), " is not the other operand's ",
                          ir::elemTypeName(x_type.elemType()));
    }
    if (identity_.floating_zero != ZeroSign::kAny && isFloatingElemType(c.elemType())) {
      const bool negative = identity_.floating_zero == ZeroSign::kNegative;
      const std::optional<std::vector<double>> values = c.asDoubles();
      if (!values) return std::string("its values are not readable");
      for (double value : *values) {
        if (std::signbit(value) != negative) {
          return std::string(negative ? "a +0.0 turns an X of -0.0 into +0.0"
                                      : "a -0.0 turns an X of -0.0 into +0.0");
        }
      }
    }
    // A scalar broadcasts to any shape without changing it: the other operand's may be unknown.
    if (c.rank() == 0) return std::string();
    if (!x_type.shape()) return std::string("the other operand's rank is not known");
    ir::Shape c_shape;
    for (int64_t dim : c.dims()) c_shape.push_back(ir::Dim::known(dim));
    if (!broadcastsUnidirectionally(c_shape, *x_type.shape())) {
      return absl::StrCat("its shape ", shapeText(c_shape), " may change the other operand's ",
                          shapeText(x_type.shape()));
    }
    return std::string();
  }

  Identity identity_;
  std::string not_identity_;  // the usual decline: made once, not per node
};

class EliminateNopArithmetic final : public PatternPass {
 public:
  EliminateNopArithmetic() : PatternPass("eliminate-nop-arithmetic") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<ForwardAroundIdentityOperand>("Add", Identity{0, ZeroSign::kNegative, true});
    patterns.add<ForwardAroundIdentityOperand>("Sub", Identity{0, ZeroSign::kPositive, false});
    patterns.add<ForwardAroundIdentityOperand>("Mul", Identity{1, ZeroSign::kAny, true});
    patterns.add<ForwardAroundIdentityOperand>("Div", Identity{1, ZeroSign::kAny, false});
    patterns.add<ForwardAroundIdentityOperand>("Pow", Identity{1, ZeroSign::kAny, false});
    patterns.add<ForwardAroundIdentityOperand>("And", Identity{1, ZeroSign::kAny, true});
    patterns.add<ForwardAroundIdentityOperand>("Or", Identity{0, ZeroSign::kAny, true});
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateNopArithmeticPass() {
  return std::make_unique<EliminateNopArithmetic>();
}

}  // namespace onnxopt
