#include "onnxopt/rewrite/shape_oracle.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"

#include <gtest/gtest.h>

#include <array>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_join.h"
#include "onnx/shape_inference/implementation.h"
#include "onnxopt/ir/serialization.h"
#include "passes/framework/onnx_inference.h"
#include "test_models.h"

namespace onnxopt {
namespace {

using ir::Dim;
using ir::Shape;
using onnxopt::testing::parseModel;

Shape shape(std::initializer_list<Dim> dims) { return Shape(dims); }
Dim k(int64_t value) { return Dim::known(value); }
Dim s(const char* symbol) { return Dim::symbolic(symbol); }

TEST(BroadcastTest, MultidirectionalRulesAssumeAValidModel) {
  EXPECT_EQ(broadcastShapes(shape({s("N"), k(4)}), shape({k(4)})), shape({s("N"), k(4)}));
  EXPECT_EQ(broadcastShapes(shape({k(1)}), shape({s("N"), k(3)})), shape({s("N"), k(3)}));
  // N must be 1 or 3 for the model to run; either way the result is 3.
  EXPECT_EQ(broadcastShapes(shape({s("N")}), shape({k(3)})), shape({k(3)}));
  EXPECT_EQ(broadcastShapes(shape({s("N")}), shape({s("N")})), shape({s("N")}));
  EXPECT_EQ(broadcastShapes(shape({s("N")}), shape({s("M")})), shape({Dim::unknown()}));
  EXPECT_EQ(broadcastShapes(shape({k(2)}), shape({k(3)})), std::nullopt);
  EXPECT_EQ(broadcastShapes(shape({}), shape({k(2), k(3)})), shape({k(2), k(3)}));
}

TEST(BroadcastTest, UnidirectionalNeedsProof) {
  const Shape mn = shape({s("M"), k(3)});
  EXPECT_TRUE(broadcastsUnidirectionally(shape({k(3)}), mn));
  EXPECT_TRUE(broadcastsUnidirectionally(shape({k(1), k(3)}), mn));
  EXPECT_TRUE(broadcastsUnidirectionally(shape({s("M"), k(1)}), mn));
  EXPECT_TRUE(broadcastsUnidirectionally(shape({}), mn));
  EXPECT_FALSE(broadcastsUnidirectionally(shape({s("K"), k(1)}), mn)) << "K is not M";
  EXPECT_FALSE(broadcastsUnidirectionally(shape({Dim::unknown(), k(3)}), mn));
  EXPECT_FALSE(broadcastsUnidirectionally(shape({k(2), s("M"), k(3)}), mn)) << "grows the rank";
  EXPECT_TRUE(provablyEqual(mn, shape({s("M"), k(3)})));
  EXPECT_FALSE(provablyEqual(shape({Dim::unknown()}), shape({Dim::unknown()})));
}

TEST(ShapeOracleTest, LocalRulesFollowGemmMatMulAndElementwise) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X, float[3,4] W, float[4,5] V) => (float[N,5] Y) {
  A = Gemm<transB = 1>(X, W)
  T = Transpose(A)
  B = MatMul(X, V)
  C = Relu(B)
  D = Add(C, X5)
  X5 = Identity(B)
  F = Flatten<axis = 1>(C)
  Y = Cast<to = 11>(C)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto type_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)); };
  EXPECT_EQ(type_of("A").shape(), shape({s("N"), k(3)}));
  EXPECT_EQ(type_of("T").shape(), shape({k(3), s("N")}));
  EXPECT_EQ(type_of("B").shape(), shape({s("N"), k(5)}));
  EXPECT_EQ(type_of("C").elemType(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(type_of("F").shape(), shape({s("N"), k(5)}));
  EXPECT_EQ(type_of("Y").elemType(), onnx::TensorProto::DOUBLE);
}

TEST(ShapeOracleTest, QuantizeLinearTakesTheZeroPointsTypeAndDequantizeLinearTheScales) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X) => (float[N,4] Y) <float s = {0.5}, int8 z = {1}> {
  A = QuantizeLinear(X, s, z)
  B = QuantizeLinear(X, s)
  Y = DequantizeLinear(A, s, z)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto type_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)); };
  EXPECT_EQ(type_of("A").elemType(), onnx::TensorProto::INT8);
  EXPECT_EQ(type_of("A").shape(), shape({s("N"), k(4)}));
  EXPECT_EQ(type_of("B").elemType(), onnx::TensorProto::UINT8) << "no zero point: uint8";
  EXPECT_EQ(type_of("Y").elemType(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(type_of("Y").shape(), shape({s("N"), k(4)}));

  // From opset 19 the output of DequantizeLinear has the scale's type; from 21 QuantizeLinear's
  // output_dtype gives its type when it has no zero point.
  auto newer = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float16[3] X, float16 s) => (float16[3] Y) {
  A = QuantizeLinear<output_dtype = 3>(X, s)
  Y = DequantizeLinear(A, s)
}
)");
  ASSERT_NE(newer, nullptr);
  ShapeOracle newer_oracle(*newer);
  const ir::Value& a = *newer->graph().findValue("A");
  EXPECT_EQ(newer_oracle.typeOf(a).elemType(), onnx::TensorProto::INT8);
  EXPECT_EQ(newer_oracle.typeOf(*newer->graph().findValue("Y")).elemType(),
            onnx::TensorProto::FLOAT16);
  EXPECT_EQ(newer_oracle.typeOf(a).shape(), shape({k(3)}));
}

// A 64-bit `to` or `output_dtype` is no element type when its low 32 bits are one: 2^32 + 1 is
// not FLOAT (ORT refuses such a model; an answer here would let a pass act on it).
TEST(ShapeOracleTest, AnElementTypeAttributeBeyondInt32NamesNoType) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[3] X) => (float[3] Y) {
  C = Cast<to = 4294967297>(X)
  Y = Identity(X)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const ir::Value& c = *model->graph().findValue("C");
  EXPECT_EQ(oracle.typeOf(c).elemType(), onnx::TensorProto::UNDEFINED);
  EXPECT_EQ(oracle.typeOf(c).shape(), shape({k(3)}));
  // ONNX's inference (libonnx 1.12) reads `to` as int32: its answer is not believed either.
  EXPECT_EQ(oracle.inferredTypeOf(c).elemType(), onnx::TensorProto::UNDEFINED);

  auto quantize = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[3] X, float s) => (uint8[3] Y) {
  Y = QuantizeLinear<output_dtype = 4294967299>(X, s)
}
)");
  ASSERT_NE(quantize, nullptr);
  ShapeOracle quantize_oracle(*quantize);
  EXPECT_EQ(quantize_oracle.typeOf(*quantize->graph().findValue("Y")).elemType(),
            onnx::TensorProto::UNDEFINED);
}

TEST(ShapeOracleTest, MatMulOfVectorsAndBatches) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4] v, float[B,4,5] M, float[2,1,N,4] P, float[3,4,5] Q, float[N,4] X)
  => (float[B,5] Y) {
  vM = MatMul(v, M)
  Y = Identity(vM)
  PQ = MatMul(P, Q)
  Xv = MatMul(X, v)
  vv = MatMul(v, v)
  XQ = MatMul(X, Q)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto type_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)); };
  EXPECT_EQ(type_of("vM").shape(), shape({s("B"), k(5)}));
  EXPECT_EQ(type_of("PQ").shape(), shape({k(2), k(3), s("N"), k(5)}));
  EXPECT_EQ(type_of("Xv").shape(), shape({s("N")}));
  EXPECT_EQ(type_of("vv").shape(), shape({}));
  EXPECT_EQ(type_of("XQ").shape(), shape({k(3), s("N"), k(5)}));
}

TEST(ShapeOracleTest, FallsBackToOnnxShapeInference) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2,8,8] X, float[4,2,3,3] W) => (float[1,4,6,6] Y) {
  Y = Conv(X, W)
  Z = Relu(Y)
}
)");
  ShapeOracle oracle(*model);
  const ir::Value& z = *model->graph().lastNode()->output(0);
  EXPECT_EQ(oracle.typeOf(z).shape(), shape({k(1), k(4), k(6), k(6)}));
}

// ONNX 1.12's data propagation for Shape (opset 15) crashes on an input that inference cannot
// type: a custom op's output (U), or that of a node whose inference fails (T: the perm does not
// fit A's rank). The oracle still answers, from inference without data propagation.
TEST(ShapeOracleTest, ShapeOfAnUntypedValueDoesNotCrashInference) {
  for (const char* shape_input : {"U", "T"}) {
    auto model = parseModel(absl::StrCat(R"(
<ir_version: 8, opset_import: ["" : 15, "com.example" : 1]>
g (float[1,2,8,8] X, float[4,2,3,3] W, float[2,3] A) => (int64[N] S) {
  U = com.example.MyOp(X)
  T = Transpose<perm = [1, 0, 2]>(A)
  S = Shape()", shape_input, R"()
  Y = Conv(X, W)
}
)"));
    ShapeOracle oracle(*model);
    const ir::Value& y = *model->graph().lastNode()->output(0);
    EXPECT_EQ(oracle.typeOf(y).shape(), shape({k(1), k(4), k(6), k(6)}))
        << "Shape of " << shape_input;
  }
}

// With the Shape of an untyped node output in the model, data propagation still runs for the rest:
// Y's shape comes from the value of Shape(X).
TEST(ShapeOracleTest, DataPropagationRunsBesideTheShapeOfAnUntypedValue) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 15, "com.example" : 1]>
g (float[1,2,8,8] X, float[128] Z) => (int64[N] S, float[A,B,C,D] Y) {
  U = com.example.MyOp(X)
  S = Shape(U)
  T = Shape(X)
  Y = Reshape(Z, T)
}
)");
  ShapeOracle oracle(*model);
  const ir::Value& y = *model->graph().lastNode()->output(0);
  EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({k(1), k(2), k(8), k(8)}));
  const ir::Value& u = *model->graph().firstNode()->output(0);
  EXPECT_FALSE(oracle.inferredTypeOf(u).isTensor());
}

