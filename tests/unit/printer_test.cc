#include "onnxopt/ir/printer.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnx/onnx_pb.h"
#include "onnxopt/ir/serialization.h"

namespace onnxopt::ir {
namespace {

onnx::ModelProto parse(const std::string& text) {
  onnx::ModelProto model;
  const onnx::Common::Status status = onnx::OnnxParser::Parse(model, text.c_str());
  EXPECT_TRUE(status.IsOK()) << status.ErrorMessage() << "\nin:\n" << text;
  return model;
}

// parse(print(model)) must equal `model`. The parser sets some fields to their default value
// where a model leaves them unset (a node's domain "", an attribute tensor's name ""), and ONNX
// gives field presence no meaning, so protobuf's EQUIVALENT comparison (unset equals default)
// is the whole normalisation here: these models hold tensor elements in typed fields, as the
// parser does. EQUIVALENT would also equate an unknown dim with dim_value 0 (a oneof), which
// UnknownAndZeroDimsStayDistinct checks by hand. The corpus test
// (tests/roundtrip/text_roundtrip_test.cc) normalises raw_data too.
void expectRoundTrips(const onnx::ModelProto& model) {
  const std::string text = printModel(model);
  const onnx::ModelProto parsed = parse(text);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_message_field_comparison(
      google::protobuf::util::MessageDifferencer::EQUIVALENT);
  std::string differences;
  differencer.ReportDifferencesToString(&differences);
  EXPECT_TRUE(differencer.Compare(model, parsed)) << differences << "\nin:\n" << text;
}

// Text in the printer's own layout must print back unchanged after a parse, and its model
// round-trip.
void expectCanonical(const std::string& text) {
  const onnx::ModelProto model = parse(text);
  EXPECT_EQ(printModel(model), text);
  expectRoundTrips(model);
}

onnx::ValueInfoProto* addFloatValue(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list,
                                    const std::string& name, std::vector<int64_t> dims) {
  onnx::ValueInfoProto* value = list->Add();
  value->set_name(name);
  auto* tensor_type = value->mutable_type()->mutable_tensor_type();
  tensor_type->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) tensor_type->mutable_shape()->add_dim()->set_dim_value(dim);
  return value;
}

// X -> Relu -> Y, the smallest model the tests below decorate.
onnx::ModelProto reluModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  onnx::OperatorSetIdProto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("relu");
  addFloatValue(graph->mutable_input(), "X", {2});
  addFloatValue(graph->mutable_output(), "Y", {2});
  onnx::NodeProto* node = graph->add_node();
  node->set_op_type("Relu");
  node->add_input("X");
  node->add_output("Y");
  return model;
}

onnx::TensorProto floatTensor(const std::string& name, std::vector<int64_t> dims,
                              const std::vector<float>& values) {
  onnx::TensorProto tensor;
  tensor.set_name(name);
  tensor.set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t dim : dims) tensor.add_dims(dim);
  for (float value : values) tensor.add_float_data(value);
  return tensor;
}

TEST(PrinterTest, HeaderHoldsEveryModelField) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13, "com.example" : 2], producer_name: "unit test", producer_version: "1.0", domain: "org.example", model_version: 3, doc_string: "a model", metadata_props: ["author" : "me", "license" : "none"]>
main (float[2] X) => (float[2] Y) {
  Y = Relu(X)
}
)");
}

TEST(PrinterTest, TypesWithSymbolicUnknownAndNoDims) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13]>
types (float[N,?,3] X, int64 scalar, double[] unranked, bool[0] empty) => (float[N,?,3] Y) {
  Y = Identity(X)
}
)");
}

TEST(PrinterTest, UnknownAndZeroDimsStayDistinct) {
  onnx::ModelProto model = parse(
      "<ir_version: 8, opset_import: [\"\" : 13]>\n"
      "dims (float[0,?] X) => (float[0,?] Y) {\n  Y = Identity(X)\n}\n");
  const onnx::ModelProto parsed = parse(printModel(model));
  const auto& shape = parsed.graph().input(0).type().tensor_type().shape();
  ASSERT_EQ(shape.dim_size(), 2);
  EXPECT_TRUE(shape.dim(0).has_dim_value());
  EXPECT_EQ(shape.dim(0).dim_value(), 0);
  EXPECT_FALSE(shape.dim(1).has_dim_value());
  EXPECT_FALSE(shape.dim(1).has_dim_param());
}

