// Tests of the onnx-opt command line: the real binary is run in a child process with its stdin,
// stdout and stderr connected to files, and each test checks the exit status, what was printed
// and which files exist afterwards.

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cli.h"
#include "tool_run.h"
#include "gtest/gtest.h"
#include "onnx/defs/parser.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_registry.h"

namespace {

namespace fs = std::filesystem;
using onnxopt::testing::contains;
using onnxopt::testing::expectCleanFailure;
using onnxopt::testing::join;
using onnxopt::testing::listDir;
using onnxopt::testing::readFile;
using onnxopt::testing::ToolRun;
using onnxopt::testing::writeFile;

const std::string kTool = ONNXOPT_CLI_PATH;
const std::string kSourceDir = ONNXOPT_SOURCE_DIR;
const std::string kExample = kSourceDir + "/examples/legacy_classifier.onnx";
const std::string kDataDir = kSourceDir + "/tests/cli/data";
const std::string kSummary = "11 nodes (Transpose 3, Expand 3, Gemm 3, Relu 2) -> 11 nodes";
const std::string kUserGuide = kSourceDir + "/docs/user-guide.md";

// A model with a dead chain (Neg -> Abs -> Add) and an initializer only the dead Add reads.
constexpr const char* kDeadNodesText = R"(
<ir_version: 8, opset_import: ["" : 13]>
dead_nodes (float[2,3] X) => (float[2,3] Y)
<float[3] read_by_dead = {1.0, 2.0, 3.0}>
{
  Y = Relu(X)
  dead1 = Neg(X)
  dead2 = Abs(dead1)
  dead3 = Add(dead2, read_by_dead)
}
)";
const std::string kDeadNodesSummary =
    "4 nodes (Relu 1, Neg 1, Abs 1, Add 1) -> 1 node (Relu 1)";

// Writes a model given in ONNX's text syntax as a binary model file.
void writeModelFromText(const std::string& path, const char* text) {
  onnx::ModelProto proto;
  const onnx::Common::Status parsed = onnx::OnnxParser::Parse(proto, text);
  ASSERT_TRUE(parsed.IsOK()) << parsed.ErrorMessage();
  std::string bytes;
  ASSERT_TRUE(proto.SerializeToString(&bytes));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

size_t countOf(const std::string& haystack, const std::string& needle) {
  size_t count = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos;
       at = haystack.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

// The passes of a pipeline text, without their options: "a{x=1},b" -> {"a", "b"}.
std::vector<std::string> passNames(const std::string& pipeline) {
  std::vector<std::string> names;
  std::string current;
  int depth = 0;
  for (char c : pipeline) {
    if (c == '{') ++depth;
    if (depth == 0 && c != ',' && c != ' ') current += c;
    if (c == '}') --depth;
    if (depth == 0 && c == ',') {
      names.push_back(current);
      current.clear();
    }
  }
  if (!current.empty()) names.push_back(current);
  return names;
}

const std::vector<std::string> kTestFlags = {"--verify-each", "--require-convergence"};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-cli-XXXXXX").string();
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

  // Runs the tool with `args`; stdin comes from `stdin_path` (or /dev/null), stdout goes to
  // `stdout_path` (or a file whose contents end up in ToolRun::out).
  // Every run verifies the model after each pass and requires every rewrite driver (and
  // --fixed-point) to converge: the flags are put in front of `args`.
  ToolRun runTool(const std::vector<std::string>& args,
                  const std::string& stdin_path = "/dev/null",
                  const std::string& stdout_path = "") {
    std::vector<std::string> all = kTestFlags;
    all.insert(all.end(), args.begin(), args.end());
    return onnxopt::testing::runTool(kTool, all, io_dir_, stdin_path, stdout_path);
  }

  std::string dir_;
  std::string out_dir_;  // where outputs go; tests check it holds nothing unexpected
  std::string io_dir_;   // the child's stdout and stderr
};

// ---------------------------------------------------------------------------------------------
// --help, --version, usage errors

TEST_F(CliTest, HelpPrintsUsageAndExitsZero) {
  for (const char* flag : {"--help", "-h"}) {
    ToolRun r = runTool({flag});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "Usage: onnx-opt")) << r.describe();
    for (const char* option :
         {"-o", "--emit=binary|text", "-O0", "-O1", "-O2", "--passes=", "--fixed-point",
          "--list-passes", "--print-pipeline", "--pass-statistics", "--time-passes",
          "--verify-each", "--print-ir-after=", "--print-ir-after-all", "--print-ir-after-change",
          "--debug", "--quiet", "--version"}) {
      EXPECT_TRUE(contains(r.out, option)) << "--help does not mention " << option << "\n"
                                           << r.describe();
    }
    EXPECT_TRUE(r.err.empty()) << r.describe();
  }
}

TEST_F(CliTest, HelpWinsOverOtherArguments) {
  ToolRun r = runTool({kExample, "--help", "-o", out_dir_ + "/x.onnx"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.out, "Usage: onnx-opt")) << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty()) << "--help must not write an output file";
}

TEST_F(CliTest, VersionPrintsProjectVersion) {
  ToolRun r = runTool({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, std::string("onnx-opt version ") + ONNXOPT_VERSION + "\n") << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
}

struct UsageCase {
  const char* name;
  std::vector<std::string> args;
  const char* expected;  // in the first stderr line
};

void PrintTo(const UsageCase& c, std::ostream* os) { *os << c.name; }

class CliUsageTest : public CliTest, public ::testing::WithParamInterface<UsageCase> {};

TEST_P(CliUsageTest, ExitsTwoWithHint) {
  const UsageCase& c = GetParam();
  std::vector<std::string> args;
  for (const std::string& arg : c.args) {
    args.push_back(arg == "EXAMPLE" ? kExample : arg == "OUT" ? out_dir_ + "/out.onnx" : arg);
  }
  ToolRun r = runTool(args);
  EXPECT_EQ(r.signal, 0) << r.describe();
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(r.out.empty()) << r.describe();
  EXPECT_EQ(r.err.rfind("onnx-opt: error: ", 0), 0u) << r.describe();
  EXPECT_TRUE(contains(r.err.substr(0, r.err.find('\n')), c.expected)) << r.describe();
  EXPECT_TRUE(contains(r.err, "onnx-opt --help")) << "no usage hint\n" << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty()) << "a usage error must not write an output file";
}

