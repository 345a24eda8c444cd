// The helpers passes read constants, build tensors and query schemas with:
// onnxopt/rewrite/{constant,tensor_util,schema}.h.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/casts.h"
#include "absl/strings/match.h"
#include "onnx/defs/schema.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "test_models.h"

namespace onnxopt {
namespace {

namespace fs = std::filesystem;
using onnx::TensorProto;
using onnxopt::testing::findNode;
using onnxopt::testing::parseModel;

// Whether `text` contains `part`, showing `text` when not.
::testing::AssertionResult contains(absl::string_view text, absl::string_view part) {
  if (absl::StrContains(text, part)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

template <typename T>
std::string bytesOf(const std::vector<T>& values) {
  std::string bytes(values.size() * sizeof(T), '\0');
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// --- tensor_util: half precision -----------------------------------------------------------

TEST(HalfTest, EveryHalfSurvivesARoundTripThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t half = static_cast<uint16_t>(bits);
    const float widened = halfToFloat(half);
    const uint16_t back = floatToHalf(widened);
    const bool is_nan = (half & 0x7c00) == 0x7c00 && (half & 0x3ff) != 0;
    if (is_nan) {
      ASSERT_TRUE(std::isnan(widened)) << std::hex << bits;
      // Canonicalised to a quiet NaN of the same sign and payload.
      ASSERT_EQ(back, half | 0x200) << std::hex << bits;
    } else {
      ASSERT_EQ(back, half) << std::hex << bits;
    }
  }
}

TEST(HalfTest, NarrowingRoundsToNearestEven) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0x0001), 0x1p-24f) << "smallest subnormal";
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x8000), -0.0f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f), 0x3c00) << "tie goes to the even 1.0";
  EXPECT_EQ(floatToHalf(1.0f + 3 * 0x1p-11f), 0x3c02) << "tie goes to the even 1+2^-9";
  EXPECT_EQ(floatToHalf(1.0f + 0x1p-11f + 0x1p-20f), 0x3c01) << "above the tie";
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00) << "the tie above 65504 goes to infinity";
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(floatToHalf(0x1p-25f), 0x0000) << "half the smallest subnormal ties to zero";
  EXPECT_EQ(floatToHalf(0x1p-25f * 1.001f), 0x0001);
  EXPECT_EQ(floatToHalf(3 * 0x1p-25f), 0x0002) << "subnormal tie to even";
  EXPECT_EQ(floatToHalf(0x1p-14f - 0x1p-25f), 0x0400)
      << "the largest subnormal rounds up to normal";
  EXPECT_EQ(floatToHalf(1e-30f), 0x0000);
  EXPECT_EQ(floatToHalf(-1e-30f), 0x8000);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::denorm_min()), 0x0000);
  const uint16_t nan = floatToHalf(absl::bit_cast<float>(0xff800001u));
  EXPECT_TRUE(std::isnan(halfToFloat(nan))) << "a NaN with only low payload bits stays a NaN";
  EXPECT_EQ(nan & 0x8000, 0x8000);
}

TEST(Bfloat16Test, EveryBfloat16SurvivesARoundTripThroughFloat) {
  for (uint32_t bits = 0; bits <= 0xffff; ++bits) {
    const uint16_t value = static_cast<uint16_t>(bits);
    const float widened = bfloat16ToFloat(value);
    const bool is_nan = (value & 0x7f80) == 0x7f80 && (value & 0x7f) != 0;
    ASSERT_EQ(floatToBfloat16(widened), is_nan ? (value | 0x40) : value) << std::hex << bits;
  }
}