// A graph output's entry in the proto has a type field whether or not inference typed the value:
// T's must not pass for a type that data propagation can read (T's input U is untyped, as above).
TEST(ShapeOracleTest, ShapeOfAGraphOutputInferenceLeftUntypedDoesNotCrashInference) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[1,2,8,8] X, float[4,2,3,3] W, float[2,3] A) => (T, int64[N] S) {
  U = Transpose<perm = [1, 0, 2]>(A)
  T = Identity(U)
  S = Shape(T)
  Y = Conv(X, W)
}
)");
  ShapeOracle oracle(*model);
  const ir::Value& y = *model->graph().lastNode()->output(0);
  EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({k(1), k(4), k(6), k(6)}));
}

// Found by eval_fuzzer: below IR 4, libonnx types an initializer only as the default of a graph
// input, so the Shape of one that is not an input is untyped for data propagation, which crashes.
TEST(ShapeOracleTest, ShapeOfAnInitializerThatIsNoInputBelowIr4DoesNotCrashInference) {
  auto model = parseModel(R"(
<ir_version: 3, opset_import: ["" : 15]>
g (float[1,2,8,8] X, float[4,2,3,3] W) => (int64[N] S, float Y) <int64[4] c = {1, 1, 1, 1}> {
  S = Shape(c)
  Y = Conv(X, W)
}
)");
  ShapeOracle oracle(*model);
  const ir::Value& y = *model->graph().lastNode()->output(0);
  EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({k(1), k(4), k(6), k(6)}));
}

// The sizes libonnx infers for a sliding-window op of the model `text` (its output Y); nullopt
// when it infers none.
std::optional<Shape> libonnxShapeOfY(const std::string& text) {
  auto model = parseModel(text);
  if (model == nullptr) return std::nullopt;
  absl::StatusOr<std::string> bytes = ir::saveModelToBytes(*model);
  onnx::ModelProto proto;
  if (!bytes.ok() || !proto.ParseFromString(*bytes)) return std::nullopt;
  try {
    onnx::shape_inference::InferShapes(proto);
  } catch (...) {
    return std::nullopt;
  }
  for (const onnx::ValueInfoProto& info : proto.graph().value_info()) {
    if (info.name() != "Y" || !info.type().tensor_type().has_shape()) continue;
    Shape shape;
    for (const auto& dim : info.type().tensor_type().shape().dim()) {
      if (!dim.has_dim_value()) return std::nullopt;
      shape.push_back(k(dim.dim_value()));
    }
    return shape;
  }
  return std::nullopt;
}

// The oracle's own rules for Conv and the pools give the sizes libonnx infers (which ONNX
// Runtime computes too, where the oracle has a rule: no ceil_mode, no SAME with dilations), on
// random inputs, kernels, strides, dilations, pads and auto_pad. At opset 22 libonnx
// has no schema for these ops, so the oracle's answer there is its own rule's; libonnx's is
// read at opset 13.
TEST(ShapeOracleTest, ConvAndPoolRulesGiveLibonnxSizes) {
  std::mt19937 rng(20261205);
  auto pick = [&](int low, int high) { return std::uniform_int_distribution<int>(low, high)(rng); };
  int answered = 0;
  for (int trial = 0; trial < 600; ++trial) {
    const int spatial = pick(1, 3);
    const char* op = std::array<const char*, 3>{"Conv", "MaxPool", "AveragePool"}[pick(0, 2)];
    const bool conv = std::string(op) == "Conv";
    std::vector<int64_t> dims = {1, 2}, kernel, strides, dilations, pads(2 * spatial);
    for (int i = 0; i < spatial; ++i) {
      dims.push_back(pick(1, 12));
      kernel.push_back(pick(1, 4));
      strides.push_back(pick(1, 3));
      dilations.push_back(pick(1, 3));
      pads[i] = pick(0, 2);
      pads[i + spatial] = pick(0, 2);
    }
    const char* auto_pad =
        std::array<const char*, 4>{"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"}[pick(0, 3)];
    std::string attrs = absl::StrCat("strides = [", absl::StrJoin(strides, ", "),
                                     "], auto_pad = \"", auto_pad, "\"");
    if (!conv && std::string(auto_pad).rfind("SAME", 0) != 0 && pick(0, 1) == 1) {
      absl::StrAppend(&attrs, ", ceil_mode = 1");
    }
    if (std::string(auto_pad) == "NOTSET") {
      absl::StrAppend(&attrs, ", pads = [", absl::StrJoin(pads, ", "), "]");
    }
    if (std::string(op) != "AveragePool") {
      absl::StrAppend(&attrs, ", dilations = [", absl::StrJoin(dilations, ", "), "]");
    }
    std::string inputs = absl::StrCat("float[", absl::StrJoin(dims, ","), "] X");
    std::string call = absl::StrCat(op, "<", attrs);
    if (conv) {
      absl::StrAppend(&inputs, ", float[3,2,", absl::StrJoin(kernel, ","), "] W");
      absl::StrAppend(&call, ">(X, W)");
    } else {
      absl::StrAppend(&call, ", kernel_shape = [", absl::StrJoin(kernel, ", "), "]>(X)");
    }
    auto text = [&](int opset) {
      return absl::StrCat("<ir_version: 8, opset_import: [\"\" : ", opset, "]>\ng (", inputs,
                          ") => (Z) {\n  Y = ", call, "\n  Z = Identity(Y)\n}\n");
    };
    auto ours_model = parseModel(text(22));
    ASSERT_NE(ours_model, nullptr) << text(22);
    ShapeOracle oracle(*ours_model);
    const ir::Type& ours = oracle.typeOf(*ours_model->graph().findValue("Y"));
    if (!ours.shape()) continue;
    ++answered;
    const std::optional<Shape> theirs = libonnxShapeOfY(text(13));
    ASSERT_TRUE(theirs.has_value()) << text(13);
    ASSERT_EQ(ours.shape()->size(), theirs->size()) << text(13);
    for (size_t i = 0; i < theirs->size(); ++i) {
      const Dim& dim = (*ours.shape())[i];
      if (dim.isKnown()) EXPECT_EQ(dim, (*theirs)[i]) << "dim " << i << " of " << text(13);
    }
  }
  EXPECT_GT(answered, 250) << "the rules answered too few of the random cases to test them";
}

// Whether the oracle knows, in either view, a shape of Y = `call` at `opset` in a graph of
// X = Identity(input) (float[1,2,7]), W (float[3,2,3]) and B (float[3,2,2^63-1]).
bool anyShapeKnownOf(const char* call, int opset) {
  auto model = parseModel(absl::StrCat(R"(
<ir_version: 10, opset_import: ["" : )", opset, R"(]>
g (float[1,2,7] input, float[3,2,3] W, float[3,2,9223372036854775807] B) => (Z) {
  X = Identity(input)
  Y = )", call, R"(
  Z = Identity(Y)
}
)"));
  EXPECT_NE(model, nullptr) << call;
  if (model == nullptr) return false;
  ShapeOracle oracle(*model);
  const ir::Value& y = *model->graph().findValue("Y");
  return oracle.typeOf(y).shape().has_value() || oracle.inferredTypeOf(y).shape().has_value();
}

// Where a sliding-window op's attributes are malformed or its sizes absurd, the rules give no
// shape (at opset 22, where libonnx does not answer either): nothing is guessed, nothing
// overflows.
TEST(ShapeOracleTest, ConvAndPoolRulesDeclineMalformedAttributesAndAbsurdSizes) {
  const char* const kCalls[] = {
      "Conv<strides = [0]>(X, W)",
      "Conv<dilations = [0]>(X, W)",
      "Conv<pads = [-1, 0]>(X, W)",
      "Conv<pads = [0]>(X, W)",
      "Conv<kernel_shape = [2]>(X, W)",
      "Conv<auto_pad = \"SAME\">(X, W)",
      "Conv<dilations = [4611686018427387904]>(X, W)",
      "Conv<pads = [9223372036854775807, 9223372036854775807]>(X, W)",
      "Conv(X, B)",
      "MaxPool<kernel_shape = [3], auto_pad = \"SAME_UPPER\", dilations = [2]>(X)",
      "Conv<auto_pad = \"SAME_LOWER\", dilations = [2]>(X, W)",
      "MaxPool<kernel_shape = [9]>(X)",
      "AveragePool<kernel_shape = [3, 3]>(X)",
  };
  // At opset 22 libonnx 1.12 has no Identity (Identity-21): what it says below one is not taken,
  // so the answers are the oracle's rules' alone.
  for (const char* call : kCalls) EXPECT_FALSE(anyShapeKnownOf(call, 22)) << call;
}

// ONNX 1.12's inference of Conv and the pools divides by each stride: a stride below 1 would
// kill the process (SIGFPE), so such a node is not given to it, and nothing is known of it.
TEST(OnnxInferenceTest, ConvAndPoolsWithAStrideBelowOneAreNotInferred) {
  const char* const kCalls[] = {
      "Conv<strides = [0]>(X, W)",
      "Conv<strides = [0], auto_pad = \"SAME_UPPER\">(X, W)",
      "MaxPool<kernel_shape = [3], strides = [0]>(X)",
      "AveragePool<kernel_shape = [3], strides = [0]>(X)",
      "LpPool<kernel_shape = [3], strides = [-1]>(X)",
  };
  for (const char* call : kCalls) EXPECT_FALSE(anyShapeKnownOf(call, 13)) << call;
}

// Without kernel_shape, ONNX 1.12 takes a convolution's kernel from its weight's dims and reads
// as many strides, pads and dilations, sized by the input's rank: a weight of another rank read
// past their end (optimize_fuzzer, ASan). Such a node is not given to it.
TEST(OnnxInferenceTest, ConvolutionsWithAWeightOfAnotherRankAreNotInferred) {
  const char* const kCalls[] = {
      "Conv(X, W4)",
      "Conv<strides = [1], pads = [0, 0]>(X, W4)",
      "ConvTranspose(X, W4)",
  };
  for (const char* call : kCalls) {
    auto model = parseModel(absl::StrCat(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,2,7] input, float[3,2,1,3] W4) => (Z) {
  X = Identity(input)
  Y = )", call, R"(
  Z = Identity(Y)
}
)"));
    ASSERT_NE(model, nullptr) << call;
    ShapeOracle oracle(*model);
    const ir::Value& y = *model->graph().findValue("Y");
    EXPECT_FALSE(oracle.typeOf(y).shape().has_value() || oracle.inferredTypeOf(y).shape().has_value())
        << call;
  }
}