INSTANTIATE_TEST_SUITE_P(
    Cli, CliUsageTest,
    ::testing::Values(
        UsageCase{"UnknownLongFlag", {"EXAMPLE", "--frobnicate", "-o", "OUT"},
                  "unknown option '--frobnicate'"},
        UsageCase{"UnknownShortFlag", {"-x", "EXAMPLE", "-o", "OUT"}, "unknown option '-x'"},
        UsageCase{"NoInput", {"-o", "OUT"}, "no input file"},
        UsageCase{"TwoInputs", {"EXAMPLE", "EXAMPLE", "-o", "OUT"}, "expected one input file"},
        UsageCase{"MissingOutputValue", {"EXAMPLE", "-o"}, "-o needs a value"},
        UsageCase{"BadEmitValue", {"EXAMPLE", "--emit=xml", "-o", "OUT"},
                  "unknown --emit value 'xml'"},
        UsageCase{"UnsupportedOptLevel", {"EXAMPLE", "-O3", "-o", "OUT"},
                  "unsupported optimization level '-O3'"},
        UsageCase{"PassesAndOptLevel", {"EXAMPLE", "-O1", "--passes=eliminate-dead-nodes"},
                  "either --passes or -O1"},
        UsageCase{"PassesTwice",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes", "--passes=eliminate-dead-nodes"},
                  "--passes given twice"},
        UsageCase{"MissingPassesValue", {"EXAMPLE", "--passes"}, "--passes needs a value"},
        UsageCase{"UnknownPass", {"EXAMPLE", "--passes=no-such-pass", "-o", "OUT"},
                  "unknown pass 'no-such-pass'"},
        UsageCase{"UnknownPassOption",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes{no-such-option=1}", "-o", "OUT"},
                  "no option 'no-such-option'"},
        UsageCase{"BadPassOptionValue",
                  {"EXAMPLE", "--passes=eliminate-dead-nodes{max-iterations=many}", "-o", "OUT"},
                  "max-iterations"},
        UsageCase{"PipelineSyntax", {"EXAMPLE", "--passes=eliminate-dead-nodes{", "-o", "OUT"},
                  "column"},
        UsageCase{"PrintIrAfterUnknownPass",
                  {"EXAMPLE", "--print-ir-after=no-such-pass", "-o", "OUT"},
                  "unknown pass 'no-such-pass'"},
        UsageCase{"BooleanFlagWithValue", {"EXAMPLE", "--verify-each=yes", "-o", "OUT"},
                  "unknown option '--verify-each=yes'"}),
    [](const ::testing::TestParamInfo<UsageCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------------------------
// Successful runs

TEST_F(CliTest, RoundTripGivesTheSameBytes) {
  const std::string out = out_dir_ + "/legacy_classifier.onnx";
  ToolRun r = runTool({kExample, "-O0", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample))
      << "-O0 output differs from the input (" << fs::file_size(out) << " vs "
      << fs::file_size(kExample) << " bytes)";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"legacy_classifier.onnx"})
      << "temporary files left behind";
  // One summary line: input, node counts before and after, time.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.describe();
  EXPECT_EQ(r.err.rfind("onnx-opt: " + kExample + ": " + kSummary + ", ", 0), 0u)
      << r.describe();
  EXPECT_TRUE(contains(r.err, " s\n")) << r.describe();
  EXPECT_TRUE(r.out.empty()) << r.describe();
}

TEST_F(CliTest, RoundTripReplacesAnExistingOutput) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "old contents");
  ToolRun r = runTool({"-O0", "--output=" + out, kExample});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample)) << "output is not the input's bytes";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
}

TEST_F(CliTest, OutputFileGetsUsualPermissions) {
  const std::string out = out_dir_ + "/perm.onnx";
  const mode_t old_mask = umask(022);
  ToolRun r = runTool({kExample, "-o", out});
  umask(old_mask);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  struct stat st;
  ASSERT_EQ(stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u) << "expected rw-r--r-- (umask 022), got " << std::oct
                                       << (st.st_mode & 0777);
}

