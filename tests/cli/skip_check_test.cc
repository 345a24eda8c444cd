// --skip, the groups of --list-passes, and the node checks at load with --no-check: on the real
// binary (exit codes, messages, files left behind), in-process (a registry of our own), and
// through the C++ API (OptimizeOptions::skip and ::check).

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "cli.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnxopt/onnxopt.h"
#include "tool_run.h"

namespace {

namespace fs = std::filesystem;
using onnxopt::testing::contains;
using onnxopt::testing::expectCleanFailure;
using onnxopt::testing::listDir;
using onnxopt::testing::readFile;
using onnxopt::testing::ToolRun;

const std::string kTool = ONNXOPT_CLI_PATH;
const std::string kSourceDir = ONNXOPT_SOURCE_DIR;

onnx::ModelProto parseProto(const std::string& text) {
  onnx::ModelProto proto;
  const onnx::Common::Status parsed = onnx::OnnxParser::Parse(proto, text.c_str());
  EXPECT_TRUE(parsed.IsOK()) << parsed.ErrorMessage() << "\n" << text;
  return proto;
}

std::string serialize(const onnx::ModelProto& proto) {
  std::string bytes;
  EXPECT_TRUE(proto.SerializeToString(&bytes));
  return bytes;
}

// A model whose graph is `body`, reading A float[2,3], B float[3,3], C float[3] and X float[2,2].
std::string modelText(const std::string& body, const std::string& initializers = "") {
  return "<ir_version: 8, opset_import: [\"\" : 13]>\n"
         "g (float[2, 3] A, float[3, 3] B, float[3] C, float[2, 2] X) => (float[2, 3] Y)\n" +
         initializers + "{\n" + body + "\n}\n";
}

// Transpose then Gemm: -O1's fuse-transpose-gemm folds it into transB = 1.
constexpr const char* kTransposeGemm = "Bt = Transpose<perm = [1, 0]>(B)\n Y = Gemm(A, Bt, C)";

class SkipCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-skip-check-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = pattern;
    out_dir_ = dir_ + "/out";
    io_dir_ = dir_ + "/io";
    fs::create_directory(out_dir_);
    fs::create_directory(io_dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  std::string writeModel(const std::string& name, const onnx::ModelProto& proto) {
    const std::string path = dir_ + "/" + name + ".onnx";
    onnxopt::testing::writeFile(path, serialize(proto));
    return path;
  }
  std::string writeModel(const std::string& name, const std::string& text) {
    return writeModel(name, parseProto(text));
  }

  ToolRun runTool(std::vector<std::string> args) {
    args.insert(args.begin(), {"--verify-each", "--require-convergence"});
    return onnxopt::testing::runTool(kTool, args, io_dir_);
  }

  std::string dir_;
  std::string out_dir_;
  std::string io_dir_;
};

// ---------------------------------------------------------------------------------------------
// --skip

TEST_F(SkipCheckTest, SkipRemovesPassesFromANamedPipeline) {
  ToolRun r = runTool({"-O1", "--skip=fuse-transpose-gemm,fold-shapes", "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  absl::StatusOr<std::string> o1 = onnxopt::PassRegistry::global().namedPipeline("O1");
  ASSERT_TRUE(o1.ok());
  std::vector<std::string> expected;
  for (absl::string_view pass : absl::StrSplit(*o1, ',')) {
    if (pass != "fuse-transpose-gemm" && pass != "fold-shapes") expected.emplace_back(pass);
  }
  EXPECT_EQ(r.out, onnxopt::testing::join(expected, ",") + "\n");

  // Repeatable; -O2's options stay on the passes it keeps.
  r = runTool({"-O2", "--skip=fold-constants", "--skip", "lift-constants", "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_FALSE(contains(r.out, "fold-constants")) << r.out;
  EXPECT_FALSE(contains(r.out, "lift-constants")) << r.out;
  EXPECT_TRUE(contains(r.out, "fuse-matmul-add-gemm{allow-reshape=true}")) << r.out;
}

TEST_F(SkipCheckTest, ASkippedPassDoesNotRun) {
  const std::string model = writeModel("gemm", modelText(kTransposeGemm));
  ToolRun r = runTool({model, "--emit=text", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_FALSE(contains(r.out, "Transpose")) << r.out;
  r = runTool({model, "--emit=text", "-q", "--skip=fuse-transpose-gemm"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "Bt = Transpose<perm = [1, 0]>(B)")) << r.out;
  EXPECT_TRUE(contains(r.out, "Y = Gemm(A, Bt, C)")) << r.out;
}

TEST_F(SkipCheckTest, SkippingAnUnknownPassOrOneThePipelineLacksIsAUsageError) {
  // Found before the model is read: this input does not exist.
  const std::string missing = dir_ + "/missing.onnx";
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({missing, "--skip=no-such-pass", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "--skip: unknown pass 'no-such-pass'; valid passes: ")) << r.err;
  EXPECT_FALSE(contains(r.err, "missing.onnx")) << r.err;

  // fuse-gelu is a pass, but one of the targets', not of -O1's.
  r = runTool({missing, "-O1", "--skip=fuse-transpose-gemm,fuse-gelu", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "--skip: pass 'fuse-gelu' is not in the pipeline '"))
      << r.err;
  r = runTool({missing, "--passes=eliminate-dead-nodes", "--skip=fold-constants", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "'fold-constants' is not in the pipeline 'eliminate-dead-nodes'"))
      << r.err;

  r = runTool({missing, "--skip=", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "--skip needs pass names")) << r.err;
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST(SkipApiTest, OptimizeOptionsSkip) {
  onnxopt::OptimizeOptions options;
  options.skip = {"fuse-transpose-gemm"};
  absl::StatusOr<onnxopt::PassManager> manager = onnxopt::makePassManager("-O1", options);
  ASSERT_TRUE(manager.ok()) << manager.status();
  EXPECT_FALSE(contains(manager->pipelineText(), "fuse-transpose-gemm"));
  EXPECT_TRUE(contains(manager->pipelineText(), "fuse-matmul-add-gemm"));

  onnx::ModelProto proto = parseProto(modelText(kTransposeGemm));
  ASSERT_TRUE(onnxopt::optimize(proto, "-O1", options).ok());
  ASSERT_EQ(proto.graph().node_size(), 2);
  EXPECT_EQ(proto.graph().node(0).op_type(), "Transpose");

  options.skip = {"fuse-gelu"};
  absl::StatusOr<std::string> bytes = onnxopt::optimizeBytes(serialize(proto), "-O1", options);
  EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(contains(std::string(bytes.status().message()), "'fuse-gelu' is not in"))
      << bytes.status();
}

// ---------------------------------------------------------------------------------------------
// --list-passes groups

class NoOpPass final : public onnxopt::Pass {
 public:
  NoOpPass() : Pass("example-no-op") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model&, onnxopt::PassContext&) override { return false; }
};

struct InProcess {
  int exit_code;
  std::string out;
  std::string err;
};

InProcess runInProcess(const std::vector<std::string>& args,
                       const onnxopt::PassRegistry& registry) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  onnxopt::cli::Io io{in, out, err};
  const int code = onnxopt::cli::main(args, io, registry);
  return {code, out.str(), err.str()};
}

TEST(ListPassesGroupsTest, EveryPassIsListedUnderItsGroupInRegistryOrder) {
  onnxopt::PassRegistry registry = onnxopt::PassRegistry::withBuiltinPasses();
  ASSERT_TRUE(registry
                  .registerPass({"example-no-op", "Does nothing",
                                 [] { return std::make_unique<NoOpPass>(); }})
                  .ok());
  const InProcess r = runInProcess({"--list-passes"}, registry);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  std::vector<std::string> headings = {
      "Elimination: remove nodes that compute nothing new, or read around them (eliminate-*):",
      "Fusion: compute a chain of nodes with fewer nodes (fuse-*):",
      "Folding: compute ahead of time what the model fixes, or make it an initializer (fold-*, "
      "lift-*):",
      "Legalization and rewriting: the same computation in a form runtimes or later passes take "
      "(legalize-*, rewrite-*):",
      "Other passes:",
  };
  ASSERT_EQ(registry.groups().size(), headings.size() - 1);
  // Where each heading starts; each pass must lie between its group's heading and the next.
  std::vector<size_t> at;
  for (const std::string& heading : headings) {
    const size_t found = r.out.find("\n\n" + heading + "\n");
    ASSERT_NE(found, std::string::npos) << heading << "\n" << r.out;
    if (!at.empty()) EXPECT_GT(found, at.back()) << heading;
    at.push_back(found);
  }
  const size_t pipelines = r.out.find("\nNamed pipelines");
  ASSERT_NE(pipelines, std::string::npos);
  at.push_back(pipelines);
  for (const onnxopt::PassInfo* info : registry.passes()) {
    const onnxopt::PassGroup* group = registry.groupOf(info->name);
    const size_t index =
        group == nullptr ? registry.groups().size() : static_cast<size_t>(group - &registry.groups()[0]);
    const size_t found = r.out.find("\n  " + info->name + "\n      " + info->summary + "\n");
    ASSERT_NE(found, std::string::npos) << info->name;
    EXPECT_GT(found, at[index]) << info->name;
    EXPECT_LT(found, at[index + 1]) << info->name;
  }
  EXPECT_EQ(registry.groupOf("example-no-op"), nullptr);
  EXPECT_EQ(registry.groupOf("lift-constants")->name, "folding");
  EXPECT_EQ(registry.groupOf("rewrite-where-not")->name, "legalization");
}

TEST(ListPassesGroupsTest, EveryBuiltinPassHasAGroup) {
  const onnxopt::PassRegistry& registry = onnxopt::PassRegistry::global();
  for (const onnxopt::PassInfo* info : registry.passes()) {
    EXPECT_NE(registry.groupOf(info->name), nullptr)
        << info->name << ": name it with a prefix of a group of passes/passes.def";
  }
  // Without out-of-tree passes there is no "Other passes" heading.
  const InProcess r = runInProcess({"--list-passes"}, registry);
  EXPECT_FALSE(contains(r.out, "Other passes:")) << r.out;
}

// ---------------------------------------------------------------------------------------------
// Node checks at load, and --no-check

struct Malformed {
  const char* what;
  std::string body;
  std::vector<std::string> message;  // all in the error line
};

std::vector<Malformed> malformedModels() {
  return {
      {"attribute of the wrong kind", "Y = Gemm<transB = 1.0>(A, B, C)",
       {"node with output 'Y' (Gemm)", "attribute 'transB' is FLOAT"}},
      {"required attribute missing", "c = Cast(A)\n Y = Gemm(A, B, C)",
       {"node with output 'c' (Cast)", "required attribute 'to'"}},
      {"Transpose perm not a permutation", "t = Transpose<perm = [0, 0]>(X)\n Y = Gemm(A, B, C)",
       {"node with output 't' (Transpose)", "perm [0,0] is not a permutation of the input's 2 axes"}},
      {"axis out of range", "s = Softmax<axis = 2>(X)\n Y = Gemm(A, B, C)",
       {"node with output 's' (Softmax)", "axis 2 is outside [-2, 1]"}},
      {"wrong number of inputs", "r = Relu(X, X)\n Y = Gemm(A, B, C)",
       {"node with output 'r' (Relu)", "has 2 inputs; Relu-"}},
      {"wrong number of outputs", "r, q = Relu(X)\n Y = Gemm(A, B, C)",
       {"node with output 'r' (Relu)", "has 2 outputs; Relu-"}},
  };
}

TEST_F(SkipCheckTest, ANodeThatViolatesItsSchemaIsAnErrorAndNothingIsWritten) {
  int index = 0;
  for (const Malformed& m : malformedModels()) {
    SCOPED_TRACE(m.what);
    const std::string model = writeModel("bad" + std::to_string(index++), modelText(m.body));
    ToolRun r = runTool({model, "-o", out_dir_ + "/out.onnx"});
    std::vector<std::string> message = m.message;
    message.push_back(model + ": ");
    expectCleanFailure(r, message, {});
    EXPECT_TRUE(listDir(out_dir_).empty());
    // -O0 checks too: the check is part of loading, not of a pass.
    r = runTool({model, "-O0", "-o", out_dir_ + "/out.onnx"});
    expectCleanFailure(r, message, {});
    EXPECT_TRUE(listDir(out_dir_).empty());
  }
}

TEST_F(SkipCheckTest, TheErrorNamesANamedNodeByItsName) {
  onnx::ModelProto proto = parseProto(modelText("s = Softmax<axis = 2>(X)\n Y = Gemm(A, B, C)"));
  proto.mutable_graph()->mutable_node(0)->set_name("softmax_7");
  const std::string model = writeModel("named", proto);
  expectCleanFailure(runTool({model, "-o", out_dir_ + "/out.onnx"}),
                     {"node 'softmax_7' (Softmax): axis 2 is outside"}, {});
}

TEST_F(SkipCheckTest, NoCheckOptimizesAroundNodesThatFailTheCheck) {
  // Each malformed node is one a pass of the pipeline reads, and fails on (an error, exit 1)
  // when it is offered: fuse-transpose-gemm reads transB and transA of every Gemm and its
  // output Transpose's producer, fold-constants evaluates a Transpose of a constant,
  // fuse-consecutive-transposes composes perms. The well-formed Transpose + Gemm is still fused.
  const std::string body =
      "Bt = Transpose<perm = [1, 0]>(B)\n"
      " gm = Gemm<transB = 1.0>(A, Bt, C)\n"
      " gt = Transpose<perm = [1, 0]>(gm)\n"
      " w = Transpose<perm = [0, 0]>(W)\n"
      " i = Transpose<perm = [0, 0]>(X)\n"
      " o = Transpose<perm = [1, 0]>(i)\n"
      " Bt2 = Transpose<perm = [1, 0]>(B)\n"
      " Y = Gemm(A, Bt2, C)";
  const std::string text = "<ir_version: 8, opset_import: [\"\" : 13]>\n"
                           "g (float[2, 3] A, float[3, 3] B, float[3] C, float[2, 2] X) => "
                           "(float[2, 3] Y, float[3, 2] gt, float[2, 2] w, float[2, 2] o)\n"
                           "<float[2, 2] W = {1.0, 2.0, 3.0, 4.0}>\n{\n" +
                           body + "\n}\n";
  const std::string model = writeModel("no_check", text);
  expectCleanFailure(runTool({model, "-o", out_dir_ + "/out.onnx"}),
                     {"node with output 'gm' (Gemm)", "attribute 'transB' is FLOAT"}, {});

  for (const std::string& pipeline :
       {std::string("-O1"), std::string("--passes=fuse-consecutive-transposes,-O1")}) {
    SCOPED_TRACE(pipeline);
    ToolRun r = runTool({model, pipeline, "--no-check", "--emit=text", "-q"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(r.err.empty()) << r.err;
    for (const char* kept :
         {"Bt = Transpose<perm = [1, 0]>(B)", "gm = Gemm<transB = 1.0>(A, Bt, C)",
          "gt = Transpose<perm = [1, 0]>(gm)", "w = Transpose<perm = [0, 0]>(W)",
          "i = Transpose<perm = [0, 0]>(X)", "o = Transpose<perm = [1, 0]>(i)"}) {
      EXPECT_TRUE(contains(r.out, kept)) << kept << "\n" << r.out;
    }
    EXPECT_FALSE(contains(r.out, "Bt2")) << r.out;
    EXPECT_TRUE(contains(r.out, "Y = Gemm<transB = 1>(A, B, C)")) << r.out;
  }

  // --debug says why each is left alone.
  ToolRun r = runTool({model, "--no-check", "--debug", "-o", out_dir_ + "/out.onnx"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "offers node with output 'gt' (Transpose) to no pattern: it or a "
                              "node its patterns read fails the check: node with output 'gm' "
                              "(Gemm): attribute 'transB' is FLOAT"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "offers node with output 'o' (Transpose) to no pattern"))
      << r.err;
}

TEST_F(SkipCheckTest, NoCheckOffersNoDeepPatternARootThatReadsANodeThatFailsTheCheck) {
  // fuse-layer-norm matches the chain from its root, the last Add, and would absorb the Pow
  // with an attribute Pow does not define, which is no neighbour of the root: the driver checks
  // as far up as the pass's patterns read (RewritePattern::matchDepth).
  const std::string model = writeModel("layer_norm", R"(
<ir_version: 8, opset_import: ["" : 17]>
g (float[2,3,4] X) => (float[2,3,4] Y)
<float two = {2.0}, float eps = {1e-05}, float[4] S = {1.0, 2.0, 3.0, 4.0}, float[4] B = {0.0, 0.5, 1.0, 1.5}>
{
  m = ReduceMean<axes = [-1]>(X)
  d = Sub(X, m)
  p = Pow<foo = 1>(d, two)
  v = ReduceMean<axes = [-1]>(p)
  ve = Add(v, eps)
  s = Sqrt(ve)
  n = Div(d, s)
  sc = Mul(n, S)
  Y = Add(sc, B)
}
)");
  expectCleanFailure(runTool({model, "-o", out_dir_ + "/out.onnx"}),
                     {"node with output 'p' (Pow): attribute 'foo' is not one Pow-15 defines"}, {});
  ToolRun r = runTool({model, "--passes=fuse-layer-norm,eliminate-dead-nodes", "--no-check",
                       "--emit=text", "-q", "--debug"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "p = Pow<foo = 1>(d, two)")) << r.out;
  EXPECT_FALSE(contains(r.out, "LayerNormalization")) << r.out;
  EXPECT_TRUE(contains(r.err, "offers node with output 'Y' (Add) to no pattern: it or a node its "
                              "patterns read fails the check: node with output 'p' (Pow): "
                              "attribute 'foo'"))
      << r.err;

  // fuse-transposes-across-elementwise reads the perm of a Transpose three nodes up, which it
  // fails on when that perm is no permutation.
  const std::string transposes = writeModel("transposes", R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,2] X) => (float[2,2] Y)
{
  a = Transpose<perm = [0, 0]>(X)
  r = Relu(a)
  n = Neg(r)
  Y = Transpose<perm = [1, 0]>(n)
}
)");
  r = runTool({transposes, "-O1", "--no-check", "--emit=text", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "a = Transpose<perm = [0, 0]>(X)")) << r.out;
  EXPECT_TRUE(contains(r.out, "Y = Transpose<perm = [1, 0]>(n)")) << r.out;
}

TEST_F(SkipCheckTest, NoCheckDeclinesWhereAPatternFollowsAShapeComputationToANodeFailingTheCheck) {
  // eliminate-nop-expand, rooted at the Add, reads the Expand's target shape up through the
  // Concat, which lacks its required axis: beyond the neighbourhood the driver checks.
  const std::string model = writeModel("expand_of_concat", R"(
<ir_version: 8, opset_import: ["" : 13]>
g (float[2,3] X, float[3] b) => (float[2,3] Y) <int64[1] n = {2}, int64[1] m = {3}> {
  s = Concat(n, m)
  e = Expand(b, s)
  Y = Add(X, e)
}
)");
  ToolRun r = runTool({model, "-O1", "--no-check", "--emit=text", "-q", "--debug"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "s = Concat(n, m)")) << r.out;
  EXPECT_TRUE(contains(r.out, "e = Expand(b, s)")) << r.out;
  EXPECT_TRUE(contains(r.err, "required attribute 'axis' (INT) is missing")) << r.err;
}

TEST(CheckApiTest, OptimizeRefusesAMalformedModelUnlessCheckIsOff) {
  const onnx::ModelProto original =
      parseProto(modelText("t = Transpose<perm = [0, 0]>(X)\n Bt = Transpose<perm = [1, 0]>(B)\n"
                           " Y = Gemm(A, Bt, C)"));
  onnx::ModelProto proto = original;
  absl::Status status = onnxopt::optimize(proto, "-O1");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_TRUE(contains(std::string(status.message()),
                       "node with output 't' (Transpose): perm [0,0] is not a permutation"))
      << status;
  EXPECT_EQ(serialize(proto), serialize(original)) << "given back as it came";
  EXPECT_EQ(onnxopt::optimizeBytes(serialize(original)).status().code(),
            absl::StatusCode::kInvalidArgument);
  const std::string in = (fs::temp_directory_path() / "onnx-opt-check-api-in.onnx").string();
  const std::string out = (fs::temp_directory_path() / "onnx-opt-check-api-out.onnx").string();
  onnxopt::testing::writeFile(in, serialize(original));
  fs::remove(out);
  EXPECT_EQ(onnxopt::optimizeFile(in, out).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(out));

  onnxopt::OptimizeOptions options;
  options.check = false;
  options.require_convergence = true;
  ASSERT_TRUE(onnxopt::optimize(proto, "-O1", options).ok());
  // A malformed node that nothing reads computes nothing: it goes, as any dead node does.
  ASSERT_EQ(proto.graph().node_size(), 1);
  EXPECT_EQ(proto.graph().node(0).op_type(), "Gemm");
  EXPECT_TRUE(onnxopt::optimizeFile(in, out, "-O1", options).ok());
  EXPECT_TRUE(fs::exists(out));
  fs::remove(in);
  fs::remove(out);
}

// The models of the test corpora, which ONNX Runtime runs, must all pass the check.
std::set<std::string> modelsOrtCannotRun() {
  std::set<std::string> dirs;
  std::ifstream in(kSourceDir + "/tests/equivalence/ort_cannot_run.txt");
  EXPECT_TRUE(in.good());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    dirs.insert(line.substr(0, line.find('\t')));
  }
  return dirs;
}

TEST(CheckCorpusTest, NoModelOfTheTestCorporaIsRefused) {
  const std::set<std::string> skipped = modelsOrtCannotRun();
  ASSERT_GT(skipped.size(), 50u);
  std::vector<std::string> models;
  for (const std::string& dir : {kSourceDir + "/tests/data", kSourceDir + "/examples",
                                 std::string(ONNXOPT_TESTDATA_DIR)}) {
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.path().extension() != ".onnx") continue;
      const std::string relative =
          fs::relative(entry.path().parent_path(), ONNXOPT_TESTDATA_DIR).string();
      if (skipped.count(relative) != 0) continue;
      models.push_back(entry.path().string());
    }
  }
  ASSERT_GT(models.size(), 1000u);
  int refused = 0;
  for (const std::string& path : models) {
    onnxopt::OptimizeOptions options;
    options.external_data_dir = fs::path(path).parent_path().string();
    const absl::StatusOr<std::string> result = onnxopt::optimizeBytes(readFile(path), "-O0", options);
    if (!result.ok()) {
      ++refused;
      ADD_FAILURE() << path << ": " << result.status();
    }
  }
  EXPECT_EQ(refused, 0);
}

}  // namespace