TEST(ShapeOracleTest, ConvAndPoolRulesKeepTheRankOfUnknownSpatialDims) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,3,H,W] X, float[8,3,3,3] W3, float[8,3,1,1] W1) => (float[?,?,?,?] Y) {
  same_size = Conv<pads = [1, 1, 1, 1]>(X, W3)
  strided = Conv<pads = [1, 1, 1, 1], strides = [2, 2]>(X, W3)
  pointwise = Conv(X, W1)
  same_upper = Conv<auto_pad = "SAME_UPPER">(X, W3)
  valid = Conv<auto_pad = "VALID">(X, W3)
  pooled = MaxPool<kernel_shape = [2, 2], strides = [2, 2]>(X)
  Y = Relu(pooled)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto shape_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)).shape(); };
  const Dim unknown = Dim::unknown();
  EXPECT_EQ(shape_of("same_size"), shape({s("N"), k(8), s("H"), s("W")}));
  EXPECT_EQ(shape_of("strided"), shape({s("N"), k(8), unknown, unknown}));
  EXPECT_EQ(shape_of("pointwise"), shape({s("N"), k(8), s("H"), s("W")}));
  EXPECT_EQ(shape_of("same_upper"), shape({s("N"), k(8), s("H"), s("W")}));
  EXPECT_EQ(shape_of("valid"), shape({s("N"), k(8), unknown, unknown}));
  EXPECT_EQ(shape_of("pooled"), shape({s("N"), k(3), unknown, unknown}));
}

TEST(ShapeOracleTest, PoolsWithCeilModeKnowOnlyTheSizesBothRoundingsGive) {
  const std::pair<const char*, const char*> kCases[] = {
      {"MaxPool<kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1>(X)", "[1,2,4,?]"},
      {"AveragePool<kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1], ceil_mode = 1>(X)",
       "[1,2,?,4]"},
      {"MaxPool<kernel_shape = [3, 2], strides = [1, 3], ceil_mode = 1>(X)", "[1,2,6,?]"},
      {"MaxPool<kernel_shape = [2, 2], strides = [2, 2], auto_pad = \"SAME_UPPER\", ceil_mode = 1>(X)",
       "[rank unknown]"},
  };
  for (const auto& [call, expected] : kCases) {
    auto model = parseModel(absl::StrCat(R"(
<ir_version: 8, opset_import: ["" : 22]>
g (float[1,2,8,7] X) => (Z) {
  Y = )", call, R"(
  Z = Identity(Y)
}
)"));
    ASSERT_NE(model, nullptr) << call;
    ShapeOracle oracle(*model);
    EXPECT_EQ(shapeText(oracle.typeOf(*model->graph().findValue("Y")).shape()), expected) << call;
  }
}

// libonnx gets the main graph's initializers of more than 4096 elements as typed graph inputs
// instead of copies of their data: it still infers from their types, and reads the data of the
// small ones. Below IR 4 such an initializer is a graph input already.
TEST(ShapeOracleTest, InferenceSeesBigInitializersByTypeAndSmallOnesByValue) {
  const std::string weight = absl::StrCat(
      "float[512,2,3,3] W = {", absl::StrJoin(std::vector<int>(512 * 2 * 3 * 3, 0), ", "), "}");
  for (const bool weight_is_input : {false, true}) {
    auto model = parseModel(absl::StrCat(
        "<ir_version: ", weight_is_input ? 3 : 8, R"(, opset_import: ["" : 13]>
g (float[1,2,8,8] X)", weight_is_input ? ", float[512,2,3,3] W" : "",
        R"() => (float[A,B] Z) <)", weight, R"(, int64[2] c = {1, -1}> {
  Y = Conv(X, W)
  Z = Reshape(Y, c)
}
)"));
    ASSERT_NE(model, nullptr);
    ShapeOracle oracle(*model);
    const ir::Value& z = *model->graph().lastNode()->output(0);
    const ir::Value& y = *model->graph().lastNode()->input(0);
    EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({k(1), k(512), k(6), k(6)}))
        << "IR " << (weight_is_input ? 3 : 8);
    EXPECT_EQ(oracle.inferredTypeOf(z).shape(), shape({k(1), k(512 * 36)}))
        << "IR " << (weight_is_input ? 3 : 8);
  }
}

// libonnx, and the oracle's own rule for ConstantOfShape, take the output rank from the length of
// a shape input whose values are unknown: here 1e18, the length of A. The oracle leaves Z's and
// C's ranks unknown and still has the rest of libonnx's inference (Y's shape), instead of
// exhausting memory.
TEST(ShapeOracleTest, ShapeInputOfAbsurdLengthIsNotARank) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[3] X, float[1,2,8,8] I, float[4,2,3,3] W) => (float Z, float C, float Y)
    <int64[1] c = {1000000000000000000}> {
  A = Expand(c, c)
  Z = Expand(X, A)
  C = ConstantOfShape(A)
  Y = Conv(I, W)
}
)");
  ShapeOracle oracle(*model);
  const std::vector<ir::Value*>& outputs = model->graph().outputs();
  EXPECT_EQ(oracle.typeOf(*outputs[2]).shape(), shape({k(1), k(4), k(6), k(6)}));
  EXPECT_EQ(oracle.typeOf(*outputs[0]).shape(), std::nullopt);
  EXPECT_EQ(oracle.typeOf(*outputs[1]).shape(), std::nullopt);
}

// A Reshape to a computed shape (paddle2onnx's Concat of a sliced Shape and -1) has the shape's
// length as its rank, and the dims the shape copies from the input (N at its own position); ONNX
// 1.12's inference leaves even the rank unknown. An absurd length gives no rank.
TEST(ShapeOracleTest, ReshapeToComputedShapeHasItsLengthAsRank) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 9]>
g (float[N,200,1,1] X, int64[A] L) => (float R, float Z)
    <int64[1] minus1 = {-1}, int64[1] c = {1000000000000000000}> {
  s = Shape(X)
  first = Slice<starts = [0], ends = [1], axes = [0]>(s)
  target = Concat<axis = 0>(first, minus1)
  R = Reshape(X, target)
  huge = Expand(c, c)
  Z = Reshape(X, huge)
}
)");
  ShapeOracle oracle(*model);
  const std::vector<ir::Value*>& outputs = model->graph().outputs();
  EXPECT_EQ(shapeText(oracle.typeOf(*outputs[0]).shape()), "[N,?]");
  EXPECT_EQ(oracle.typeOf(*outputs[1]).shape(), std::nullopt);
}

// A symbolic entry of a Reshape's shape is that dim where a 0 there cannot copy another dim:
// with allowzero, or where the input's dim is the same one.
TEST(ShapeOracleTest, ReshapeToADimOfAShapeKeepsItsSymbolWhereA0WouldCopyIt) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 14]>
g (float[N,M] X, float[M,N] W) => (float A, float C) {
  sx = Shape(X)
  sw = Shape(W)
  A = Reshape(X, sx)
  C = Reshape<allowzero = 1>(X, sw)
}
)");
  ShapeOracle oracle(*model);
  const std::vector<ir::Value*>& outputs = model->graph().outputs();
  EXPECT_EQ(shapeText(oracle.inferredTypeOf(*outputs[0]).shape()), "[N,M]");
  EXPECT_EQ(shapeText(oracle.inferredTypeOf(*outputs[1]).shape()), "[M,N]");
}