TEST(Bfloat16Test, NarrowingRoundsToNearestEven) {
  EXPECT_EQ(floatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBfloat16(1.0f + 0x1p-8f), 0x3f80) << "tie goes to the even 1.0";
  EXPECT_EQ(floatToBfloat16(1.0f + 3 * 0x1p-8f), 0x3f82) << "tie goes to the even neighbour";
  EXPECT_EQ(floatToBfloat16(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);
  EXPECT_EQ(floatToBfloat16(std::numeric_limits<float>::max()), 0x7f80) << "overflows to infinity";
  EXPECT_TRUE(std::isnan(bfloat16ToFloat(floatToBfloat16(absl::bit_cast<float>(0x7f800001u)))));
  EXPECT_EQ(bfloat16ToFloat(0xc000), -2.0f);
}

// --- tensor_util: building, bytes, transposing, comparing ------------------------------------

TEST(TensorUtilTest, MakersSetTypeDimsAndData) {
  const TensorProto ints = makeInt64Tensor({4, -1, 7});
  EXPECT_EQ(ints.data_type(), TensorProto::INT64);
  ASSERT_EQ(ints.dims_size(), 1);
  EXPECT_EQ(ints.dims(0), 3);
  EXPECT_EQ(ints.int64_data_size(), 3);
  EXPECT_EQ(ints.int64_data(1), -1);

  const TensorProto scalar = makeInt64Scalar(9);
  EXPECT_EQ(scalar.dims_size(), 0);
  ASSERT_EQ(scalar.int64_data_size(), 1);
  EXPECT_EQ(scalar.int64_data(0), 9);

  const TensorProto raw = makeTensor(TensorProto::INT32, {2}, bytesOf<int32_t>({5, 6}));
  EXPECT_EQ(raw.data_type(), TensorProto::INT32);
  EXPECT_EQ(raw.raw_data().size(), 8u);

  const TensorProto floats = makeFloatTensor({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(floats.dims_size(), 2);
  EXPECT_EQ(floats.float_data(5), 6.0f);
}

TEST(TensorUtilTest, ElementBytesAreTheRawFormOfEitherStorage) {
  TensorProto typed;
  typed.set_data_type(TensorProto::INT8);
  typed.add_dims(3);
  for (int value : {-1, 2, 127}) typed.add_int32_data(value);
  std::string scratch;
  const std::optional<absl::string_view> bytes = elementBytes(typed, &scratch);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(*bytes, std::string("\xff\x02\x7f", 3));

  const TensorProto raw = makeTensor(TensorProto::INT8, {3}, std::string("\xff\x02\x7f", 3));
  std::string unused;
  const std::optional<absl::string_view> raw_bytes = elementBytes(raw, &unused);
  ASSERT_TRUE(raw_bytes);
  EXPECT_EQ(raw_bytes->data(), raw.raw_data().data()) << "raw_data is viewed, not copied";

  typed.add_dims(2);  // [3, 2] needs 6 values
  EXPECT_FALSE(elementBytes(typed, &scratch));
  TensorProto strings;
  strings.set_data_type(TensorProto::STRING);
  strings.add_string_data("a");
  EXPECT_FALSE(elementBytes(strings, &scratch));
}

// The element at flat index `i` of a [2, 3, 4] tensor is `i` (converted); transposed by
// perm [2, 0, 1] to [4, 2, 3], out[a][b][c] = in[b][c][a].
std::vector<int64_t> expectedTransposeOrder() {
  std::vector<int64_t> order;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 2; ++b) {
      for (int c = 0; c < 3; ++c) order.push_back(b * 12 + c * 4 + a);
    }
  }
  return order;
}

TensorProto sequenceTensor(int32_t type, bool raw) {
  TensorProto tensor;
  tensor.set_name("t");
  tensor.set_data_type(type);
  for (int64_t dim : {2, 3, 4}) tensor.add_dims(dim);
  std::string bytes;
  // Appends `element` to raw_data, or to the typed field that holds the type.
  auto put = [&](auto element, auto* field) {
    if (raw) {
      bytes += bytesOf<decltype(element)>({element});
    } else {
      field->Add(element);
    }
  };
  for (int i = 0; i < 24; ++i) {
    switch (type) {
      case TensorProto::FLOAT: put(i + 0.5f, tensor.mutable_float_data()); break;
      case TensorProto::DOUBLE: put(i * 1.5, tensor.mutable_double_data()); break;
      case TensorProto::INT8: put(static_cast<int8_t>(-i), tensor.mutable_int32_data()); break;
      case TensorProto::FLOAT16: put(floatToHalf(i), tensor.mutable_int32_data()); break;
      case TensorProto::INT64: put(int64_t{1} << (i + 30), tensor.mutable_int64_data()); break;
      case TensorProto::UINT32: put(4000000000u + i, tensor.mutable_uint64_data()); break;
      case TensorProto::BOOL:
        put(static_cast<uint8_t>(i % 3 == 0), tensor.mutable_int32_data());
        break;
      case TensorProto::STRING: tensor.add_string_data(std::to_string(i)); break;
    }
  }
  if (raw) tensor.set_raw_data(bytes);
  return tensor;
}

TEST(TensorUtilTest, TransposesThreeDimensionsOfEveryStorage) {
  const std::vector<int64_t> order = expectedTransposeOrder();
  for (int32_t type :
       {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::INT8, TensorProto::FLOAT16,
        TensorProto::INT64, TensorProto::UINT32, TensorProto::BOOL, TensorProto::STRING}) {
    for (bool raw : {false, true}) {
      if (raw && type == TensorProto::STRING) continue;
      SCOPED_TRACE(::testing::Message() << ir::elemTypeName(type) << (raw ? " raw" : " typed"));
      const TensorProto input = sequenceTensor(type, raw);
      const absl::StatusOr<TensorProto> output = transposeTensor(input, {2, 0, 1});
      ASSERT_TRUE(output.ok()) << output.status();
      EXPECT_EQ(output->name(), "t");
      EXPECT_EQ(output->data_type(), type);
      ASSERT_EQ(output->dims_size(), 3);
      EXPECT_EQ(output->dims(0), 4);
      EXPECT_EQ(output->dims(1), 2);
      EXPECT_EQ(output->dims(2), 3);
      EXPECT_EQ(output->has_raw_data(), raw) << "the storage is kept";
      if (type == TensorProto::STRING) {
        for (size_t i = 0; i < order.size(); ++i) {
          EXPECT_EQ(output->string_data(i), std::to_string(order[i]));
        }
        continue;
      }
      std::string in_scratch;
      std::string out_scratch;
      const absl::string_view in = *elementBytes(input, &in_scratch);
      const absl::string_view out = *elementBytes(*output, &out_scratch);
      const size_t size = ir::elemTypeSize(type);
      for (size_t i = 0; i < order.size(); ++i) {
        ASSERT_EQ(out.substr(i * size, size), in.substr(order[i] * size, size)) << "element " << i;
      }
      // Back again with the inverse permutation.
      const absl::StatusOr<TensorProto> back = transposeTensor(*output, {1, 2, 0});
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_TRUE(sameTensorContents(*back, input));
    }
  }
}

TEST(TensorUtilTest, TransposesComplexPairsScalarsAndEmptyTensors) {
  TensorProto complex;
  complex.set_data_type(TensorProto::COMPLEX64);
  complex.add_dims(2);
  complex.add_dims(1);
  for (float value : {1, 2, 3, 4}) complex.add_float_data(value);  // (1+2i), (3+4i)
  absl::StatusOr<TensorProto> transposed = transposeTensor(complex, {1, 0});
  ASSERT_TRUE(transposed.ok()) << transposed.status();
  EXPECT_EQ(transposed->float_data_size(), 4);
  EXPECT_EQ(transposed->float_data(2), 3.0f) << "pairs move together";

  const absl::StatusOr<TensorProto> scalar = transposeTensor(makeInt64Scalar(5), {});
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->int64_data(0), 5);

  const absl::StatusOr<TensorProto> empty = transposeTensor(makeFloatTensor({}, {0, 3}), {1, 0});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->dims(0), 3);
  EXPECT_EQ(empty->float_data_size(), 0);
}

