// fuse-transpose-gemm: folds a Transpose that swaps the two axes of a 2-D tensor into the Gemm
// that reads it (transA/transB), and a Transpose of a Gemm's output into the Gemm itself.
//
// 1. fold-transpose-into-gemm-operand (root: Gemm)
//      At = Transpose<perm=[1,0]>(X); Y = Gemm<transA=t>(At, B, C)  =>  Y = Gemm<transA=!t>(X, B, C)
//    and the same for B/transB. The Gemm only reads around the Transpose: a Transpose with other
//    readers (or that is a graph output) stays for them; otherwise the driver erases it as dead.
//
// 2. fold-gemm-output-transpose (root: Transpose)
//      Y = Gemm<transA=a, transB=b>(A, B, C); T = Transpose<perm=[1,0]>(Y)
//      =>  T = Gemm<transA=!b, transB=!a>(B, A, C')
//    since T = (alpha op(A) op(B) + beta C)' = alpha op(B)' op(A)' + beta C', and
//    op(B)' = (transB ? B : B'), i.e. B read with transA' = !transB (likewise for A). C' is C
//    transposed so that it broadcasts to [N, M] exactly as C broadcast to [M, N]: no C (opset
//    11+), a constant C, or a C whose every dim is a known 1.
//
// A "swap" is perm = [1, 0], or no perm (which reverses the axes) on an input whose rank is
// known to be 2. An identity perm [0, 1] is not a transposition and is never folded.
// See docs/passes/fuse-transpose-gemm.md.

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "framework/builtin_passes.h"
#include "onnxopt/rewrite/pattern_pass.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

using onnx::AttributeProto;
using onnx::TensorProto;

std::string nodeText(const ir::Node& node) {
  return absl::StrCat(node.opType(), " '", node.name(), "'");
}

// ONNX defines Gemm's transA, transB and broadcast (opsets 1 and 6) as INT and Transpose's perm
// as INTS: a node giving one of them another kind is malformed, and the pass fails on it rather
// than guess what it means. Attributes of kinds ONNX does not know are refused at load time.
absl::Status checkAttrKind(const ir::Node& node, const char* name, AttributeProto::AttributeType kind) {
  const ir::Attribute* attribute = node.attr(name);
  if (attribute == nullptr || attribute->kind() == kind) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "attribute '", name, "' is ", AttributeProto::AttributeType_Name(attribute->kind()),
      ", but ONNX defines it as ", AttributeProto::AttributeType_Name(kind)));
}

// Reads Gemm's optional INT attribute transA, transB or broadcast: absent is 0 in every opset.
absl::StatusOr<int64_t> readIntAttr(const ir::Node& node, const char* name) {
  if (absl::Status status = checkAttrKind(node, name, AttributeProto::INT); !status.ok()) {
    return status;
  }
  const ir::Attribute* attribute = node.attr(name);
  return attribute == nullptr ? 0 : attribute->i();
}