TEST(ShapeOracleTest, LongChainsNeedNoRecursion) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X) => (float[N,4] Y) { Y = Relu(X) }
)");
  ir::Graph& graph = model->graph();
  ir::Value* last = graph.inputs()[0];
  for (int i = 0; i < 500000; ++i) {
    last = graph.createNode("Relu", {last}, {absl::StrCat("v", i)}, graph.lastNode())->output(0);
  }
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.typeOf(*last).shape(), shape({s("N"), k(4)}));
}

// Answers are kept per graph by value ordinal: the first value of a subgraph has the same
// ordinal as the main graph's first value, and its own answer.
TEST(ShapeOracleTest, SubgraphValuesKeepAnswersApartFromTheMainGraph) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X, bool C) => (float[N,4] Y, int64[6] Z) {
  Y = Relu(X)
  Z = If(C) <then_branch = t () => (int64[6] a) { a = Constant<value_ints = [1, 2, 3, 4, 5, 6]>() },
             else_branch = e () => (int64[6] b) { b = Constant<value_ints = [6, 5, 4, 3, 2, 1]>() }>
}
)");
  ASSERT_NE(model, nullptr);
  ir::Graph& graph = model->graph();
  const ir::Graph& then_branch = *graph.lastNode()->attr("then_branch")->graphs().front();
  const ir::Value& a = *then_branch.firstNode()->output(0);
  const ir::Value& x = *graph.findValue("X");
  ASSERT_EQ(a.ordinal(), x.ordinal());
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.typeOf(x).elemType(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(oracle.typeOf(a).elemType(), onnx::TensorProto::INT64);
  EXPECT_EQ(oracle.typeOf(x).shape(), shape({s("N"), k(4)}));
  EXPECT_EQ(oracle.typeOf(a).shape(), shape({k(6)}));
}

// forget() drops the answers about a changed node's outputs, and only those.
TEST(ShapeOracleTest, ForgetDropsTheChangedNodesAnswers) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X, float[4,5] W) => (float[N,5] Y) {
  A = Relu(X)
  Y = MatMul(A, W)
}
)");
  ASSERT_NE(model, nullptr);
  ir::Graph& graph = model->graph();
  ir::Value& a = *graph.findValue("A");
  ShapeOracle oracle(*model);
  const ir::Type& before = oracle.typeOf(a);
  EXPECT_EQ(before.shape(), shape({s("N"), k(4)}));
  a.producer()->setInput(0, graph.findValue("W"));
  EXPECT_EQ(oracle.typeOf(a).shape(), shape({s("N"), k(4)})) << "not told: the old answer stays";
  oracle.forget(*a.producer());
  EXPECT_EQ(oracle.typeOf(a).shape(), shape({k(4), k(5)}));
  EXPECT_EQ(before.shape(), shape({s("N"), k(4)})) << "a returned reference stays valid";
}

// A change upstream may let the oracle know more downstream: forget() drops what was derived
// from the changed node's outputs too, nearest first and within a budget.
TEST(ShapeOracleTest, ForgetDropsWhatWasDerivedDownstream) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3,4] X, int64[2] dynamic) => (float[?,?] Y) <int64[2] target = {4, 6}> {
  R = Reshape(X, dynamic)
  T = Transpose(R)
  Y = Relu(T)
}
)");
  ASSERT_NE(model, nullptr);
  ir::Graph& graph = model->graph();
  ir::Value& y = *graph.findValue("Y");
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({Dim::unknown(), Dim::unknown()}));
  EXPECT_EQ(oracle.typeOf(y).shape(), shape({Dim::unknown(), Dim::unknown()}));
  ir::Node& reshape = *graph.findValue("R")->producer();
  reshape.setInput(1, graph.findValue("target"));
  oracle.forget(reshape);
  EXPECT_EQ(oracle.inferredTypeOf(y).shape(), shape({k(6), k(4)}));
  EXPECT_EQ(oracle.typeOf(y).shape(), shape({k(6), k(4)}));
}

TEST(ShapeOracleTest, ForgetVisitsABoundedNumberOfNodesPerChange) {
  const size_t length = ShapeOracle::kMaxNodesForgottenPerChange + 10;
  std::string nodes = "  v0 = Reshape(X, dynamic)\n";
  for (size_t i = 1; i <= length; ++i) absl::StrAppend(&nodes, "  v", i, " = Relu(v", i - 1, ")\n");
  auto model = parseModel(absl::StrCat(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] X, int64[2] dynamic) => (float[?,?] v)", length, R"() <int64[2] target = {3, 2}> {
)", nodes, "}\n"));
  ASSERT_NE(model, nullptr);
  ir::Graph& graph = model->graph();
  ShapeOracle oracle(*model);
  const ir::Value& last = *graph.findValue(absl::StrCat("v", length));
  const ir::Value& near = *graph.findValue("v5");
  EXPECT_EQ(oracle.inferredTypeOf(last).shape(), shape({Dim::unknown(), Dim::unknown()}));
  ir::Node& reshape = *graph.findValue("v0")->producer();
  reshape.setInput(1, graph.findValue("target"));
  oracle.forget(reshape);
  EXPECT_EQ(oracle.inferredTypeOf(near).shape(), shape({k(3), k(2)}));
  EXPECT_EQ(oracle.inferredTypeOf(last).shape(), shape({Dim::unknown(), Dim::unknown()}))
      << "past the budget the old answer stays: true, if less precise";
}

TEST(ShapeOracleTest, ConstantIntsFromInitializersAndConstants) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X, int64[2] given) => (float[N,4] Y) <int64[2] target = {1, 4}, int64[2] given = {7, 7}> {
  c = Constant<value_ints = [2, 3]>()
  Y = Expand(X, target)
}
)");
  ShapeOracle oracle(*model);
  const ir::Graph& graph = model->graph();
  EXPECT_EQ(oracle.constantInts(*graph.findValue("target")), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(oracle.constantInts(*graph.findValue("c")), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(oracle.constantInts(*graph.findValue("given")), std::nullopt)
      << "an initializer that is also an input can be overridden by the caller";
  EXPECT_FALSE(isConstant(*graph.findValue("given")));
  EXPECT_EQ(oracle.typeOf(*graph.findValue("Y")).shape(), shape({s("N"), k(4)}));
}

TEST(ShapeOracleTest, ConstantWhoseDimDisagreesWithItsDataIsNotReadAsInts) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[N,4] X) => (float[N,4] Y) <int64[1] target = {4}> { Y = Expand(X, target) }
)");
  ir::Value& target = *model->graph().findValue("target");
  onnx::TensorProto& proto = target.initializer()->mutableProto();
  proto.clear_int64_data();
  proto.set_raw_data(std::string(8, '\0'));
  proto.set_dims(0, (int64_t{1} << 61) + 1);  // times 8 wraps around to 8 bytes
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.constantInts(target), std::nullopt);
}


// ---- onnx-opt's own rules for the shape ops, at opsets 18 to 23 where libonnx knows nothing.

// The inferred shape of `name` in `text`'s model, as inferredTypeOf() gives it.
std::optional<Shape> inferredShape(ir::Model& model, const char* name) {
  ShapeOracle oracle(model);
  return oracle.inferredTypeOf(*model.graph().findValue(name)).shape();
}

TEST(ShapeRulesTest, ReduceAxesAsInputFromOpset18) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[2,3,4] X, int64[1] dynamic) => (float[2,1,4] A, float[2,4] B, float[1,1,1] C, float[2,3,4] D, float[2,3,4] E, float[?,?,?] F)
<int64[1] axes = {-2}, int64[0] empty = {}>
{
  A = ReduceMean(X, axes)
  B = ReduceMax<keepdims = 0>(X, axes)
  C = ReduceProd(X)
  D = ReduceMin<noop_with_empty_axes = 1>(X)
  E = ReduceL2<noop_with_empty_axes = 1>(X, empty)
  F = ReduceMean(X, dynamic)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "A"), shape({k(2), k(1), k(4)}));
  EXPECT_EQ(inferredShape(*model, "B"), shape({k(2), k(4)}));
  EXPECT_EQ(inferredShape(*model, "C"), shape({k(1), k(1), k(1)}));
  EXPECT_EQ(inferredShape(*model, "D"), shape({k(2), k(3), k(4)}));
  EXPECT_EQ(inferredShape(*model, "E"), shape({k(2), k(3), k(4)}));
  EXPECT_EQ(inferredShape(*model, "F"), shape({Dim::unknown(), Dim::unknown(), Dim::unknown()}))
      << "keepdims: the rank is known, the reduced axes are not";
}

TEST(ShapeRulesTest, ReduceAxesAttributeBeforeOpset18) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] X) => (float[2,4] A, float[1,3,1] B)
<int64[2] axes = {0, 2}>
{
  A = ReduceMean<axes = [1], keepdims = 0>(X)
  B = ReduceSum(X, axes)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "A"), shape({k(2), k(4)}));
  EXPECT_EQ(inferredShape(*model, "B"), shape({k(1), k(3), k(1)})) << "ReduceSum-13 takes an input";
}