TEST(TensorUtilTest, TransposeRefusesBadPermsDataAndExternalTensors) {
  TensorProto tensor = makeFloatTensor({1, 2, 3, 4, 5, 6}, {2, 3});
  tensor.set_name("W");
  for (const std::vector<int64_t>& perm :
       std::vector<std::vector<int64_t>>{{0, 0}, {1}, {0, 1, 2}, {2, 0}, {-1, 0}}) {
    const absl::StatusOr<TensorProto> result = transposeTensor(tensor, perm);
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(contains(result.status().message(), "tensor 'W'"));
    EXPECT_TRUE(contains(result.status().message(), "not a permutation"));
  }
  TensorProto short_data = tensor;
  short_data.add_dims(2);
  EXPECT_TRUE(contains(transposeTensor(short_data, {0, 1, 2}).status().message(),
                       "holds 6 values for 12 elements"));
  TensorProto short_raw = makeTensor(TensorProto::FLOAT, {2, 3}, std::string(20, '\0'));
  short_raw.set_name("R");
  EXPECT_TRUE(contains(transposeTensor(short_raw, {1, 0}).status().message(), "tensor 'R'"));
  TensorProto external = tensor;
  external.set_data_location(TensorProto::EXTERNAL);
  EXPECT_TRUE(contains(transposeTensor(external, {1, 0}).status().message(), "external"));
}

TEST(TensorUtilTest, JoinsPartsAlongTheLastAxisWhateverTheStorage) {
  const TensorProto a = makeFloatTensor({1, 2, 3, 4}, {2, 2});
  const TensorProto b = makeTensor(TensorProto::FLOAT, {2, 1}, bytesOf<float>({5, 6}));
  std::optional<TensorProto> joined = joinLastAxis({&a, &b}, 2, {2, 3}, TensorProto::FLOAT);
  ASSERT_TRUE(joined.has_value());
  EXPECT_TRUE(sameTensorContents(*joined, makeFloatTensor({1, 2, 5, 3, 4, 6}, {2, 3})));
  std::optional<TensorProto> one_row = joinLastAxis({&a, &b}, 1, {6}, TensorProto::FLOAT);
  ASSERT_TRUE(one_row.has_value());
  EXPECT_TRUE(sameTensorContents(*one_row, makeFloatTensor({1, 2, 3, 4, 5, 6}, {6})));
  const TensorProto three = makeFloatTensor({1, 2, 3}, {3});
  EXPECT_FALSE(joinLastAxis({&three}, 2, {3}, TensorProto::FLOAT).has_value())
      << "3 elements are no 2 rows";
  TensorProto strings;
  strings.set_data_type(TensorProto::STRING);
  strings.add_dims(1);
  strings.add_string_data("x");
  EXPECT_FALSE(joinLastAxis({&strings}, 1, {1}, TensorProto::STRING).has_value());
}

TEST(TensorUtilTest, SameContentsComparesElementsWhateverTheStorage) {
  const TensorProto typed = makeFloatTensor({1.5f, -0.0f}, {2});
  const TensorProto raw = makeTensor(TensorProto::FLOAT, {2}, bytesOf<float>({1.5f, -0.0f}));
  EXPECT_TRUE(sameTensorContents(typed, raw));
  EXPECT_TRUE(sameTensorContents(raw, typed));
  EXPECT_FALSE(sameTensorContents(typed, makeFloatTensor({1.5f, 0.0f}, {2})))
      << "bitwise: -0 is not 0";
  EXPECT_FALSE(sameTensorContents(typed, makeFloatTensor({1.5f, -0.0f}, {2, 1}))) << "dims differ";
  EXPECT_FALSE(sameTensorContents(typed, makeTensor(TensorProto::INT32, {2}, raw.raw_data())))
      << "types differ";
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(sameTensorContents(makeFloatTensor({nan}, {1}), makeFloatTensor({nan}, {1})))
      << "the same NaN bits are the same contents";

  TensorProto half_typed;
  half_typed.set_data_type(TensorProto::FLOAT16);
  half_typed.add_int32_data(0x3c00);
  EXPECT_TRUE(sameTensorContents(
      half_typed, makeTensor(TensorProto::FLOAT16, {}, bytesOf<uint16_t>({0x3c00}))));

  TensorProto a;
  a.set_data_type(TensorProto::STRING);
  a.add_dims(2);
  a.add_string_data("x");
  a.add_string_data("yz");
  TensorProto b = a;
  EXPECT_TRUE(sameTensorContents(a, b));
  b.set_string_data(1, "y");
  EXPECT_FALSE(sameTensorContents(a, b));

  TensorProto external = typed;
  external.set_data_location(TensorProto::EXTERNAL);
  EXPECT_FALSE(sameTensorContents(external, external));
}

// --- constant ---------------------------------------------------------------------------------

std::optional<ConstantView> readOk(const ir::Value& value,
                                   int64_t max_bytes = kDefaultConstantReadLimit) {
  absl::StatusOr<std::optional<ConstantView>> view = readConstant(value, max_bytes);
  EXPECT_TRUE(view.ok()) << view.status();
  return view.ok() ? *std::move(view) : std::nullopt;
}