TEST(PrinterTest, AttributesOfEveryKindTheSyntaxReads) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13]>
attributes (float[2] X) => (float[2] Y) {
  Y = Custom<f = 1.0, g = -0.0, h = 0.1, i = -7, s = "text with spaces", t = float[2] {1.5, -2.0}, named = int64[1] weights {3}, scalar = float {4.0}, fs = [1.0, 2.5], is = [1, -2, 3], ss = ["a", "b c"]>(X)
}
)");
}

TEST(PrinterTest, AttributesOutsideTheSyntaxAreStillShown) {
  onnx::ModelProto model = reluModel();
  onnx::NodeProto* node = model.mutable_graph()->mutable_node(0);
  onnx::AttributeProto* empty_ints = node->add_attribute();
  empty_ints->set_name("empty");
  empty_ints->set_type(onnx::AttributeProto::INTS);
  onnx::AttributeProto* tensors = node->add_attribute();
  tensors->set_name("tensors");
  tensors->set_type(onnx::AttributeProto::TENSORS);
  *tensors->add_tensors() = floatTensor("", {1}, {1.0f});
  *tensors->add_tensors() = floatTensor("", {}, {2.0f});
  onnx::AttributeProto* type = node->add_attribute();
  type->set_name("type");
  type->set_type(onnx::AttributeProto::TYPE_PROTO);
  type->mutable_tp()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::INT64);
  onnx::AttributeProto* reference = node->add_attribute();
  reference->set_name("alpha");
  reference->set_type(onnx::AttributeProto::FLOAT);
  reference->set_ref_attr_name("outer_alpha");
  EXPECT_EQ(printModel(model),
            R"(<ir_version: 8, opset_import: ["" : 13]>
relu (float[2] X) => (float[2] Y) {
  Y = Relu<empty: ints = [], tensors = [float[1] {1.0}, float {2.0}], type = seq(int64[]), alpha: float = @outer_alpha>(X)
}
)");
}

TEST(PrinterTest, NodeDomainsArePrinted) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13, "com.microsoft" : 1, "ai.onnx.ml" : 3]>
domains (float[2] X) => (float[2] Y) {
  A = com.microsoft.Gelu(X)
  Y = ai.onnx.ml.Normalizer<norm = "MAX">(A)
}
)");
}

TEST(PrinterTest, EmptyOptionalInputsAndOutputs) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13]>
optional_io (float[2] X, float max) => (float[2] Y) {
  Y = Clip(X, , max)
  Z, = Dropout(X, )
  = Print(X)
}
)");
  // OnnxParser 1.12 cannot read a leading empty name; it is printed as later parsers read it.
  onnx::ModelProto model = reluModel();
  onnx::NodeProto* node = model.mutable_graph()->mutable_node(0);
  node->set_input(0, "");
  node->add_input("X");
  EXPECT_NE(printModel(model).find("Y = Relu(\"\", X)"), std::string::npos) << printModel(model);
}

TEST(PrinterTest, SubgraphsNestAndIndent) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13]>
nested (int64 trip_count, bool cond, float[1] start) => (float[1] result) {
  result = Loop<body = loop_body (int64 iteration, bool cond_in, float[1] value) => (bool cond_out, float[1] next) {
    cond_out = Identity(cond_in)
    next = If<then_branch = add_one () => (float[1] plus) <
      float[1] one = {1.0}
    > {
      plus = Add(value, one)
    }, else_branch = keep () => (float[1] same) {
      same = If<then_branch = deepest () => (float[1] deep) {
        deep = Identity(value)
      }, else_branch = deepest_else () => (float[1] deep_else) {
        deep_else = Neg(value)
      }>(cond_in)
    }>(cond_in)
  }>(trip_count, cond, start)
}
)");
}