TEST(ShapeRulesTest, SplitBySizesEvenlyAndNumOutputs) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[N,7] X, float[6] V) => (float[N,3] A, float[N,3] B, float[N,1] C, float[N,2] D, float[N,5] E, float[3] F, float[3] G)
<int64[2] sizes = {2, 5}>
{
  A, B, C = Split<axis = 1, num_outputs = 3>(X)
  D, E = Split<axis = -1>(X, sizes)
  F, G = Split<num_outputs = 2>(V)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "A"), shape({s("N"), k(3)}));
  EXPECT_EQ(inferredShape(*model, "C"), shape({s("N"), k(1)}));
  EXPECT_EQ(inferredShape(*model, "E"), shape({s("N"), k(5)}));
  EXPECT_EQ(inferredShape(*model, "G"), shape({k(3)}));
  auto old = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[6,7] X) => (float[3,7] A, float[3,7] B, float[?,?] C, float[?,?] D) {
  A, B = Split(X)
  C, D = Split<axis = 1>(X)
}
)");
  ASSERT_NE(old, nullptr);
  EXPECT_EQ(inferredShape(*old, "B"), shape({k(3), k(7)}));
  EXPECT_EQ(inferredShape(*old, "D"), shape({k(6), Dim::unknown()})) << "7 does not split evenly";
}

TEST(ShapeRulesTest, SplitNumOutputsOnlyWhereOnnxRuntimeCutsTheChunks) {
  // 6 in 4 parts would be 2+2+2+2, 1 in 2 parts a chunk of nothing: ONNX Runtime refuses both.
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[6] X, float[1] Y) => (float[?] A, float[?] B, float[?] C, float[?] D, float[?] E, float[?] F) {
  A, B, C, D = Split<num_outputs = 4>(X)
  E, F = Split<num_outputs = 2>(Y)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_FALSE(inferredShape(*model, "D").has_value());
  EXPECT_FALSE(inferredShape(*model, "F").has_value());
}

TEST(ShapeRulesTest, SplitChunkSizesAsOnnxRuntimeCutsThem) {
  EXPECT_EQ(splitChunkSizes(7, 3), (std::vector<int64_t>{3, 3, 1}));
  EXPECT_EQ(splitChunkSizes(7, 4), (std::vector<int64_t>{2, 2, 2, 1}));
  EXPECT_EQ(splitChunkSizes(6, 3), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(splitChunkSizes(6, 4), std::nullopt) << "2+2+2+2";
  EXPECT_EQ(splitChunkSizes(5, 4), std::nullopt) << "2+2+2+1";
  EXPECT_EQ(splitChunkSizes(1, 2), std::nullopt);
  EXPECT_EQ(splitChunkSizes(0, 1), std::nullopt);
  EXPECT_EQ(splitChunkSizes(3, 0), std::nullopt);
  // The chunk is computed in float: 2^24 + 1 halves to 2^23, and 2^23 + 1 misses the dim.
  EXPECT_EQ(splitChunkSizes((int64_t{1} << 24) + 1, 2), std::nullopt);
  EXPECT_EQ(splitChunkSizes((int64_t{1} << 24) + 2, 2),
            (std::vector<int64_t>{(int64_t{1} << 23) + 1, (int64_t{1} << 23) + 1}));
}

TEST(ShapeRulesTest, PadResizeSqueezeUnsqueezeAtNewOpsets) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 21]>
g (float[N,3,4] X, int64[2] dynamic) => (float[N,3,7] P, float[N,6,8] R, float[N,4] S, float[1,N,3,4] U, float[?,?,?] Q)
<int64[2] pads = {1, 2}, int64[1] axes = {2}, float[3] scales = {1.0, 2.0, 2.0}, int64[1] zero = {0}>
{
  P = Pad(X, pads, , axes)
  R = Resize(X, , scales)
  S = Squeeze(T, zero)
  T = Unsqueeze(X, zero)
  U = Identity(T)
  Q = Pad(X, dynamic, , axes)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "P"), shape({s("N"), k(3), k(7)}));
  EXPECT_EQ(inferredShape(*model, "R"), shape({s("N"), k(6), k(8)}));
  EXPECT_EQ(inferredShape(*model, "U"), shape({k(1), s("N"), k(3), k(4)}));
  EXPECT_EQ(inferredShape(*model, "S"), shape({s("N"), k(3), k(4)}));
  EXPECT_EQ(inferredShape(*model, "Q"), shape({s("N"), k(3), Dim::unknown()}));
}


// If-21 is unknown to libonnx 1.12: the If's outputs are what its branches' outputs agree on.
TEST(ShapeRulesTest, AnIfHasWhatItsBranchesAgreeOn) {
  auto model = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[N,4] X, float[N,8] W, bool C) => (float[?,?] Same, float[?,?] Differ, float[?,?,?] Rank)
<int64[1] zero = {0}> {
  Same, Differ, Rank = If(C) <
    then_branch = t () => (float[N,4] a, float[N,8] a2, float[1,N,4] a3) {
      a = Relu(X)
      a2 = Relu(W)
      a3 = Unsqueeze(X, zero)
    },
    else_branch = e () => (float[N,4] b, float[N,4] b2, float[N,4] b3) {
      b = Neg(X)
      b2 = Neg(X)
      b3 = Relu(X)
    }>
}
)");
  ASSERT_NE(model, nullptr);
  const ir::Graph& graph = model->graph();
  ShapeOracle oracle(*model);
  const ir::Value& same = *graph.findValue("Same");
  const ir::Value& differ = *graph.findValue("Differ");
  const ir::Type n_by_4 = ir::Type::tensor(onnx::TensorProto::FLOAT, shape({s("N"), k(4)}));
  EXPECT_EQ(oracle.typeOf(same), n_by_4);
  EXPECT_EQ(oracle.inferredTypeOf(same), n_by_4);
  EXPECT_EQ(oracle.typeOf(differ).shape(), shape({s("N"), Dim::unknown()}));
  EXPECT_EQ(oracle.inferredTypeOf(differ).shape(), shape({s("N"), Dim::unknown()}));
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Rank")),
            ir::Type::tensor(onnx::TensorProto::FLOAT))
      << "ranks 3 and 2: no shape";
}

// A Loop body's carried input is of the initial value's type when the body returns that type
// for it (induction), whatever its declaration says; one that grows each iteration keeps what
// the initial value and the first next value agree on; the Loop's carried outputs are of the
// type that holds in every iteration.
TEST(ShapeRulesTest, ALoopCarriesWhatItsBodyProvablyKeeps) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (int64 M, float[N,4] X) => (float[?,?] Kept, float[?,?] Grown) {
  Kept, Grown = Loop(M, , X, X) <body = b (int64 i, bool c, float[5,4] kept, float[N,4] grown)
                                      => (bool c_out, float[5,4] kept_out, float[N,4] grown_out) {
    c_out = Identity(c)
    kept_out = Relu(kept)
    grown_out = Concat<axis = 0>(grown, kept)
  }>
}
)");
  ASSERT_NE(model, nullptr);
  const ir::Graph& graph = model->graph();
  const ir::Graph& body = *graph.findValue("Kept")->producer()->attr("body")->graphs()[0];
  ShapeOracle oracle(*model);
  const ir::Type n_by_4 = ir::Type::tensor(onnx::TensorProto::FLOAT, shape({s("N"), k(4)}));
  const ir::Type some_by_4 =
      ir::Type::tensor(onnx::TensorProto::FLOAT, shape({Dim::unknown(), k(4)}));
  EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[2]), n_by_4) << "not the declared [5,4]";
  EXPECT_EQ(oracle.inferredTypeOf(*body.findValue("kept_out")), n_by_4);
  EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[3]), some_by_4);
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Kept")), n_by_4);
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Grown")), some_by_4);
}

// Forty carried values, each growing by the next one every iteration: proved all at once, in
// a few walks of the body (one at a time, each failed assumption redid the others': 2^40).
TEST(ShapeRulesTest, ManyCarriedValuesAreProvedTogether) {
  constexpr int kCarried = 40;
  std::string inputs, outputs, operands, results, nodes;
  for (int k = 0; k < kCarried; ++k) {
    absl::StrAppend(&inputs, ", float[2,2] v", k);
    absl::StrAppend(&outputs, ", float[2,2] n", k);
    absl::StrAppend(&operands, ", X");
    absl::StrAppend(&results, k == 0 ? "" : ", ", "Y", k);
    absl::StrAppend(&nodes, "n", k, " = Concat<axis = 0>(v", k, ", v", (k + 1) % kCarried, ")\n");
  }
  auto model = parseModel(absl::StrCat(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (int64 M, float[2,2] X) => ()", absl::StrReplaceAll(results, {{"Y", "float[?,?] Y"}}), R"() {
  )", results, " = Loop(M, ", operands, R"() <body = b (int64 i, bool c)", inputs,
                                       ") => (bool c_out", outputs, R"() {
    c_out = Identity(c)
    )", nodes, R"(  }>
}
)"));
  ASSERT_NE(model, nullptr);
  const ir::Graph& body = *model->graph().outputs()[0]->producer()->attr("body")->graphs()[0];
  ShapeOracle oracle(*model);
  const ir::Type some_by_2 =
      ir::Type::tensor(onnx::TensorProto::FLOAT, shape({Dim::unknown(), k(2)}));
  for (int k = 0; k < kCarried; ++k) {
    EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[2 + k]), some_by_2) << "v" << k;
  }
}