TEST(ConstantTest, ReadsEveryConstantNodeForm) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) {
  t = Constant<value = float[2, 2] {1.0, 2.0, 3.0, 4.0}>()
  f = Constant<value_float = 2.5>()
  fs = Constant<value_floats = [1.0, 0.5]>()
  i = Constant<value_int = 7>()
  is = Constant<value_ints = [3, -4]>()
  s = Constant<value_string = "abc">()
  ss = Constant<value_strings = ["a", "bc"]>()
  Y = Identity(X)
}
)");
  ir::Graph& graph = model->graph();
  auto value = [&](const char* name) -> const ir::Value& {
    return *findNode(graph, name)->output(0);
  };

  std::optional<ConstantView> t = readOk(value("t"));
  ASSERT_TRUE(t);
  EXPECT_EQ(t->elemType(), TensorProto::FLOAT);
  EXPECT_EQ(t->rank(), 2);
  EXPECT_EQ(t->numElements(), 4);
  EXPECT_EQ(std::vector<int64_t>(t->dims().begin(), t->dims().end()), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(*t->asDoubles(), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_FALSE(t->asInts()) << "a float tensor has no ints";
  EXPECT_EQ(&t->proto(), &findNode(graph, "t")->attr("value")->t()) << "the attribute, not a copy";

  std::optional<ConstantView> f = readOk(value("f"));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->rank(), 0);
  EXPECT_EQ(*f->asDoubles(), std::vector<double>{2.5});
  EXPECT_TRUE(f->allEqualTo(2.5));

  std::optional<ConstantView> fs = readOk(value("fs"));
  ASSERT_TRUE(fs);
  EXPECT_EQ(fs->rank(), 1);
  EXPECT_EQ(*fs->asDoubles(), (std::vector<double>{1.0, 0.5}));

  std::optional<ConstantView> i = readOk(value("i"));
  ASSERT_TRUE(i);
  EXPECT_EQ(i->elemType(), TensorProto::INT64);
  EXPECT_EQ(i->rank(), 0);
  EXPECT_EQ(*i->asInts(), std::vector<int64_t>{7});

  std::optional<ConstantView> is = readOk(value("is"));
  ASSERT_TRUE(is);
  EXPECT_EQ(*is->asInts(), (std::vector<int64_t>{3, -4}));
  EXPECT_EQ(*is->asDoubles(), (std::vector<double>{3, -4}));

  std::optional<ConstantView> s = readOk(value("s"));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->elemType(), TensorProto::STRING);
  EXPECT_EQ(s->proto().string_data(0), "abc");
  EXPECT_FALSE(s->asDoubles());
  EXPECT_FALSE(s->allEqualTo(0));

  std::optional<ConstantView> ss = readOk(value("ss"));
  ASSERT_TRUE(ss);
  EXPECT_EQ(ss->numElements(), 2);
  EXPECT_EQ(ss->proto().string_data(1), "bc");
  EXPECT_FALSE(ss->asInts());

  EXPECT_TRUE(isConstant(value("t")));
  EXPECT_FALSE(isConstant(*graph.findValue("X")));
  EXPECT_FALSE(readOk(*graph.findValue("X")));
  EXPECT_FALSE(readOk(*graph.findValue("Y")));
}

// A model whose graph has input X and Constant node `c` (output C), for attribute surgery.
std::unique_ptr<ir::Model> modelWithConstant() {
  return parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) {
  C = Constant<value_ints = [1, 2]>()
  Y = Identity(X)
}
)");
}

