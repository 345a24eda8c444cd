// Runs one golden test file (tests/passes/*.onnxtxt; format in docs/testing.md): every case is
// parsed with ir::parseModelText (onnx::OnnxParser, guarded), run through its pipeline with
// verify-each and must-converge, printed with ir::printModel and checked with FileCheck, by exact
// comparison with the printed input, or against an expected error. Failures name the case and
// say what differed.
//
//   golden_runner [--filecheck=PATH] FILE.onnxtxt

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/pass_manager.h"
#include "onnxopt/pass/pass_registry.h"

namespace {

constexpr absl::string_view kCaseSeparator = "# -----";
constexpr absl::string_view kPipeline = "# PIPELINE:";
constexpr absl::string_view kExpectUnchanged = "# EXPECT-UNCHANGED";
constexpr absl::string_view kExpectError = "# EXPECT-ERROR:";

struct Case {
  size_t first_line = 0;  // 1-based line of the file where the case starts
  std::vector<std::string> lines;
  std::string name;  // the graph's name once parsed
};

struct Expectations {
  std::optional<std::string> pipeline;
  bool unchanged = false;
  std::string error_substring;
  bool has_checks = false;
  bool has_o1_checks = false;
};

bool isCheckLine(absl::string_view line) {
  return absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "# CHECK");
}

bool isO1CheckLine(absl::string_view line) {
  return absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "# O1-CHECK");
}

// How golden cases run: as production runs the pipeline, with the model verified after each
// pass, convergence required, and every rewrite driver's fixed point checked after the fact.
onnxopt::PassManagerOptions testOptions() {
  onnxopt::PassManagerOptions options;
  options.verify_each = true;
  options.require_convergence = true;
  options.verify_fixed_point = true;
  options.revisit_touched_only = true;
  return options;
}

std::string directiveValue(absl::string_view line, absl::string_view directive) {
  return std::string(absl::StripAsciiWhitespace(line.substr(directive.size())));
}

std::vector<Case> splitCases(const std::vector<std::string>& lines) {
  std::vector<Case> cases(1);
  cases.back().first_line = 1;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (absl::StartsWith(lines[i], kCaseSeparator)) {
      cases.emplace_back();
      cases.back().first_line = i + 2;
      continue;
    }
    cases.back().lines.push_back(lines[i]);
  }
  return cases;
}

class GoldenRunner {
 public:
  GoldenRunner(std::string path, std::string filecheck, std::vector<std::string> lines)
      : path_(std::move(path)), filecheck_(std::move(filecheck)), lines_(std::move(lines)) {}

  int run() {
    // The file's leading comment block holds the default pipeline; a case may set its own.
    std::optional<std::string> default_pipeline;
    for (const std::string& line : lines_) {
      if (!absl::StartsWith(line, "#")) break;
      if (absl::StartsWith(line, kPipeline)) default_pipeline = directiveValue(line, kPipeline);
    }
    std::vector<Case> cases = splitCases(lines_);
    int failures = 0;
    for (size_t index = 0; index < cases.size(); ++index) {
      Case& test_case = cases[index];
      test_case.name = absl::StrCat("#", index + 1);
      const absl::Status status = runCase(test_case, readExpectations(test_case, default_pipeline));
      if (!status.ok()) {
        ++failures;
        std::cout << path_ << ":" << test_case.first_line << ": FAIL case '" << test_case.name
                  << "': " << status.message() << "\n\n";
      }
    }
    std::cout << path_ << ": " << cases.size() << " cases, " << failures << " failed\n";
    return failures == 0 ? 0 : 1;
  }

 private:
  static Expectations readExpectations(const Case& test_case,
                                       const std::optional<std::string>& default_pipeline) {
    Expectations expect;
    expect.pipeline = default_pipeline;
    for (const std::string& line : test_case.lines) {
      if (absl::StartsWith(line, kPipeline)) expect.pipeline = directiveValue(line, kPipeline);
      if (absl::StartsWith(line, kExpectUnchanged)) expect.unchanged = true;
      if (absl::StartsWith(line, kExpectError)) {
        expect.error_substring = directiveValue(line, kExpectError);
      }
      if (isCheckLine(line)) expect.has_checks = true;
      if (isO1CheckLine(line)) expect.has_o1_checks = true;
    }
    return expect;
  }

  absl::Status runCase(Case& test_case, const Expectations& expect) {
    if (!expect.pipeline) return absl::InvalidArgumentError("no '# PIPELINE:' line");
    if (!expect.has_checks && !expect.unchanged && expect.error_substring.empty()) {
      return absl::InvalidArgumentError(
          "the case has no CHECK, EXPECT-UNCHANGED or EXPECT-ERROR line");
    }
    // Leading blank lines keep the parser's line numbers those of the file.
    const std::string text = absl::StrCat(std::string(test_case.first_line - 1, '\n'),
                                          absl::StrJoin(test_case.lines, "\n"), "\n");
    absl::StatusOr<onnx::ModelProto> proto = onnxopt::ir::parseModelText(text);
    if (!proto.ok()) return proto.status();
    test_case.name = proto->graph().name();
    absl::StatusOr<std::unique_ptr<onnxopt::ir::Model>> model =
        onnxopt::ir::importModel(*std::move(proto));
    if (!model.ok())
      return absl::InvalidArgumentError(absl::StrCat("import: ", model.status().message()));
    if (absl::Status status = onnxopt::ir::verify(**model); !status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("the input is invalid: ", status.message()));
    }
    const std::string input_text = onnxopt::ir::printModel(**model);
    // The -O1 variant runs on a copy: every case must also go through the default pipeline.
    absl::StatusOr<std::unique_ptr<onnxopt::ir::Model>> o1_model =
        onnxopt::ir::importModel(*onnxopt::ir::parseModelText(text));
    if (!o1_model.ok()) return o1_model.status();

