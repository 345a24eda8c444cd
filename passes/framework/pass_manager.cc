#include "onnxopt/pass/pass_manager.h"

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/rewrite/declarations.h"
#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

std::vector<PassTotals> passTotals(const PipelineReport& report) {
  std::vector<PassTotals> totals;
  for (const PassRun& run : report.runs) {
    if (run.position >= totals.size()) totals.resize(run.position + 1);
    PassTotals& entry = totals[run.position];
    entry.pass = run.pass;
    ++entry.runs;
    entry.changed |= run.changed;
    entry.statistics += run.statistics;
    entry.seconds += run.seconds;
  }
  return totals;
}

std::string formatPassStatistics(const PipelineReport& report) {
  const std::vector<PassTotals> totals = passTotals(report);
  size_t name_width = 4;
  for (const PassTotals& entry : totals) name_width = std::max(name_width, entry.pass.size());
  const int width = static_cast<int>(name_width);
  std::string text = absl::StrFormat("Pass statistics (%d round%s)\n", report.rounds,
                                     report.rounds == 1 ? "" : "s");
  absl::StrAppendFormat(&text, "  %-*s %10s %10s %10s %10s %12s %10s\n", width, "pass", "visited",
                        "matched", "rewritten", "removed", "init-removed", "time-ms");
  for (const PassTotals& entry : totals) {
    const PassStatistics& s = entry.statistics;
    absl::StrAppendFormat(&text, "  %-*s %10d %10d %10d %10d %12d %10.3f\n", width, entry.pass,
                          s.nodes_visited, s.nodes_matched, s.nodes_rewritten, s.nodes_removed,
                          s.initializers_removed, entry.seconds * 1e3);
  }
  return text;
}

std::string formatPassTimings(const PipelineReport& report) {
  const std::vector<PassTotals> totals = passTotals(report);
  double total_seconds = 0;
  for (const PassTotals& entry : totals) total_seconds += entry.seconds;
  std::string text = absl::StrFormat("Pass execution timing (%d round%s)\n", report.rounds,
                                     report.rounds == 1 ? "" : "s");
  absl::StrAppendFormat(&text, "  %12s %8s  %s\n", "wall-ms", "share", "pass");
  auto share = [total_seconds](double seconds) {
    return total_seconds > 0 ? 100 * seconds / total_seconds : 0.0;
  };
  for (const PassTotals& entry : totals) {
    absl::StrAppendFormat(&text, "  %12.3f %7.1f%%  %s\n", entry.seconds * 1e3,
                          share(entry.seconds), entry.pass);
  }
  absl::StrAppendFormat(&text, "  %12.3f %7.1f%%  total\n", total_seconds * 1e3,
                        total_seconds > 0 ? 100.0 : 0.0);
  return text;
}

PassManager::PassManager(PassManagerOptions options) : options_(std::move(options)) {}

void PassManager::addPass(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }

absl::Status PassManager::addPipeline(absl::string_view pipeline, const PassRegistry& registry) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> parsed = registry.parsePipeline(pipeline);
  if (!parsed.ok()) return parsed.status();
  for (std::unique_ptr<Pass>& pass : *parsed) passes_.push_back(std::move(pass));
  return absl::OkStatus();
}

std::string PassManager::pipelineText() const {
  return absl::StrJoin(passes_, ",", [](std::string* out, const std::unique_ptr<Pass>& pass) {
    out->append(pass->pipelineText());
  });
}

bool PassManager::shouldPrintAfter(const Pass& pass, bool changed) const {
  const IrPrintingOptions& printing = options_.print_ir;
  if (!printing.print) return false;
  const bool named = std::find(printing.after_passes.begin(), printing.after_passes.end(),
                               pass.name()) != printing.after_passes.end();
  const bool selected =
      printing.after_all || named || (printing.after_passes.empty() && printing.after_change);
  return selected && (changed || !printing.after_change);
}