TEST_F(CliTest, QuietPrintsNothing) {
  const std::string out = out_dir_ + "/quiet.onnx";
  ToolRun r = runTool({kExample, "-q", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
  r = runTool({kExample, "--quiet", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
}

TEST_F(CliTest, StdinToStdout) {
  ToolRun r = runTool({"-", "-O0", "-o", "-"}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample))
      << "stdout is not the input's bytes (" << r.out.size() << " bytes)";
  EXPECT_EQ(r.err.rfind("onnx-opt: <stdin>: " + kSummary, 0), 0u) << r.describe();
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST_F(CliTest, OutputDefaultsToStdout) {
  ToolRun r = runTool({kExample, "-O0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.out == readFile(kExample)) << "stdout is not the input's bytes";
}

TEST_F(CliTest, StdinToFile) {
  const std::string out = out_dir_ + "/from_stdin.onnx";
  ToolRun r = runTool({"-", "-O0", "-o", out}, kExample);
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample)) << "output is not the input's bytes";
}

TEST_F(CliTest, EmitTextToStdout) {
  ToolRun r = runTool({kExample, "-O0", "--emit=text"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  for (const char* s : {"ir_version", "opset_import", "legacy_classifier", "X", "logits",
                        "Transpose", "Expand", "Gemm", "Relu", "fc1.weight_t"}) {
    EXPECT_TRUE(contains(r.out, s)) << "text output lacks '" << s << "'\n" << r.describe();
  }
  EXPECT_EQ(r.out.find('\0'), std::string::npos) << "text output contains NUL bytes";
  EXPECT_EQ(r.err.rfind("onnx-opt: " + kExample + ": " + kSummary, 0), 0u) << r.describe();

  // --emit text (separate value) says the same.
  ToolRun again = runTool({"--emit", "text", kExample, "-O0"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, r.out);
}

TEST_F(CliTest, EmitTextToFile) {
  const std::string out = out_dir_ + "/model.txt";
  ToolRun to_stdout = runTool({kExample, "--emit=text", "-q"});
  ASSERT_EQ(to_stdout.exit_code, 0) << to_stdout.describe();
  ToolRun r = runTool({kExample, "--emit=text", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(readFile(out), to_stdout.out) << "file and stdout text differ";
  EXPECT_TRUE(r.out.empty()) << r.describe();
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"model.txt"})
      << "temporary files left behind";
}

TEST_F(CliTest, EmitBinaryIsTheDefault) {
  const std::string out = out_dir_ + "/b.onnx";
  ToolRun r = runTool({kExample, "-O0", "--emit=binary", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(out) == readFile(kExample));
}

TEST_F(CliTest, InputMayBeItsOwnOutput) {
  const std::string path = out_dir_ + "/same.onnx";
  writeFile(path, readFile(kExample));
  ToolRun r = runTool({path, "-O0", "-o", path});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(readFile(path) == readFile(kExample));
}

// Saving to a place that cannot be written fails in one line too.
TEST_F(CliTest, UnwritableOutputFailsCleanly) {
  {
    SCOPED_TRACE("missing folder");
    const std::string out = out_dir_ + "/no/such/folder/out.onnx";
    ToolRun r = runTool({kExample, "-o", out});
    expectCleanFailure(r, {out_dir_ + "/no/such/folder"}, {});
  }
  {
    SCOPED_TRACE("output is a directory");
    fs::create_directory(out_dir_ + "/adir");
    ToolRun r = runTool({kExample, "-o", out_dir_ + "/adir"});
    expectCleanFailure(r, {out_dir_ + "/adir"}, {});
    EXPECT_TRUE(fs::is_directory(out_dir_ + "/adir"));
    EXPECT_TRUE(fs::is_empty(out_dir_ + "/adir"));
  }
  {
    SCOPED_TRACE("text output into a missing folder");
    const std::string out = out_dir_ + "/no/such/folder/out.txt";
    ToolRun r = runTool({kExample, "--emit=text", "-o", out});
    expectCleanFailure(r, {out_dir_ + "/no/such/folder"}, {});
  }
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"adir"});
}

TEST_F(CliTest, StdoutWriteErrorFailsCleanly) {
  for (const char* emit : {"--emit=binary", "--emit=text"}) {
    SCOPED_TRACE(emit);
    ToolRun r = runTool({kExample, emit}, "/dev/null", "/dev/full");
    expectCleanFailure(r, {"<stdout>"}, {"cannot write"});
  }
}

// A device as output (think -o /dev/null) is written in place, not replaced by a regular file.
// Uses a private null device made with mknod (root only), never the system's /dev/null.
TEST_F(CliTest, DeviceOutputIsWrittenInPlace) {
  const std::string device = out_dir_ + "/null";
  if (mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "cannot create a device node (needs root): " << std::strerror(errno);
  }
  for (const char* emit : {"--emit=binary", "--emit=text"}) {
    SCOPED_TRACE(emit);
    ToolRun r = runTool({kExample, emit, "-o", device});
    EXPECT_EQ(r.exit_code, 0) << r.describe();
    struct stat st;
    ASSERT_EQ(stat(device.c_str(), &st), 0);
    EXPECT_TRUE(S_ISCHR(st.st_mode)) << device << " is no longer a character device";
  }
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"null"});
}

// The malformed models the user guide shows errors for (tests/reliability holds the catalogue
// of bad inputs; these are kept as examples a user can run).
TEST_F(CliTest, CommittedBadModelsFailCleanly) {
  for (const char* name : {"dangling_input.onnx", "cycle.onnx", "duplicate_value_names.onnx",
                           "unknown_attribute_type.onnx"}) {
    SCOPED_TRACE(name);
    const std::string input = kDataDir + "/" + name;
    expectCleanFailure(runTool({input, "-o", out_dir_ + "/out.onnx"}), {input}, {});
    EXPECT_TRUE(listDir(out_dir_).empty());
  }
}

// The committed bad models must match the script next to them (skipped without Debian's
// python3-onnx, which CI does not need).
TEST_F(CliTest, CommittedBadModelsAreUpToDate) {
  if (std::system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with onnx is not available";
  }
  const std::string gen = dir_ + "/gen";
  fs::create_directory(gen);
  const std::string command = "/usr/bin/python3 " + kDataDir + "/make_bad_models.py " + gen +
                              " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  for (const std::string& name : listDir(gen)) {
    EXPECT_TRUE(readFile(gen + "/" + name) == readFile(kDataDir + "/" + name))
        << "tests/cli/data/" << name << " is stale: rerun tests/cli/data/make_bad_models.py";
  }
  EXPECT_EQ(listDir(gen).size(), 4u);
}

TEST_F(CliTest, CommittedExampleIsUpToDate) {
  if (std::system("/usr/bin/python3 -c 'import onnx' >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "/usr/bin/python3 with onnx is not available";
  }
  const std::string out = dir_ + "/example.onnx";
  const std::string command = "/usr/bin/python3 " + kSourceDir +
                              "/examples/make_legacy_classifier.py " + out + " >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  EXPECT_TRUE(readFile(out) == readFile(kExample))
      << "examples/legacy_classifier.onnx is stale: rerun examples/make_legacy_classifier.py";
}

// ---------------------------------------------------------------------------------------------
// The argument parser, called directly.

TEST(CliParseArgs, Defaults) {
  auto options = onnxopt::cli::parseArgs({"model.onnx"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "model.onnx");
  EXPECT_EQ(options->output, "-");
  EXPECT_EQ(options->emit, onnxopt::cli::EmitKind::kBinary);
  EXPECT_FALSE(options->opt_level.has_value());
  EXPECT_FALSE(options->passes.has_value());
  EXPECT_EQ(options->pipelineName(), "O1") << "-O1 is the default pipeline";
  EXPECT_FALSE(options->fixed_point);
  EXPECT_FALSE(options->verify_each);
  EXPECT_FALSE(options->quiet);
}

TEST(CliParseArgs, OutputSpellings) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"in", "-o", "out"},
                                             {"in", "-oout"},
                                             {"in", "-o=out"},
                                             {"in", "--output", "out"},
                                             {"in", "--output=out"},
                                             {"-o", "out", "in"}}) {
    auto options = onnxopt::cli::parseArgs(args);
    ASSERT_TRUE(options.ok()) << join(args) << ": " << options.status();
    EXPECT_EQ(options->output, "out") << join(args);
    EXPECT_EQ(options->input, "in") << join(args);
  }
}

TEST(CliParseArgs, DashIsAnOperandAndDoubleDashEndsOptions) {
  auto options = onnxopt::cli::parseArgs({"-o", "-", "-"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "-");
  EXPECT_EQ(options->output, "-");

  options = onnxopt::cli::parseArgs({"--", "-weird-name.onnx"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->input, "-weird-name.onnx");
}

TEST(CliParseArgs, Rejects) {
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {},
           {"in", "--emitter=text"},
           {"in", "--emit="},
           {"in", "--emit"},
           {"in", "-o", ""},
           {"in", "-O"},
           {"in", "-O3"},
           {"in", "-Ofast"},
           {"in", "-O1", "--passes=eliminate-dead-nodes"},
           {"in", "--passes"},
           {"in", "--passes=a", "--passes=b"},
           {"in", "--print-ir-after"},
           {"in", "--print-ir-after="},
           {"in", "--print-ir-after=a,,b"},
           {"in", "--verify-each=yes"},
           {"in", "--quiet=yes"},
           {"--pass-statistics"},
       }) {
    EXPECT_FALSE(onnxopt::cli::parseArgs(args).ok()) << "accepted: " << join(args);
  }
}

TEST(CliParseArgs, PipelineAndInstrumentationFlags) {
  auto options = onnxopt::cli::parseArgs(
      {"in", "--passes", "eliminate-dead-nodes{max-iterations=3}", "--fixed-point",
       "--pass-statistics", "--time-passes", "--verify-each", "--require-convergence",
       "--print-ir-after=a,b", "--print-ir-after", "c", "--print-ir-after-all",
       "--print-ir-after-change", "--debug"});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->passes, "eliminate-dead-nodes{max-iterations=3}");
  EXPECT_FALSE(options->opt_level.has_value());
  EXPECT_TRUE(options->fixed_point);
  EXPECT_TRUE(options->pass_statistics);
  EXPECT_TRUE(options->time_passes);
  EXPECT_TRUE(options->verify_each);
  EXPECT_TRUE(options->require_convergence);
  EXPECT_EQ(options->print_ir_after, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(options->print_ir_after_all);
  EXPECT_TRUE(options->print_ir_after_change);
  EXPECT_TRUE(options->debug);

  for (const char* level : {"0", "1", "2"}) {
    options = onnxopt::cli::parseArgs({"in", std::string("-O") + level});
    ASSERT_TRUE(options.ok()) << options.status();
    EXPECT_EQ(options->pipelineName(), std::string("O") + level);
  }
  // The empty pipeline is a pipeline.
  options = onnxopt::cli::parseArgs({"in", "--passes="});
  ASSERT_TRUE(options.ok()) << options.status();
  EXPECT_EQ(options->passes, "");
  // --list-passes and --print-pipeline need no input.
  EXPECT_TRUE(onnxopt::cli::parseArgs({"--list-passes"}).ok());
  EXPECT_TRUE(onnxopt::cli::parseArgs({"--print-pipeline", "-O2"}).ok());
}

// ---------------------------------------------------------------------------------------------
// Pipelines: --list-passes, --print-pipeline, -O<level>, --passes, --fixed-point

const onnxopt::PassRegistry& registry() { return onnxopt::PassRegistry::global(); }

std::string namedPipeline(const std::string& name) {
  absl::StatusOr<std::string> pipeline = registry().namedPipeline(name);
  EXPECT_TRUE(pipeline.ok()) << pipeline.status();
  return pipeline.ok() ? *pipeline : "";
}

class CliPipelineTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    dead_ = dir_ + "/dead_nodes.onnx";
    writeModelFromText(dead_, kDeadNodesText);
  }
  std::string dead_;  // the model of kDeadNodesText
};

