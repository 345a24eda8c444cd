// eliminate-initializer-inputs: a main-graph input that is also an initializer (the weights of an
// export with keep_initializers_as_inputs, every initializer of an IR-3 model) stops being an
// input, so that the initializer is a constant to every later pass and to ONNX Runtime, which
// neither folds nor fuses a weight a caller may feed. This changes the model's interface: callers
// that fed those inputs, or fed inputs by position, must change. No pipeline runs it.
//
// IR versions before 4 want every initializer to be a graph input: such a model is raised to IR
// version 4, which differs from 3 in that rule alone. Subgraph inputs are a body's parameters,
// not defaults, and are left alone, as are sparse initializers (no pass reads them as constants).
// See docs/passes/eliminate-initializer-inputs.md.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/pass/pass.h"

namespace onnxopt {
namespace {

class EliminateInitializerInputs final : public Pass {
 public:
  EliminateInitializerInputs() : Pass("eliminate-initializer-inputs") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    ir::Graph& graph = model.graph();
    std::vector<ir::Value*> defaults;
    for (ir::Value* input : graph.inputs()) {
      if (input->isInitializer()) defaults.push_back(input);
    }
    if (defaults.empty()) return false;
    if (context.debugEnabled()) {
      for (const ir::Value* input : defaults) {
        context.debug(absl::StrCat("initializer '", input->name(), "' is no longer an input"));
      }
    }
    graph.removeInputs(defaults);
    if (model.irVersion() < 4) {
      context.warn(absl::StrCat("raised the IR version from ", model.irVersion(),
                                " to 4, which lets initializers not be graph inputs"));
      model.mutableProto().set_ir_version(4);
    }
    const size_t count = defaults.size();
    context.statistics().nodes_rewritten += static_cast<int64_t>(count);
    context.warn(absl::StrCat("removed ", count, count == 1 ? " graph input" : " graph inputs",
                              " that initializers define: callers no longer feed them"));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createEliminateInitializerInputsPass() {
  return std::make_unique<EliminateInitializerInputs>();
}

}  // namespace onnxopt
