// The list operands that moved from attributes to inputs: onnxopt/rewrite/operands.h.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "onnxopt/rewrite/operands.h"
#include "test_models.h"

namespace onnxopt {
namespace {

using onnxopt::testing::findNode;
using onnxopt::testing::parseModel;
using Ints = std::vector<int64_t>;

TEST(ResolveAxesTest, CountsNegativeAxesFromTheBack) {
  EXPECT_EQ(*resolveAxes({-1, 1, -3}, 3), (Ints{2, 1, 0}));
}

TEST(ResolveAxesTest, SortedGivesTheSetInAscendingOrder) {
  EXPECT_EQ(*resolveAxesSorted({-1, 1, -3}, 3), (Ints{0, 1, 2}));
  EXPECT_FALSE(resolveAxesSorted({1, -2}, 3)) << "a repeat is refused as by resolveAxes";
}

// Without a rank only axes a tensor can have resolve: one past the most dims (64) would make
// Squeeze/Unsqueeze compositions count past INT64_MAX (found by eval_fuzzer).
TEST(ResolveAxesTest, WithoutARankRefusesNegativeAndAbsurdAxes) {
  EXPECT_EQ(*resolveAxes({0, 63}, std::nullopt), (Ints{0, 63}));
  EXPECT_FALSE(resolveAxes({-1}, std::nullopt));
  EXPECT_FALSE(resolveAxes({64}, std::nullopt));
  EXPECT_FALSE(resolveAxes({std::numeric_limits<int64_t>::max()}, std::nullopt));
}

TEST(ResolveAxesTest, RefusesAxesOutOfRangeAndRepeats) {
  EXPECT_FALSE(resolveAxes({3}, 3));
  EXPECT_FALSE(resolveAxes({-4}, 3));
  EXPECT_FALSE(resolveAxes({1, -2}, 3)) << "-2 is axis 1 of rank 3";
}

TEST(ResolveAxesTest, WithoutARankOnlyNonNegativeAxesResolve) {
  EXPECT_EQ(*resolveAxes({5, 0}, std::nullopt), (Ints{5, 0}));
  EXPECT_FALSE(resolveAxes({0, -1}, std::nullopt));
  EXPECT_FALSE(resolveAxes({2, 2}, std::nullopt));
  EXPECT_TRUE(allNonNegative({0, 4}));
  EXPECT_FALSE(allNonNegative({0, -1}));
}

TEST(AxisSkippingTest, SkipsTheGivenAxes) {
  // Axes 1 and 2 are taken: the others are 0, 3, 4, ...
  EXPECT_EQ(axisSkipping(0, {1, 2}), 0);
  EXPECT_EQ(axisSkipping(1, {1, 2}), 3);
  EXPECT_EQ(axisSkipping(2, {1, 2}), 4);
  EXPECT_EQ(axisSkipping(0, {0}), 1);
  EXPECT_EQ(axisSkipping(2, {}), 2);
}

TEST(ReadAxesOperandTest, AttributeBeforeTheInputOpset) {
  auto model = parseModel(R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[1,3] X) => (float[3] Y, float[3] Z) {
  Y = Squeeze<axes = [0]>(X)
  Z = Squeeze(X)
}
)");
  absl::StatusOr<AxesOperand> given = readAxesOperand(*findNode(model->graph(), "Y"), 13);
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_TRUE(given->given);
  EXPECT_EQ(*given->values, Ints{0});
  absl::StatusOr<AxesOperand> absent = readAxesOperand(*findNode(model->graph(), "Z"), 13);
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_FALSE(absent->given);
}

TEST(ReadAxesOperandTest, InputFromTheInputOpset) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[1,3] X, int64[1] G) => (float[3] Y, float[?] Z, float[3] W) <int64[1] A = {-2}> {
  Y = Squeeze(X, A)
  Z = Squeeze(X, G)
  W = Squeeze(X)
}
)");
  ir::Graph& graph = model->graph();
  absl::StatusOr<AxesOperand> constant = readAxesOperand(*findNode(graph, "Y"), 13);
  ASSERT_TRUE(constant.ok()) << constant.status();
  EXPECT_TRUE(constant->given);
  EXPECT_EQ(*constant->values, Ints{-2});
  absl::StatusOr<AxesOperand> fed = readAxesOperand(*findNode(graph, "Z"), 13);
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_TRUE(fed->given);
  EXPECT_FALSE(fed->values) << "a graph input is not constant";
  absl::StatusOr<AxesOperand> absent = readAxesOperand(*findNode(graph, "W"), 13);
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_FALSE(absent->given);
}

TEST(ReadAxesOperandTest, AnAttributeOfTheWrongKindIsAnError) {
  auto model = parseModel(R"(
<ir_version: 7, opset_import: ["" : 11]>
g (float[1,3] X) => (float[3] Y) {
  Y = Squeeze<axes = 0>(X)
}
)");
  EXPECT_FALSE(readAxesOperand(*findNode(model->graph(), "Y"), 13).ok());
}