TEST_F(CliPipelineTest, ListPassesNamesEveryPassWithItsOptions) {
  ToolRun r = runTool({"--list-passes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(r.err.empty()) << r.describe();
  EXPECT_TRUE(contains(r.out, "\n  eliminate-dead-nodes\n")) << r.describe();
  ASSERT_FALSE(registry().passes().empty());
  for (const onnxopt::PassInfo* info : registry().passes()) {
    EXPECT_TRUE(contains(r.out, "  " + info->name + "\n")) << info->name << "\n" << r.describe();
    EXPECT_TRUE(contains(r.out, info->summary)) << info->name << "\n" << r.describe();
    absl::StatusOr<std::unique_ptr<onnxopt::Pass>> pass = registry().createPass(info->name);
    ASSERT_TRUE(pass.ok()) << pass.status();
    for (const onnxopt::PassOptionBase* option : (*pass)->options()) {
      const std::string line = "option " + option->name() + " (" + option->typeName() +
                               ", default " + option->defaultText() + "): " +
                               option->description();
      EXPECT_TRUE(contains(r.out, line)) << "missing '" << line << "'\n" << r.describe();
    }
  }
  for (const onnxopt::NamedPipeline& pipeline : registry().namedPipelines()) {
    EXPECT_TRUE(contains(r.out, "-" + pipeline.name + "  " + pipeline.summary)) << r.describe();
  }
  // Needs no input, even with a terminal-hostile default output.
  EXPECT_TRUE(listDir(out_dir_).empty());
}

TEST_F(CliPipelineTest, PrintPipelineOfTheDefaultIsO1) {
  const std::string o1 = namedPipeline("O1");
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--print-pipeline"},
                                             {"-O1", "--print-pipeline"},
                                             {kExample, "--print-pipeline", "-o",
                                              out_dir_ + "/x.onnx"}}) {
    ToolRun r = runTool(args);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, o1 + "\n") << r.describe();
    EXPECT_TRUE(r.err.empty()) << r.describe();
  }
  EXPECT_TRUE(listDir(out_dir_).empty()) << "--print-pipeline must not write a model";

  for (const char* level : {"O0", "O2"}) {
    ToolRun r = runTool({std::string("-") + level, "--print-pipeline"});
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    EXPECT_EQ(r.out, namedPipeline(level) + "\n") << r.describe();
  }
  // The expansion parses back to itself.
  ToolRun again = runTool({"--passes=" + o1, "--print-pipeline"});
  ASSERT_EQ(again.exit_code, 0) << again.describe();
  EXPECT_EQ(again.out, o1 + "\n") << again.describe();
}

