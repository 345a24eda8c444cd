// rewrite-einsum-as-matmul: an Einsum of two operands that is a matrix product over its last two
// labels, "P m c, Q c n -> R m n" (either operand's last two labels may come swapped: a Transpose
// of its last two axes then goes in front of it), becomes MatMul. The batch labels broadcast as
// MatMul's batch dims do: R is the longer of P and Q and the shorter is its end (right-aligned),
// or, with a leading "..." in all three terms, P = Q = R. The contraction dims must be provably
// equal: ONNX Runtime's Einsum broadcasts a contraction dim of 1, MatMul fails there. So must
// the dims of a batch label both operands name: ONNX Runtime broadcasts a 1 there too, but the
// output shape it reports (ONNX's inference) is the first operand's, and MatMul's would differ.
// See docs/passes/rewrite-einsum-as-matmul.md.

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

// One term of an equation: whether it starts with "...", and its labels in order.
struct Term {
  bool ellipsis = false;
  std::string labels;
};

// A term, or nullopt: a "..." other than at the start, a character that is not a letter, or a
// label twice (a diagonal, which no MatMul computes).
std::optional<Term> parseTerm(absl::string_view text) {
  Term term;
  term.ellipsis = absl::ConsumePrefix(&text, "...");
  for (char label : text) {
    if (!absl::ascii_isalpha(static_cast<unsigned char>(label)) ||
        term.labels.find(label) != std::string::npos) {
      return std::nullopt;
    }
    term.labels.push_back(label);
  }
  return term;
}

// The terms of "A,B->Y", spaces ignored; nullopt for anything else (implicit output included).
std::optional<std::array<Term, 3>> parseEquation(absl::string_view equation) {
  std::string text(equation);
  text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
  const std::vector<absl::string_view> sides = absl::StrSplit(text, "->");
  if (sides.size() != 2) return std::nullopt;
  const std::vector<absl::string_view> operands = absl::StrSplit(sides[0], ',');
  if (operands.size() != 2) return std::nullopt;
  std::array<Term, 3> terms;
  const absl::string_view texts[3] = {operands[0], operands[1], sides[1]};
  for (size_t i = 0; i < 3; ++i) {
    std::optional<Term> term = parseTerm(texts[i]);
    if (!term) return std::nullopt;
    terms[i] = *std::move(term);
  }
  return terms;
}

bool isMatMulType(int32_t elem_type) {
  return elem_type == onnx::TensorProto::FLOAT || elem_type == onnx::TensorProto::DOUBLE ||
         elem_type == onnx::TensorProto::INT32 || elem_type == onnx::TensorProto::INT64;
}

// How the equation maps onto MatMul: which operands to transpose, or why it does not.
struct MatrixProduct {
  bool transpose_a = false;
  bool transpose_b = false;
  std::string why_not;
};

MatrixProduct analyse(const Term& a, const Term& b, const Term& y) {
  MatrixProduct product;
  if (a.ellipsis != b.ellipsis || a.ellipsis != y.ellipsis) {
    product.why_not = "'...' is not at the start of all three terms";
    return product;
  }
  if (a.labels.size() < 2 || b.labels.size() < 2 || y.labels.size() < 2) {
    product.why_not = "a term has fewer than two labels";
    return product;
  }
  auto last_two = [](const std::string& labels) { return labels.substr(labels.size() - 2); };
  auto batch = [](const std::string& labels) { return labels.substr(0, labels.size() - 2); };
  const char m = y.labels[y.labels.size() - 2];
  const char n = y.labels.back();
  const std::string a2 = last_two(a.labels), b2 = last_two(b.labels);
  const size_t m_at = a2.find(m);
  const char c = m_at == 0 ? a2[1] : a2[0];
  if (m_at == std::string::npos || y.labels.find(c) != std::string::npos ||
      b2.find(c) == std::string::npos || b2.find(n) == std::string::npos) {
    product.why_not = "its last two labels are not a matrix product ('mc,cn->mn')";
    return product;
  }
  const std::string pa = batch(a.labels), pb = batch(b.labels), py = batch(y.labels);
  const std::string& longer = pa.size() >= pb.size() ? pa : pb;
  const std::string& shorter = pa.size() >= pb.size() ? pb : pa;
  const bool right_aligned = py == longer && absl::EndsWith(longer, shorter);
  if (!right_aligned || (a.ellipsis && pa != pb)) {
    product.why_not = "its batch labels do not line up as MatMul broadcasts them";
    return product;
  }
  product.transpose_a = m_at == 1;
  product.transpose_b = b2[1] == c;
  return product;
}

class EinsumAsMatMul final : public RewritePattern {
 public:
  // Einsum exists from opset 12 and has had one version since.
  EinsumAsMatMul() : RewritePattern("einsum-as-matmul", {"Einsum", 12}) {}