    onnxopt::PassManager pass_manager(testOptions());
    const std::string& pipeline = *expect.pipeline;
    absl::Status status = pass_manager.addPipeline(pipeline);
    if (status.ok()) status = pass_manager.run(**model).status();
    if (!expect.error_substring.empty()) {
      if (status.ok()) {
        return absl::FailedPreconditionError(
            absl::StrCat("expected an error containing '", expect.error_substring,
                         "', but the pipeline '", pipeline, "' succeeded"));
      }
      if (!absl::StrContains(status.message(), expect.error_substring)) {
        return absl::FailedPreconditionError(absl::StrCat("expected an error containing '",
                                                          expect.error_substring,
                                                          "', got: ", status.message()));
      }
      return absl::OkStatus();
    }
    if (!status.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("pipeline '", pipeline, "' failed: ", status.message()));
    }
    const std::string output_text = onnxopt::ir::printModel(**model);
    if (expect.unchanged && output_text != input_text) {
      return absl::FailedPreconditionError(
          absl::StrCat("expected the model unchanged.\n--- input, printed ---\n", input_text,
                       "--- output ---\n", output_text));
    }
    if (expect.has_checks) {
      if (absl::Status checked = fileCheck(test_case, output_text, "CHECK"); !checked.ok()) {
        return checked;
      }
    }
    return runO1(test_case, expect, **o1_model);
  }

  // -O1 as the CLI runs it, to a fixed point; O1-CHECK lines are checked against its output.
  absl::Status runO1(const Case& test_case, const Expectations& expect, onnxopt::ir::Model& model) {
    onnxopt::PassManagerOptions options = testOptions();
    options.fixed_point = true;
    onnxopt::PassManager pass_manager(options);
    absl::Status status = pass_manager.addPipeline(
        *onnxopt::PassRegistry::global().namedPipeline("O1"));
    if (status.ok()) status = pass_manager.run(model).status();
    if (!status.ok()) {
      return absl::FailedPreconditionError(absl::StrCat("-O1 failed: ", status.message()));
    }
    if (!expect.has_o1_checks) return absl::OkStatus();
    return fileCheck(test_case, onnxopt::ir::printModel(model), "O1-CHECK");
  }

  // Gives FileCheck a copy of the file with every line outside the case blanked, so that its
  // diagnostics carry the file's line numbers; the copy's path is replaced by the file's.
  absl::Status fileCheck(const Case& test_case, const std::string& output_text,
                         absl::string_view prefix) {
    char dir_template[] = "/tmp/golden_runner.XXXXXX";
    if (mkdtemp(dir_template) == nullptr) return absl::InternalError("cannot create a temp dir");
    const std::string dir = dir_template;
    const std::string checks_path = dir + "/checks.onnxtxt";
    const std::string output_path = dir + "/output.onnxtxt";
    {
      std::ofstream checks(checks_path);
      for (size_t line = 1; line < test_case.first_line; ++line) checks << "\n";
      for (const std::string& line : test_case.lines) checks << line << "\n";
      std::ofstream output(output_path);
      output << output_text;
    }
    const std::string command =
        absl::StrCat("'", filecheck_, "' '", checks_path, "' --input-file='", output_path,
                     "' --check-prefix=", prefix, " --allow-unused-prefixes --dump-input=never 2>&1");
    std::string diagnostics;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) return absl::InternalError(absl::StrCat("cannot run ", filecheck_));
    char buffer[4096];
    size_t read;
    while ((read = fread(buffer, 1, sizeof(buffer), pipe)) > 0) diagnostics.append(buffer, read);
    const int wait_status = pclose(pipe);
    std::remove(checks_path.c_str());
    std::remove(output_path.c_str());
    rmdir(dir.c_str());
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(
        "FileCheck (", prefix, ") failed:\n",
        absl::StrReplaceAll(diagnostics, {{checks_path, path_}, {output_path, "<output>"}}),
        "--- output ---\n", output_text));
  }

  std::string path_;
  std::string filecheck_;
  std::vector<std::string> lines_;
};

}  // namespace

int main(int argc, char** argv) {
  std::string filecheck = "FileCheck-14";
  std::string path;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    if (absl::ConsumePrefix(&arg, "--filecheck=")) {
      filecheck = std::string(arg);
    } else if (path.empty() && !absl::StartsWith(arg, "-")) {
      path = std::string(arg);
    } else {
      std::cerr << "usage: golden_runner [--filecheck=PATH] FILE.onnxtxt\n";
      return 2;
    }
  }
  if (path.empty()) {
    std::cerr << "usage: golden_runner [--filecheck=PATH] FILE.onnxtxt\n";
    return 2;
  }
  std::ifstream file(path);
  if (!file) {
    std::cerr << "golden_runner: cannot read " << path << "\n";
    return 2;
  }
  std::vector<std::string> lines;
  for (std::string line; std::getline(file, line);) lines.push_back(line);
  return GoldenRunner(path, filecheck, std::move(lines)).run();
}