// Whether `transpose` (a Transpose of the default domain) swaps the two axes of a 2-D tensor.
// Returns the reason when it does not (or when that is not known). A Transpose without `perm`
// reverses the axes: a swap exactly when the input has rank 2, which `input_is_2d` asserts or the
// shape oracle must prove.
std::optional<std::string> whyNotAxisSwap(const ir::Node& transpose, bool input_is_2d,
                                          PatternRewriter& rewriter) {
  if (transpose.numOutputs() != 1 || transpose.output(0) == nullptr ||
      transpose.input(0) == nullptr) {
    return absl::StrCat(nodeText(transpose), " has no data input or output");
  }
  // The caller has checked perm's kind (checkAttrKind).
  const ir::Attribute* perm = transpose.attr("perm");
  if (perm != nullptr) {
    if (perm->ints().size() == 2 && perm->ints()[0] == 1 && perm->ints()[1] == 0) return std::nullopt;
    return absl::StrCat(nodeText(transpose), " has perm [", absl::StrJoin(perm->ints(), ", "),
                        "], not [1, 0]");
  }
  if (input_is_2d) return std::nullopt;
  const std::optional<int64_t> rank = rewriter.shapes().rankOf(*transpose.input(0));
  if (!rank) {
    return absl::StrCat(nodeText(transpose), " has no perm and the rank of its input '",
                        transpose.input(0)->name(), "' is unknown");
  }
  if (*rank != 2) {
    return absl::StrCat(nodeText(transpose), " has no perm and its input has rank ", *rank);
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// 1. A Transpose feeding A or B.

class FoldTransposeIntoGemmOperand final : public RewritePattern {
 public:
  FoldTransposeIntoGemmOperand() : RewritePattern("Gemm", "fold-transpose-into-gemm-operand") {}

  LogicalResult matchAndRewrite(ir::Node& gemm, PatternRewriter& rewriter) const override {
    if (!rewriter.opsetVersion(gemm)) {
      return rewriter.notifyMatchFailure(gemm, "the model imports no opset of the ONNX domain");
    }
    if (gemm.numInputs() < 2) return rewriter.notifyMatchFailure(gemm, "fewer than 2 inputs");

    struct Fold {
      size_t operand;
      ir::Value* source;  // the Transpose's input, read by the Gemm instead
      const char* flag;
      bool new_flag;
    };
    absl::InlinedVector<Fold, 2> folds;  // one per operand at most
    std::vector<std::string> reasons;
    static constexpr const char* kFlags[2] = {"transA", "transB"};
    static constexpr const char* kOperands[2] = {"A", "B"};
    const bool explain = rewriter.explainsFailures();
    for (size_t operand = 0; operand < 2; ++operand) {
      const ir::Value* value = gemm.input(operand);
      const ir::Node* transpose = value ? value->producer() : nullptr;
      if (transpose == nullptr || !transpose->is("Transpose")) {
        if (explain) {
          reasons.push_back(absl::StrCat(kOperands[operand], " is not the output of a Transpose"));
        }
        continue;
      }
      if (absl::Status status = checkAttrKind(*transpose, "perm", AttributeProto::INTS);
          !status.ok()) {
        return rewriter.emitError(*transpose, status);
      }
      if (std::optional<std::string> why =
              whyNotAxisSwap(*transpose, /*input_is_2d=*/false, rewriter)) {
        if (explain) reasons.push_back(absl::StrCat(kOperands[operand], ": ", *why));
        continue;
      }
      const absl::StatusOr<int64_t> flag = readIntAttr(gemm, kFlags[operand]);
      if (!flag.ok()) return rewriter.emitError(gemm, flag.status());
      folds.push_back({operand, transpose->input(0), kFlags[operand], *flag == 0});
    }
    if (folds.empty()) {
      return rewriter.notifyMatchFailure(gemm, [&] { return absl::StrJoin(reasons, "; "); });
    }

    // The Transposes are not absorbed: the Gemm only stops reading them. One with other readers
    // stays for them; one with none is erased by the driver.
    if (failed(rewriter.match(gemm))) return failure();
    for (const Fold& fold : folds) {
      rewriter.setInput(gemm, fold.operand, fold.source);
      if (fold.new_flag) {
        rewriter.setIntAttr(gemm, fold.flag, 1);
      } else {
        rewriter.removeAttr(gemm, fold.flag);  // absent means 0 in every opset
      }
    }
    return success();
  }
};

// ---------------------------------------------------------------------------------------------
// 2. A Transpose of the Gemm's output.

// Gemm's element types (opset 13; a subset in older opsets, but the Gemm already has C's type).
bool isGemmElemType(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT16:
    case TensorProto::FLOAT:
    case TensorProto::DOUBLE:
    case TensorProto::BFLOAT16:
    case TensorProto::INT32:
    case TensorProto::INT64:
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      return true;
    default:
      return false;
  }
}

// A constant C: an initializer that is not a graph input, or a Constant node's value.
struct ConstantC {
  std::vector<int64_t> dims;
  int32_t elem_type = 0;
  const TensorProto* proto = nullptr;   // the data (not owned), unless `owned` is used
  const ir::Tensor* tensor = nullptr;   // the initializer's tensor, when C is one
  std::optional<TensorProto> owned;     // built from value_float(s) / value_int(s)
};

std::optional<std::string> readConstantC(const ir::Value& c, ConstantC* out) {
  if (c.isInitializer() && !c.isGraphInput()) {
    out->tensor = c.initializer().get();
    out->proto = &out->tensor->proto();
  } else if (c.producer() != nullptr && c.producer()->is("Constant")) {
    const ir::Node& constant = *c.producer();
    const ir::Attribute* value = constant.attr("value");
    const ir::Attribute* value_float = constant.attr("value_float");
    const ir::Attribute* value_floats = constant.attr("value_floats");
    const ir::Attribute* value_int = constant.attr("value_int");
    const ir::Attribute* value_ints = constant.attr("value_ints");
    if (value != nullptr && value->kind() == AttributeProto::TENSOR) {
      if (value->t().data_location() == TensorProto::EXTERNAL) {
        return absl::StrCat("C comes from ", nodeText(constant), " with external data");
      }
      out->proto = &value->t();
    } else if (value_float != nullptr && value_float->kind() == AttributeProto::FLOAT) {
      out->owned.emplace();
      out->owned->set_data_type(TensorProto::FLOAT);
      out->owned->add_float_data(value_float->f());
    } else if (value_floats != nullptr && value_floats->kind() == AttributeProto::FLOATS) {
      out->owned.emplace();
      out->owned->set_data_type(TensorProto::FLOAT);
      out->owned->add_dims(value_floats->floats().size());
      *out->owned->mutable_float_data() = value_floats->floats();
    } else if (value_int != nullptr && value_int->kind() == AttributeProto::INT) {
      out->owned.emplace();
      out->owned->set_data_type(TensorProto::INT64);
      out->owned->add_int64_data(value_int->i());
    } else if (value_ints != nullptr && value_ints->kind() == AttributeProto::INTS) {
      out->owned.emplace();
      out->owned->set_data_type(TensorProto::INT64);
      out->owned->add_dims(value_ints->ints().size());
      *out->owned->mutable_int64_data() = value_ints->ints();
    } else {
      return absl::StrCat("C comes from ", nodeText(constant),
                          " whose value is not a dense numeric tensor");
    }
    if (out->owned) out->proto = &*out->owned;
  } else {
    return absl::StrCat("C ('", c.name(), "') is not a constant",
                        c.isGraphInput() ? " (a graph input)" : "");
  }
  if (out->proto->has_segment()) return "C is a segmented tensor";
  out->elem_type = out->proto->data_type();
  out->dims.assign(out->proto->dims().begin(), out->proto->dims().end());
  for (int64_t dim : out->dims) {
    if (dim < 0) return "C has a negative dim";
  }
  if (!isGemmElemType(out->elem_type)) {
    return absl::StrCat("C has element type ", ir::elemTypeName(out->elem_type),
                        ", which Gemm does not accept");
  }
  return std::nullopt;
}

// out[j * rows + i] = in[i * cols + j]: the [rows, cols] matrix transposed to [cols, rows].
template <typename Field>
void transposeField(Field* field, int64_t rows, int64_t cols) {
  Field transposed;
  transposed.Resize(field->size(), typename Field::value_type());
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) transposed.Set(j * rows + i, field->Get(i * cols + j));
  }
  field->Swap(&transposed);
}

