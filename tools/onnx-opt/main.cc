// onnx-opt: see cli.h and docs/user-guide.md.

#include <unistd.h>

#include <iostream>
#include <string>
#include <vector>

#include "cli.h"
#include "google/protobuf/stubs/logging.h"

namespace {

// Protobuf logs parse problems to stderr on its own; the tool reports errors itself, in one line.
void silentLogHandler(google::protobuf::LogLevel, const char*, int, const std::string&) {}

}  // namespace

int main(int argc, char** argv) {
  google::protobuf::SetLogHandler(&silentLogHandler);
  std::ios::sync_with_stdio(false);

  std::vector<std::string> args(argv + 1, argv + argc);
  onnxopt::cli::Io io{std::cin, std::cout, std::cerr, ::isatty(STDOUT_FILENO) == 1};
  return onnxopt::cli::main(args, io);
}
