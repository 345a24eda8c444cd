#pragma once

// Runs a pipeline of passes over a model, optionally to a fixed point, with verification,
// statistics, timings and IR printing between passes.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/pass/pass_registry.h"
#include "onnxopt/pass/target.h"

namespace onnxopt {

// How many rounds --fixed-point runs at most by default. -O1 settles the real models of the tests
// in 1 to 4 rounds (torchvision's Swin-T in 3); the cap stops a pipeline that would never settle.
inline constexpr int64_t kDefaultMaxFixedPointRounds = 64;

// When to call the print callback after a pass (--print-ir-after=NAME, --print-ir-after-all,
// --print-ir-after-change). A pass is selected when `after_all` is set, when its name is in
// `after_passes`, or, with `after_passes` empty, when `after_change` is set; with `after_change`
// a selected pass prints only if it changed the model.
struct IrPrintingOptions {
  bool after_all = false;
  bool after_change = false;
  std::vector<std::string> after_passes;
  // Called with the pass just run (`round` counts from 1 with --fixed-point, else is 1). The CLI
  // prints ir::printModel(model) here.
  std::function<void(const Pass& pass, int64_t round, const ir::Model& model)> print;
};

// Where a running pipeline is, for a progress display.
struct PipelineProgress {
  int64_t round = 1;
  size_t position = 0;           // of the running pass in the pipeline, from 0
  size_t passes = 0;             // passes in the pipeline
  absl::string_view pass;        // the running pass's pipeline text
  int64_t nodes_visited = 0;     // by every pass run so far, the running one included
};
// Called before each pass runs, every 4096 nodes a rewrite driver visits, and once after the
// last pass (position == passes).
using PipelineProgressSink = std::function<void(const PipelineProgress&)>;

struct PassManagerOptions {
  // Run ir::verify after every pass; a failure names the pass that broke the model. Without it,
  // a run that changed the model verifies it once at the end.
  bool verify_each = false;
  // Repeat the whole pipeline until a round changes nothing, at most `max_fixed_point_rounds`
  // rounds; hitting the cap is a warning (an error with `require_convergence`).
  bool fixed_point = false;
  int64_t max_fixed_point_rounds = kDefaultMaxFixedPointRounds;
  // Every rewrite driver and the fixed-point loop must converge, or the run fails.
  bool require_convergence = false;
  // Tests: after each rewrite driver converges, every node is offered once more, and a rewrite
  // then fails the run (PassContext::verifyFixedPoint). The result checked is production's.
  bool verify_fixed_point = false;
  // Tests: a later round offers a pattern pass only the nodes touched since its fixed point,
  // however many they are (PassContext::revisitTouchedOnly). Production does so only while the
  // touches are few, so a small test graph would otherwise always take the path that offers
  // every node of the root operators and hide a touch a rewrite forgot.
  bool revisit_touched_only = false;
  // --debug: pattern match failures and applied rewrites, one line per call.
  PassContext::DebugSink debug_sink;
  // The model's nodes were not checked at load (--no-check): passes leave the nodes that fail
  // checkNode as they are (PassContext::skipMalformedNodes).
  bool skip_malformed_nodes = false;
  IrPrintingOptions print_ir;
  PipelineProgressSink progress;
};

// One run of one pass.
struct PassRun {
  std::string pass;     // its pipeline text, options included
  size_t position = 0;  // in the pipeline, from 0
  int64_t round = 1;
  bool changed = false;
  PassStatistics statistics;
  double seconds = 0;
  std::vector<std::string> warnings;
};

struct PipelineReport {
  std::vector<PassRun> runs;  // in execution order
  int64_t rounds = 0;
  bool changed = false;
  // False only when --fixed-point hit its cap while the model still changed.
  bool reached_fixed_point = true;
  // Every warning of every run, prefixed with the pass ("eliminate-dead-nodes: ..."), and the
  // pipeline's own.
  std::vector<std::string> warnings;
  // What the target reports on the optimized model (checkForTarget): set by optimize() and its
  // siblings for OptimizeOptions::target "tensorrt"; a PassManager's run() leaves it empty.
  std::optional<TensorRtFindings> tensorrt;
};

// The runs of one pipeline position, summed over rounds.
struct PassTotals {
  std::string pass;
  int64_t runs = 0;
  bool changed = false;  // in any run
  PassStatistics statistics;
  double seconds = 0;
};
// One entry per pass of the pipeline, in pipeline order.
ONNXOPT_API std::vector<PassTotals> passTotals(const PipelineReport& report);

// --pass-statistics: one row per pass of the pipeline (runs of all rounds summed): nodes visited,
// matched, rewritten, removed, initializers removed, time.
ONNXOPT_API std::string formatPassStatistics(const PipelineReport& report);
// --time-passes: time per pass (rounds summed), share of the total, and the total.
ONNXOPT_API std::string formatPassTimings(const PipelineReport& report);

class ONNXOPT_API PassManager {
 public:
  explicit PassManager(PassManagerOptions options = {});

  void addPass(std::unique_ptr<Pass> pass);
  // Parses `pipeline` with `registry` and appends its passes; on error adds nothing.
  absl::Status addPipeline(absl::string_view pipeline,
                           const PassRegistry& registry = PassRegistry::global());
  const std::vector<std::unique_ptr<Pass>>& passes() const { return passes_; }

  // --print-pipeline: the pipeline text, which parses back to the same pipeline.
  std::string pipelineText() const;

  PassManagerOptions& options() { return options_; }
  const PassManagerOptions& options() const { return options_; }

  // Runs the pipeline. A failing pass stops the run: the status names the pass and the node, and
  // the model is valid and equivalent to the input (the caller should not save it, though: it
  // is only partly optimized).
  absl::StatusOr<PipelineReport> run(ir::Model& model);

 private:
  bool shouldPrintAfter(const Pass& pass, bool changed) const;

  PassManagerOptions options_;
  std::vector<std::unique_ptr<Pass>> passes_;
};

}  // namespace onnxopt
