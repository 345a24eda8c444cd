// onnx-opt: see cli.h and docs/user-guide.md.

#include <signal.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "google/protobuf/stubs/logging.h"
#include "onnxopt/ir/serialization.h"

namespace {

// Protobuf logs parse problems to stderr on its own; the tool reports errors itself, in one line.
void silentLogHandler(google::protobuf::LogLevel, const char*, int, const std::string&) {}

// Interrupted or terminated while saving: the temporary output goes, then the signal takes its
// default course (the handler was reset on entry), so the exit status still says which signal.
void removeTemporariesAndDie(int signal) {
  onnxopt::ir::removePendingFiles();
  raise(signal);
}

void cleanUpOnTermination() {
  struct sigaction action = {};
  action.sa_handler = &removeTemporariesAndDie;
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  google::protobuf::SetLogHandler(&silentLogHandler);
  cleanUpOnTermination();
  std::ios::sync_with_stdio(false);

  std::vector<std::string> args(argv + 1, argv + argc);
  onnxopt::cli::Io io{std::cin, std::cout, std::cerr, ::isatty(STDOUT_FILENO) == 1};
  io.err_is_terminal = ::isatty(STDERR_FILENO) == 1;
  struct winsize size;
  if (io.err_is_terminal && ::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0) {
    io.err_columns = size.ws_col;
  }
  absl::StatusOr<double> interval =
      onnxopt::cli::progressInterval(std::getenv("ONNX_OPT_PROGRESS_INTERVAL"));
  if (!interval.ok()) {
    std::cerr << "onnx-opt: error: " << interval.status().message() << "\n";
    return onnxopt::cli::kExitUsage;
  }
  io.progress_interval = *interval;
  return onnxopt::cli::main(args, io);
}