TEST(ConstantTest, MalformedConstantNodesAreErrorsNamingTheNode) {
  struct Case {
    std::vector<ir::Attribute (*)()> attributes;
    const char* message;
  };
  const std::vector<Case> cases = {
      {{}, "has no value attribute"},
      {{[] { return ir::Attribute::makeInts("value_ints", {1}); },
        [] { return ir::Attribute::makeFloat("value_float", 1); }},
       "two value attributes, 'value_ints' and 'value_float'"},
      {{[] { return ir::Attribute::makeInt("value_ints", 1); }},
       "attribute 'value_ints' is INT, but ONNX defines it as INTS"},
      {{[] { return ir::Attribute::makeFloats("value", {1}); }},
       "attribute 'value' is FLOATS, but ONNX defines it as TENSOR"},
  };
  for (const Case& c : cases) {
    auto model = modelWithConstant();
    ir::Node* constant = findNode(model->graph(), "C");
    constant->mutableAttributes().clear();
    for (auto make : c.attributes) constant->setAttr(make());
    const absl::StatusOr<std::optional<ConstantView>> view = readConstant(*constant->output(0));
    ASSERT_FALSE(view.ok()) << c.message;
    EXPECT_EQ(view.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(contains(view.status().message(), "node with output 'C' (Constant)"));
    EXPECT_TRUE(contains(view.status().message(), c.message));
  }
}

TEST(ConstantTest, SparseConstantsAreNotRead) {
  auto model = modelWithConstant();
  ir::Node* constant = findNode(model->graph(), "C");
  constant->mutableAttributes().clear();
  onnx::AttributeProto sparse;
  sparse.set_name("sparse_value");
  sparse.set_type(onnx::AttributeProto::SPARSE_TENSOR);
  sparse.mutable_sparse_tensor()->add_dims(4);
  constant->setAttr(ir::Attribute(std::move(sparse)));
  EXPECT_TRUE(isConstant(*constant->output(0)));
  EXPECT_FALSE(readOk(*constant->output(0)));
}

TEST(ConstantTest, InitializersAreViewedWithoutCopies) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X, int64[2] overridable) => (float[2] Y) <int64[2] shape = {2, 3}, int64[2] overridable = {1, 1}> {
  Y = Identity(X)
}
)");
  ir::Graph& graph = model->graph();
  const ir::Value& shape = *graph.findValue("shape");
  EXPECT_TRUE(isConstant(shape));
  std::optional<ConstantView> view = readOk(shape);
  ASSERT_TRUE(view);
  EXPECT_EQ(&view->proto(), &shape.initializer()->proto());
  EXPECT_EQ(*view->asInts(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(*readConstantInts(shape), (std::vector<int64_t>{2, 3}));

  const ir::Value& overridable = *graph.findValue("overridable");
  EXPECT_FALSE(isConstant(overridable)) << "a graph input can be fed";
  EXPECT_FALSE(readOk(overridable));

  // The view keeps the tensor alive when the initializer goes.
  ConstantView moved = *std::move(view);
  graph.removeInitializer(graph.findValue("shape"));
  EXPECT_EQ(*moved.asInts(), (std::vector<int64_t>{2, 3}));
}

TEST(ConstantTest, DecodesRawHalvesAndComparesExactly) {
  auto model = modelWithConstant();
  ir::Graph& graph = model->graph();
  auto add = [&](const char* name, TensorProto tensor) -> const ir::Value& {
    tensor.set_name(name);
    return *graph.addInitializer(name, std::make_shared<ir::Tensor>(std::move(tensor)));
  };
  const std::vector<uint16_t> ones(6, floatToHalf(1.0f));
  const ir::Value& half_ones = add("h", makeTensor(TensorProto::FLOAT16, {2, 3}, bytesOf(ones)));
  std::optional<ConstantView> view = readOk(half_ones);
  ASSERT_TRUE(view);
  EXPECT_TRUE(view->allEqualTo(1.0));
  EXPECT_FALSE(view->allEqualTo(1.0 + 1e-9));
  EXPECT_EQ(*view->asDoubles(), std::vector<double>(6, 1.0));

  const ir::Value& bf = add("bf", makeTensor(TensorProto::BFLOAT16, {2},
                                             bytesOf<uint16_t>({floatToBfloat16(-3.0f), 0x3f81})));
  EXPECT_EQ(*readOk(bf)->asDoubles(), (std::vector<double>{-3.0, 1.0 + 0x1p-7}));

  const ir::Value& bools = add("b", makeTensor(TensorProto::BOOL, {3}, std::string("\1\1\1", 3)));
  EXPECT_TRUE(readOk(bools)->allEqualTo(1));
  EXPECT_EQ(*readOk(bools)->asInts(), (std::vector<int64_t>{1, 1, 1}));
  EXPECT_FALSE(readConstantInts(bools).value()) << "bool is no shape operand";

  const ir::Value& threes = add("i8", makeTensor(TensorProto::INT8, {2}, std::string("\3\3", 2)));
  EXPECT_TRUE(readOk(threes)->allEqualTo(3));
  EXPECT_FALSE(readOk(threes)->allEqualTo(3.5));
  EXPECT_FALSE(readOk(threes)->allEqualTo(259)) << "no wrapping into int8";

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const ir::Value& nans = add("nan", makeFloatTensor({nan}, {1}));
  EXPECT_FALSE(readOk(nans)->allEqualTo(nan));
  const ir::Value& empty = add("empty", makeFloatTensor({}, {0}));
  EXPECT_FALSE(readOk(empty)->allEqualTo(0)) << "never vacuously true";

  const uint64_t big = uint64_t{1} << 63;
  const ir::Value& u64 = add("u64", makeTensor(TensorProto::UINT64, {1}, bytesOf<uint64_t>({big})));
  EXPECT_FALSE(readOk(u64)->asInts()) << "above INT64_MAX";
  EXPECT_EQ(*readOk(u64)->asDoubles(), std::vector<double>{0x1p63});
  EXPECT_TRUE(readOk(u64)->allEqualTo(0x1p63));

  const int64_t odd = (int64_t{1} << 53) + 1;
  const ir::Value& i64 =
      add("i64", makeTensor(TensorProto::INT64, {2}, bytesOf<int64_t>({odd, int64_t{1} << 60})));
  EXPECT_FALSE(readOk(i64)->asDoubles()) << "2^53 + 1 is not a double";
  EXPECT_EQ(*readOk(i64)->asInts(), (std::vector<int64_t>{odd, int64_t{1} << 60}));
  EXPECT_FALSE(readOk(i64)->allEqualTo(0x1p53)) << "compared as int64, not rounded";
}

TEST(ConstantTest, ConstantIntsAreIntegerTensorsOfRankOneAtMost) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <int32[2, 1] matrix = {1, 2}, int32 scalar = {5}, float[1] f = {1.0}> {
  axes = Constant<value_ints = [0, -1]>()
  Y = Identity(X)
}
)");
  ir::Graph& graph = model->graph();
  EXPECT_EQ(*readConstantInts(*graph.findValue("axes")), (std::vector<int64_t>{0, -1}));
  EXPECT_EQ(*readConstantInts(*graph.findValue("scalar")), std::vector<int64_t>{5});
  EXPECT_FALSE(readConstantInts(*graph.findValue("matrix")).value());
  EXPECT_FALSE(readConstantInts(*graph.findValue("f")).value());
  EXPECT_FALSE(readConstantInts(*graph.findValue("X")).value());
}

TEST(ConstantTest, ConstantScalarsAreOneNumericElement) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <float lo = {-0.5}, int64[1] one = {7}, float[2] pair = {1.0, 2.0}, bool yes = {1}> {
  c = Constant<value_float = 6.0>()
  Y = Identity(X)
}
)");
  ir::Graph& graph = model->graph();
  EXPECT_EQ(*readConstantScalar(*graph.findValue("lo")), -0.5);
  EXPECT_EQ(*readConstantScalar(*graph.findValue("one")), 7.0);
  EXPECT_EQ(*readConstantScalar(*graph.findValue("c")), 6.0);
  EXPECT_EQ(*readConstantScalar(*graph.findValue("yes")), 1.0);
  EXPECT_FALSE(readConstantScalar(*graph.findValue("pair")).value()) << "two elements";
  EXPECT_FALSE(readConstantScalar(*graph.findValue("X")).value()) << "not a constant";
}

TEST(ConstantTest, TheSizeCapHoldsForEveryForm) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) <float[4] w = {1.0, 2.0, 3.0, 4.0}> {
  c = Constant<value_ints = [1, 2, 3]>()
  Y = Identity(X)
}
)");
  ir::Graph& graph = model->graph();
  EXPECT_TRUE(readOk(*graph.findValue("w"), 16));
  EXPECT_FALSE(readOk(*graph.findValue("w"), 15));
  const ir::Value& c = *findNode(graph, "c")->output(0);
  EXPECT_TRUE(readOk(c, 24));
  EXPECT_FALSE(readOk(c, 23));
}

class ExternalConstantTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnxopt_constant_XXXXXX").string();
    dir_ = mkdtemp(pattern.data());
    std::ofstream(dir_ / "w.bin", std::ios::binary) << bytesOf<float>({1, 2, 3, 4, 5, 6});
  }
  void TearDown() override { fs::remove_all(dir_); }

  static TensorProto externalTensor(const std::string& name) {
    TensorProto tensor;
    tensor.set_name(name);
    tensor.set_data_type(TensorProto::FLOAT);
    tensor.add_dims(2);
    tensor.add_dims(3);
    tensor.set_data_location(TensorProto::EXTERNAL);
    auto* entry = tensor.add_external_data();
    entry->set_key("location");
    entry->set_value("w.bin");
    return tensor;
  }

  // Initializer W and Constant node `c` (output C), both with their data in w.bin.
  std::unique_ptr<ir::Model> load() {
    onnx::ModelProto proto = onnxopt::testing::parseProto(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y) {
  C = Constant<value_ints = [1]>()
  Y = Identity(X)
}
)");
    *proto.mutable_graph()->add_initializer() = externalTensor("W");
    onnx::AttributeProto* value = proto.mutable_graph()->mutable_node(0)->mutable_attribute(0);
    value->Clear();
    value->set_name("value");
    value->set_type(onnx::AttributeProto::TENSOR);
    *value->mutable_t() = externalTensor("c_value");
    ir::LoadOptions options;
    options.external_data_dir = dir_.string();
    absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::importModel(std::move(proto), options);
    EXPECT_TRUE(model.ok()) << model.status();
    return model.ok() ? *std::move(model) : std::make_unique<ir::Model>();
  }

  fs::path dir_;
};

TEST_F(ExternalConstantTest, ReadsIntoACopyAndLeavesTheModelAlone) {
  auto model = load();
  const ir::Value& w = *model->graph().findValue("W");
  std::optional<ConstantView> view = readOk(w);
  ASSERT_TRUE(view);
  EXPECT_EQ(*view->asDoubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_NE(view->proto().data_location(), TensorProto::EXTERNAL);
  EXPECT_TRUE(w.initializer()->isExternal()) << "the model's tensor is not loaded";

  std::optional<ConstantView> c = readOk(*model->graph().findValue("C"));
  ASSERT_TRUE(c);
  EXPECT_EQ(*c->asDoubles(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(findNode(model->graph(), "C")->attr("value")->t().data_location(),
            TensorProto::EXTERNAL);
}

TEST_F(ExternalConstantTest, TheCapIsJudgedBeforeReadingAndUnreadableDataIsAnError) {
  auto model = load();
  fs::remove(dir_ / "w.bin");
  const ir::Value& w = *model->graph().findValue("W");
  const ir::Value& c = *model->graph().findValue("C");
  EXPECT_FALSE(readOk(w, 23)) << "too large: nothing is read, so nothing fails";
  EXPECT_FALSE(readOk(c, 23));

  const absl::StatusOr<std::optional<ConstantView>> from_initializer = readConstant(w);
  ASSERT_FALSE(from_initializer.ok());
  EXPECT_TRUE(contains(from_initializer.status().message(), "initializer 'W'"));
  EXPECT_TRUE(contains(from_initializer.status().message(), "external data"));
  const absl::StatusOr<std::optional<ConstantView>> from_node = readConstant(c);
  ASSERT_FALSE(from_node.ok());
  EXPECT_TRUE(contains(from_node.status().message(), "node with output 'C' (Constant)"));
  EXPECT_TRUE(contains(from_node.status().message(), "c_value"));
}

// --- schema -----------------------------------------------------------------------------------

std::unique_ptr<ir::Model> modelAtOpset(int opset, const std::string& body) {
  return parseModel(
      "<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) +
      ", \"ai.onnx.ml\" : 3, \"custom\" : 1]>\ng (float[2, 2] X) => (float[2, 2] Y) {\n" + body +
      "\n  Y = Identity(X)\n}\n");
}

const onnx::OpSchema* schemaAt(int opset, const std::string& op, const std::string& domain = "") {
  const std::string call = domain.empty() ? op : domain + "." + op;
  auto model = modelAtOpset(opset, "  Z = " + call + "(X)");
  return schemaOf(*findNode(model->graph(), "Z"));
}

std::optional<int64_t> sinceVersionAt(int opset, const std::string& op) {
  auto model = modelAtOpset(opset, "  Z = " + op + "(X)");
  return sinceVersionOf(*findNode(model->graph(), "Z"));
}

TEST(MatchTest, ElementOrderKeepersAndElementMoversByOpAndDomain) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "custom" : 1]>
g (float[2,3] X) => (float[?] Y) <int64[1] s = {6}, int64[1] a = {0}, int64[2] p = {0, 1}> {
  r = Reshape(X, s)
  f = Flatten(X)
  q = Unsqueeze(X, a)
  t = Transpose(X)
  l = Slice(r, a, s)
  n = Neg(l)
  c = custom.Reshape(n, s)
  Y = Identity(c)
}
)");
  ir::Graph& graph = model->graph();
  for (const char* keeper : {"r", "f", "q"}) {
    EXPECT_TRUE(keepsElementOrder(*findNode(graph, keeper))) << keeper;
    EXPECT_TRUE(onlyMovesElements(*findNode(graph, keeper))) << keeper;
  }
  for (const char* mover : {"t", "l", "Y"}) {
    EXPECT_FALSE(keepsElementOrder(*findNode(graph, mover))) << mover;
    EXPECT_TRUE(onlyMovesElements(*findNode(graph, mover))) << mover;
  }
  for (const char* other : {"n", "c"}) {
    EXPECT_FALSE(keepsElementOrder(*findNode(graph, other))) << other;
    EXPECT_FALSE(onlyMovesElements(*findNode(graph, other))) << other;
  }
}

TEST(MatchTest, ReadersAreSingleOrAllAmongAGivenSet) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X) => (float[2] Y, float[2] b) {
  a = Relu(X)
  b = Neg(X)
  c = Abs(a)
  d = Sigmoid(a)
  e = Exp(b)
  unread = Tanh(X)
  Y = Sum(c, d, e)
}
)");
  ir::Graph& graph = model->graph();
  const ir::Node* c = findNode(graph, "c");
  const ir::Node* d = findNode(graph, "d");
  const ir::Node* e = findNode(graph, "e");
  const ir::Value& a = *findNode(graph, "a")->output(0);
  const ir::Value& b = *findNode(graph, "b")->output(0);
  EXPECT_TRUE(onlyReadBy(a, {c, d}));
  EXPECT_FALSE(onlyReadBy(a, {c})) << "d reads it too";
  EXPECT_FALSE(hasSingleReader(a));
  EXPECT_FALSE(onlyReadBy(b, {e})) << "a graph output is a use no node can take away";
  EXPECT_FALSE(hasSingleReader(b));
  EXPECT_TRUE(hasSingleReader(*c->output(0)));
  EXPECT_TRUE(onlyReadBy(*findNode(graph, "unread")->output(0), {}));
}

