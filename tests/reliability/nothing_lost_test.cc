// Nothing lost: onnx-opt is killed before, while and after it writes a big model, and each time
// the input must be byte-identical and the output either its old bytes or the complete new model,
// never a part of one. A SIGKILL may leave one temporary file next to the output; SIGTERM and
// SIGINT leave none.

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "onnx/onnx_pb.h"
#include "tool_run.h"

namespace onnxopt::testing {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

const std::string kTool = ONNXOPT_CLI_PATH;

// Big enough that saving takes a while (serializing, then fsync: tens of milliseconds here),
// small enough for CI.
constexpr size_t kWeightBytes = size_t{16} << 20;

// A kill that should land while the output is written but finds the run over is tried again.
constexpr int kAttempts = 5;

// Y = X + w with a 16 MiB w, and a dead node that -O1 removes: the output differs from the input.
std::string bigModel() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(13);
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.set_name("big");
  const int64_t elements = static_cast<int64_t>(kWeightBytes / 4);
  for (const char* name : {"X", "Y"}) {
    onnx::ValueInfoProto& info = name[0] == 'X' ? *graph.add_input() : *graph.add_output();
    info.set_name(name);
    auto& tensor_type = *info.mutable_type()->mutable_tensor_type();
    tensor_type.set_elem_type(onnx::TensorProto::FLOAT);
    tensor_type.mutable_shape()->add_dim()->set_dim_value(elements);
  }
  onnx::TensorProto& w = *graph.add_initializer();
  w.set_name("w");
  w.set_data_type(onnx::TensorProto::FLOAT);
  w.add_dims(elements);
  std::string& bytes = *w.mutable_raw_data();
  bytes.resize(kWeightBytes);
  for (size_t i = 0; i < bytes.size(); i += 4096) bytes[i] = static_cast<char>(i >> 12);
  onnx::NodeProto& add = *graph.add_node();
  add.set_name("add_w");
  add.set_op_type("Add");
  add.add_input("X");
  add.add_input("w");
  add.add_output("Y");
  onnx::NodeProto& dead = *graph.add_node();
  dead.set_name("dead");
  dead.set_op_type("Neg");
  dead.add_input("X");
  dead.add_output("unused");
  return model.SerializeAsString();
}

// The temporary files (".<name>.tmpXXXXXX") in `dir`.
std::vector<std::string> temporaries(const std::string& dir) {
  std::vector<std::string> found;
  for (const std::string& name : listDir(dir)) {
    if (name.rfind('.', 0) == 0 && name.find(".tmp") != std::string::npos) found.push_back(name);
  }
  return found;
}

// Size of the first temporary file in `dir`, or -1 if there is none.
int64_t temporarySize(const std::string& dir) {
  for (const std::string& name : temporaries(dir)) {
    std::error_code error;
    const auto size = fs::file_size(fs::path(dir) / name, error);
    if (!error) return static_cast<int64_t>(size);
  }
  return -1;
}

// When to send the signal, counted from the start of the run.
enum class Moment {
  kAtOnce,             // before the model is even read
  kTemporaryAppears,   // the output has begun
  kHalfWritten,        // the temporary holds half the output
  kAfterExit,          // the run is over (the signal finds nothing to kill)
};

class NothingLostTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string pattern = (fs::temp_directory_path() / "onnx-opt-nothing-lost-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    dir_ = new std::string(pattern);
    input_ = new std::string(bigModel());
    // What a complete run writes, to tell a whole new output from a partial one.
    const std::string in = *dir_ + "/reference_in.onnx";
    const std::string out = *dir_ + "/reference_out.onnx";
    writeFile(in, *input_);
    const ToolRun r = runTool(kTool, {"-q", in, "-o", out}, *dir_);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    optimized_ = new std::string(readFile(out));
    ASSERT_NE(*optimized_, *input_) << "-O1 must change the model for this test to tell them apart";
    fs::remove(in);
    fs::remove(out);
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(*dir_, ignored);
    delete dir_;
    delete input_;
    delete optimized_;
  }

  void SetUp() override {
    work_ = *dir_ + "/" + ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::create_directories(work_ + "/io");
    fs::create_directories(work_ + "/models");
  }

  // Runs onnx-opt on `input` into `output`, sends `signal` at `moment`, and returns how it ended.
  // Reports whether the signal arrived while a temporary output existed.
  ToolRun runAndSignal(const std::string& input, const std::string& output, int signal,
                       Moment moment, bool* hit_temporary) {
    const std::string models = work_ + "/models";
    const pid_t pid = startTool(kTool, {"-q", input, "-o", output}, "/dev/null",
                                work_ + "/io/stdout", work_ + "/io/stderr");
    EXPECT_GT(pid, 0);
    ToolRun run;
    run.command = "onnx-opt -q " + input + " -o " + output;
    *hit_temporary = false;
    if (pid <= 0) return run;
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    auto exited = [&] {
      int status = 0;
      const pid_t done = waitpid(pid, &status, WNOHANG);
      if (done != pid) return false;
      if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
      return true;
    };
    bool reaped = false;
    if (moment != Moment::kAtOnce) {
      const int64_t wanted = moment == Moment::kHalfWritten
                                 ? static_cast<int64_t>(optimized_->size() / 2)
                                 : moment == Moment::kTemporaryAppears ? 0 : INT64_MAX;
      while (Clock::now() < deadline && !(reaped = exited())) {
        if (temporarySize(models) >= wanted) break;
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
    }
    if (!reaped) {
      *hit_temporary = !temporaries(models).empty();
      kill(pid, signal);
      waitForTool(pid, &run);
    }
    // A child killed at once may not have opened it.
    if (fs::exists(work_ + "/io/stderr")) run.err = readFile(work_ + "/io/stderr");
    return run;
  }

  // runAndSignal, tried again (up to kAttempts runs) while the signal finds no temporary output
  // for a moment that should see one; `prepare` restores the files before each run.
  template <typename Prepare>
  ToolRun runAndSignalWhileWriting(const std::string& input, const std::string& output,
                                   int signal, Moment moment, Prepare prepare, bool* hit) {
    const bool wants_temporary =
        moment == Moment::kTemporaryAppears || moment == Moment::kHalfWritten;
    ToolRun run;
    for (int attempt = 0; attempt < (wants_temporary ? kAttempts : 1); ++attempt) {
      prepare();
      run = runAndSignal(input, output, signal, moment, hit);
      if (*hit || !wants_temporary) break;
    }
    return run;
  }

  static std::string* dir_;
  static std::string* input_;      // the big model's bytes
  static std::string* optimized_;  // what onnx-opt -O1 makes of it
  std::string work_;
};

