// legalize-subgraph-outputs: gives each If/Loop/Scan body output that is an outer-scope value, or
// the body's own input, an Identity node in the body, whose output takes its place. ONNX allows
// such outputs, and torch's scripted-If exports write them (so can an Identity elimination), but
// ONNX Runtime refuses the first kind ("Subgraph output ... is an outer scope value") and
// mishandles the second (a Scan state passed through comes out zeroed).
//
// The output's declaration (name aside, its type) belongs to the output slot, not to the value,
// so setOutput keeps it. One walk finds the outputs and each repair is O(1): linear in the model.

#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/pass.h"

namespace onnxopt {
namespace {

class LegalizeSubgraphOutputs final : public Pass {
 public:
  LegalizeSubgraphOutputs() : Pass("legalize-subgraph-outputs") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    const std::vector<ir::SubgraphOutputProblem> problems =
        ir::findUnrunnableSubgraphOutputs(model);
    for (const ir::SubgraphOutputProblem& problem : problems) {
      if (context.debugEnabled()) context.debug(absl::StrCat("repairing ", ir::describe(problem)));
      ir::Graph& body = *problem.subgraph;
      ir::Value* returned = body.outputs()[problem.output_index];
      // Appended: an outer value or a body input is defined before every node of the body.
      ir::Node* identity =
          body.createNode("Identity", {returned}, {model.valueNames().fresh(returned->name())});
      identity->setName(model.nodeNames().fresh(absl::StrCat(returned->name(), "_identity")));
      body.setOutput(problem.output_index, identity->output(0));
    }
    if (problems.empty()) return false;
    const size_t count = problems.size();
    context.statistics().nodes_rewritten += static_cast<int64_t>(count);
    context.warn(absl::StrCat("inserted ", count, count == 1 ? " Identity node" : " Identity nodes",
                              ": If/Loop/Scan body outputs that were outer-scope values or the "
                              "body's own inputs, which ONNX Runtime refuses or mishandles"));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createLegalizeSubgraphOutputsPass() {
  return std::make_unique<LegalizeSubgraphOutputs>();
}

}  // namespace onnxopt