TEST_F(CliPipelineTest, PrintPipelineGivesPassesWithOptionsBack) {
  const std::string pipeline = "eliminate-dead-nodes{max-iterations=3},eliminate-dead-nodes";
  ToolRun r = runTool({"--passes=" + pipeline, "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, pipeline + "\n") << r.describe();

  // Spaces are allowed, and the printed form parses back to the same text.
  r = runTool({"--passes", " eliminate-dead-nodes { max-iterations = 3 } , eliminate-dead-nodes ",
               "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, pipeline + "\n") << r.describe();

  r = runTool({"--passes=", "--print-pipeline"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(r.out, "\n") << r.describe();
}

TEST_F(CliPipelineTest, UnknownPassListsTheValidOnes) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "--passes=eliminate-dead-nodes,no-such-pass", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "unknown pass 'no-such-pass'")) << r.describe();
  for (const onnxopt::PassInfo* info : registry().passes()) {
    EXPECT_TRUE(contains(r.err, info->name)) << "does not list " << info->name << "\n"
                                             << r.describe();
  }
  EXPECT_TRUE(contains(r.err, "onnx-opt --list-passes")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliPipelineTest, UnknownOptionListsTheValidOnes) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "--passes=eliminate-dead-nodes{max-iteration=3}", "-o", out});
  EXPECT_EQ(r.exit_code, 2) << r.describe();
  EXPECT_TRUE(contains(r.err, "no option 'max-iteration'")) << r.describe();
  EXPECT_TRUE(contains(r.err, "valid options: max-iterations")) << r.describe();
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliPipelineTest, EliminateDeadNodesWithStatistics) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "-o", out, "--passes=eliminate-dead-nodes", "--pass-statistics",
                       "--verify-each"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "Pass statistics (1 round)\n")) << r.describe();
  // pass, visited, matched, rewritten, removed (3 nodes), init-removed (1), time-ms
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n  pass +visited +matched +rewritten +removed +init-removed +time-ms\n)")))
      << r.describe();
  EXPECT_TRUE(std::regex_search(
      r.err, std::regex(R"(\n  eliminate-dead-nodes +[0-9]+ +0 +0 +3 +1 +[0-9.]+\n)")))
      << r.describe();
  EXPECT_TRUE(contains(r.err, "onnx-opt: " + dead_ + ": " + kDeadNodesSummary + ", "))
      << r.describe();

  // The output holds only the live node, and no initializer.
  ToolRun text = runTool({out, "-O0", "--emit=text", "-q"});
  ASSERT_EQ(text.exit_code, 0) << text.describe();
  EXPECT_TRUE(contains(text.out, "Y = Relu(X)")) << text.describe();
  for (const char* gone : {"Neg", "Abs", "Add", "read_by_dead"}) {
    EXPECT_FALSE(contains(text.out, gone)) << gone << " survived\n" << text.describe();
  }
}

