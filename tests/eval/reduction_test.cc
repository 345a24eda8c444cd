// The reduction kernels of the constant evaluator (passes/eval/kernels_reduction.cc): axes as
// attribute and as input per version, keepdims, noop_with_empty_axes, element types per
// version, and the exactness rule: a floating-point sum or product folds only when every order
// of accumulation gives the same, exact, result.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "eval_test_util.h"

namespace onnxopt::testing {
namespace {

using onnx::TensorProto;
using Code = absl::StatusCode;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

onnx::TensorProto matrix() { return makeTensor(TensorProto::FLOAT, {2, 3}, {1, 2, 3, 4, 5, 6}); }

TEST(ReductionKernels, AxesAsAttributeBeforeOpset13ForReduceSum) {
  const auto x = matrix();
  NodeRun rows("ReduceSum", 11, {&x}, {intsAttr("axes", {1})});
  EXPECT_EQ(dimsOf(rows.output()), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(rows.values(), (std::vector<double>{6, 15}));
  NodeRun columns("ReduceSum", 11, {&x}, {intsAttr("axes", {-2}), intAttr("keepdims", 0)});
  EXPECT_EQ(dimsOf(columns.output()), (std::vector<int64_t>{3}));
  EXPECT_EQ(columns.values(), (std::vector<double>{5, 7, 9}));
  NodeRun all("ReduceSum", 1, {&x}, {intAttr("keepdims", 0)});
  EXPECT_EQ(dimsOf(all.output()), (std::vector<int64_t>{}));
  EXPECT_EQ(all.values(), (std::vector<double>{21}));
  // Version 1 does not define negative axes; a repeated or out-of-range axis is an error.
  EXPECT_EQ(NodeRun("ReduceSum", 1, {&x}, {intsAttr("axes", {-1})}).code(), Code::kUnimplemented);
  EXPECT_EQ(NodeRun("ReduceSum", 11, {&x}, {intsAttr("axes", {1, -1})}).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("ReduceSum", 11, {&x}, {intsAttr("axes", {2})}).code(), Code::kInvalidArgument);
}

TEST(ReductionKernels, AxesAsInputFromOpset13ForReduceSum) {
  const auto x = matrix();
  const auto axes = makeInt64s({1}, {1});
  NodeRun rows("ReduceSum", 13, {&x, &axes});
  EXPECT_EQ(dimsOf(rows.output()), (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(rows.values(), (std::vector<double>{6, 15}));
  // The attribute is no longer read.
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&x}, {intsAttr("axes", {1})}).values(),
            (std::vector<double>{21}));
  const auto no_axes = makeInt64s({0}, {});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&x, &no_axes}).values(), (std::vector<double>{21}));
  NodeRun noop("ReduceSum", 13, {&x, &no_axes}, {intAttr("noop_with_empty_axes", 1)});
  EXPECT_EQ(dimsOf(noop.output()), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(noop.values(), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(
      dimsOf(
          NodeRun("ReduceSum", 13, {&x, nullptr}, {intAttr("noop_with_empty_axes", 1)}).output()),
      (std::vector<int64_t>{2, 3}));
  const auto int32_axes = makeTensor(TensorProto::INT32, {1}, {1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&x, &int32_axes}).code(), Code::kInvalidArgument);
}