// Transposes the data of a [rows, cols] tensor in place (dims are left to the caller). Returns
// the reason when the data does not hold rows * cols elements of the tensor's type.
std::optional<std::string> transposeData(TensorProto* t, int64_t rows, int64_t cols) {
  const int64_t count = rows * cols;
  if (t->has_raw_data()) {
    const int64_t size = ir::elemTypeSize(t->data_type());
    if (size <= 0 || static_cast<int64_t>(t->raw_data().size()) != count * size) {
      return "C's raw_data does not match its dims";
    }
    const std::string& in = t->raw_data();
    std::string out(in.size(), '\0');
    for (int64_t i = 0; i < rows; ++i) {
      for (int64_t j = 0; j < cols; ++j) {
        std::memcpy(&out[(j * rows + i) * size], &in[(i * cols + j) * size],
                    static_cast<size_t>(size));
      }
    }
    t->set_raw_data(std::move(out));
    return std::nullopt;
  }
  auto check = [count](int size) -> std::optional<std::string> {
    if (size != count) return std::string("C's data does not match its dims");
    return std::nullopt;
  };
  switch (t->data_type()) {
    case TensorProto::FLOAT:
      if (auto why = check(t->float_data_size())) return why;
      transposeField(t->mutable_float_data(), rows, cols);
      return std::nullopt;
    case TensorProto::DOUBLE:
      if (auto why = check(t->double_data_size())) return why;
      transposeField(t->mutable_double_data(), rows, cols);
      return std::nullopt;
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
    case TensorProto::INT32:
      if (auto why = check(t->int32_data_size())) return why;
      transposeField(t->mutable_int32_data(), rows, cols);
      return std::nullopt;
    case TensorProto::INT64:
      if (auto why = check(t->int64_data_size())) return why;
      transposeField(t->mutable_int64_data(), rows, cols);
      return std::nullopt;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      if (auto why = check(t->uint64_data_size())) return why;
      transposeField(t->mutable_uint64_data(), rows, cols);
      return std::nullopt;
    default:
      return absl::StrCat("cannot transpose data of type ", ir::elemTypeName(t->data_type()));
  }
}