std::string* NothingLostTest::dir_ = nullptr;
std::string* NothingLostTest::input_ = nullptr;
std::string* NothingLostTest::optimized_ = nullptr;

constexpr Moment kMoments[] = {
    Moment::kAtOnce, Moment::kTemporaryAppears,
    Moment::kHalfWritten, Moment::kAfterExit};

const char* momentName(Moment moment) {
  switch (moment) {
    case Moment::kAtOnce: return "at once";
    case Moment::kTemporaryAppears: return "when the temporary appears";
    case Moment::kHalfWritten: return "when half is written";
    case Moment::kAfterExit: return "after the run";
  }
  return "?";
}

// SIGKILL into a separate output that already holds an old model: the input never changes, the
// output is the old model or the whole new one; at most one temporary file stays.
TEST_F(NothingLostTest, SigkillNeverLeavesAPartialOutput) {
  const std::string input = work_ + "/models/in.onnx";
  const std::string output = work_ + "/models/out.onnx";
  const std::string old_output = "an older model";
  int hits = 0;
  for (Moment moment : kMoments) {
    SCOPED_TRACE(momentName(moment));
    bool hit = false;
    const ToolRun r = runAndSignalWhileWriting(input, output, SIGKILL, moment, [&] {
      writeFile(input, *input_);
      writeFile(output, old_output);
    }, &hit);
    hits += hit;
    EXPECT_TRUE(readFile(input) == *input_) << "the input changed\n" << r.describe();
    const std::string now = readFile(output);
    EXPECT_TRUE(now == old_output || now == *optimized_)
        << "the output is neither the old one nor the complete new one (" << now.size()
        << " bytes)\n" << r.describe();
    if (moment == Moment::kAfterExit) {
      EXPECT_EQ(r.exit_code, 0) << r.describe();
      EXPECT_TRUE(now == *optimized_);
    }
    EXPECT_LE(temporaries(work_ + "/models").size(), 1u) << join(listDir(work_ + "/models"));
    for (const std::string& name : temporaries(work_ + "/models")) {
      fs::remove(work_ + "/models/" + name);
    }
  }
  EXPECT_EQ(hits, 2) << "kills meant to land while the output was written found the run over";
}

// -o equal to the input: the file is the input or the complete new model at every moment.
TEST_F(NothingLostTest, SigkillWithOutputEqualToInput) {
  const std::string path = work_ + "/models/model.onnx";
  int hits = 0;
  for (Moment moment : kMoments) {
    SCOPED_TRACE(momentName(moment));
    bool hit = false;
    const ToolRun r = runAndSignalWhileWriting(path, path, SIGKILL, moment,
                                               [&] { writeFile(path, *input_); }, &hit);
    hits += hit;
    const std::string now = readFile(path);
    EXPECT_TRUE(now == *input_ || now == *optimized_)
        << "the model is neither the input nor the complete new one (" << now.size()
        << " bytes)\n" << r.describe();
    if (moment == Moment::kAfterExit) EXPECT_TRUE(now == *optimized_) << r.describe();
    for (const std::string& name : temporaries(work_ + "/models")) {
      fs::remove(work_ + "/models/" + name);
    }
  }
  EXPECT_EQ(hits, 2) << "kills meant to land while the output was written found the run over";
}

// SIGTERM and SIGINT while writing: the temporary file goes, the old output stays, and the exit
// status still says which signal ended the run.
TEST_F(NothingLostTest, SigtermAndSigintRemoveTheTemporary) {
  const std::string input = work_ + "/models/in.onnx";
  const std::string output = work_ + "/models/out.onnx";
  writeFile(input, *input_);
  for (int signal : {SIGTERM, SIGINT}) {
    SCOPED_TRACE(strsignal(signal));
    bool hit = false;
    const ToolRun r = runAndSignalWhileWriting(input, output, signal, Moment::kHalfWritten,
                                               [&] { writeFile(output, "old"); }, &hit);
    ASSERT_TRUE(hit) << "the run ended before the signal\n" << r.describe();
    EXPECT_EQ(r.signal, signal) << r.describe();
    EXPECT_EQ(readFile(output), "old");
    EXPECT_TRUE(temporaries(work_ + "/models").empty()) << join(listDir(work_ + "/models"));
  }
  EXPECT_TRUE(readFile(input) == *input_);
}

}  // namespace
}  // namespace onnxopt::testing