TEST(ReductionKernels, OtherReductionsTakeAxesAsInputFromOpset18) {
  const auto x = matrix();
  const auto axes = makeInt64s({1}, {0});
  EXPECT_EQ(NodeRun("ReduceMax", 18, {&x, &axes}).values(), (std::vector<double>{4, 5, 6}));
  EXPECT_EQ(NodeRun("ReduceMin", 13, {&x}, {intsAttr("axes", {0})}).values(),
            (std::vector<double>{1, 2, 3}));
  EXPECT_EQ(NodeRun("ReduceProd", 18, {&x, &axes}, {intAttr("keepdims", 0)}).values(),
            (std::vector<double>{4, 10, 18}));
  EXPECT_EQ(NodeRun("ReduceMean", 18, {&x}).values(), (std::vector<double>{3.5}));
  EXPECT_EQ(NodeRun("ReduceMean", 18, {&x, nullptr}, {intAttr("noop_with_empty_axes", 1)}).values(),
            (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(ReductionKernels, ElementTypesFollowTheVersion) {
  const auto i8 = makeTensor(TensorProto::INT8, {3}, {-1, 7, 3});
  EXPECT_EQ(NodeRun("ReduceMax", 11, {&i8}).code(), Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("ReduceMax", 12, {&i8}).values(), (std::vector<double>{7}));
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&i8}).code(), Code::kInvalidArgument);
  const auto flags = makeTensor(TensorProto::BOOL, {2, 2}, {0, 1, 0, 0});
  const auto axes = makeInt64s({1}, {1});
  EXPECT_EQ(NodeRun("ReduceMax", 18, {&flags, &axes}).code(), Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("ReduceMax", 20, {&flags, &axes}).values(), (std::vector<double>{1, 0}));
  EXPECT_EQ(NodeRun("ReduceMin", 20, {&flags}).values(), (std::vector<double>{0}));
  const auto bf = makeTensor(TensorProto::BFLOAT16, {2}, {1.5, 2});
  EXPECT_EQ(NodeRun("ReduceSum", 11, {&bf}).code(), Code::kInvalidArgument);
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&bf}).values(), (std::vector<double>{3.5}));
}

TEST(ReductionKernels, FloatSumsFoldOnlyWhenEveryOrderIsExact) {
  const auto exact = makeTensor(TensorProto::FLOAT, {4}, {0.5, 0.25, -1024, 3});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&exact}).values(), (std::vector<double>{-1020.25}));
  // 1 + 2^-30 is not a float: the order of accumulation would matter.
  const auto inexact = makeTensor(TensorProto::FLOAT, {3}, {1, std::ldexp(1.0, -30), -1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&inexact}).code(), Code::kUnimplemented);
  // In double it is exact.
  const auto in_double = makeTensor(TensorProto::DOUBLE, {3}, {1, std::ldexp(1.0, -30), -1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&in_double}).values(),
            (std::vector<double>{std::ldexp(1.0, -30)}));
  // A float16 sum must be exact in float16: 2048 + 1 is not.
  const auto half = makeTensor(TensorProto::FLOAT16, {2}, {2048, 1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&half}).code(), Code::kUnimplemented);
  const auto half_exact = makeTensor(TensorProto::FLOAT16, {2}, {1024, 1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&half_exact}).values(), (std::vector<double>{1025}));
  const auto nan = makeTensor(TensorProto::FLOAT, {2}, {kNaN, 1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&nan}).code(), Code::kUnimplemented);
}

TEST(ReductionKernels, SignedZeroSums) {
  // A sum of -0s is -0 in ORT's Eigen path and +0 in its accumulating loops.
  const auto negative_zeros = makeTensor(TensorProto::FLOAT, {2}, {-0.0, -0.0});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&negative_zeros}).code(), Code::kUnimplemented);
  const auto mixed = makeTensor(TensorProto::FLOAT, {3}, {-0.0, 1, -1});
  const std::vector<double> sum = NodeRun("ReduceSum", 13, {&mixed}).values();
  ASSERT_EQ(sum.size(), 1u);
  EXPECT_EQ(sum[0], 0);
  EXPECT_FALSE(std::signbit(sum[0]));
}

TEST(ReductionKernels, MeanDividesTheExactSum) {
  const auto x = makeTensor(TensorProto::FLOAT, {3}, {1, 1, 2});
  EXPECT_EQ(NodeRun("ReduceMean", 13, {&x}).values(),
            (std::vector<double>{static_cast<float>(4.0f / 3.0f)}));
  const auto ints = makeTensor(TensorProto::INT32, {3}, {-1, -1, 1});
  EXPECT_EQ(NodeRun("ReduceMean", 13, {&ints}).values(), (std::vector<double>{0}));  // truncated
  const auto empty = makeTensor(TensorProto::FLOAT, {0}, {});
  EXPECT_EQ(NodeRun("ReduceMean", 13, {&empty}).code(), Code::kUnimplemented);
}