TEST(PrinterTest, InitializersOfEveryElementTypeTheSyntaxReads) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13]>
initializers (float[2] X) => (float[2] Y) <
  float[2,2] f = {1.0, 0.5, -3.25, 1e+30},
  double[2] d = {0.1, -1e-300},
  int8[2] i8 = {-128, 127},
  int16[1] i16 = {-32768},
  int32[1] i32 = {2147483647},
  int64[2] i64 = {-9223372036854775808, 9223372036854775807},
  uint8[1] u8 = {255},
  uint16[1] u16 = {65535},
  uint32[1] u32 = {4294967295},
  uint64[1] u64 = {18446744073709551615},
  bool[2] b = {1, 0},
  string[2] s = {"a", "b c"},
  float scalar = {7.0},
  float[0] none = {},
  float[2] annotated
> {
  Y = Add(X, f)
}
)");
}

TEST(PrinterTest, InitializerOrderSurvivesWhenSomeAreGraphInputs) {
  onnx::ModelProto model = reluModel();
  onnx::GraphProto* graph = model.mutable_graph();
  *graph->add_initializer() = floatTensor("B", {2}, {1.0f, 2.0f});
  addFloatValue(graph->mutable_input(), "B", {2});
  *graph->add_initializer() = floatTensor("A", {1}, {3.0f});
  expectRoundTrips(model);
}

TEST(PrinterTest, RawDataInitializersPrintTheirValues) {
  onnx::ModelProto model = reluModel();
  onnx::TensorProto* weights = model.mutable_graph()->add_initializer();
  weights->set_name("W");
  weights->set_data_type(onnx::TensorProto::FLOAT);
  weights->add_dims(3);
  const float values[] = {0.25f, -1.0f, 3.0e-5f};
  weights->set_raw_data(std::string(reinterpret_cast<const char*>(values), sizeof values));
  onnx::TensorProto* indices = model.mutable_graph()->add_initializer();
  indices->set_name("I");
  indices->set_data_type(onnx::TensorProto::INT64);
  indices->add_dims(2);
  const int64_t index_values[] = {-1, 5};
  indices->set_raw_data(
      std::string(reinterpret_cast<const char*>(index_values), sizeof index_values));

  const std::string text = printModel(model);
  EXPECT_NE(text.find("float[3] W = {0.25, -1.0, 3e-05}"), std::string::npos) << text;
  EXPECT_NE(text.find("int64[2] I = {-1, 5}"), std::string::npos) << text;
  const onnx::ModelProto parsed = parse(text);
  ASSERT_EQ(parsed.graph().initializer_size(), 2);
  const auto& parsed_floats = parsed.graph().initializer(0).float_data();
  ASSERT_EQ(parsed_floats.size(), 3);
  EXPECT_EQ(std::memcmp(parsed_floats.data(), values, sizeof values), 0);
  EXPECT_EQ(parsed.graph().initializer(1).int64_data(0), -1);
  EXPECT_EQ(parsed.graph().initializer(1).int64_data(1), 5);
}

TEST(PrinterTest, LargeInitializersAreSummarisedAndExternalOnesReferenced) {
  onnx::ModelProto model = reluModel();
  onnx::GraphProto* graph = model.mutable_graph();
  *graph->add_initializer() = floatTensor("small", {2, 2}, {1, 2, 3, 4});
  *graph->add_initializer() = floatTensor("large", {2, 3}, {1, 2, 3, 4, 5, 6});
  onnx::TensorProto* external = graph->add_initializer();
  external->set_name("outside");
  external->set_data_type(onnx::TensorProto::FLOAT);
  external->add_dims(1);
  external->set_data_location(onnx::TensorProto::EXTERNAL);
  onnx::StringStringEntryProto* location = external->add_external_data();
  location->set_key("location");
  location->set_value("weights.bin");
  onnx::AttributeProto* constant = graph->mutable_node(0)->add_attribute();
  constant->set_name("value");
  constant->set_type(onnx::AttributeProto::TENSOR);
  *constant->mutable_t() = floatTensor("", {5}, {1, 2, 3, 4, 5});

  PrintOptions options;
  options.max_initializer_elements = 4;
  EXPECT_EQ(printModel(model, options),
            R"(<ir_version: 8, opset_import: ["" : 13]>
relu (float[2] X) => (float[2] Y) <
  float[2,2] small = {1.0, 2.0, 3.0, 4.0},
  float[2,3] large = {...},
  float[1] outside = external ["location" : "weights.bin"]
> {
  Y = Relu<value = float[5] {...}>(X)
}
)");
}