namespace {

// The newest ONNX IR version whose rules the framework was checked against.
constexpr int64_t kNewestKnownIrVersion = 11;

// A warning, once, when the model is newer than every pass: patterns decline outside the opset
// range they declare, so most of the pipeline will do nothing.
std::vector<std::string> newerThanKnownWarnings(const ir::Model& model) {
  std::vector<std::string> warnings;
  const std::optional<int64_t> opset = model.opsetVersion("");
  if (opset && *opset > kNewestKnownOpset) {
    warnings.push_back(absl::StrCat("the model imports opset ", *opset,
                                    " of the ONNX domain, newer than any pass knows (",
                                    kNewestKnownOpset, "): passes decline its nodes"));
  }
  if (model.irVersion() > kNewestKnownIrVersion) {
    warnings.push_back(absl::StrCat("the model has IR version ", model.irVersion(),
                                    ", newer than onnx-opt knows (", kNewestKnownIrVersion, ")"));
  }
  return warnings;
}

// The subgraph outputs ONNX Runtime refuses, as (subgraph, output index) pairs; empty without
// subgraphs.
std::vector<std::pair<const ir::Graph*, size_t>> unrunnableOutputs(const ir::Model& model) {
  std::vector<std::pair<const ir::Graph*, size_t>> found;
  if (model.numGraphs() == 1) return found;
  for (const ir::SubgraphOutputProblem& problem : ir::findUnrunnableSubgraphOutputs(model)) {
    found.emplace_back(problem.subgraph, problem.output_index);
  }
  return found;
}

// An error naming the first subgraph output `pass` made unrunnable, if it made one.
absl::Status checkNoNewUnrunnableOutputs(
    const ir::Model& model, const Pass& pass,
    std::vector<std::pair<const ir::Graph*, size_t>>* known) {
  if (model.numGraphs() == 1) return absl::OkStatus();
  for (const ir::SubgraphOutputProblem& problem : ir::findUnrunnableSubgraphOutputs(model)) {
    const std::pair<const ir::Graph*, size_t> key(problem.subgraph, problem.output_index);
    if (std::find(known->begin(), known->end(), key) != known->end()) continue;
    return absl::InternalError(absl::StrCat("pass '", pass.name(), "' made ",
                                            ir::describe(problem),
                                            ", which ONNX Runtime refuses"));
  }
  *known = unrunnableOutputs(model);
  return absl::OkStatus();
}

void addWarningOnce(std::vector<std::string>* warnings, std::string warning) {
  if (std::find(warnings->begin(), warnings->end(), warning) == warnings->end()) {
    warnings->push_back(std::move(warning));
  }
}

}  // namespace

