// checkNode / checkModelNodes: each malformation ONNX Runtime refuses at load, next to the
// well-formed node it must not refuse.

#include "onnxopt/rewrite/node_check.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "onnxopt/ir/serialization.h"

#include "test_models.h"

namespace onnxopt {
namespace {

using onnxopt::testing::parseModel;

// The status of checkModelNodes on a model whose graph is `body`, with input X float[2,3].
absl::Status check(const std::string& body, int opset = 13) {
  auto model = parseModel("<ir_version: 8, opset_import: [\"\" : " + std::to_string(opset) +
                          "]>\ng (float[2, 3] X) => (float[2, 3] Y) {\n" + body + "\n}\n");
  return checkModelNodes(*model);
}

void expectRefused(const absl::Status& status, const std::string& what) {
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_NE(std::string(status.message()).find(what), std::string::npos)
      << "expected '" << what << "' in: " << status.message();
}

TEST(NodeCheckTest, AcceptsWellFormedNodes) {
  EXPECT_TRUE(check("Y = Relu(X)").ok());
  EXPECT_TRUE(check("Y = Transpose<perm = [1, 0]>(X)").ok());
  EXPECT_TRUE(check("Y = Softmax<axis = -2>(X)").ok());
  EXPECT_TRUE(check("f = Flatten<axis = 2>(X)\n Y = Identity(X)").ok());
  EXPECT_TRUE(check("c = Concat<axis = 1>(X, X)\n Y = Identity(X)").ok());
  // An optional input left out, and a variadic op with many inputs.
  EXPECT_TRUE(check("Y = Clip(X, , )", 13).ok());
  EXPECT_TRUE(check("s = Sum(X, X, X, X)\n Y = Identity(s)").ok());
}

TEST(NodeCheckTest, RefusesAnAttributeTheOperatorDoesNotDefine) {
  expectRefused(check("Y = Relu<foo = 1>(X)"), "node with output 'Y' (Relu): attribute 'foo'");
}

TEST(NodeCheckTest, RefusesAnAttributeOfTheWrongKind) {
  expectRefused(check("Y = Softmax<axis = 1.0>(X)"), "attribute 'axis' is FLOAT");
}

TEST(NodeCheckTest, RefusesAMissingRequiredAttribute) {
  expectRefused(check("c = Cast(X)\n Y = Identity(X)"), "required attribute 'to'");
}

TEST(NodeCheckTest, RefusesTheWrongNumberOfInputsOrOutputs) {
  expectRefused(check("Y = Relu(X, X)"), "has 2 inputs; Relu-");
  expectRefused(check("Y = Add(X)"), "has 1 inputs; Add-");
  expectRefused(check("Y, Z = Relu(X)"), "has 2 outputs; Relu-");
}

TEST(NodeCheckTest, RefusesAnInputTypeTheOperatorDoesNotTake) {
  expectRefused(check("i = Gather(X, X)\n Y = Identity(X)"),
                "input 1 ('X') is tensor(float), which Gather-13 does not take there");
}

TEST(NodeCheckTest, RefusesACastToATypeItDoesNotProduce) {
  expectRefused(check("Y = Cast<to = 0>(X)"), "to = 0 is not an element type Cast-13 produces");
  expectRefused(check("Y = Cast<to = 4294967297>(X)"), "to = 4294967297 is not");
  expectRefused(check("Y = Cast<to = 17>(X)"), "to = 17 is not an element type Cast-13");
}

TEST(NodeCheckTest, RefusesAPermThatIsNotAPermutationOfTheInputsAxes) {
  expectRefused(check("Y = Transpose<perm = [0, 0]>(X)"), "perm [0,0] is not a permutation");
  expectRefused(check("Y = Transpose<perm = [0, 1, 2]>(X)"), "of the input's 2 axes");
}

TEST(NodeCheckTest, RefusesAnAxisOutsideTheInputsRank) {
  expectRefused(check("Y = Softmax<axis = 2>(X)"), "axis 2 is outside [-2, 1]");
  expectRefused(check("c = Concat<axis = -3>(X, X)\n Y = Identity(X)"), "axis -3");
  expectRefused(check("f = Flatten<axis = 3>(X)\n Y = Identity(X)"), "outside [-2, 2]");
}

TEST(NodeCheckTest, LooksInsideSubgraphs) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2, 3] X, bool C) => (float[2, 3] Y) {
  Y = If(C) <then_branch = t () => (float[2, 3] a) { a = Relu<foo = 1>(X) },
              else_branch = e () => (float[2, 3] b) { b = Relu(X) }>
}
)");
  expectRefused(checkModelNodes(*model), "(Relu): attribute 'foo'");
}

TEST(NodeCheckTest, LeavesOperatorsWithoutAKnownSchemaAlone) {
  auto model = parseModel(R"(
<ir_version: 8, opset_import: ["" : 13, "com.example" : 1]>
g (float[2, 3] X) => (float[2, 3] Y) {
  Y = com.example.Whatever<anything = 1>(X, X, X)
}
)");
  EXPECT_TRUE(checkModelNodes(*model).ok());
}

// Every model of the test corpora is one ONNX Runtime runs (or, for the few of ONNX's backend
// test data it cannot load, fails for reasons these checks do not judge): none may be refused.
TEST(NodeCheckTest, RefusesNoModelOfTheTestCorpora) {
  std::vector<std::string> models;
  for (const char* dir : {ONNXOPT_SOURCE_DIR "/tests/data", ONNXOPT_TESTDATA_DIR}) {
    if (!std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
      if (entry.path().extension() == ".onnx") models.push_back(entry.path().string());
    }
  }
  ASSERT_GT(models.size(), 100u);
  for (const std::string& path : models) {
    auto model = ir::loadModelFromFile(path);
    ASSERT_TRUE(model.ok()) << model.status();
    const absl::Status status = checkModelNodes(**model);
    EXPECT_TRUE(status.ok()) << path << ": " << status;
  }
}

}  // namespace
}  // namespace onnxopt