// A Scan body's states are proved as a Loop's carried values; its other inputs are one slice of
// each scanned operand, without the scan axis (negative from Scan-11); the final states are of
// the states' type, the scan outputs unknown.
TEST(ShapeRulesTest, AScanBodySeesItsStatesAndSlices) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[N,4] S0, float[T,N,3] Seq, float[N,T,5] Seq2) => (float[?,?] Final, float[?,?,?] Out) {
  Final, Out = Scan(S0, Seq, Seq2) <num_scan_inputs = 2, scan_input_axes = [0, -2],
      body = b (float[9,4] s, float[7,3] x, float[7,5] y) => (float[9,4] s_out, float[7,3] o) {
    s_out = Relu(s)
    o = Neg(x)
  }>
}
)");
  ASSERT_NE(model, nullptr);
  const ir::Graph& graph = model->graph();
  const ir::Graph& body = *graph.findValue("Final")->producer()->attr("body")->graphs()[0];
  ShapeOracle oracle(*model);
  const auto f32 = [](ir::Shape dims) { return ir::Type::tensor(onnx::TensorProto::FLOAT, dims); };
  EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[0]), f32(shape({s("N"), k(4)})));
  EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[1]), f32(shape({s("N"), k(3)})));
  EXPECT_EQ(oracle.inferredTypeOf(*body.inputs()[2]), f32(shape({s("N"), k(5)})));
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Final")), f32(shape({s("N"), k(4)})));
  EXPECT_FALSE(oracle.inferredTypeOf(*graph.findValue("Out")).shape());
}

// A scan output stacks what every iteration returns, along a dim of the iteration count, where
// the model fixes that count and it is not 0. After no iteration ONNX Runtime shapes it from its
// own inference, so elsewhere only the element type is known.
TEST(ShapeRulesTest, AScanOutputStacksWhatEveryIterationReturnsWhereTheCountIsFixed) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (int64 M, float[N,4] X, float[4,N,3] Seq) => (float[?,?,?] Fixed, float[?,?,?] Dynamic,
    float[?,?,?] Stops, float[?,?,?] Never, float[?,?,?] Scanned, float[?,?,?] ScannedLast)
    <int64 three = {3}, int64 zero = {0}, bool yes = {1}> {
  F, Fixed = Loop(three, yes, X) <body = b1 (int64 i, bool c, float[N,4] v) => (bool c_out, float[N,4] v_out, float[N,4] o) {
    c_out = Identity(c)
    v_out = Identity(v)
    o = Neg(v)
  }>
  D, Dynamic = Loop(M, , X) <body = b2 (int64 i, bool c, float[N,4] v) => (bool c_out, float[N,4] v_out, float[N,4] o) {
    c_out = Identity(c)
    v_out = Identity(v)
    o = Neg(v)
  }>
  S, Stops = Loop(three, , X) <body = b3 (int64 i, bool c, float[N,4] v) => (bool c_out, float[N,4] v_out, float[N,4] o) {
    c_out = Not(c)
    v_out = Identity(v)
    o = Neg(v)
  }>
  Z, Never = Loop(zero, , X) <body = b4 (int64 i, bool c, float[N,4] v) => (bool c_out, float[N,4] v_out, float[N,4] o) {
    c_out = Identity(c)
    v_out = Identity(v)
    o = Neg(v)
  }>
  Scanned, ScannedLast = Scan(Seq, Seq) <num_scan_inputs = 2, scan_output_axes = [0, -1],
      body = b5 (float[N,3] x, float[N,3] y) => (float[N,3] o, float[N,3] p) {
    o = Neg(x)
    p = Relu(y)
  }>
}
)");
  ASSERT_NE(model, nullptr);
  const ir::Graph& graph = model->graph();
  ShapeOracle oracle(*model);
  const auto f32 = [](ir::Shape dims) { return ir::Type::tensor(onnx::TensorProto::FLOAT, dims); };
  const ir::Type element_only = ir::Type::tensor(onnx::TensorProto::FLOAT);
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Fixed")), f32(shape({k(3), s("N"), k(4)})));
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Dynamic")), element_only) << "a trip count fed at run time";
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Stops")), element_only) << "a condition the body computes";
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Never")), element_only) << "no iteration";
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Scanned")), f32(shape({k(4), s("N"), k(3)})));
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("ScannedLast")), f32(shape({s("N"), k(3), k(4)})));
}

// A change in a branch may let the oracle know more about the If: forget() reaches it.
TEST(ShapeOracleTest, ForgetReachesTheIfWhoseBranchChanged) {
  auto model = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[2,3] X, int64[2] dynamic, bool C) => (float[?,?] Z) <int64[2] target = {3, 2}> {
  Z = If(C) <then_branch = t () => (float[?,?] a) { a = Reshape(X, dynamic) },
             else_branch = e () => (float[3,2] b) { b = Reshape(X, target) }>
}
)");
  ASSERT_NE(model, nullptr);
  ir::Graph& graph = model->graph();
  const ir::Value& z = *graph.findValue("Z");
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.typeOf(z).shape(), shape({Dim::unknown(), Dim::unknown()}));
  EXPECT_EQ(oracle.inferredTypeOf(z).shape(), shape({Dim::unknown(), Dim::unknown()}));
  ir::Node& reshape = *graph.firstNode()->attr("then_branch")->graphs().front()->firstNode();
  reshape.setInput(1, graph.findValue("target"));
  oracle.forget(reshape);
  EXPECT_EQ(oracle.typeOf(z).shape(), shape({k(3), k(2)}));
  EXPECT_EQ(oracle.inferredTypeOf(z).shape(), shape({k(3), k(2)}));
}

// Each If's type needs its branches' outputs, which read the If before it: resolved without
// recursion, as a chain of plain nodes is.
TEST(ShapeOracleTest, LongChainsOfIfsNeedNoRecursion) {
  constexpr int kIfs = 20000;
  std::string nodes;
  for (int i = 1; i <= kIfs; ++i) {
    absl::StrAppend(&nodes, "  v", i, " = If(C) <then_branch = t", i, " () => (float[N,4] a", i,
                    ") { a", i, " = Relu(v", i - 1, ") }, else_branch = e", i,
                    " () => (float[N,4] b", i, ") { b", i, " = Neg(v", i - 1, ") }>\n");
  }
  auto model = parseModel(absl::StrCat(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[N,4] v0, bool C) => (float[?,?] v)", kIfs, R"() {
)", nodes, "}\n"));
  ASSERT_NE(model, nullptr);
  const ir::Value& last = *model->graph().findValue(absl::StrCat("v", kIfs));
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.typeOf(last).shape(), shape({s("N"), k(4)}));
  EXPECT_EQ(oracle.inferredTypeOf(last).shape(), shape({s("N"), k(4)}));
}

// Range of int64 constants has its length; TopK has K along its axis and int64 indices; an
// Expand to an unknown target of known length has that rank, and the input's sizes other than 1.
// At opset 21 libonnx 1.12 knows no Identity: it has nothing to say downstream of one.
TEST(ShapeRulesTest, RangeTopKAndExpandToAnUnknownTarget) {
  auto model = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[N,4,1] X, int64 limit, int64[3] target) => (int64[?] Y)
<int64 zero = {0}, int64 ten = {10}, int64 three = {3}, int64 minus_three = {-3}, int64 one = {1},
 int64 big = {9223372036854775807}, int64 small = {-9223372036854775808}, int64[1] two = {2}> {
  up = Range(zero, ten, three)
  down = Range(ten, zero, minus_three)
  empty = Range(ten, zero, one)
  x = Identity(X)
  dynamic_limit = Identity(limit)
  dynamic = Range(zero, dynamic_limit, one)
  overflowing = Range(small, big, one)
  values, indices = TopK<axis = 1>(x, two)
  expanded = Expand(x, target)
  Y = Identity(up)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto type_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)); };
  using onnx::TensorProto;
  EXPECT_EQ(type_of("up"), ir::Type::tensor(TensorProto::INT64, shape({k(4)})));
  EXPECT_EQ(type_of("down").shape(), shape({k(4)}));
  EXPECT_EQ(type_of("empty").shape(), shape({k(0)}));
  EXPECT_EQ(type_of("dynamic").shape(), shape({Dim::unknown()}));
  EXPECT_EQ(type_of("overflowing").shape(), shape({Dim::unknown()})) << "2^64 - 1 elements";
  EXPECT_EQ(type_of("values"), ir::Type::tensor(TensorProto::FLOAT, shape({s("N"), k(2), k(1)})));
  EXPECT_EQ(type_of("indices"), ir::Type::tensor(TensorProto::INT64, shape({s("N"), k(2), k(1)})));
  EXPECT_EQ(type_of("expanded").shape(), shape({Dim::unknown(), k(4), Dim::unknown()}));
}

