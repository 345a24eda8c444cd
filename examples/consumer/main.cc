// optimize-with-plugin: registers an out-of-tree pass with onnx-opt and runs it, with built-in
// passes, on a model.
//
//   optimize-with-plugin IN OUT [PIPELINE]
//
// IN is a model file (.onnx), or a model in ONNX's text syntax (.onnxtxt). OUT is written in the
// binary format. PIPELINE defaults to "example-eliminate-identity,eliminate-dead-nodes"; it may name any
// registered pass, or be a named pipeline such as -O1. Prints the pipeline, the per-pass
// statistics and the node counts.

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "absl/strings/match.h"
#include "onnxopt/onnxopt.h"

namespace {

// ---- The out-of-tree pass: a PatternPass with one RewritePattern ----

// Before: B = Identity(A); C = Op(B)      After: C = Op(A)
// An Identity whose output is a graph output goes only when its input can take the output's
// name (PatternRewriter::canReplaceAllUsesWith): the model's interface never changes.
class ForwardIdentityInput final : public onnxopt::RewritePattern {
 public:
  ForwardIdentityInput() : RewritePattern("forward-identity-input", {"Identity"}) {}

  onnxopt::LogicalResult matchAndRewrite(const onnxopt::ir::Node& identity,
                                         onnxopt::PatternRewriter& rewriter) const override {
    // Every check first ...
    onnxopt::ir::Value* input = identity.input(0);
    onnxopt::ir::Value* output = identity.output(0);
    if (input == nullptr || output == nullptr) {
      return rewriter.notifyMatchFailure(identity, "Identity without its input or output");
    }
    if (!rewriter.canReplaceAllUsesWith(*output, *input)) {
      return rewriter.notifyMatchFailure(identity, "the output is a graph output that the input "
                                                   "cannot stand in for");
    }
    for (const onnxopt::ir::Use& use : output->uses()) {
      // A subgraph (If/Loop body) returns its own node outputs, not an outer value or its input.
      const onnxopt::ir::Graph* graph = use.isGraphOutput() ? use.graphOutputOf() : nullptr;
      if (graph != nullptr && graph->parentNode() != nullptr &&
          (input->graph() != graph || input->producer() == nullptr || input->isGraphOutput())) {
        return rewriter.notifyMatchFailure(identity, "the output is a subgraph output");
      }
    }
    if (onnxopt::failed(rewriter.match(identity))) return onnxopt::failure();
    // ... then the rewrite, through the rewriter only. The driver erases the dead Identity.
    rewriter.replaceAllUsesWith(*output, *input);
    return onnxopt::success();
  }
};

class EliminateIdentityPass final : public onnxopt::PatternPass {
 public:
  EliminateIdentityPass() : PatternPass("example-eliminate-identity") {}

 private:
  void populatePatterns(onnxopt::RewritePatternSet& patterns) const override {
    patterns.add<ForwardIdentityInput>();
  }
};

// ---- Reading the input ----

absl::Status readModel(const std::string& path, onnx::ModelProto* model) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(path + ": cannot open");
  if (absl::EndsWith(path, ".onnxtxt")) {
    std::stringstream text;
    text << in.rdbuf();
    absl::StatusOr<onnx::ModelProto> parsed = onnxopt::ir::parseModelText(text.str());
    if (!parsed.ok()) {
      return absl::InvalidArgumentError(path + ": " + std::string(parsed.status().message()));
    }
    *model = *std::move(parsed);
    return absl::OkStatus();
  }
  if (!model->ParseFromIstream(&in)) return absl::InvalidArgumentError(path + ": not a model");
  return absl::OkStatus();
}

int fail(const absl::Status& status) {
  std::cerr << "optimize-with-plugin: " << status.message() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4) {
    std::cerr << "usage: optimize-with-plugin IN.onnx|IN.onnxtxt OUT.onnx [PIPELINE]\n";
    return 2;
  }
  const std::string input = argv[1];
  const std::string output = argv[2];
  const std::string pipeline = argc == 4 ? argv[3] : "example-eliminate-identity,eliminate-dead-nodes";

  // Register the pass once, before any pipeline names it.
  absl::Status registered = onnxopt::PassRegistry::global().registerPass(
      {"example-eliminate-identity", "Forward the input of Identity nodes to their users",
       [] { return std::make_unique<EliminateIdentityPass>(); }});
  if (!registered.ok()) return fail(registered);

  onnxopt::PipelineReport report;
  onnxopt::OptimizeOptions options;
  options.verify_each = true;
  options.report = &report;

  // The pipeline as the pass manager will run it (named pipelines expanded, options shown).
  absl::StatusOr<onnxopt::PassManager> manager = onnxopt::makePassManager(pipeline, options);
  if (!manager.ok()) return fail(manager.status());
  std::cout << "pipeline: " << manager->pipelineText() << "\n";

  int nodes_before = -1;
  int nodes_after = -1;
  if (absl::EndsWith(input, ".onnxtxt")) {
    // The in-place call on a ModelProto.
    onnx::ModelProto model;
    if (absl::Status status = readModel(input, &model); !status.ok()) return fail(status);
    nodes_before = model.graph().node_size();
    if (absl::Status status = onnxopt::optimize(model, pipeline, options); !status.ok()) {
      return fail(status);
    }
    nodes_after = model.graph().node_size();
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    if (!out || !model.SerializeToOstream(&out)) {
      return fail(absl::UnavailableError(output + ": cannot write"));
    }
  } else {
    // File to file: external data handled, the output written atomically.
    onnx::ModelProto model;
    if (absl::Status status = readModel(input, &model); !status.ok()) return fail(status);
    nodes_before = model.graph().node_size();
    if (absl::Status status = onnxopt::optimizeFile(input, output, pipeline, options);
        !status.ok()) {
      return fail(status);
    }
    if (absl::Status status = readModel(output, &model); !status.ok()) return fail(status);
    nodes_after = model.graph().node_size();
  }

  std::cout << onnxopt::formatPassStatistics(report);
  for (const std::string& warning : report.warnings) std::cout << "warning: " << warning << "\n";
  std::cout << "nodes: " << nodes_before << " -> " << nodes_after << "\n";
  return 0;
}
