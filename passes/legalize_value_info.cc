// legalize-value-info: a declaration (value_info) of an intermediate value that contradicts what
// the graph computes from its inputs is corrected. See docs/passes/legalize-value-info.md.
//
// ONNX Runtime runs a model whose value_info an edit of the graph left stale, after warning that
// it does not merge, but it plans its buffers from the shapes it believes: once a rewrite changes
// which buffers may be shared, a stale size can make it fail at run time ("Shape mismatch
// attempting to re-use buffer"). A contradiction is what ONNX Runtime's merge calls one: another
// element type or rank, or another size for a dim whose size both know. The facts come from the
// graph's inputs, initializers and constants alone (ShapeOracle::inferredTypeOf), never from
// another declaration. The main graph's inputs and outputs are the model's interface and stay
// as declared; a body's are corrected too (a Loop's carried value declared with another size
// than its initial value's: ONNX Runtime runs that, until a fold lets its inference see the
// contradiction inside the body and refuse the model).

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/pass/analysis.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

// `declared` without the sizes `fact` does not have too (those dims become unknown); nullopt
// when it keeps them all.
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

class LegalizeValueInfo final : public Pass {
 public:
  LegalizeValueInfo() : Pass("legalize-value-info") {}

  absl::StatusOr<bool> run(ir::Model& model, PassContext& context) override {
    // The shapes are asked for only once a declaration is met: most models declare none.
    std::unique_ptr<AnalysisManager> own;
    auto shapes = [&]() -> ShapeOracle& {
      if (context.analyses() != nullptr) return context.analyses()->shapes();
      if (!own) own = std::make_unique<AnalysisManager>(model);
      return own->shapes();
    };
    int64_t corrections = 0;
    auto report = [&](const ir::Value& value, absl::string_view what, const ir::Type& declared,
                      const ir::Type& type) {
      ++corrections;
      if (!context.debugEnabled()) return;
      context.debug(absl::StrCat("'", value.name(), "' (", what, ") was declared ",
                                 shapeText(declared.shape()), " of element type ",
                                 declared.elemType(), ", now ", shapeText(type.shape()), " of ",
                                 type.elemType()));
    };
    ir::forEachGraph(model.graph(), [&](ir::Graph& graph) {
      if (graph.parentNode() != nullptr) {
        const bool loop_or_scan = graph.parentNode()->op().domain().empty() &&
                                  (graph.parentNode()->opType() == "Loop" ||
                                   graph.parentNode()->opType() == "Scan");
        for (ir::Value* input : graph.inputs()) {
          if (input->inputInfo() == nullptr || input->isInitializer()) continue;
          const ir::Type declared = ir::Type::fromProto(input->inputInfo()->type());
          const ir::Type& fact = shapes().inferredTypeOf(*input);
          std::optional<ir::Type> type = correctedDeclaration(declared, fact);
          // A size the Loop's or Scan's operands do not prove may be as stale, and a fold that
          // makes a size it meets constant would let ONNX Runtime refuse the model: it goes.
          if (!type && loop_or_scan) type = withUnprovenSizesDropped(declared, fact);
          if (type) {
            graph.setInputType(input, *type);
            report(*input, "a body's input", declared, *type);
          }
        }
        for (size_t i = 0; i < graph.outputs().size(); ++i) {
          if (graph.outputs()[i] == nullptr) continue;
          const ir::Type declared = graph.outputType(i);
          if (std::optional<ir::Type> type =
                  correctedDeclaration(declared, shapes().inferredTypeOf(*graph.outputs()[i]))) {
            graph.setOutputType(i, *type);
            report(*graph.outputs()[i], "a body's output", declared, *type);
          }
        }
      }
      if (!graph.mayHaveValueInfo()) return;
      for (ir::Node& node : graph) {
        for (ir::Value* output : node.outputs()) {
          if (output == nullptr || output->valueInfo() == nullptr || output->isGraphOutput()) continue;
          const ir::Type declared = output->type();
          std::optional<ir::Type> type = correctedDeclaration(declared, shapes().inferredTypeOf(*output));
          if (!type) continue;
          output->setType(*type);
          report(*output, absl::StrCat("output of ", ir::describe(node)), declared, *type);
        }
      }
    });
    if (corrections == 0) return false;
    context.statistics().nodes_rewritten += corrections;
    context.warn(absl::StrCat("corrected ", corrections,
                              corrections == 1 ? " declaration" : " declarations",
                              " that contradicted what the graph computes"));
    return true;
  }
};

}  // namespace

std::unique_ptr<Pass> createLegalizeValueInfoPass() { return std::make_unique<LegalizeValueInfo>(); }

}  // namespace onnxopt