// NonMaxSuppression selects [boxes, 3] int64 indices; GatherND keeps the indices' dims but the
// last (k) and the data's after batch_dims + k. Downstream of an Identity at opset 21, as above.
TEST(ShapeRulesTest, NonMaxSuppressionAndGatherND) {
  auto model = parseModel(R"(
<ir_version: 10, opset_import: ["" : 21]>
g (float[1,N,4] boxes_in, float[1,1,N] scores, float[2,5,7] data_in, int64[3,2] pairs, int64[2,4,1] batched) => (int64[?,?] Y) {
  boxes = Identity(boxes_in)
  data = Identity(data_in)
  selected = NonMaxSuppression(boxes, scores)
  rows = GatherND(data, pairs)
  per_batch = GatherND<batch_dims = 1>(data, batched)
  Y = Identity(selected)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  auto type_of = [&](const char* name) { return oracle.typeOf(*model->graph().findValue(name)); };
  EXPECT_EQ(type_of("selected"),
            ir::Type::tensor(onnx::TensorProto::INT64, shape({Dim::unknown(), k(3)})));
  EXPECT_EQ(type_of("rows"), ir::Type::tensor(onnx::TensorProto::FLOAT, shape({k(3), k(7)})));
  EXPECT_EQ(type_of("per_batch").shape(), shape({k(2), k(4), k(7)}));
}

// TopK-1 takes K as an attribute.
TEST(ShapeRulesTest, TopKBeforeOpset10ReadsItsAttribute) {
  auto model = parseModel(R"(
<ir_version: 3, opset_import: ["" : 9]>
g (float[N,5] X) => (float[?,?] Y, int64[?,?] I) {
  values, indices = TopK<k = 3>(X)
  Y = Neg(values)
  I = Neg(indices)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const ir::Node& top_k = *model->graph().firstNode();
  EXPECT_EQ(oracle.typeOf(*top_k.output(0)).shape(), shape({s("N"), k(3)}));
  EXPECT_EQ(oracle.typeOf(*top_k.output(1)).elemType(), onnx::TensorProto::INT64);
}

// At opset 18 libonnx 1.12 knows no schema, so these answers are the local rules' alone.
TEST(ShapeRulesTest, OpsWhoseFirstOutputHasTheFirstInputsShape) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 18]>
g (float[N,3,4] X, int64[N,3,4] I, float[1,3,4] update) => (float[N,3,4] L, float[N,3,4] G, float[N,3,4] M, float[N,3,4] C, float[N,3,4] T, float[N,3,4] E, float[N,3,4] D)
<float[4] scale = {1.0, 1.0, 1.0, 1.0}, float[3] group_scale = {1.0, 1.0, 1.0}, int64 axis = {1}, int64[1,1] index = {0}>
{
  L = LayerNormalization(X, scale)
  G = GroupNormalization<num_groups = 3>(X, group_scale, group_scale)
  M = MeanVarianceNormalization(X)
  C = CumSum(X, axis)
  T = Trilu(X)
  E = ScatterElements(X, I, X)
  D = ScatterND(X, index, update)
}
)");
  ASSERT_NE(model, nullptr);
  for (const char* name : {"L", "G", "M", "C", "T", "E", "D"}) {
    EXPECT_EQ(inferredShape(*model, name), shape({s("N"), k(3), k(4)})) << name;
  }
}

// For an empty axes list, input or attribute, ONNX Runtime's kernel squeezes every dim of 1 and
// libonnx 1.12 (by which ONNX Runtime's optimizer folds shapes) squeezes none: the output's
// shape is not known, and neither libonnx's answer nor what it infers downstream is taken.
TEST(ShapeRulesTest, SqueezeWithEmptyAxesHasNoKnownShape) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,3,1] X) => (float[?] Y) <int64[0] e = {}> {
  q = Squeeze(X, e)
  Y = Neg(q)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "Y"), std::nullopt);
  ShapeOracle oracle(*model);
  EXPECT_EQ(oracle.typeOf(*model->graph().findValue("Y")).shape(), std::nullopt);
  EXPECT_EQ(oracle.typeOf(*model->graph().findValue("Y")).elemType(), onnx::TensorProto::FLOAT);

  auto attribute_form = parseModel(R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[1,3,1] X) => (float[?] Y) {
  q = Squeeze<axes = [0]>(X)
  Y = Neg(q)
}
)");
  ASSERT_NE(attribute_form, nullptr);
  attribute_form->graph().firstNode()->setAttr(ir::Attribute::makeInts("axes", {}));
  EXPECT_EQ(inferredShape(*attribute_form, "Y"), std::nullopt);
}

// A pool with ceil_mode, where libonnx 1.12 keeps a window ONNX Runtime drops: what libonnx
// infers downstream of it (the Relu) is not taken either.
TEST(ShapeOracleTest, OnnxInferenceDownstreamOfASizeItGetsWrongIsNotTaken) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,1,5,5] X) => (float[?,?,?,?] Y) {
  P = MaxPool<kernel_shape = [2, 2], strides = [2, 2], pads = [1, 1, 1, 1], ceil_mode = 1>(X)
  Y = Relu(P)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const std::optional<Shape>& y = oracle.typeOf(*model->graph().findValue("Y")).shape();
  EXPECT_TRUE(!y || (y->size() == 4 && !(*y)[2].isKnown())) << "libonnx says 4, ONNX Runtime 3";
}

TEST(ShapeRulesTest, ResizeDeclinesWhereFloatAndExactArithmeticDisagree) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 19]>
g (float[1,1,10,3] X) => (float[?,?,?,?] R, float[?,?,?,?] S)
<float[4] scales = {1.0, 1.0, 0.7, 1.0}, int64[4] sizes = {1, 1, 5, 9}>
{
  R = Resize(X, , scales)
  S = Resize(X, , , sizes)
}
)");
  ASSERT_NE(model, nullptr);
  // 10 * 0.7 is 7 exactly, but 0.7f is a little less than 0.7, and float gives 6.9999995.
  EXPECT_EQ(inferredShape(*model, "R"), shape({k(1), k(1), Dim::unknown(), k(3)}));
  EXPECT_EQ(inferredShape(*model, "S"), shape({k(1), k(1), k(5), k(9)}));
}

TEST(ShapeRulesTest, ShapeSizeConcatGatherSliceTileConstantOfShape) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 19]>
g (float[N,3,4] X) => (int64[2] A, int64 B, float[N,3,8] C, float[N,2,4] D, float[N,1,4] E, float[N,6,4] F, float[2,3] G)
<int64[2] two = {0, 2}, int64[1] starts = {-1}, int64[1] ends = {-100}, int64[1] axes = {1}, int64[1] steps = {-5},
 int64[3] repeats = {1, 2, 1}, int64[2] dims = {2, 3}>
{
  A = Shape<start = -2>(X)
  B = Size(X)
  C = Concat<axis = -1>(X, X)
  D = Gather<axis = 1>(X, two)
  E = Slice(X, starts, ends, axes, steps)
  F = Tile(X, repeats)
  G = ConstantOfShape(dims)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "A"), shape({k(2)}));
  EXPECT_EQ(inferredShape(*model, "B"), shape({}));
  EXPECT_EQ(inferredShape(*model, "C"), shape({s("N"), k(3), k(8)}));
  EXPECT_EQ(inferredShape(*model, "D"), shape({s("N"), k(2), k(4)}));
  EXPECT_EQ(inferredShape(*model, "E"), shape({s("N"), k(1), k(4)}));
  EXPECT_EQ(inferredShape(*model, "F"), shape({s("N"), k(6), k(4)}));
  EXPECT_EQ(inferredShape(*model, "G"), shape({k(2), k(3)}));
}

// Bounds fed at run time (here an initializer that is also a graph input) leave the dims of the
// axes a Slice cuts unknown, and only those; unknown axes leave every dim unknown.
TEST(ShapeRulesTest, ASliceOfUnknownBoundsKeepsTheDimsItDoesNotCut) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 16]>
g (float[N,3,4] X, int64[1] ends, int64[1] fed_axes) => (float[?,?,?] Cut, float[?,?,?] Any)
<int64[1] starts = {0}, int64[1] axes = {-2}>
{
  Cut = Slice(X, starts, ends, axes)
  Any = Slice(X, starts, ends, fed_axes)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "Cut"), shape({s("N"), Dim::unknown(), k(4)}));
  EXPECT_EQ(inferredShape(*model, "Any"), shape({Dim::unknown(), Dim::unknown(), Dim::unknown()}));
}

// Einsum: a label of size 1 broadcasts against another size, as ONNX Runtime's kernel does
// (libonnx 1.12 takes the first operand's), the ellipsis dims broadcast, and the implicit
// output is the ellipsis and the labels seen once, in alphabetical order.
TEST(ShapeRulesTest, EinsumBroadcastsLabelsOfSizeOne) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 15]>
g (float[1,1,2] A, float[2,2,3] B, float[N,1,4,5] C, float[3,5,6] D, float[2,?] E)
    => (float[?,?,?] Batched, float[?,?,?,?] Ellipsis, float[?,?] Implicit, float[?] Unknown) {
  Batched = Einsum<equation = "bij,bjk->bik">(A, B)
  Ellipsis = Einsum<equation = "...ij,...jk">(C, D)
  Implicit = Einsum<equation = "ji">(E)
  Unknown = Einsum<equation = "ij->i">(E)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "Batched"), shape({k(2), k(1), k(3)}));
  EXPECT_EQ(inferredShape(*model, "Ellipsis"), shape({s("N"), k(3), k(4), k(6)}));
  EXPECT_EQ(inferredShape(*model, "Implicit"), shape({Dim::unknown(), k(2)}));
  EXPECT_EQ(inferredShape(*model, "Unknown"), shape({k(2)}));
}

