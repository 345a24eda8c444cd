#include "onnxopt/rewrite/declarations.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"

namespace onnxopt {
namespace {

// `declared` without the sizes `fact` does not have too; nullopt when it keeps them all.
std::optional<ir::Type> withUnprovenSizesDropped(const ir::Type& declared, const ir::Type& fact) {
  if (!declared.shape()) return std::nullopt;
  ir::Shape shape = *declared.shape();
  bool dropped = false;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].isKnown()) continue;
    const bool proven = fact.shape() && i < fact.shape()->size() && (*fact.shape())[i] == shape[i];
    if (proven) continue;
    shape[i] = ir::Dim::unknown();
    dropped = true;
  }
  if (!dropped) return std::nullopt;
  return ir::Type::tensor(declared.elemType(), std::move(shape));
}

bool isLoopOrScanBody(const ir::Graph& body) {
  const ir::Node& owner = *body.parentNode();
  return owner.op().domain().empty() && (owner.opType() == "Loop" || owner.opType() == "Scan");
}

// Corrects the declarations of `body`'s inputs and outputs; counts in `contradicted` those the
// facts contradict. Returns how many it changed.
int64_t legalizeBodyInterface(ir::Graph& body, ShapeOracle& shapes, DeclarationCorrected corrected,
                              int64_t* contradicted) {
  int64_t changes = 0;
  const bool loop_or_scan = isLoopOrScanBody(body);
  for (ir::Value* input : body.inputs()) {
    if (input->inputInfo() == nullptr || input->isInitializer()) continue;
    const ir::Type declared = ir::Type::fromProto(input->inputInfo()->type());
    const ir::Type& fact = shapes.inferredTypeOf(*input);
    std::optional<ir::Type> type = correctedDeclaration(declared, fact);
    if (type) ++*contradicted;
    // A size the Loop's or Scan's operands do not prove may be as stale.
    if (!type && loop_or_scan) type = withUnprovenSizesDropped(declared, fact);
    if (!type) continue;
    body.setInputType(input, *type);
    ++changes;
    corrected(*input, "a body's input", declared, *type);
  }
  for (size_t i = 0; i < body.outputs().size(); ++i) {
    if (body.outputs()[i] == nullptr) continue;
    const ir::Type declared = body.outputType(i);
    std::optional<ir::Type> type =
        correctedDeclaration(declared, shapes.inferredTypeOf(*body.outputs()[i]));
    if (!type) continue;
    body.setOutputType(i, *type);
    ++changes;
    ++*contradicted;
    corrected(*body.outputs()[i], "a body's output", declared, *type);
  }
  return changes;
}

// Corrects the value_info of `graph`'s node outputs that the facts contradict, or, with
// `drop_unproven`, also drops the sizes they do not prove. Returns how many it changed.
int64_t legalizeValueInfo(ir::Graph& graph, ShapeOracle& shapes, DeclarationCorrected corrected,
                          bool drop_unproven) {
  int64_t changes = 0;
  for (ir::Node& node : graph) {
    for (ir::Value* output : node.outputs()) {
      if (output == nullptr || output->valueInfo() == nullptr || output->isGraphOutput()) continue;
      const ir::Type declared = output->type();
      const ir::Type& fact = shapes.inferredTypeOf(*output);
      std::optional<ir::Type> type = correctedDeclaration(declared, fact);
      if (!type && drop_unproven) type = withUnprovenSizesDropped(declared, fact);
      if (!type) continue;
      output->setType(*type);
      ++changes;
      corrected(*output, absl::StrCat("output of ", ir::describe(node)), declared, *type);
    }
  }
  return changes;
}

}  // namespace

int64_t legalizeDeclarations(ir::Model& model, absl::FunctionRef<ShapeOracle&()> shapes,
                             DeclarationCorrected corrected) {
  int64_t changes = 0, contradicted = 0;
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    if (graph.parentNode() != nullptr) {
      changes += legalizeBodyInterface(graph, shapes(), corrected, &contradicted);
    }
    if (graph.mayHaveValueInfo()) {
      const int64_t fixed = legalizeValueInfo(graph, shapes(), corrected, /*drop_unproven=*/false);
      changes += fixed;
      contradicted += fixed;
    }
  });
  if (contradicted == 0) return changes;
  // An edit left declarations stale: others may be, where the facts do not reach, and ONNX
  // Runtime, believing one, would check a corrected neighbour against it (a Sub of a corrected
  // [N,3] and a stale [1,2]). Their sizes the facts do not prove go.
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
    if (graph.mayHaveValueInfo()) {
      changes += legalizeValueInfo(graph, shapes(), corrected, /*drop_unproven=*/true);
    }
  });
  return changes;
}

}  // namespace onnxopt