TEST(ReadSliceArgumentsTest, FillsDefaultAxesAndSteps) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4,4] X, int64[1] G) => (float[2,2] Y, float[?,4] Z) <int64[2] S = {1, 0}, int64[2] E = {3, 2}, int64[1] S1 = {0}> {
  Y = Slice(X, S, E)
  Z = Slice(X, S1, G)
}
)");
  ir::Graph& graph = model->graph();
  absl::StatusOr<std::optional<SliceArguments>> read = readSliceArguments(*findNode(graph, "Y"));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(*read);
  EXPECT_EQ((*read)->starts, (Ints{1, 0}));
  EXPECT_EQ((*read)->ends, (Ints{3, 2}));
  EXPECT_EQ((*read)->axes, (Ints{0, 1}));
  EXPECT_EQ((*read)->steps, (Ints{1, 1}));
  absl::StatusOr<std::optional<SliceArguments>> fed = readSliceArguments(*findNode(graph, "Z"));
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_FALSE(*fed) << "ends are a graph input";
}

TEST(ReadSliceArgumentsTest, ReadsSlice1Attributes) {
  auto model = parseModel(R"(
<ir_version: 3, opset_import: ["" : 1]>
g (float[4,4] X) => (float[2,4] Y) {
  Y = Slice<starts = [1], ends = [3], axes = [-1]>(X)
}
)");
  absl::StatusOr<std::optional<SliceArguments>> read =
      readSliceArguments(*findNode(model->graph(), "Y"));
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(*read);
  EXPECT_EQ((*read)->axes, Ints{-1});
  EXPECT_EQ((*read)->steps, Ints{1}) << "Slice-1 has no steps";
}

TEST(ReadSliceArgumentsTest, ListsOfDifferentLengthsAreAnError) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[4,4] X) => (float[?,?] Y) <int64[2] S = {1, 0}, int64[1] E = {3}> {
  Y = Slice(X, S, E)
}
)");
  EXPECT_FALSE(readSliceArguments(*findNode(model->graph(), "Y")).ok());
}

TEST(ReadClipBoundsTest, AttributesBeforeOpset11) {
  auto model = parseModel(R"(
<ir_version: 7, opset_import: ["" : 9]>
g (float[2] X) => (float[2] Y, float[2] Z) {
  Y = Clip<min = -1.5, max = 6.0>(X)
  Z = Clip(X)
}
)");
  absl::StatusOr<ClipBounds> given = readClipBounds(*findNode(model->graph(), "Y"));
  ASSERT_TRUE(given.ok()) << given.status();
  EXPECT_TRUE(given->min.given && given->max.given);
  EXPECT_EQ(*given->min.value, -1.5);
  EXPECT_EQ(*given->max.value, 6.0);
  absl::StatusOr<ClipBounds> absent = readClipBounds(*findNode(model->graph(), "Z"));
  ASSERT_TRUE(absent.ok()) << absent.status();
  EXPECT_FALSE(absent->min.given || absent->max.given);
}

TEST(ReadClipBoundsTest, InputsFromOpset11) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2] X, float lo) => (float[2] Y, float[2] Z) <float hi = {6.0}> {
  Y = Clip(X, , hi)
  Z = Clip(X, lo, hi)
}
)");
  absl::StatusOr<ClipBounds> only_max = readClipBounds(*findNode(model->graph(), "Y"));
  ASSERT_TRUE(only_max.ok()) << only_max.status();
  EXPECT_FALSE(only_max->min.given);
  EXPECT_EQ(*only_max->max.value, 6.0);
  absl::StatusOr<ClipBounds> dynamic_min = readClipBounds(*findNode(model->graph(), "Z"));
  ASSERT_TRUE(dynamic_min.ok()) << dynamic_min.status();
  EXPECT_TRUE(dynamic_min->min.given);
  EXPECT_FALSE(dynamic_min->min.value) << "a graph input is given but not a constant";
}

TEST(ReadClipBoundsTest, AnAttributeOfTheWrongKindIsAnError) {
  auto model = parseModel(R"(
<ir_version: 7, opset_import: ["" : 9]>
g (float[2] X) => (float[2] Y) {
  Y = Clip<min = 0>(X)
}
)");
  EXPECT_FALSE(readClipBounds(*findNode(model->graph(), "Y")).ok());
}

TEST(TransposePermTest, ComposesAsTwoTransposesInARow) {
  // Transpose(Transpose(x, [1, 2, 0]), [0, 2, 1]): output axis i is axis first[second[i]] of x.
  EXPECT_EQ(composePerms({1, 2, 0}, {0, 2, 1}), (std::vector<int64_t>{1, 0, 2}));
  EXPECT_EQ(composePerms({1, 2, 0}, {2, 0, 1}), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_TRUE(isIdentityPerm(composePerms({1, 2, 0}, {2, 0, 1})));
  EXPECT_FALSE(isIdentityPerm({1, 0}));
  EXPECT_TRUE(isIdentityPerm({}));
}

TEST(TransposePermTest, APermutationHoldsEachAxisOnce) {
  EXPECT_TRUE(isPermutation({2, 0, 1}));
  EXPECT_TRUE(isPermutation({}));
  EXPECT_FALSE(isPermutation({0, 0}));
  EXPECT_FALSE(isPermutation({0, 2}));
  EXPECT_FALSE(isPermutation({-1, 0}));
}

}  // namespace
}  // namespace onnxopt