absl::StatusOr<PipelineReport> PassManager::run(ir::Model& model) {
  // Passes and the rewrite driver walk subgraphs recursively.
  if (absl::Status status = ir::checkGraphNesting(model.graph()); !status.ok()) return status;
  PipelineReport report;
  report.warnings = newerThanKnownWarnings(model);
  PipelineProgress progress;
  progress.passes = passes_.size();
  int64_t visited_before = 0;  // by the runs that have finished
  std::string running;         // progress.pass
  const int64_t max_rounds =
      options_.fixed_point ? std::max<int64_t>(options_.max_fixed_point_rounds, 1) : 1;
  AnalysisManager analyses(model);
  ChangeJournal journal(model);
  // Later rounds offer a pattern pass that reached its fixed point only the nodes touched since,
  // when the journal knows them: a round that confirms the fixed point then costs a walk over
  // the touched nodes instead of every pattern on every node.
  std::vector<std::optional<PassContext::FixedPoint>> fixed_points(passes_.size());
  // A pass is a function of the model: one that changed nothing need not run again until the
  // model changes (a confirming round then reruns only what ran before the last change).
  std::vector<std::optional<uint64_t>> unchanged_at(passes_.size());
  // Models may arrive with such outputs (legalize-subgraph-outputs repairs them); no pass may
  // add one.
  std::vector<std::pair<const ir::Graph*, size_t>> unrunnable = unrunnableOutputs(model);
  for (int64_t round = 1; round <= max_rounds; ++round) {
    report.rounds = round;
    analyses.beginRound();
    bool round_changed = false;
    for (size_t position = 0; position < passes_.size(); ++position) {
      Pass& pass = *passes_[position];
      if (unchanged_at[position] == model.modificationCount()) continue;
      PassContext context;
      context.setDebugSink(options_.debug_sink);
      context.setRequireConvergence(options_.require_convergence);
      context.setVerifyFixedPoint(options_.verify_fixed_point);
      context.setRevisitTouchedOnly(options_.revisit_touched_only);
      context.setSkipMalformedNodes(options_.skip_malformed_nodes);
      context.setShared(&analyses, &journal);
      context.setRevisitFrom(fixed_points[position]);
      if (options_.progress) {
        progress.round = round;
        progress.position = position;
        running = pass.pipelineText();
        progress.pass = running;
        progress.nodes_visited = visited_before;
        options_.progress(progress);
        context.setProgressSink([this, &progress, &context, visited_before] {
          progress.nodes_visited = visited_before + context.statistics().nodes_visited;
          options_.progress(progress);
        });
      }

      const auto start = std::chrono::steady_clock::now();
      absl::StatusOr<bool> changed = pass.run(model, context);
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      if (!changed.ok()) {
        return absl::Status(changed.status().code(),
                            absl::StrCat("pass '", pass.name(), "': ", changed.status().message()));
      }
      // A change no rewriter recorded may be anywhere: every pass revisits every node, and
      // analyses start over.
      if (journal.hasUnaccountedChanges(model)) {
        journal.recordUntracked(model);
        analyses.invalidateAll();
      }
      fixed_points[position] = context.fixedPoint();
      unchanged_at[position] =
          *changed ? std::nullopt : std::optional<uint64_t>(model.modificationCount());
      if (*changed) {
        if (absl::Status status = checkNoNewUnrunnableOutputs(model, pass, &unrunnable);
            !status.ok()) {
          return status;
        }
      }
      if (options_.verify_each) {
        if (absl::Status status = ir::verify(model); !status.ok()) {
          return absl::InternalError(absl::StrCat("the model is invalid after pass '", pass.name(),
                                                  "': ", status.message()));
        }
      }
      PassRun run;
      run.pass = pass.pipelineText();
      run.position = position;
      run.round = round;
      run.changed = *changed;
      run.statistics = context.statistics();
      visited_before += run.statistics.nodes_visited;
      run.seconds = elapsed.count();
      run.warnings = context.warnings();
      for (const std::string& warning : run.warnings) {
        addWarningOnce(&report.warnings, absl::StrCat(pass.name(), ": ", warning));
      }
      report.runs.push_back(std::move(run));
      if (shouldPrintAfter(pass, *changed)) options_.print_ir.print(pass, round, model);
      round_changed |= *changed;
    }
    report.changed |= round_changed;
    if (!round_changed) break;
    if (options_.fixed_point && round == max_rounds) {
      report.reached_fixed_point = false;
      const std::string message = absl::StrCat("the pipeline still changed the model after ",
                                               max_rounds, " rounds (--fixed-point cap)");
      if (options_.require_convergence) return absl::ResourceExhaustedError(message);
      report.warnings.push_back(message);
    }
  }
  // A rewrite can let ONNX Runtime's inference meet a stale declaration it loaded the model
  // with before (rewrite/declarations.h): whichever passes ran, a changed model keeps only the
  // declared sizes the facts prove.
  if (report.changed) {
    const int64_t corrected = legalizeDeclarations(
        model, [&]() -> ShapeOracle& { return analyses.shapes(); },
        [](const ir::Value&, absl::string_view, const ir::Type&, const ir::Type&) {},
        UnprovenSizes::kDrop);
    if (corrected > 0) {
      report.warnings.push_back(absl::StrCat(
          "corrected ", corrected, corrected == 1 ? " declaration" : " declarations",
          " that the types the graph computes contradict or do not prove"));
    }
  }
  // A changed model is verified once at the end, so that no caller saves one a pass broke.
  if (report.changed && !options_.verify_each) {
    if (absl::Status status = ir::verify(model); !status.ok()) {
      return absl::InternalError(
          absl::StrCat("the model is invalid after the pipeline: ", status.message()));
    }
  }
  if (options_.progress) {
    progress.position = passes_.size();
    progress.pass = {};
    progress.nodes_visited = visited_before;
    options_.progress(progress);
  }
  return report;
}

}  // namespace onnxopt
