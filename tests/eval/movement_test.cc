// The evaluator's core (passes/eval/evaluator.cc) and its data-movement kernels
// (kernels_movement.cc): the exact edge cases and the decline paths. Agreement with ONNX Runtime
// on random inputs is eval.kernels_vs_ort's.

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "eval_test_util.h"

namespace onnxopt::testing {
namespace {

using onnx::TensorProto;
using Code = absl::StatusCode;

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TensorProto floats(std::vector<int64_t> dims, const std::vector<double>& values) {
  return makeTensor(TensorProto::FLOAT, std::move(dims), values);
}

TensorProto int64s(const std::vector<int64_t>& values) {
  return makeInt64s({static_cast<int64_t>(values.size())}, values);
}

std::vector<double> iota(int n) {
  std::vector<double> values;
  for (int i = 0; i < n; ++i) values.push_back(i);
  return values;
}

TEST(EvaluatorCore, NoKernelForOtherDomainsUnknownOpsAndOldVersions) {
  const TensorProto x = floats({2}, {1, 2});
  EXPECT_EQ(NodeRun("NoSuchOp", 13, {&x}).code(), Code::kUnimplemented);
  // Reshape-1 takes its shape as an attribute; there is no kernel for it.
  EXPECT_EQ(NodeRun("Reshape", 4, {&x}, {intsAttr("shape", {2})}).code(), Code::kUnimplemented);
  // Beyond the newest opset onnx-opt knows, versions are unknown.
  EXPECT_EQ(NodeRun("Identity", 99, {&x}).code(), Code::kUnimplemented);
}

TEST(EvaluatorCore, DataNotMatchingDimsIsInvalid) {
  TensorProto bad = floats({2}, {1, 2});
  bad.set_name("w");
  bad.clear_dims();
  bad.add_dims(3);
  const NodeRun run("Identity", 13, {&bad});
  EXPECT_EQ(run.code(), Code::kInvalidArgument);
  EXPECT_NE(run.result().status().message().find("'w'"), std::string::npos) << run.result().status();
}

TEST(EvaluatorCore, ErrorsNameTheNode) {
  const TensorProto x = floats({2, 3}, iota(6));
  const TensorProto shape = int64s({4, -1});
  const NodeRun run("Reshape", 13, {&x, &shape});
  EXPECT_EQ(run.code(), Code::kInvalidArgument);
  EXPECT_NE(run.result().status().message().find("(Reshape)"), std::string::npos) << run.result().status();
}

TEST(EvaluatorCore, AbsurdDimsDoNotAllocate) {
  const TensorProto huge = int64s({kMaxInt, kMaxInt});
  EXPECT_EQ(NodeRun("ConstantOfShape", 9, {&huge}).code(), Code::kResourceExhausted);
  const TensorProto big = int64s({1 << 20, 1 << 20});
  EXPECT_EQ(NodeRun("ConstantOfShape", 9, {&big}).code(), Code::kResourceExhausted);
  const TensorProto x = floats({2}, {1, 2});
  const TensorProto repeats = int64s({kMaxInt});
  EXPECT_EQ(NodeRun("Tile", 13, {&x, &repeats}).code(), Code::kResourceExhausted);
  const TensorProto expand = int64s({1 << 30, 1 << 30, 2});
  EXPECT_EQ(NodeRun("Expand", 13, {&x, &expand}).code(), Code::kResourceExhausted);
  const TensorProto negative = int64s({2, -3});
  EXPECT_EQ(NodeRun("ConstantOfShape", 9, {&negative}).code(), Code::kInvalidArgument);
}

// Found by eval_fuzzer: an empty output returned before the other dims were multiplied, whose
// product then overflowed in numElements() (and no TensorProto may hold such dims).
TEST(EvaluatorCore, EmptyOutputWhoseOtherDimsOverflowIsInvalid) {
  const TensorProto absurd = int64s({1 << 20, 1000000000000000000, 0});
  EXPECT_EQ(NodeRun("ConstantOfShape", 9, {&absurd}).code(), Code::kInvalidArgument);
  const TensorProto empty = int64s({0, 1000000000000000000});
  const NodeRun run("ConstantOfShape", 9, {&empty});
  ASSERT_TRUE(run.result().ok()) << run.result().status();
  EXPECT_EQ(run.values(), std::vector<double>{});
}

// Found by eval_fuzzer: Transpose's strides of an initializer float[0,1e18,16,2^31] overflowed
// (UBSan), and Reshape could give an empty tensor such dims.
TEST(EvaluatorCore, EmptyTensorsWhoseOtherDimsOverflowAreNotComputedOn) {
  const TensorProto absurd = floats({0, 1000000000000000000, 16, int64_t{1} << 31}, {});
  const NodeRun transpose("Transpose", 13, {&absurd});
  EXPECT_EQ(transpose.code(), Code::kUnimplemented) << transpose.result().status();
  const TensorProto empty = floats({0, 4}, {});
  const TensorProto shape = int64s({0, 1000000000000000000, 1 << 20});
  const NodeRun reshape("Reshape", 14, {&empty, &shape}, {intAttr("allowzero", 1)});
  EXPECT_EQ(reshape.code(), Code::kInvalidArgument) << reshape.result().status();
}

// Concat of [1e18, 0] on axis 1 stepped through 1e18 empty blocks (a hang, found by eval_fuzzer).
TEST(EvaluatorCore, EmptyTensorsWithHugeOtherDimsMoveAtOnce) {
  const TensorProto empty = floats({1000000000000000000, 0}, {});
  const NodeRun concat("Concat", 13, {&empty, &empty}, {intAttr("axis", 1)});
  ASSERT_TRUE(concat.result().ok()) << concat.result().status();
  EXPECT_EQ(concat.values(), std::vector<double>{});
  const TensorProto split_sizes = int64s({0, 0});
  const NodeRun split("Split", 13, {&empty, &split_sizes}, {intAttr("axis", 1)}, 2);
  EXPECT_TRUE(split.result().ok()) << split.result().status();
  const TensorProto indices = makeInt64s({0}, {});
  const NodeRun gather("Gather", 13, {&empty, &indices}, {intAttr("axis", 1)});
  EXPECT_TRUE(gather.result().ok()) << gather.result().status();
}

TEST(EvaluatorCore, RangeOfAbsurdLengthDoesNotAllocate) {
  const TensorProto start = makeTensor(TensorProto::FLOAT, {}, {0});
  const TensorProto limit = makeTensor(TensorProto::FLOAT, {}, {3e38});
  const TensorProto delta = makeTensor(TensorProto::FLOAT, {}, {1e-30});
  EXPECT_EQ(NodeRun("Range", 11, {&start, &limit, &delta}).code(), Code::kResourceExhausted);
  const TensorProto zero = makeTensor(TensorProto::FLOAT, {}, {0});
  EXPECT_EQ(NodeRun("Range", 11, {&start, &limit, &zero}).code(), Code::kInvalidArgument);
}

TEST(Cast, FloatToIntTruncatesTowardZero) {
  const TensorProto x = floats({4}, {2.9, -2.9, 0.5, -0.5});
  const NodeRun run("Cast", 13, {&x}, {intAttr("to", TensorProto::INT32)});
  EXPECT_EQ(run.values(), (std::vector<double>{2, -2, 0, 0}));
}

TEST(Cast, NaNAndOutOfRangeToIntegerDecline) {
  const TensorProto nan = floats({1}, {kNaN});
  EXPECT_EQ(NodeRun("Cast", 13, {&nan}, {intAttr("to", TensorProto::INT64)}).code(), Code::kInvalidArgument);
  const TensorProto big = floats({1}, {256});
  EXPECT_EQ(NodeRun("Cast", 13, {&big}, {intAttr("to", TensorProto::UINT8)}).code(), Code::kInvalidArgument);
  const TensorProto negative = floats({1}, {-1});
  EXPECT_EQ(NodeRun("Cast", 13, {&negative}, {intAttr("to", TensorProto::UINT32)}).code(), Code::kInvalidArgument);
  const TensorProto edge = makeTensor(TensorProto::DOUBLE, {2}, {9223372036854775807.0, -9223372036854775808.0});
  // 2^63 is out of int64's range; -2^63 is in it.
  EXPECT_EQ(NodeRun("Cast", 13, {&edge}, {intAttr("to", TensorProto::INT64)}).code(), Code::kInvalidArgument);
  const TensorProto low = makeTensor(TensorProto::DOUBLE, {1}, {-9223372036854775808.0});
  EXPECT_EQ(NodeRun("Cast", 13, {&low}, {intAttr("to", TensorProto::INT64)}).values(),
            (std::vector<double>{-9223372036854775808.0}));
  const TensorProto almost = floats({1}, {255.9});
  EXPECT_EQ(NodeRun("Cast", 13, {&almost}, {intAttr("to", TensorProto::UINT8)}).values(), (std::vector<double>{255}));
}

TEST(Cast, ToNoElementTypeDeclines) {
  const TensorProto x = floats({1}, {1});
  EXPECT_EQ(NodeRun("Cast", 13, {&x}, {intAttr("to", 0)}).code(), Code::kInvalidArgument);
  // 2^32 + 1: its low 32 bits are FLOAT.
  EXPECT_EQ(NodeRun("Cast", 13, {&x}, {intAttr("to", (int64_t{1} << 32) + 1)}).code(),
            Code::kInvalidArgument);
}

TEST(Cast, ToHalfRoundsToNearestEven) {
  // 1 + 2^-11 is halfway between 1 and the next float16 (1 + 2^-10): ties go to even, 1.
  // 1 + 3*2^-11 is halfway between 1 + 2^-10 and 1 + 2^-9: ties go to 1 + 2^-9.
  const TensorProto x = floats({3}, {1 + 0x1p-11, 1 + 3 * 0x1p-11, 70000});
  const NodeRun run("Cast", 13, {&x}, {intAttr("to", TensorProto::FLOAT16)});
  EXPECT_EQ(run.values(), (std::vector<double>{1, 1 + 0x1p-9, std::numeric_limits<double>::infinity()}));
}

TEST(Cast, StringsAndFloatToBoolDecline) {
  const TensorProto s = makeStrings({1}, {"1.5"});
  EXPECT_EQ(NodeRun("Cast", 13, {&s}, {intAttr("to", TensorProto::FLOAT)}).code(), Code::kUnimplemented);
  const TensorProto x = floats({1}, {1.5});
  EXPECT_EQ(NodeRun("Cast", 13, {&x}, {intAttr("to", TensorProto::STRING)}).code(), Code::kUnimplemented);
  EXPECT_EQ(NodeRun("Cast", 13, {&x}, {intAttr("to", TensorProto::BOOL)}).code(), Code::kUnimplemented);
}

TEST(Cast, BFloat16NeedsVersion13) {
  const TensorProto x = floats({1}, {1.5});
  EXPECT_EQ(NodeRun("Cast", 9, {&x}, {intAttr("to", TensorProto::BFLOAT16)}).code(), Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("Cast", 13, {&x}, {intAttr("to", TensorProto::BFLOAT16)}).values(), (std::vector<double>{1.5}));
}

TEST(Reshape, ZeroCopiesADimUnlessAllowZero) {
  const TensorProto x = floats({2, 0, 3}, {});
  const TensorProto copy = int64s({0, 3, -1});
  EXPECT_EQ(dimsOf(NodeRun("Reshape", 13, {&x, &copy}).output()), (std::vector<int64_t>{2, 3, 0}));
  // With allowzero, 0 is a zero dim.
  const TensorProto zeros = int64s({0, 3, 0});
  EXPECT_EQ(dimsOf(NodeRun("Reshape", 14, {&x, &zeros}, {intAttr("allowzero", 1)}).output()),
            (std::vector<int64_t>{0, 3, 0}));
  // allowzero is not read before version 14: [0, -1] copies dim 0. From 14, 0 and -1 together
  // are invalid with it.
  const TensorProto both = int64s({0, -1});
  EXPECT_EQ(dimsOf(NodeRun("Reshape", 13, {&x, &both}, {intAttr("allowzero", 1)}).output()),
            (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(NodeRun("Reshape", 14, {&x, &both}, {intAttr("allowzero", 1)}).code(), Code::kInvalidArgument);
}

TEST(Reshape, ImpossibleShapesAreInvalid) {
  const TensorProto x = floats({2, 3}, iota(6));
  for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{
           {4, -1}, {-1, -1}, {5}, {-2, 3}, {0, 0, 0, 0}, {kMaxInt, kMaxInt}}) {
    const TensorProto t = int64s(shape);
    EXPECT_EQ(NodeRun("Reshape", 13, {&x, &t}).code(), Code::kInvalidArgument) << ::testing::PrintToString(shape);
  }
  const TensorProto empty = floats({0, 3}, {});
  const TensorProto infer = int64s({0, -1});
  // -1 next to a 0 that copies 0: the remaining product is 0, nothing to infer from.
  EXPECT_EQ(NodeRun("Reshape", 13, {&empty, &infer}).code(), Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("Reshape", 14, {&empty, &infer}, {intAttr("allowzero", 1)}).code(), Code::kInvalidArgument);
}

TEST(Slice, ClampsStartsAndEnds) {
  const TensorProto x = floats({5}, iota(5));
  const TensorProto starts = int64s({-100});
  const TensorProto ends = int64s({kMaxInt});
  EXPECT_EQ(NodeRun("Slice", 13, {&x, &starts, &ends}).values(), iota(5));
  const TensorProto s2 = int64s({-2});
  const TensorProto e2 = int64s({-100});
  const TensorProto axes = int64s({0});
  const TensorProto back = int64s({-1});
  EXPECT_EQ(NodeRun("Slice", 13, {&x, &s2, &e2, &axes, &back}).values(), (std::vector<double>{3, 2, 1, 0}));
  const TensorProto s3 = int64s({kMaxInt});
  const TensorProto e3 = int64s({std::numeric_limits<int64_t>::min()});
  const TensorProto two_back = int64s({-2});
  EXPECT_EQ(NodeRun("Slice", 13, {&x, &s3, &e3, &axes, &two_back}).values(), (std::vector<double>{4, 2, 0}));
  const TensorProto s4 = int64s({3});
  const TensorProto e4 = int64s({1});
  EXPECT_TRUE(NodeRun("Slice", 13, {&x, &s4, &e4}).values().empty());
}

TEST(Slice, StepZeroAndDuplicateAxesAreInvalid) {
  const TensorProto x = floats({5}, iota(5));
  const TensorProto starts = int64s({0});
  const TensorProto ends = int64s({5});
  const TensorProto axes = int64s({0});
  const TensorProto zero = int64s({0});
  EXPECT_EQ(NodeRun("Slice", 13, {&x, &starts, &ends, &axes, &zero}).code(), Code::kInvalidArgument);
  const TensorProto s2 = int64s({0, 1});
  const TensorProto e2 = int64s({5, 3});
  const TensorProto twice = int64s({0, -1});
  EXPECT_EQ(NodeRun("Slice", 13, {&x, &s2, &e2, &twice}).code(), Code::kInvalidArgument);
}

TEST(Slice, AttributeFormBeforeVersion10) {
  const TensorProto x = floats({2, 3}, iota(6));
  const NodeRun run("Slice", 9, {&x}, {intsAttr("starts", {1}), intsAttr("ends", {kMaxInt}), intsAttr("axes", {1})});
  EXPECT_EQ(run.values(), (std::vector<double>{1, 2, 4, 5}));
}

TEST(Gather, NegativeIndicesCountFromTheBackAndOutOfRangeIsInvalid) {
  const TensorProto x = floats({3, 2}, iota(6));
  const TensorProto indices = int64s({-1, 0});
  EXPECT_EQ(NodeRun("Gather", 13, {&x, &indices}).values(), (std::vector<double>{4, 5, 0, 1}));
  for (const int64_t bad : {3, -4}) {
    const TensorProto t = int64s({bad});
    EXPECT_EQ(NodeRun("Gather", 13, {&x, &t}).code(), Code::kInvalidArgument);
    EXPECT_EQ(NodeRun("GatherElements", 13, {&x, &t}).code(), Code::kInvalidArgument);
  }
  const TensorProto elements = makeInt64s({1, 2}, {3, 0});
  EXPECT_EQ(NodeRun("GatherElements", 13, {&x, &elements}).code(), Code::kInvalidArgument);
}

TEST(ScatterND, ReplacesNamedSlicesAndDeclinesWhatItDoesNotDefine) {
  const TensorProto x = floats({3, 2}, iota(6));
  const TensorProto rows = makeInt64s({2, 1}, {2, 0});
  const TensorProto updates = floats({2, 2}, {10, 11, 12, 13});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &rows, &updates}).values(),
            (std::vector<double>{12, 13, 2, 3, 10, 11}));
  // A negative index (runtimes differ on it) and a row named twice (which update wins is open).
  const TensorProto negative = makeInt64s({2, 1}, {-1, 0});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &negative, &updates}).code(), Code::kUnimplemented);
  const TensorProto twice = makeInt64s({2, 1}, {1, 1});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &twice, &updates}).code(), Code::kUnimplemented);
  onnx::AttributeProto add;
  add.set_name("reduction");
  add.set_type(onnx::AttributeProto::STRING);
  add.set_s("add");
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &rows, &updates}, {add}).code(), Code::kUnimplemented);
  // Out of range, updates of the wrong shape, and tuples longer than the data's rank.
  const TensorProto out_of_range = makeInt64s({2, 1}, {3, 0});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &out_of_range, &updates}).code(), Code::kInvalidArgument);
  const TensorProto short_updates = floats({2}, {1, 2});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &rows, &short_updates}).code(), Code::kInvalidArgument);
  const TensorProto too_long = makeInt64s({1, 3}, {0, 0, 0});
  EXPECT_EQ(NodeRun("ScatterND", 16, {&x, &too_long, &short_updates}).code(), Code::kInvalidArgument);
}