class FoldGemmOutputTranspose final : public RewritePattern {
 public:
  FoldGemmOutputTranspose() : RewritePattern("Transpose", "fold-gemm-output-transpose") {}

  LogicalResult matchAndRewrite(ir::Node& transpose, PatternRewriter& rewriter) const override {
    ir::Value* y = transpose.input(0);
    ir::Node* gemm = y ? y->producer() : nullptr;
    if (gemm == nullptr || !gemm->is("Gemm") || gemm->output(0) != y) {
      return rewriter.notifyMatchFailure(transpose, "the input is not the output of a Gemm");
    }
    if (absl::Status status = checkAttrKind(transpose, "perm", AttributeProto::INTS);
        !status.ok()) {
      return rewriter.emitError(transpose, status);
    }
    // A Gemm's output is always 2-D, so a Transpose without perm swaps its axes.
    if (std::optional<std::string> why = whyNotAxisSwap(transpose, /*input_is_2d=*/true, rewriter)) {
      return rewriter.notifyMatchFailure(transpose, *why);
    }
    const std::optional<int64_t> opset = rewriter.opsetVersion(*gemm);
    if (!opset) {
      return rewriter.notifyMatchFailure(transpose, "the model imports no opset of the ONNX domain");
    }
    if (gemm->numInputs() < 2 || gemm->input(0) == nullptr || gemm->input(1) == nullptr) {
      return rewriter.notifyMatchFailure(transpose, absl::StrCat(nodeText(*gemm), " lacks A or B"));
    }
    const absl::StatusOr<int64_t> trans_a = readIntAttr(*gemm, "transA");
    if (!trans_a.ok()) return rewriter.emitError(*gemm, trans_a.status());
    const absl::StatusOr<int64_t> trans_b = readIntAttr(*gemm, "transB");
    if (!trans_b.ok()) return rewriter.emitError(*gemm, trans_b.status());
    // broadcast exists in Gemm 1 and 6 only.
    const absl::StatusOr<int64_t> broadcast = *opset < 7 ? readIntAttr(*gemm, "broadcast") : 0;
    if (!broadcast.ok()) return rewriter.emitError(*gemm, broadcast.status());
    // Cheap form of the guard match() applies, before any work on C.
    if (!y->hasOneUse() || y->isGraphOutput() || gemm->graph() != transpose.graph()) {
      return rewriter.notifyMatchFailure(
          transpose, absl::StrCat("the Gemm's output '", y->name(),
                                  "' has other readers, is a graph output or is in another graph"));
    }

    // What C becomes: the same value, a constant with other dims and the same data order, or
    // a constant with its data transposed.
    ir::Value* c = gemm->input(2);
    std::optional<TensorProto> new_c;  // set when C needs a new initializer
    if (c == nullptr) {
      if (*opset < 11) {
        return rewriter.notifyMatchFailure(
            transpose, absl::StrCat(nodeText(*gemm), " has no C, which opset ", *opset,
                                    " requires (C is optional from opset 11)"));
      }
    } else {
      std::optional<std::string> reason = planC(*c, *opset, *broadcast, rewriter, &new_c);
      if (reason) return rewriter.notifyMatchFailure(transpose, *reason);
    }

    if (failed(rewriter.match(transpose, {gemm}))) return failure();

    ir::Value* c_operand =
        new_c ? rewriter.createInitializer(c->name() + "_transposed", std::move(*new_c)) : c;
    std::vector<ir::Value*> inputs = {gemm->input(1), gemm->input(0)};
    if (c_operand != nullptr) inputs.push_back(c_operand);
    // The fused node is the Gemm, read transposed: it keeps the Gemm's node name (the old Gemm
    // goes with this rewrite), or takes the Transpose's when the Gemm had none.
    const std::string name = !gemm->name().empty() ? gemm->name() : transpose.name();
    // It computes the Transpose's output: it takes over that value, and the Transpose goes.
    ir::Node* fused = rewriter.replaceRootWithNewNode("Gemm", inputs);
    for (const ir::Attribute& attribute : gemm->attributes()) {
      if (attribute.name() == "transA" || attribute.name() == "transB") continue;
      onnx::AttributeProto copy = attribute.proto();
      rewriter.setAttr(*fused, ir::Attribute(std::move(copy)));
    }
    // Y' = alpha op(B)' op(A)' + beta C': B is read as the new A, transposed unless transB was
    // set; A as the new B, transposed unless transA was set.
    if (*trans_b == 0) rewriter.setIntAttr(*fused, "transA", 1);
    if (*trans_a == 0) rewriter.setIntAttr(*fused, "transB", 1);
    if (!name.empty()) rewriter.modifyInPlace(*fused, [&name](ir::Node& node) { node.setName(name); });
    return success();
  }

