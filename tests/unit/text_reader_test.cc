// onnx-opt's text reader: each form the printer writes reads back to what was printed, and bad
// text is an error naming its line and column. The corpus-wide round trip is in
// tests/roundtrip/text_reader_roundtrip_test.cc.

#include "onnxopt/ir/text_reader.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/printer.h"

namespace onnxopt::ir {
namespace {

onnx::ModelProto read(const std::string& text) {
  absl::StatusOr<onnx::ModelProto> model = readModelText(text);
  EXPECT_TRUE(model.ok()) << model.status() << "\nin:\n" << text;
  return model.ok() ? *std::move(model) : onnx::ModelProto();
}

// Reads `text`, and checks that the model prints back to it.
onnx::ModelProto readCanonical(const std::string& text) {
  onnx::ModelProto model = read(text);
  PrintOptions full;
  full.max_initializer_elements = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(printModel(model, full), text);
  return model;
}

std::string readError(const std::string& text) {
  absl::StatusOr<onnx::ModelProto> model = readModelText(text);
  EXPECT_FALSE(model.ok()) << "read without error:\n" << text;
  if (model.ok()) return "";
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(model.status().message());
}

template <typename T>
T rawElement(const onnx::TensorProto& tensor, int index) {
  T value;
  std::memcpy(&value, tensor.raw_data().data() + index * sizeof(T), sizeof(T));
  return value;
}

TEST(TextReaderTest, QuotedNamesOfTorchExports) {
  const onnx::ModelProto model = readCanonical(R"(<ir_version: 8, opset_import: ["" : 13]>
"torch-jit-export" (float["batch size",3] "input.1") => (float[?,2] "/0/Gemm_output_0") <
  float[2,3] "0.weight" = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0},
  float[?,2] "with \"quotes\" and \\"
> {
  "/0/Gemm_output_0" = Gemm<transB = 1>("input.1", "0.weight")  # /0/Gemm
}
)");
  const onnx::GraphProto& graph = model.graph();
  EXPECT_EQ(graph.name(), "torch-jit-export");
  EXPECT_EQ(graph.input(0).name(), "input.1");
  EXPECT_EQ(graph.input(0).type().tensor_type().shape().dim(0).dim_param(), "batch size");
  EXPECT_FALSE(graph.output(0).type().tensor_type().shape().dim(0).has_dim_value());
  EXPECT_FALSE(graph.output(0).type().tensor_type().shape().dim(0).has_dim_param());
  EXPECT_EQ(graph.initializer(0).name(), "0.weight");
  EXPECT_EQ(rawElement<float>(graph.initializer(0), 5), 6.0f);
  EXPECT_EQ(graph.value_info(0).name(), "with \"quotes\" and \\");
  EXPECT_EQ(graph.node(0).name(), "/0/Gemm");
  EXPECT_EQ(graph.node(0).input(1), "0.weight");
}

TEST(TextReaderTest, EveryElementTypeReadsBackItsValues) {
  const onnx::ModelProto model = readCanonical(R"(<ir_version: 8, opset_import: ["" : 13]>
types () => () <
  float[3] f = {-0.0, nan(0x7fc00001), -inf},
  double[2] d = {0.1, -nan},
  int8[2] i8 = {-128, 127},
  int16[1] i16 = {-32768},
  int32[1] i32 = {-2147483648},
  int64[1] i64 = {-9223372036854775808},
  uint8[1] u8 = {255},
  uint16[1] u16 = {65535},
  uint32[1] u32 = {4294967295},
  uint64[1] u64 = {18446744073709551615},
  bool[2] b = {1, 0},
  float16[1] h = {15360},
  bfloat16[1] bf = {16256},
  complex64[1] c = {1.0, -2.0},
  string[2] s = {"a\nb", ""},
  float scalar = {7.0},
  float[0] empty = {}
> {
}
)");
  const auto& t = model.graph().initializer();
  const float f1 = rawElement<float>(t[0], 1);
  uint32_t bits;
  std::memcpy(&bits, &f1, sizeof bits);
  EXPECT_EQ(bits, 0x7fc00001u);
  EXPECT_TRUE(std::signbit(rawElement<float>(t[0], 0)));
  EXPECT_TRUE(std::signbit(rawElement<double>(t[1], 1)) && std::isnan(rawElement<double>(t[1], 1)));
  EXPECT_EQ(rawElement<int8_t>(t[2], 0), -128);
  EXPECT_EQ(rawElement<int64_t>(t[5], 0), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(rawElement<uint64_t>(t[9], 0), std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(rawElement<uint16_t>(t[11], 0), 15360);  // float16 1.0
  EXPECT_EQ(t[13].raw_data().size(), 8u);
  EXPECT_EQ(t[14].string_data(0), "a\nb");
  EXPECT_EQ(t[15].dims_size(), 0);
}

TEST(TextReaderTest, AttributesOfEveryKind) {
  const onnx::ModelProto model = readCanonical(R"(<ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
attrs (float[2] X, bool c) => (float[2] Y) {
  Y = com.example.Custom<f = 1.0, g = nan, i = -7, s = "x", t = float[2] {1.5, -2.0}, named = int64[1] weights {3}, tp = seq(optional(map(int64, float[]))), fs = [1.0, 2.5], is = [1, -2], ss = ["a", "b c"], ts = [float {1.0}], tps = [float, int64[N]], empty: floats = [], ref: int = @outer, untyped = ?, then_branch = then_graph () => (float[2] T) {
    T = Identity(X)
  }, gs = [(float a) => (float b) {
    b = Neg(a)
  }]>(X, , c, )  # node\twith\ttabs
}
)");
  const onnx::NodeProto& node = model.graph().node(0);
  EXPECT_EQ(node.domain(), "com.example");
  EXPECT_EQ(node.name(), "node\twith\ttabs");
  ASSERT_EQ(node.input_size(), 4);
  EXPECT_EQ(node.input(1), "");
  EXPECT_EQ(node.input(3), "");
  using A = onnx::AttributeProto;
  const A::AttributeType expected[] = {A::FLOAT, A::FLOAT, A::INT, A::STRING, A::TENSOR,
                                       A::TENSOR, A::TYPE_PROTO, A::FLOATS, A::INTS, A::STRINGS,
                                       A::TENSORS, A::TYPE_PROTOS, A::FLOATS, A::INT,
                                       A::UNDEFINED, A::GRAPH, A::GRAPHS};
  ASSERT_EQ(node.attribute_size(), static_cast<int>(std::size(expected)));
  for (int i = 0; i < node.attribute_size(); ++i) {
    EXPECT_EQ(node.attribute(i).type(), expected[i]) << node.attribute(i).name();
  }
  EXPECT_EQ(node.attribute(5).t().name(), "weights");
  EXPECT_EQ(node.attribute(13).ref_attr_name(), "outer");
  EXPECT_EQ(node.attribute(15).g().name(), "then_graph");
  EXPECT_EQ(node.attribute(16).graphs(0).name(), "");
  EXPECT_FALSE(node.attribute(6).tp().sequence_type().elem_type().optional_type().elem_type()
                   .map_type().value_type().tensor_type().has_shape());
}

TEST(TextReaderTest, HeaderFunctionsAndExternalData) {
  const onnx::ModelProto model = readCanonical(R"(<ir_version: 8, opset_import: ["" : 13, "local" : 1], producer_name: "pytorch", producer_version: "1.13", domain: "ai.example", model_version: 3, doc_string: "two\nlines", metadata_props: ["k" : "v"]>
uses (float[2] X) => (float[2] Y) <
  float[1000] w = external ["location" : "weights.bin", "offset" : "0", "length" : "4000"]
> {
  Y = local.Scale<factor = 3.0>(X)
  = my.domain."odd op"(Y)
  = "ai.onnx-ml".Op(Y)
}

<domain: "local", opset_import: ["" : 13], doc_string: "scales">
Scale<factor>(x) => (y) {
  factor_value = Constant<value_float: float = @factor>()
  y = Mul(x, factor_value)
}
)");
  EXPECT_EQ(model.doc_string(), "two\nlines");
  EXPECT_EQ(model.model_version(), 3);
  EXPECT_EQ(model.metadata_props(0).value(), "v");
  const onnx::TensorProto& w = model.graph().initializer(0);
  EXPECT_EQ(w.data_location(), onnx::TensorProto::EXTERNAL);
  ASSERT_EQ(w.external_data_size(), 3);
  EXPECT_EQ(w.external_data(0).value(), "weights.bin");
  EXPECT_EQ(model.graph().node(1).domain(), "my.domain");
  EXPECT_EQ(model.graph().node(1).op_type(), "odd op");
  EXPECT_EQ(model.graph().node(1).output_size(), 0);
  EXPECT_EQ(model.graph().node(2).domain(), "ai.onnx-ml");
  ASSERT_EQ(model.functions_size(), 1);
  EXPECT_EQ(model.functions(0).attribute(0), "factor");
}

TEST(TextReaderTest, SummarisedTensorIsAnErrorSayingHowToPrintIt) {
  const std::string message = readError(R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[100] X) => (float[100] Y) <
  float[100] big = {...}
> {
  Y = Add(X, big)
}
)");
  EXPECT_TRUE(absl::StartsWith(message, "line 3, column 20: ")) << message;
  EXPECT_TRUE(absl::StrContains(message, "'big'")) << message;
  EXPECT_TRUE(absl::StrContains(message, "--emit=text-full")) << message;
  EXPECT_TRUE(absl::StrContains(readError(R"(g () => () {
  Y = Constant<value = float[100] {...}>()
}
)"), "without full initializers"));
}

TEST(TextReaderTest, EveryKindOfTypeReadsBack) {
  const onnx::ModelProto model = readCanonical(R"(<ir_version: 8, opset_import: ["" : 13]>
types () => () <
  seq(float[2]) s,
  optional(seq(int64[N])) o,
  map(int64, float[]) m,
  sparse_tensor(float[3,4]) sp,
  sparse_tensor(double[]) spu
> {
}
)");
  const auto& infos = model.graph().value_info();
  ASSERT_EQ(infos.size(), 5);
  EXPECT_EQ(infos[0].type().sequence_type().elem_type().tensor_type().shape().dim(0).dim_value(), 2);
  EXPECT_EQ(infos[1]
                .type()
                .optional_type()
                .elem_type()
                .sequence_type()
                .elem_type()
                .tensor_type()
                .shape()
                .dim(0)
                .dim_param(),
            "N");
  EXPECT_EQ(infos[2].type().map_type().key_type(), onnx::TensorProto::INT64);
  EXPECT_FALSE(infos[2].type().map_type().value_type().tensor_type().has_shape());
  const onnx::TypeProto::SparseTensor& sparse = infos[3].type().sparse_tensor_type();
  EXPECT_EQ(sparse.elem_type(), onnx::TensorProto::FLOAT);
  ASSERT_EQ(sparse.shape().dim_size(), 2);
  EXPECT_EQ(sparse.shape().dim(1).dim_value(), 4);
  EXPECT_EQ(infos[4].type().sparse_tensor_type().elem_type(), onnx::TensorProto::DOUBLE);
  EXPECT_FALSE(infos[4].type().sparse_tensor_type().has_shape());
  EXPECT_EQ(readError("g (sparse_tensor(seq(float)) x) => () {}"),
            "line 1, column 18: expected an element type, found 'seq'");
}

TEST(TextReaderTest, ErrorsNameLineColumnAndWhat) {
  EXPECT_EQ(readError("g (float[2] X) => (float[2] Y) {\n  Y = Relu(X\n}\n"),
            "line 3, column 1: expected ')' to close the list of names, found '}'");
  EXPECT_EQ(readError("g (float[2] X) => (float[2] Y) <float[2] w = {1.0}> {\n}\n"),
            "line 1, column 46: tensor 'w' has 1 values where its type holds 2");
  EXPECT_EQ(readError("g () => () <int8[1] w = {128}> {\n}\n"),
            "line 1, column 26: the value is out of range for the tensor's element type");
  EXPECT_EQ(readError("g () => () {\n  Y = Op<a = [1, 2.0]>()\n}\n"),
            "line 2, column 18: the elements of a list attribute must be of one kind");
  EXPECT_EQ(readError("g () => () {\n  Y = Op<a = []>()\n}\n"),
            "line 2, column 14: an empty list needs its type ('name: ints = []')");
  EXPECT_EQ(readError("g () => () {\n  Y = Op<s = \"open>()\n}\n"),
            "line 2, column 14: unterminated string literal");
  EXPECT_EQ(readError("<ir_version: 8, opset: []>\ng () => () {}\n"),
            "line 1, column 17: unknown model header key 'opset'");
  EXPECT_EQ(readError("g (float[2] X) => (float[2] Y) {\n  Y = Relu(X)\n"),
            "line 3, column 1: expected '}' to close the list of nodes, found the end of the text");
  EXPECT_EQ(readError("g () => () {} trailing"),  // taken for a function's name
            "line 1, column 23: expected '(' to open the function's inputs, found the end of the text");
}

TEST(TextReaderTest, DeepNestingIsAnErrorNotACrash) {
  std::string text = "g () => () {\n";
  std::string close;
  for (int i = 0; i < 300; ++i) {
    text += "Y = If<then_branch = (float a) => (float b) {\n";
    close += "}>(c)\n";
  }
  text += close + "}\n";
  EXPECT_TRUE(absl::StrContains(readError(text), "graphs nested too deeply"));
  std::string type = "float";
  for (int i = 0; i < 300; ++i) type = "seq(" + type + ")";
  EXPECT_TRUE(absl::StrContains(readError("g (" + type + " x) => () {}"), "types nested too deeply"));
}

TEST(TextReaderTest, LoadsATextFileWithExternalDataBesideIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("text_reader_test_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const float weights[2] = {1.5f, -2.0f};
  {
    std::ofstream data(dir / "w.bin", std::ios::binary);
    data.write(reinterpret_cast<const char*>(weights), sizeof weights);
    std::ofstream text(dir / "m.onnxtxt");
    text << R"(<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <
  float[2] w = external ["location" : "w.bin"]
> {
  Y = Add(X, w)
}
)";
  }
  LoadOptions options;
  options.load_external_data = true;
  absl::StatusOr<std::unique_ptr<Model>> model =
      loadModelFromTextFile((dir / "m.onnxtxt").string(), options);
  ASSERT_TRUE(model.ok()) << model.status();
  PrintOptions full;
  EXPECT_TRUE(absl::StrContains(printModel(**model, full), "float[2] w = {1.5, -2.0}"))
      << printModel(**model, full);

  absl::StatusOr<std::unique_ptr<Model>> missing =
      loadModelFromTextFile((dir / "missing.onnxtxt").string());
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(absl::StrContains(missing.status().message(), "missing.onnxtxt: cannot open"))
      << missing.status();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace onnxopt::ir