TEST_F(CliPipelineTest, DefaultPipelineIsO1) {
  const std::string out = out_dir_ + "/out.onnx";
  ToolRun r = runTool({dead_, "-o", out, "--pass-statistics"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, kDeadNodesSummary)) << "dead nodes not removed by default\n"
                                                  << r.describe();
  // One statistics row per pass of -O1, which ran to a fixed point: the second round changes
  // nothing.
  for (const std::string& pass : passNames(namedPipeline("O1"))) {
    EXPECT_TRUE(contains(r.err, "\n  " + pass + " ")) << pass << " did not run\n"
                                                      << r.describe();
  }
  EXPECT_TRUE(contains(r.err, "Pass statistics (2 rounds)")) << r.describe();

  ToolRun o1 = runTool({dead_, "-O1", "-o", out_dir_ + "/o1.onnx"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  EXPECT_TRUE(readFile(out) == readFile(out_dir_ + "/o1.onnx")) << "default and -O1 differ";

  // -O0 keeps everything.
  ToolRun o0 = runTool({dead_, "-O0", "-o", out_dir_ + "/o0.onnx"});
  ASSERT_EQ(o0.exit_code, 0) << o0.describe();
  EXPECT_TRUE(contains(o0.err, "4 nodes (Relu 1, Neg 1, Abs 1, Add 1) -> 4 nodes, "))
      << o0.describe();
  EXPECT_TRUE(readFile(out_dir_ + "/o0.onnx") == readFile(dead_));
}

TEST_F(CliPipelineTest, FixedPointRepeatsThePipeline) {
  ToolRun once = runTool({dead_, "-o", out_dir_ + "/a.onnx", "--passes=eliminate-dead-nodes",
                          "--pass-statistics"});
  ASSERT_EQ(once.exit_code, 0) << once.describe();
  EXPECT_TRUE(contains(once.err, "Pass statistics (1 round)")) << once.describe();

  ToolRun fixed = runTool({dead_, "-o", out_dir_ + "/b.onnx", "--passes=eliminate-dead-nodes",
                           "--fixed-point", "--pass-statistics"});
  ASSERT_EQ(fixed.exit_code, 0) << fixed.describe();
  EXPECT_TRUE(contains(fixed.err, "Pass statistics (2 rounds)")) << fixed.describe();
  EXPECT_FALSE(contains(fixed.err, "warning")) << fixed.describe();
}

TEST_F(CliPipelineTest, ExampleUnderO1) {
  const std::string out = out_dir_ + "/example.onnx";
  ToolRun r = runTool({kExample, "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.describe();
  EXPECT_EQ(r.err.rfind("onnx-opt: " + kExample + ": 11 nodes (Transpose 3, Expand 3, Gemm 3, "
                        "Relu 2) -> ", 0),
            0u)
      << r.describe();
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"example.onnx"});
}

TEST_F(CliPipelineTest, TimePasses) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "--time-passes", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_TRUE(contains(r.err, "Pass execution timing (2 rounds)\n")) << r.describe();
  for (const std::string& pass : passNames(namedPipeline("O1"))) {
    EXPECT_TRUE(std::regex_search(r.err, std::regex("\n +[0-9.]+ +[0-9.]+%  " + pass + "\n")))
        << pass << "\n" << r.describe();
  }
  EXPECT_TRUE(std::regex_search(r.err, std::regex(R"(\n +[0-9.]+ +100\.0%  total\n)")))
      << r.describe();
  EXPECT_FALSE(contains(r.err, "Pass statistics")) << r.describe();
}

TEST_F(CliPipelineTest, PrintIrAfterAll) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q", "--print-ir-after-all",
                       "--passes=eliminate-dead-nodes{max-iterations=3},eliminate-dead-nodes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::string first = "# IR after pass 'eliminate-dead-nodes{max-iterations=3}' (round 1)\n";
  const std::string second = "# IR after pass 'eliminate-dead-nodes' (round 1)\n";
  ASSERT_EQ(countOf(r.err, first), 1u) << r.describe();
  ASSERT_EQ(countOf(r.err, second), 1u) << r.describe();
  EXPECT_LT(r.err.find(first), r.err.find(second)) << r.describe();
  // Each header is followed by the whole model, already without the dead nodes.
  EXPECT_EQ(countOf(r.err, "dead_nodes (float[2,3] X) => (float[2,3] Y)"), 2u) << r.describe();
  EXPECT_EQ(countOf(r.err, "Y = Relu(X)"), 2u) << r.describe();
  EXPECT_FALSE(contains(r.err, "Neg")) << r.describe();
  EXPECT_TRUE(r.out.empty()) << "IR printing goes to stderr";

  // -O1: one printout per pass and round.
  ToolRun o1 = runTool({dead_, "-o", out_dir_ + "/o1.onnx", "-q", "--print-ir-after-all"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  for (const std::string& pass : passNames(namedPipeline("O1"))) {
    for (const char* round : {"1", "2"}) {
      EXPECT_TRUE(contains(o1.err, "# IR after pass '" + pass + "' (round " + round + ")\n"))
          << pass << " round " << round << "\n" << o1.describe();
    }
  }
}

TEST_F(CliPipelineTest, PrintIrAfterNamedPassesOrChanges) {
  const std::string pipeline = "--passes=eliminate-dead-nodes,eliminate-dead-nodes";
  // After a named pass: every run of it.
  ToolRun named = runTool({dead_, "-o", out_dir_ + "/a.onnx", "-q", pipeline,
                           "--print-ir-after=eliminate-dead-nodes"});
  ASSERT_EQ(named.exit_code, 0) << named.describe();
  EXPECT_EQ(countOf(named.err, "# IR after pass "), 2u) << named.describe();

  // After a change: only the first run changed the model.
  ToolRun changed = runTool({dead_, "-o", out_dir_ + "/b.onnx", "-q", pipeline,
                             "--print-ir-after-change"});
  ASSERT_EQ(changed.exit_code, 0) << changed.describe();
  EXPECT_EQ(countOf(changed.err, "# IR after pass 'eliminate-dead-nodes' (round 1)\n"), 1u)
      << changed.describe();
  EXPECT_EQ(countOf(changed.err, "# IR after pass "), 1u) << changed.describe();

  // Named passes of -O1 only: no other pass prints.
  ToolRun o1 = runTool({dead_, "-o", out_dir_ + "/c.onnx", "-q",
                        "--print-ir-after=eliminate-dead-nodes"});
  ASSERT_EQ(o1.exit_code, 0) << o1.describe();
  EXPECT_EQ(countOf(o1.err, "# IR after pass "),
            countOf(o1.err, "# IR after pass 'eliminate-dead-nodes' "))
      << o1.describe();
  EXPECT_GE(countOf(o1.err, "# IR after pass 'eliminate-dead-nodes' "), 1u) << o1.describe();
}

TEST_F(CliPipelineTest, DebugSaysWhatThePassesDid) {
  ToolRun r = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q", "--debug",
                       "--passes=eliminate-dead-nodes"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  EXPECT_GE(countOf(r.err, "onnx-opt: debug: "), 3u) << "one line per erased node\n"
                                                     << r.describe();
  for (const char* op : {"Neg", "Abs", "Add"}) {
    EXPECT_TRUE(contains(r.err, op)) << r.describe();
  }
  ToolRun quiet = runTool({dead_, "-o", out_dir_ + "/out.onnx", "-q",
                           "--passes=eliminate-dead-nodes"});
  EXPECT_TRUE(quiet.err.empty()) << quiet.describe();
}

// A pass that fails (here: an option value the pass refuses when it runs) leaves the output
// alone.
TEST_F(CliPipelineTest, FailingPassWritesNothing) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  ToolRun r = runTool({dead_, "-o", out, "--passes=eliminate-dead-nodes{max-iterations=0}"});
  expectCleanFailure(r, {dead_, "eliminate-dead-nodes", "max-iterations"}, {});
  EXPECT_EQ(readFile(out), "keep me");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});

  const std::string fresh = out_dir_ + "/new.onnx";
  r = runTool({dead_, "-o", fresh, "--passes=eliminate-dead-nodes{max-iterations=0}"});
  expectCleanFailure(r, {"eliminate-dead-nodes"}, {});
  EXPECT_FALSE(fs::exists(fresh));
}