TEST(PrinterTest, FloatsReadBackToTheSameBits) {
  const std::vector<float> floats = {0.1f,
                                     1.0f / 3.0f,
                                     16777217.0f,
                                     123456792.0f,
                                     std::numeric_limits<float>::max(),
                                     std::numeric_limits<float>::min(),
                                     std::numeric_limits<float>::lowest(),
                                     std::nextafter(1.0f, 2.0f),
                                     -0.0f};
  const std::vector<double> doubles = {0.1, 1.0 / 3.0, std::numeric_limits<double>::max(),
                                       std::numeric_limits<double>::min(),
                                       std::nextafter(1.0, 2.0), -0.0};
  onnx::ModelProto model = reluModel();
  *model.mutable_graph()->add_initializer() =
      floatTensor("F", {static_cast<int64_t>(floats.size())}, floats);
  onnx::TensorProto* double_tensor = model.mutable_graph()->add_initializer();
  double_tensor->set_name("D");
  double_tensor->set_data_type(onnx::TensorProto::DOUBLE);
  double_tensor->add_dims(static_cast<int64_t>(doubles.size()));
  for (double value : doubles) double_tensor->add_double_data(value);
  onnx::AttributeProto* attribute = model.mutable_graph()->mutable_node(0)->add_attribute();
  attribute->set_name("fs");
  attribute->set_type(onnx::AttributeProto::FLOATS);
  for (float value : floats) attribute->add_floats(value);

  const onnx::ModelProto parsed = parse(printModel(model));
  const auto& parsed_floats = parsed.graph().initializer(0).float_data();
  const auto& parsed_doubles = parsed.graph().initializer(1).double_data();
  const auto& parsed_attribute = parsed.graph().node(0).attribute(0).floats();
  ASSERT_EQ(parsed_floats.size(), static_cast<int>(floats.size()));
  ASSERT_EQ(parsed_attribute.size(), static_cast<int>(floats.size()));
  ASSERT_EQ(parsed_doubles.size(), static_cast<int>(doubles.size()));
  for (size_t i = 0; i < floats.size(); ++i) {
    EXPECT_EQ(std::memcmp(&parsed_floats[i], &floats[i], sizeof(float)), 0) << floats[i];
    EXPECT_EQ(std::memcmp(&parsed_attribute[i], &floats[i], sizeof(float)), 0) << floats[i];
  }
  for (size_t i = 0; i < doubles.size(); ++i) {
    EXPECT_EQ(std::memcmp(&parsed_doubles[i], &doubles[i], sizeof(double)), 0) << doubles[i];
  }
}

TEST(PrinterTest, IntegralFloatAttributeStaysAFloat) {
  onnx::ModelProto model = reluModel();
  onnx::AttributeProto* attribute = model.mutable_graph()->mutable_node(0)->add_attribute();
  attribute->set_name("alpha");
  attribute->set_type(onnx::AttributeProto::FLOAT);
  attribute->set_f(2.0f);
  EXPECT_NE(printModel(model).find("Relu<alpha = 2.0>(X)"), std::string::npos);
  expectRoundTrips(model);
}

TEST(PrinterTest, NonFiniteFloatsUseTheLaterParsersSpelling) {
  onnx::ModelProto model = reluModel();
  *model.mutable_graph()->add_initializer() =
      floatTensor("C", {3}, {std::numeric_limits<float>::quiet_NaN(),
                             std::numeric_limits<float>::infinity(),
                             -std::numeric_limits<float>::infinity()});
  EXPECT_NE(printModel(model).find("float[3] C = {nan, inf, -inf}"), std::string::npos);
}