 private:
  // Decides how C changes so that C' broadcasts to [N, M] exactly as C did to [M, N] (`broadcast`
  // is the Gemm's attribute, 0 from opset 7). Returns the reason when that is not possible or not
  // known. `new_c` gets the new constant when C cannot stay as it is.
  static std::optional<std::string> planC(const ir::Value& c, int64_t opset, int64_t broadcast,
                                          PatternRewriter& rewriter,
                                          std::optional<TensorProto>* new_c) {
    // A C whose every dim is a known 1 (or a scalar) broadcasts the same way to any shape, from
    // opset 7 (numpy broadcasting). It need not be constant.
    if (opset >= 7) {
      const ir::Type& type = rewriter.shapes().typeOf(c);
      if (type.isTensor() && type.shape()) {
        bool all_ones = type.shape()->size() <= 2;
        for (const ir::Dim& dim : *type.shape()) {
          all_ones = all_ones && dim.isKnown() && dim.value() == 1;
        }
        if (all_ones) return std::nullopt;
      }
    }

    ConstantC constant;
    if (std::optional<std::string> why = readConstantC(c, &constant)) return why;
    const std::vector<int64_t>& dims = constant.dims;
    if (dims.size() > 2) {
      return absl::StrCat("C has rank ", dims.size(), "; Gemm's C has rank 2 at most");
    }
    // C as a [rows, cols] matrix (a vector [n] broadcasts as [1, n]).
    int64_t rows = 1;
    int64_t cols = 1;
    if (dims.size() == 2) {
      rows = dims[0];
      cols = dims[1];
    } else if (dims.size() == 1) {
      cols = dims[0];
    }

    if (opset < 7) {
      // Gemm 1 and 6: C is [M, N] (broadcast = 0), or broadcast with the legacy rules
      // (broadcast = 1) that the spec leaves vague for Gemm. Only an exact [M, N] is safe: a
      // rank-2 C without broadcast, or one whose dims are not 1 (so they cannot be broadcast).
      if (dims.size() != 2) {
        return absl::StrCat("opset ", opset, " Gemm with a C of rank ", dims.size(),
                            ": only a 2-D C of exactly [M, N] is transposed before opset 7");
      }
      if (broadcast != 0 && (rows == 1 || cols == 1)) {
        return absl::StrCat("opset ", opset,
                            " Gemm with broadcast=1 and a C with a dim of 1: legacy broadcasting "
                            "of C is not transposed (only a C of exactly [M, N])");
      }
    }

    if (rows == 1 && cols == 1) return std::nullopt;  // scalar, [1], [1, 1]: broadcasts anywhere

    // Build the new constant: a copy of C's data (read from external data if need be) with the
    // transposed dims [cols, rows], and the elements transposed unless one of the dims is 1.
    TensorProto tensor;
    if (constant.tensor != nullptr && constant.tensor->isExternal()) {
      ir::Tensor copy(TensorProto(constant.tensor->proto()), *constant.tensor->external());
      absl::Status loaded = copy.loadExternalData();
      if (!loaded.ok()) return absl::StrCat("cannot read C's external data: ", loaded.message());
      tensor.Swap(&copy.mutableProto());
    } else {
      tensor = *constant.proto;
    }
    if (tensor.data_location() == TensorProto::EXTERNAL) return "C has unresolved external data";
    if (rows != 1 && cols != 1) {
      if (std::optional<std::string> why = transposeData(&tensor, rows, cols)) return why;
    }
    tensor.clear_dims();
    tensor.add_dims(cols);
    tensor.add_dims(rows);
    *new_c = std::move(tensor);
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