// ---------------------------------------------------------------------------------------------
// In-process runs with out-of-tree passes (cli::main with a registry of the test's own).

// Fails on the first Relu, naming it; changes nothing before.
class FailOnReluPass final : public onnxopt::Pass {
 public:
  FailOnReluPass() : Pass("fail-on-relu") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model& model, onnxopt::PassContext&) override {
    for (onnxopt::ir::Node& node : model.graph()) {
      if (node.opType() == "Relu") {
        return absl::FailedPreconditionError("node 'the_relu' (Relu): cannot handle this node");
      }
    }
    return false;
  }
};

// Claims a change every time: --fixed-point never converges.
class AlwaysChangesPass final : public onnxopt::Pass {
 public:
  AlwaysChangesPass() : Pass("always-changes") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model&, onnxopt::PassContext&) override { return true; }
};

// Moves the last node of the main graph to the front: its operands are then read before they
// are defined.
class BreaksOrderPass final : public onnxopt::Pass {
 public:
  BreaksOrderPass() : Pass("breaks-order") {}
  absl::StatusOr<bool> run(onnxopt::ir::Model& model, onnxopt::PassContext&) override {
    onnxopt::ir::Graph& graph = model.graph();
    graph.moveNodeBefore(graph.lastNode(), graph.firstNode());
    return true;
  }
};

class CliInProcessTest : public CliPipelineTest {
 protected:
  void SetUp() override {
    CliPipelineTest::SetUp();
    registry_ = onnxopt::PassRegistry::withBuiltinPasses();
    ASSERT_TRUE(registry_
                    .registerPass({"fail-on-relu", "Fails on the first Relu",
                                   [] { return std::make_unique<FailOnReluPass>(); }})
                    .ok());
    ASSERT_TRUE(registry_
                    .registerPass({"always-changes", "Says it changed the model, every time",
                                   [] { return std::make_unique<AlwaysChangesPass>(); }})
                    .ok());
    ASSERT_TRUE(registry_
                    .registerPass({"breaks-order", "Breaks the topological order",
                                   [] { return std::make_unique<BreaksOrderPass>(); }})
                    .ok());
  }

  struct Result {
    int exit_code;
    std::string out;
    std::string err;
  };
  Result runInProcess(std::vector<std::string> args, bool with_test_flags = true) {
    if (with_test_flags) args.insert(args.begin(), kTestFlags.begin(), kTestFlags.end());
    std::istringstream in;
    std::ostringstream out;
    std::ostringstream err;
    onnxopt::cli::Io io{in, out, err};
    const int code = onnxopt::cli::main(args, io, registry_);
    return {code, out.str(), err.str()};
  }

  onnxopt::PassRegistry registry_;
};