TEST(PrinterTest, NaNsOtherThanTheDefaultOneAreWrittenByTheirBits) {
  const uint32_t negative_quiet = 0xffc00000u;
  const uint32_t payload = 0x7fc00001u;
  float values[2];
  std::memcpy(&values[0], &negative_quiet, sizeof(float));
  std::memcpy(&values[1], &payload, sizeof(float));
  onnx::ModelProto model = reluModel();
  *model.mutable_graph()->add_initializer() = floatTensor("C", {2}, {values[0], values[1]});
  EXPECT_NE(printModel(model).find("float[2] C = {-nan, nan(0x7fc00001)}"), std::string::npos)
      << printModel(model);
}

TEST(PrinterTest, NamesThatAreNotIdentifiersAreQuoted) {
  onnx::ModelProto model = reluModel();
  onnx::GraphProto* graph = model.mutable_graph();
  graph->set_name("torch-jit-export");
  graph->mutable_input(0)->set_name("input.1");
  graph->mutable_output(0)->set_name("2");
  graph->mutable_node(0)->set_input(0, "input.1");
  graph->mutable_node(0)->set_output(0, "2");
  graph->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)
      ->set_dim_param("batch size");
  EXPECT_EQ(printModel(model),
            R"(<ir_version: 8, opset_import: ["" : 13]>
"torch-jit-export" (float["batch size"] "input.1") => (float[2] "2") {
  "2" = Relu("input.1")
}
)");
}

TEST(PrinterTest, StringsEscapeBackslashesQuotesAndControlCharacters) {
  onnx::ModelProto model = reluModel();
  model.set_doc_string("first line\nsecond \\ \"line\" # not a comment\x01\t\r\xc3\xa9");
  EXPECT_NE(printModel(model).find(
                R"(doc_string: "first line\nsecond \\ \"line\" # not a comment\001\t\r)"
                "\xc3\xa9\""),
            std::string::npos)
      << printModel(model);
}

TEST(PrinterTest, NamesSpelledLikeReservedWordsAreQuoted) {
  onnx::ModelProto model = reluModel();
  model.mutable_graph()->mutable_input(0)->set_name("float");
  model.mutable_graph()->mutable_node(0)->set_input(0, "float");
  model.mutable_graph()->mutable_output(0)->set_name("nan");
  model.mutable_graph()->mutable_node(0)->set_output(0, "nan");
  EXPECT_NE(printModel(model).find(R"(relu (float[2] "float") => (float[2] "nan") {
  "nan" = Relu("float")
})"),
            std::string::npos)
      << printModel(model);
}

TEST(PrinterTest, NamelessMainGraph) {
  onnx::ModelProto model = reluModel();
  model.mutable_graph()->clear_name();
  EXPECT_NE(printModel(model).find("\n(float[2] X) => (float[2] Y) {\n"), std::string::npos);
  expectRoundTrips(model);
}

TEST(PrinterTest, ModelLocalFunctions) {
  expectCanonical(
      R"(<ir_version: 8, opset_import: ["" : 13, "local" : 1]>
uses_function (float[2] X) => (float[2] Y) {
  Y = local.Scale<factor = 3.0>(X)
}

<domain: "local", opset_import: ["" : 13], doc_string: "multiplies by a factor">
Scale<factor>(x) => (y) {
  factor_value = Constant<value_float: float = @factor>()
  y = Mul(x, factor_value)
}

<domain: "local">
Twice(x) => (y) {
  y = Add(x, x)
}
)");
}

TEST(PrinterTest, PrintGraphPrintsTheGraphAlone) {
  onnx::ModelProto model = reluModel();
  EXPECT_EQ(printGraph(model.graph()), "relu (float[2] X) => (float[2] Y) {\n  Y = Relu(X)\n}\n");
}

TEST(PrinterTest, OutputIsDeterministic) {
  onnx::ModelProto model = reluModel();
  *model.mutable_graph()->add_initializer() = floatTensor("C", {2}, {1.0f, 2.0f});
  EXPECT_EQ(printModel(model), printModel(model));
}

TEST(PrinterTest, IrModelPrintsLikeItsProto) {
  onnx::ModelProto proto = reluModel();
  *proto.mutable_graph()->add_initializer() = floatTensor("C", {2}, {1.0f, 2.0f});
  absl::StatusOr<std::unique_ptr<Model>> model = importModel(onnx::ModelProto(proto));
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(printModel(**model), printModel(proto));
}

}  // namespace
}  // namespace onnxopt::ir