TEST(MatchTest, KnownSizesOnlyOfFullyKnownShapes) {
  EXPECT_EQ(knownSizes(ir::Shape{ir::Dim::known(2), ir::Dim::known(0)}),
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(knownSizes(ir::Shape{}), std::vector<int64_t>{});
  EXPECT_EQ(knownSizes(ir::Shape{ir::Dim::known(2), ir::Dim::symbolic("N")}), std::nullopt);
  EXPECT_EQ(knownSizes(ir::Shape{ir::Dim::unknown()}), std::nullopt);
}

TEST(SchemaTest, KnownUpToSeventeenAndBeyondOnlyForOpsThatDidNotChange) {
  ASSERT_NE(schemaAt(13, "Relu"), nullptr);
  EXPECT_EQ(schemaAt(13, "Relu")->SinceVersion(), 13);
  EXPECT_EQ(schemaAt(17, "Relu")->SinceVersion(), 14);
  EXPECT_EQ(schemaAt(23, "Relu")->SinceVersion(), 14) << "Relu has no version after 14";
  EXPECT_EQ(schemaAt(24, "Relu"), nullptr) << "beyond kNewestKnownOpset";

  ASSERT_NE(schemaAt(17, "ReduceMean"), nullptr);
  EXPECT_EQ(schemaAt(18, "ReduceMean"), nullptr) << "ReduceMean-18 takes axes as an input";
  // ReduceSum took axes as an input in 13 and has no version 18.
  ASSERT_NE(schemaAt(18, "ReduceSum"), nullptr);
  EXPECT_EQ(schemaAt(18, "ReduceSum")->SinceVersion(), 13);
  ASSERT_NE(schemaAt(18, "Reshape"), nullptr);
  EXPECT_EQ(schemaAt(19, "Reshape"), nullptr);
  EXPECT_EQ(schemaAt(23, "Transpose"), nullptr);
  EXPECT_EQ(schemaAt(18, "Mish"), nullptr) << "new in 18";
  // Opset 22 only added bfloat16 to its ops: the version before still says what they do.
  ASSERT_NE(schemaAt(22, "ConvTranspose"), nullptr);
  EXPECT_EQ(schemaAt(22, "ConvTranspose")->SinceVersion(), 11);
  ASSERT_NE(schemaAt(22, "LSTM"), nullptr);
  EXPECT_EQ(schemaAt(22, "LSTM")->SinceVersion(), 14);
  EXPECT_EQ(schemaAt(22, "AveragePool"), nullptr) << "AveragePool-19 added dilations";
  EXPECT_EQ(schemaAt(22, "GridSample"), nullptr) << "GridSample-20 renamed its modes";
  EXPECT_EQ(schemaAt(22, "Mish"), nullptr) << "new in 18, bfloat16 in 22";
  EXPECT_EQ(schemaAt(13, "NoSuchOp"), nullptr);

  EXPECT_NE(schemaAt(13, "LabelEncoder", "ai.onnx.ml"), nullptr);
  EXPECT_EQ(schemaAt(13, "Foo", "custom"), nullptr);
  auto ml4 = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "ai.onnx.ml" : 4]>
g (float[2] X) => (float[2] Y) {
  Y = ai.onnx.ml.LabelEncoder(X)
}
)");
  EXPECT_EQ(schemaOf(*findNode(ml4->graph(), "Y")), nullptr) << "libonnx knows ai.onnx.ml up to 3";
}

TEST(SchemaTest, SinceVersionCoversTheOpsetsAfterSeventeen) {
  EXPECT_EQ(sinceVersionAt(13, "Relu"), 13);
  EXPECT_EQ(sinceVersionAt(23, "Relu"), 14);
  EXPECT_EQ(sinceVersionAt(18, "ReduceMean"), 18);
  EXPECT_EQ(sinceVersionAt(20, "ReduceMax"), 20);
  EXPECT_EQ(sinceVersionAt(20, "Pad"), 19);
  EXPECT_EQ(sinceVersionAt(23, "Pad"), 23);
  EXPECT_EQ(sinceVersionAt(22, "Reshape"), 21);
  EXPECT_EQ(sinceVersionAt(22, "ConvTranspose"), 22) << "read with ConvTranspose-11's schema";
  EXPECT_EQ(sinceVersionAt(24, "Relu"), std::nullopt);
  EXPECT_EQ(sinceVersionAt(13, "NoSuchOp"), std::nullopt);
}

TEST(SchemaTest, OpsetAndTypeConstraints) {
  auto model = modelAtOpset(13, "  Z = Relu(X)\n  W = custom.Foo(X)");
  const ir::Node& relu = *findNode(model->graph(), "Z");
  EXPECT_EQ(opsetOf(relu), 13);
  EXPECT_EQ(opsetOf(*findNode(model->graph(), "W")), 1);
  EXPECT_TRUE(elemTypeAllowed(relu, "T", TensorProto::FLOAT));
  EXPECT_TRUE(elemTypeAllowed(relu, "T", TensorProto::BFLOAT16));
  EXPECT_FALSE(elemTypeAllowed(relu, "T", TensorProto::STRING));
  EXPECT_FALSE(elemTypeAllowed(relu, "T", TensorProto::UINT8)) << "Relu-13 is signed only";
  EXPECT_FALSE(elemTypeAllowed(relu, "T1", TensorProto::FLOAT)) << "no such constraint";
  EXPECT_FALSE(elemTypeAllowed(*findNode(model->graph(), "W"), "T", TensorProto::FLOAT));
}