TEST_F(CliInProcessTest, FailingPassWritesNoOutput) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  Result r = runInProcess({dead_, "-o", out, "--passes=eliminate-dead-nodes,fail-on-relu"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("onnx-opt: error: " + dead_ + ": pass 'fail-on-relu': ", 0), 0u) << r.err;
  EXPECT_TRUE(contains(r.err, "node 'the_relu' (Relu)")) << r.err;
  EXPECT_EQ(readFile(out), "keep me") << "a failed pass changed the existing output";
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});

  const std::string fresh = out_dir_ + "/new.onnx";
  r = runInProcess({dead_, "-o", fresh, "--passes=fail-on-relu", "--emit=text"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_FALSE(fs::exists(fresh));
  // To stdout: nothing either.
  r = runInProcess({dead_, "--passes=fail-on-relu", "--emit=text"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// Without --verify-each, a model a pass broke is still verified before it is saved.
TEST_F(CliInProcessTest, ModelIsVerifiedBeforeItIsSaved) {
  const std::string out = out_dir_ + "/existing.onnx";
  writeFile(out, "keep me");
  Result r = runInProcess({dead_, "-o", out, "--passes=breaks-order"}, /*with_test_flags=*/false);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("onnx-opt: error: " + dead_ +
                            ": the model is invalid after the pipeline: node ",
                        0),
            0u)
      << r.err;
  EXPECT_EQ(readFile(out), "keep me");
  EXPECT_EQ(listDir(out_dir_), std::vector<std::string>{"existing.onnx"});
}

TEST_F(CliInProcessTest, OutOfTreePassesAreListedAndParsed) {
  Result list = runInProcess({"--list-passes"});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(contains(list.out, "  fail-on-relu\n      Fails on the first Relu\n")) << list.out;
  Result print = runInProcess({"--passes=always-changes,eliminate-dead-nodes", "--print-pipeline"});
  ASSERT_EQ(print.exit_code, 0) << print.err;
  EXPECT_EQ(print.out, "always-changes,eliminate-dead-nodes\n");
  Result known = runInProcess({dead_, "--passes=always-changes", "-o", out_dir_ + "/a.onnx"});
  EXPECT_EQ(known.exit_code, 0) << known.err;
  // The global registry, which main() uses by default, does not know them.
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  onnxopt::cli::Io io{in, out, err};
  EXPECT_EQ(onnxopt::cli::main({dead_, "--passes=always-changes"}, io), 2) << err.str();
  EXPECT_TRUE(contains(err.str(), "unknown pass 'always-changes'")) << err.str();
}

TEST_F(CliInProcessTest, FixedPointCapIsReported) {
  // Without --require-convergence: a warning, and the model is written.
  const std::string out = out_dir_ + "/out.onnx";
  std::istringstream in;
  std::ostringstream stdout_text;
  std::ostringstream err;
  onnxopt::cli::Io io{in, stdout_text, err};
  const int code = onnxopt::cli::main(
      {dead_, "-o", out, "--passes=always-changes", "--fixed-point", "--pass-statistics"}, io,
      registry_);
  EXPECT_EQ(code, 0) << err.str();
  EXPECT_TRUE(contains(err.str(), "onnx-opt: warning: " + dead_ + ": ")) << err.str();
  EXPECT_TRUE(contains(err.str(), "after 10 rounds (--fixed-point cap)")) << err.str();
  EXPECT_TRUE(contains(err.str(), "Pass statistics (10 rounds)")) << err.str();
  EXPECT_TRUE(fs::exists(out));

  // With it: an error, nothing written.
  const std::string strict = out_dir_ + "/strict.onnx";
  Result r = runInProcess({dead_, "-o", strict, "--passes=always-changes", "--fixed-point"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "--fixed-point cap")) << r.err;
  EXPECT_FALSE(fs::exists(strict));
}

// ---------------------------------------------------------------------------------------------
// --help and docs/user-guide.md name the same flags.

// Flags in backticks in the option tables of the user guide's CLI reference: "`--emit=text`"
// gives "--emit", "`-o <file>`" gives "-o".
std::vector<std::string> flagsInUserGuide() {
  std::ifstream in(kUserGuide);
  EXPECT_TRUE(in.good()) << "cannot read " << kUserGuide;
  std::vector<std::string> flags;
  const std::regex flag(R"(`(--?[A-Za-z0-9][A-Za-z0-9-]*))");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| `-", 0) != 0) continue;  // option rows start with a flag
    const std::string first_cell = line.substr(0, line.find(" |", 2));
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), flag), end; it != end;
         ++it) {
      flags.push_back((*it)[1]);
    }
  }
  return flags;
}

// Flags at the start of the option lines of --help: "  -o, --output <file>   ..." gives "-o"
// and "--output".
std::vector<std::string> flagsInHelp(const std::string& help) {
  std::vector<std::string> flags;
  const std::regex flag(R"((^|[ ,|\[])(--?[A-Za-z0-9][A-Za-z0-9-]*))");
  std::istringstream in(help);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("  -", 0) != 0) continue;
    const std::string first_column = line.substr(0, line.find("   ", 2));
    for (std::sregex_iterator it(first_column.begin(), first_column.end(), flag), end; it != end;
         ++it) {
      flags.push_back((*it)[2]);
    }
  }
  return flags;
}

TEST_F(CliTest, HelpAndUserGuideNameTheSameFlags) {
  ToolRun r = runTool({"--help"});
  ASSERT_EQ(r.exit_code, 0) << r.describe();
  const std::vector<std::string> documented = flagsInUserGuide();
  const std::vector<std::string> helped = flagsInHelp(r.out);
  ASSERT_GE(documented.size(), 20u) << "the option tables of docs/user-guide.md were not found: "
                                    << join(documented);
  for (const std::string& flag : documented) {
    EXPECT_NE(std::find(helped.begin(), helped.end(), flag), helped.end())
        << "docs/user-guide.md documents " << flag << ", --help does not list it\n"
        << "--help lists: " << join(helped);
  }
  for (const std::string& flag : helped) {
    EXPECT_NE(std::find(documented.begin(), documented.end(), flag), documented.end())
        << "--help lists " << flag << ", docs/user-guide.md does not document it\n"
        << "documented: " << join(documented);
  }
  // Every flag the parser accepts is in both (parse each; a value where one is needed).
  for (const std::string& flag : helped) {
    std::vector<std::string> args = {"in", flag};
    if (flag == "-o" || flag == "--output" || flag == "--passes" || flag == "--print-ir-after" ||
        flag == "--emit") {
      args.push_back(flag == "--emit" ? "text" : "x");
    }
    EXPECT_TRUE(onnxopt::cli::parseArgs(args).ok()) << "--help lists " << flag
                                                    << ", which does not parse";
  }
}

}  // namespace