// Found by eval_fuzzer: Flatten multiplied dims without checking for overflow (there, two dims of
// -2^63 from an Expand). At opset 23, where libonnx's Flatten rule does not apply.
TEST(ShapeRulesTest, FlattenOfDimsWhoseProductOverflowsIsUnknown) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 23]>
g (float[4294967296,4294967296,4] X) => (float[?,?] F, float[?,?] G) {
  F = Flatten<axis = 0>(X)
  G = Flatten<axis = 2>(X)
}
)");
  ASSERT_NE(model, nullptr);
  EXPECT_EQ(inferredShape(*model, "F"), shape({k(1), Dim::unknown()}));
  EXPECT_EQ(inferredShape(*model, "G"), shape({Dim::unknown(), k(4)}));
}

// Declarations of intermediate values are not believed, nor anything after another domain's op.
TEST(ShapeRulesTest, InferredTypesIgnoreDeclarationsAndOtherDomains) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
g (float[2,3] X) => (float[9,9] Y, float[2,3] Z)
<float[5,5] A, float[2,3] C>
{
  A = Relu(X)
  Y = Identity(A)
  C = com.example.Op(X)
  Z = Relu(C)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const ir::Graph& graph = model->graph();
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("A")).shape(), shape({k(2), k(3)}));
  EXPECT_EQ(oracle.inferredTypeOf(*graph.findValue("Y")).shape(), shape({k(2), k(3)}));
  EXPECT_FALSE(oracle.inferredTypeOf(*graph.findValue("C")).shape().has_value());
  EXPECT_FALSE(oracle.inferredTypeOf(*graph.findValue("Z")).shape().has_value());
}

// A stale declaration (an edit of the graph left value_info behind) does not override what the
// local rules or, for an op without one, ONNX's inference derive from the inputs, down a chain of
// such declarations; ONNX Runtime runs the model with the real sizes. A declaration still fills
// in what neither can know, and stands over what is derived from another declaration.
TEST(ShapeRulesTest, DerivedShapesStandOverStaleDeclarations) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
g (float[1,3] X, float[2,3] W) => (float[2,3] Y, float[4,N] Z, float[3,2] U, float[4,5] V)
<float[2,3] A, float[2,3] B, float[4,N] C, float[3,2] T, float[4,5] R, int64[1] two = {2}>
{
  A = Relu(X)
  B = Sigmoid(A)
  Y = Identity(B)
  C = com.example.Op(X)
  Z = Relu(C)
  T, I = TopK<axis = 0>(W, two)
  U = Identity(T)
  R = Sigmoid(C)
  V = Neg(R)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const ir::Graph& graph = model->graph();
  for (const char* name : {"A", "B", "Y"}) {
    EXPECT_EQ(oracle.typeOf(*graph.findValue(name)).shape(), shape({k(1), k(3)})) << name;
  }
  EXPECT_EQ(oracle.typeOf(*graph.findValue("C")).shape(), shape({k(4), s("N")}));
  EXPECT_EQ(oracle.typeOf(*graph.findValue("Z")).shape(), shape({k(4), s("N")}));
  EXPECT_EQ(oracle.typeOf(*graph.findValue("T")).shape(), shape({k(2), k(3)}));
  EXPECT_EQ(oracle.typeOf(*graph.findValue("U")).shape(), shape({k(2), k(3)}));
  EXPECT_EQ(oracle.typeOf(*graph.findValue("R")).shape(), shape({k(4), k(5)}));
}

// A declaration that only names a dim the inputs leave unnamed (ONNX's inference writes unk__0)
// adds no size: the sizes derived downstream of it still stand over stale declarations.
TEST(ShapeRulesTest, ANameForAnUnnamedDimLeavesDerivedSizesStanding) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[?,1] X) => (float[unk__0,2] Y)
<float[unk__0,1] A, float[unk__0,2] B>
{
  A = Relu(X)
  B = Sigmoid(A)
  Y = Neg(B)
}
)");
  ASSERT_NE(model, nullptr);
  ShapeOracle oracle(*model);
  const ir::Graph& graph = model->graph();
  for (const char* name : {"A", "B", "Y"}) {
    EXPECT_EQ(oracle.typeOf(*graph.findValue(name)).shape(), shape({s("unk__0"), k(1)})) << name;
  }
}

TEST(ShapeRulesTest, SliceRangeClampsAsTheSpecSays) {
  EXPECT_EQ(sliceRange(5, 1, std::numeric_limits<int64_t>::max(), 1)->count, 4);
  EXPECT_EQ(sliceRange(5, -1, std::numeric_limits<int64_t>::min(), -1)->count, 5);
  EXPECT_EQ(sliceRange(5, -1, std::numeric_limits<int64_t>::min(), -1)->first, 4);
  EXPECT_EQ(sliceRange(5, 0, 5, std::numeric_limits<int64_t>::min())->count, 0);
  EXPECT_EQ(sliceRange(5, 4, 0, std::numeric_limits<int64_t>::min())->count, 1);
  EXPECT_EQ(sliceRange(5, 0, 5, 2)->count, 3);
  EXPECT_EQ(sliceRange(0, -1, 0, -1)->count, 0);
  EXPECT_FALSE(sliceRange(5, 0, 5, 0).has_value());
}

// ONNX Runtime's kernel reads an end of INT32_MAX or INT64_MAX as no end, also backwards, where
// the spec would clamp it to dim - 1 (nothing taken); INT32_MAX - 1 is an ordinary end.
TEST(ShapeRulesTest, SliceRangeRunsAnOpenEndBackwardsToTheFirstElement) {
  for (const int64_t open : {int64_t{std::numeric_limits<int32_t>::max()},
                             std::numeric_limits<int64_t>::max()}) {
    EXPECT_EQ(sliceRange(5, 3, open, -1)->count, 4) << open;
    EXPECT_EQ(sliceRange(5, 3, open, -1)->first, 3) << open;
    EXPECT_EQ(sliceRange(5, 3, open, -2)->count, 2) << open;
    EXPECT_EQ(sliceRange(5, 3, open, 1)->count, 2) << open;
  }
  EXPECT_EQ(sliceRange(5, 3, std::numeric_limits<int32_t>::max() - 1, -1)->count, 0);
}

// Three chained Ifs, with c and x known around the first, y0 and then y1 too around the next:
// libonnx would copy 2, 3 and 4 outer types per branch, 4, 6 and 8 in all. A budget of 10 skips
// the third If, whose output libonnx then leaves untyped (error mode 0 ignores the failed
// inference), while it still types the outputs of the other two.
TEST(OnnxInferenceTest, SubgraphsPastTheCopyBudgetAreNotInferred) {
  onnx::ModelProto model = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
ifs (bool c, float[3] x) => (float[3] y2) {
  y0 = If(c) <then_branch = t0 () => (float[3] a0) { a0 = Neg(x) },
              else_branch = e0 () => (float[3] b0) { b0 = Abs(x) }>
  y1 = If(c) <then_branch = t1 () => (float[3] a1) { a1 = Neg(y0) },
              else_branch = e1 () => (float[3] b1) { b1 = Abs(y0) }>
  y2 = If(c) <then_branch = t2 () => (float[3] a2) { a2 = Neg(y1) },
              else_branch = e2 () => (float[3] b2) { b2 = Abs(y1) }>
}
)");
  for (onnx::ValueInfoProto& output : *model.mutable_graph()->mutable_output()) output.clear_type();
  EXPECT_EQ(detail::skipSubgraphInferencePast(*model.mutable_graph(), 10), 1u);
  const onnx::NodeProto& skipped = model.graph().node(2);
  EXPECT_EQ(skipped.attribute(0).name(), "then_branch.not_inferred");
  EXPECT_EQ(skipped.attribute(0).g().node_size(), 0);
  EXPECT_EQ(model.graph().node(1).attribute(0).name(), "then_branch");
  EXPECT_EQ(model.graph().node(1).attribute(0).g().node_size(), 1);

  detail::inferShapesGuarded(model, {/*check_type=*/false, /*error_mode=*/0,
                                     /*enable_data_propagation=*/false});
  std::vector<std::string> typed;
  for (const onnx::ValueInfoProto& info : model.graph().value_info()) {
    if (info.type().tensor_type().has_shape()) typed.push_back(info.name());
  }
  EXPECT_EQ(typed, (std::vector<std::string>{"y0", "y1"}));
  EXPECT_FALSE(model.graph().output(0).type().tensor_type().has_shape());
}

// Nested subgraphs count against the same budget, with the types of every scope around them.
TEST(OnnxInferenceTest, NestedSubgraphsCountTheTypesOfEveryEnclosingScope) {
  onnx::ModelProto model = testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
nested (bool c, float[3] x) => (float[3] y) {
  y = If(c) <then_branch = t () => (float[3] a) {
                 a = If(c) <then_branch = tt () => (float[3] p) { p = Neg(x) },
                            else_branch = te () => (float[3] q) { q = Abs(x) }> },
             else_branch = e () => (float[3] b) { b = Abs(x) }>
}
)");
  // The outer If's two branches copy 2 types each (c, x), and so do the inner If's.
  onnx::ModelProto enough = model;
  EXPECT_EQ(detail::skipSubgraphInferencePast(*enough.mutable_graph(), 8), 0u);
  EXPECT_EQ(detail::skipSubgraphInferencePast(*model.mutable_graph(), 7), 1u);
  EXPECT_EQ(model.graph().node(0).attribute(0).g().node(0).attribute(0).name(),
            "then_branch.not_inferred");
}

}  // namespace
}  // namespace onnxopt