TEST(ReductionKernels, IntegerSumsAndProductsStayExact) {
  const auto x = makeTensor(TensorProto::INT64, {3}, {-4, 5, 6});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&x}).values(), (std::vector<double>{-120}));
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&x}).values(), (std::vector<double>{7}));
  // ORT saturates an int32 sum that overflows, and rounds int64 ones beyond 2^53: both decline.
  const auto overflow = makeTensor(TensorProto::INT32, {2}, {2147483647, 1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&overflow}).code(), Code::kUnimplemented);
  const auto big = makeInt64s({2}, {int64_t{1} << 53, 1});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&big}).code(), Code::kUnimplemented);
  // A magnitude near 2^63 declines without overflowing the running bound (found by eval_fuzzer).
  const auto far_negative =
      makeInt64s({2}, {int64_t{1} << 31, std::numeric_limits<int64_t>::min() + 2});
  EXPECT_EQ(NodeRun("ReduceSum", 13, {&far_negative}).code(), Code::kUnimplemented);
  const auto wide = makeInt64s({2}, {int64_t{1} << 40, int64_t{1} << 20});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&wide}).code(), Code::kUnimplemented);
  const auto with_zero = makeInt64s({3}, {int64_t{1} << 40, 0, int64_t{1} << 40});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&with_zero}).code(), Code::kUnimplemented);
}

TEST(ReductionKernels, EmptyReductions) {
  // The product of a scalar's shape (Size computations): 1; an empty sum is 0.
  const auto shape = makeInt64s({0}, {});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&shape}, {intAttr("keepdims", 0)}).values(),
            (std::vector<double>{1}));
  const auto empty = makeTensor(TensorProto::FLOAT, {0, 2}, {});
  NodeRun sum("ReduceSum", 11, {&empty}, {intsAttr("axes", {0})});
  EXPECT_EQ(dimsOf(sum.output()), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(sum.values(), (std::vector<double>{0, 0}));
  EXPECT_EQ(NodeRun("ReduceMax", 13, {&empty}, {intsAttr("axes", {0})}).code(),
            Code::kUnimplemented);
  // Reducing the other axis has no group at all: an empty output.
  NodeRun none("ReduceMax", 13, {&empty}, {intsAttr("axes", {1})});
  EXPECT_EQ(dimsOf(none.output()), (std::vector<int64_t>{0, 1}));
}

TEST(ReductionKernels, FloatProductsFoldOnlyWhenExact) {
  const auto x = makeTensor(TensorProto::FLOAT, {3}, {0.5, -6, 1024});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&x}).values(), (std::vector<double>{-3072}));
  const auto inexact = makeTensor(TensorProto::FLOAT, {2}, {4097, 4097});  // 2^24 + 2^13 + 1
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&inexact}).code(), Code::kUnimplemented);
  // A partial product could overflow before the zero is met: inf * 0 would be NaN.
  const auto overflow = makeTensor(TensorProto::FLOAT, {3}, {1e30, 1e30, 0});
  EXPECT_EQ(NodeRun("ReduceProd", 13, {&overflow}).code(), Code::kUnimplemented);
  const auto zero = makeTensor(TensorProto::FLOAT, {3}, {-2, 0, 8});
  const std::vector<double> product = NodeRun("ReduceProd", 13, {&zero}).values();
  ASSERT_EQ(product.size(), 1u);
  EXPECT_EQ(product[0], 0);
  EXPECT_TRUE(std::signbit(product[0]));
}

TEST(ReductionKernels, MinMaxDeclineNaNAndMixedZeros) {
  const auto nan = makeTensor(TensorProto::FLOAT, {3}, {1, kNaN, 2});
  EXPECT_EQ(NodeRun("ReduceMax", 13, {&nan}).code(), Code::kUnimplemented);
  const auto zeros = makeTensor(TensorProto::FLOAT, {2}, {0.0, -0.0});
  EXPECT_EQ(NodeRun("ReduceMin", 13, {&zeros}).code(), Code::kUnimplemented);
  const auto halves = makeTensor(TensorProto::FLOAT16, {3}, {-1.5, 65504, 2});
  EXPECT_EQ(NodeRun("ReduceMax", 13, {&halves}).values(), (std::vector<double>{65504}));
  const auto u64 = makeTensor(TensorProto::UINT64, {2}, {3, 9});
  EXPECT_EQ(NodeRun("ReduceMin", 1, {&u64}).values(), (std::vector<double>{3}));
}

}  // namespace
}  // namespace onnxopt::testing