  LogicalResult matchAndRewrite(const ir::Node& einsum, PatternRewriter& rewriter) const override {
    if (einsum.numInputs() != 2 || einsum.input(0) == nullptr || einsum.input(1) == nullptr ||
        einsum.output(0) == nullptr) {
      return failure();
    }
    absl::StatusOr<std::string> equation = getStringOr(einsum, "equation", "");
    if (!equation.ok()) return rewriter.emitError(einsum, equation.status());
    const std::optional<std::array<Term, 3>> terms = parseEquation(*equation);
    if (!terms) {
      return rewriter.notifyMatchFailure(einsum, [&] {
        return absl::StrCat("equation '", *equation, "' is not 'A,B->Y' with distinct letters");
      });
    }
    const auto& [a, b, y] = *terms;
    const MatrixProduct product = analyse(a, b, y);
    if (!product.why_not.empty()) {
      return rewriter.notifyMatchFailure(einsum, [&] {
        return absl::StrCat("equation '", *equation, "': ", product.why_not);
      });
    }

    ShapeOracle& shapes = rewriter.shapes();
    ir::Value& lhs = *einsum.input(0);
    ir::Value& rhs = *einsum.input(1);
    const int32_t elem_type = shapes.elemTypeOf(lhs);
    if (!isMatMulType(elem_type)) {
      return rewriter.notifyMatchFailure(einsum, [&] {
        return absl::StrCat("element type ", ir::elemTypeName(elem_type),
                            " is not float, double, int32 or int64");
      });
    }
    const std::optional<ir::Shape>& shape_a = shapes.inferredTypeOf(lhs).shape();
    const std::optional<ir::Shape>& shape_b = shapes.inferredTypeOf(rhs).shape();
    // Without "..." a rank is its term's label count; with it, at least that.
    auto fits = [](const std::optional<ir::Shape>& shape, const Term& term) {
      return shape && (term.ellipsis ? shape->size() >= term.labels.size()
                                     : shape->size() == term.labels.size());
    };
    if (!fits(shape_a, a) || !fits(shape_b, b)) {
      return rewriter.notifyMatchFailure(einsum, "the operands' ranks are not known to fit the terms");
    }
    const ir::Dim& k_a = (*shape_a)[shape_a->size() - (product.transpose_a ? 2 : 1)];
    const ir::Dim& k_b = (*shape_b)[shape_b->size() - (product.transpose_b ? 1 : 2)];
    if (!k_a.provablyEquals(k_b)) {
      return rewriter.notifyMatchFailure(einsum, [&] {
        return absl::StrCat("the contraction dims ", dimText(k_a), " and ", dimText(k_b),
                            " are not provably equal (Einsum broadcasts a 1 there, MatMul fails)");
      });
    }
    // The batch labels both operands name, right-aligned before the matrix dims.
    const size_t shared = std::min(a.labels.size(), b.labels.size()) - 2;
    for (size_t j = 1; j <= shared; ++j) {
      const ir::Dim& batch_a = (*shape_a)[shape_a->size() - 2 - j];
      const ir::Dim& batch_b = (*shape_b)[shape_b->size() - 2 - j];
      if (!batch_a.provablyEquals(batch_b)) {
        return rewriter.notifyMatchFailure(einsum, [&] {
          return absl::StrCat("the dims ", dimText(batch_a), " and ", dimText(batch_b),
                              " of a batch label are not provably equal (ONNX Runtime computes "
                              "Einsum's broadcast but reports the first operand's size)");
        });
      }
    }

    if (failed(rewriter.match(einsum))) return failure();
    auto transposed = [&](ir::Value& operand, size_t rank) {
      std::vector<int64_t> perm(rank);
      std::iota(perm.begin(), perm.end(), 0);
      std::swap(perm[rank - 2], perm[rank - 1]);
      const std::string hint = operand.name() + "_transposed";
      ir::Node* transpose = rewriter.createNode(
          "Transpose", {&operand}, absl::MakeConstSpan(&hint, 1), "",
          einsum.name().empty() ? std::string() : einsum.name() + "_transpose");
      rewriter.setAttr(*transpose, ir::Attribute::makeInts("perm", perm));
      return transpose->output(0);
    };
    ir::Value* left = product.transpose_a ? transposed(lhs, shape_a->size()) : &lhs;
    ir::Value* right = product.transpose_b ? transposed(rhs, shape_b->size()) : &rhs;
    rewriter.replaceRootWithNewNode("MatMul", {left, right}, "", einsum.name());
    return success();
  }
};

class RewriteEinsumAsMatmul final : public PatternPass {
 public:
  RewriteEinsumAsMatmul() : PatternPass("rewrite-einsum-as-matmul") {}

 private:
  void populatePatterns(RewritePatternSet& patterns) const override {
    patterns.add<EinsumAsMatMul>();
  }
};

}  // namespace

std::unique_ptr<Pass> createRewriteEinsumAsMatmulPass() {
  return std::make_unique<RewriteEinsumAsMatmul>();
}

}  // namespace onnxopt