TEST(Squeeze, AxesFromTheAttributeBefore13AndTheInputFrom13) {
  const TensorProto x = floats({1, 2, 1}, {7, 8});
  EXPECT_EQ(dimsOf(NodeRun("Squeeze", 11, {&x}, {intsAttr("axes", {-1})}).output()), (std::vector<int64_t>{1, 2}));
  const TensorProto axes = int64s({0});
  EXPECT_EQ(dimsOf(NodeRun("Squeeze", 13, {&x, &axes}).output()), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(dimsOf(NodeRun("Squeeze", 13, {&x}).output()), (std::vector<int64_t>{2}));
  // A negative axis needs version 11; a dim that is not 1 cannot be squeezed.
  EXPECT_EQ(NodeRun("Squeeze", 1, {&x}, {intsAttr("axes", {-1})}).code(), Code::kInvalidArgument);
  const TensorProto not_one = int64s({1});
  EXPECT_EQ(NodeRun("Squeeze", 13, {&x, &not_one}).code(), Code::kInvalidArgument);
  const TensorProto unsqueeze = int64s({-1, 0});
  EXPECT_EQ(dimsOf(NodeRun("Unsqueeze", 13, {&x, &unsqueeze}).output()), (std::vector<int64_t>{1, 1, 2, 1, 1}));
  const TensorProto duplicate = int64s({0, -5});
  EXPECT_EQ(NodeRun("Unsqueeze", 13, {&x, &duplicate}).code(), Code::kInvalidArgument);
}

TEST(Split, NumOutputsGivesASmallerLastChunk) {
  const TensorProto x = floats({7}, iota(7));
  const NodeRun run("Split", 18, {&x}, {intAttr("num_outputs", 3)}, 3);
  ASSERT_TRUE(run.result().ok()) << run.result().status();
  EXPECT_EQ(dimsOf((*run.result())[0]), (std::vector<int64_t>{3}));
  EXPECT_EQ(values((*run.result())[2]), (std::vector<double>{6}));
  // ONNX Runtime refuses more outputs than the dim has elements, even on an empty dim.
  const TensorProto empty = floats({0}, {});
  EXPECT_EQ(NodeRun("Split", 18, {&empty}, {intAttr("num_outputs", 2)}, 2).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("Split", 18, {&empty}, {intAttr("num_outputs", 1)}, 1).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("Split", 13, {&empty}, {}, 2).values(), std::vector<double>{});
  // Its chunks of ceil(dim / parts) that miss the dim it refuses too: 2+2+2+2 for 6.
  const TensorProto six = floats({6}, iota(6));
  EXPECT_EQ(NodeRun("Split", 18, {&six}, {intAttr("num_outputs", 4)}, 4).code(),
            Code::kInvalidArgument);
  // It computes the chunk in float: 2^24 + 1 in two parts gives chunks of 2^23 and 1.
  const TensorProto long_dim = floats({(int64_t{1} << 24) + 1, 0}, {});
  EXPECT_EQ(NodeRun("Split", 18, {&long_dim}, {intAttr("num_outputs", 2)}, 2).code(),
            Code::kInvalidArgument);
  // Without split or num_outputs, the dim must divide into one equal part per output.
  EXPECT_EQ(NodeRun("Split", 13, {&x}, {}, 2).code(), Code::kInvalidArgument);
  const TensorProto sizes = int64s({3, 3});
  EXPECT_EQ(NodeRun("Split", 13, {&x, &sizes}, {}, 2).code(), Code::kInvalidArgument);
}

TEST(Transpose, DefaultPermReversesAndBadPermIsInvalid) {
  const TensorProto x = floats({2, 3}, iota(6));
  const NodeRun run("Transpose", 13, {&x});
  EXPECT_EQ(dimsOf(run.output()), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(run.values(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(NodeRun("Transpose", 13, {&x}, {intsAttr("perm", {0, 0})}).code(), Code::kInvalidArgument);
}

TEST(Strings, MoveThroughDataMovementOps) {
  const TensorProto s = makeStrings({2, 2}, {"a", "b", "c", "d"});
  const NodeRun run("Transpose", 13, {&s});
  ASSERT_TRUE(run.result().ok()) << run.result().status();
  const TensorProto& out = run.result()->front();
  ASSERT_EQ(out.string_data_size(), 4);
  EXPECT_EQ(out.string_data(1), "c");
  // ONNX Runtime's Gather loses strings: declined.
  const TensorProto indices = int64s({1});
  EXPECT_EQ(NodeRun("Gather", 13, {&s, &indices}).code(), Code::kUnimplemented);
  const TensorProto repeats = int64s({1, 2});
  const NodeRun tiled("Tile", 13, {&s, &repeats});
  ASSERT_TRUE(tiled.result().ok()) << tiled.result().status();
  EXPECT_EQ(tiled.result()->front().string_data(3), "b");
}

TEST(NonZero, ScalarsDecline) {
  const TensorProto x = floats({}, {1});
  EXPECT_EQ(NodeRun("NonZero", 13, {&x}).code(), Code::kUnimplemented);
}

}  // namespace
}  // namespace onnxopt::testing
