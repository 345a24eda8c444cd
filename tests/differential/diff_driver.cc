// The optimizing half of the differential test (see tests/differential/README.md): one process
// optimizes a whole batch of models with what `onnx-opt -O1 --verify-each --require-convergence`
// runs (onnxopt::optimizeFile), and says per model which rewrite patterns fired and which
// declined, so that a generator that stops producing the patterns cannot pass silently.
//
//   diff_driver OUT_DIR MODEL.onnx...
//
// Writes OUT_DIR/<basename of MODEL> for each model, and one line per model on stdout, flushed
// before the next model starts (a crash then points at the model without a line). A pattern
// "declined" when it did not match a node that is a candidate (a Gemm next to a Transpose, an
// Add of a MatMul, ...) and said why; nodes that are no candidate at all are not counted.
//   {"model":"<path>","ok":true,"changed":{"<pass>":rounds,...},"fired":{"<pattern>":n,...},
//    "declined":{"<pattern>":n,...}}
//   {"model":"<path>","ok":false,"error":"<status message>"}
// Exit status: 0 when every model was optimized, 1 when one failed, 2 on a bad command line.

#include <iostream>
#include <map>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "onnxopt/onnxopt.h"

namespace {

std::string jsonString(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string jsonCounts(const std::map<std::string, int>& counts) {
  std::string out = "{";
  for (const auto& [name, count] : counts) {
    if (out.size() > 1) out += ",";
    out += jsonString(name) + ":" + std::to_string(count);
  }
  return out + "}";
}

// Whether a pattern's reason for not matching says only that the node is not a candidate at
// all (nothing the pattern rewrites is next to it), rather than that a guard declined.
bool isNotACandidate(absl::string_view reason) {
  for (const absl::string_view whole :
       {"no broadcast operand is an Expand's output", "the input is not the output of a Gemm",
        "no operand is a MatMul"}) {
    if (reason == whole) return true;
  }
  // fold-transpose-into-gemm-operand: "A is not the output of a Transpose; B is not ..."
  for (const absl::string_view part : absl::StrSplit(reason, "; ")) {
    if (!absl::EndsWith(part, " is not the output of a Transpose")) return false;
  }
  return true;
}

// Debug lines of the rewrite driver look like "[<pattern>] rewrote <node>" and
// "[<pattern>] <node>: no match: <reason>".
void countDebugLine(absl::string_view line, std::map<std::string, int>* fired,
                    std::map<std::string, int>* declined) {
  if (!absl::StartsWith(line, "[")) return;
  const size_t close = line.find(']');
  if (close == absl::string_view::npos) return;
  const std::string pattern(line.substr(1, close - 1));
  if (absl::StartsWith(line.substr(close + 1), " rewrote ")) {
    ++(*fired)[pattern];
    return;
  }
  const size_t no_match = line.find(": no match: ", close);
  if (no_match != absl::string_view::npos &&
      !isNotACandidate(line.substr(no_match + sizeof(": no match: ") - 1))) {
    ++(*declined)[pattern];
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: diff_driver OUT_DIR MODEL.onnx...\n";
    return 2;
  }
  const std::string out_dir = argv[1];
  int failed = 0;
  for (int i = 2; i < argc; ++i) {
    const std::string input = argv[i];
    const std::string output = out_dir + "/" + input.substr(input.find_last_of('/') + 1);
    std::map<std::string, int> fired;
    std::map<std::string, int> declined;
    onnxopt::OptimizeOptions options;
    options.verify_each = true;
    options.fixed_point = true;  // what -O1 implies on the command line
    options.require_convergence = true;
    options.debug_sink = [&](absl::string_view line) { countDebugLine(line, &fired, &declined); };
    onnxopt::PipelineReport report;
    options.report = &report;
    const absl::Status status = onnxopt::optimizeFile(input, output, "-O1", options);
    if (status.ok()) {
      std::map<std::string, int> changed;  // rounds in which each pass changed the model
      for (const onnxopt::PassRun& run : report.runs) changed[run.pass] += run.changed ? 1 : 0;
      std::cout << "{\"model\":" << jsonString(input) << ",\"ok\":true,\"changed\":"
                << jsonCounts(changed) << ",\"fired\":" << jsonCounts(fired)
                << ",\"declined\":" << jsonCounts(declined) << "}" << std::endl;
    } else {
      ++failed;
      std::cout << "{\"model\":" << jsonString(input) << ",\"ok\":false,\"error\":"
                << jsonString(std::string(status.message())) << "}" << std::endl;
    }
  }
  return failed == 0 ? 0 : 1;
}