TEST(SchemaTest, AttributesAreReadWithTheirKindsChecked) {
  auto model = modelAtOpset(13, R"(
  G = Gemm<transA = 1, alpha = 2.0>(X, X)
  T = Transpose<perm = [1, 0]>(X)
  P = AveragePool<kernel_shape = [1, 1], auto_pad = "VALID">(X)
  K = Constant<value = float[1] {3.0}>()
  S = ConstantOfShape(X)
  F = custom.Foo<scales = [0.5, 2.0], n = 3>(X))");
  ir::Graph& graph = model->graph();
  const ir::Node& gemm = *findNode(graph, "G");
  EXPECT_EQ(*getInt(gemm, "transA"), 1);
  EXPECT_EQ(*getInt(gemm, "transB"), std::nullopt);
  EXPECT_EQ(*getIntOr(gemm, "transB", 0), 0);
  EXPECT_EQ(*getFloat(gemm, "alpha"), 2.0f);
  EXPECT_EQ(*getFloatOr(gemm, "beta", 1.0f), 1.0f);
  EXPECT_EQ(*getInts(*findNode(graph, "T"), "perm"), (std::vector<int64_t>{1, 0}));
  const ir::Node& pool = *findNode(graph, "P");
  EXPECT_EQ(*getString(pool, "auto_pad"), "VALID");
  EXPECT_EQ(*getStringOr(pool, "no_such", "NOTSET"), "NOTSET");
  const absl::StatusOr<const TensorProto*> tensor = getTensor(*findNode(graph, "K"), "value");
  ASSERT_TRUE(tensor.ok() && *tensor != nullptr);
  EXPECT_EQ((*tensor)->float_data(0), 3.0f);
  EXPECT_EQ(*getTensor(*findNode(graph, "S"), "value"), nullptr) << "optional and absent";
  const ir::Node& foo = *findNode(graph, "F");
  EXPECT_EQ(*getFloats(foo, "scales"), (std::vector<float>{0.5f, 2.0f}));
  EXPECT_EQ(*getInt(foo, "n"), 3) << "no schema: the kind asked for is the rule";

  const absl::StatusOr<std::optional<int64_t>> wrong_ask = getInt(gemm, "alpha");
  ASSERT_FALSE(wrong_ask.ok());
  EXPECT_EQ(wrong_ask.status().code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(contains(wrong_ask.status().message(), "read as INT, but ONNX defines it as FLOAT"));
  const absl::StatusOr<std::optional<float>> no_schema = getFloat(foo, "n");
  ASSERT_FALSE(no_schema.ok());
  EXPECT_EQ(no_schema.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      contains(no_schema.status().message(), "attribute 'n' is INT, but ONNX defines it as FLOAT"));
  for (const ir::Node& node : graph) EXPECT_TRUE(checkAttributes(node).ok()) << ir::describe(node);
}

TEST(SchemaTest, WrongKindsAndMissingRequiredAttributesNameTheNode) {
  auto model = modelAtOpset(13, R"(
  G = Gemm<transA = 1.0>(X, X)
  C = Cast(X)
  T = Transpose<perm = 1>(X))");
  ir::Graph& graph = model->graph();
  const ir::Node& gemm = *findNode(graph, "G");
  const absl::StatusOr<int64_t> trans_a = getIntOr(gemm, "transA", 0);
  ASSERT_FALSE(trans_a.ok());
  EXPECT_EQ(trans_a.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(trans_a.status().message(),
            "node with output 'G' (Gemm): attribute 'transA' is FLOAT, but ONNX defines it as INT");
  EXPECT_EQ(checkAttributes(gemm).message(), trans_a.status().message());

  const ir::Node& cast = *findNode(graph, "C");
  const absl::StatusOr<std::optional<int64_t>> to = getInt(cast, "to");
  ASSERT_FALSE(to.ok());
  EXPECT_EQ(to.status().message(),
            "node with output 'C' (Cast): required attribute 'to' (INT) is missing");
  EXPECT_EQ(checkAttributes(cast).message(), to.status().message());

  const absl::Status perm = checkAttributes(*findNode(graph, "T"));
  EXPECT_EQ(perm.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(perm.message(), "attribute 'perm' is INT, but ONNX defines it as INTS"));
}

// sameComputation and computationHash: attributes in any order are the same computation; -0.0 is
// not 0.0; other inputs, other input order or another op are not; and equal ones hash alike.
TEST(MatchTest, SameComputationComparesOpInputsAndAttributesExactly) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
m (float[2,3] X, float[2,3] Z) => (float[2,3] A, float[2,3] B, float[2,3] C, float[2,3] D,
                                  float[2,3] E, float[2,3] F, float[2,3] G) {
  A = LeakyRelu<alpha = 0.0>(X)
  B = LeakyRelu<alpha = 0.0>(X)
  C = LeakyRelu<alpha = -0.0>(X)
  D = LeakyRelu<alpha = 0.0>(Z)
  E = Elu<alpha = 0.0>(X)
  F = Gemm<transA = 1, alpha = 2.0>(X, Z)
  G = Gemm<alpha = 2.0, transA = 1>(X, Z)
}
)");
  ASSERT_NE(model, nullptr);
  const ir::Graph& graph = model->graph();
  auto node = [&](const char* output) -> const ir::Node& {
    return *graph.findValue(output)->producer();
  };
  EXPECT_TRUE(sameComputation(node("A"), node("B")));
  EXPECT_EQ(computationHash(node("A")), computationHash(node("B")));
  EXPECT_TRUE(sameComputation(node("F"), node("G")));
  EXPECT_EQ(computationHash(node("F")), computationHash(node("G")));
  EXPECT_FALSE(sameComputation(node("A"), node("C")));
  EXPECT_FALSE(sameComputation(node("A"), node("D")));
  EXPECT_FALSE(sameComputation(node("A"), node("E")));
}

}  // namespace
}  // namespace onnxopt
