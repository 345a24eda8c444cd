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

// One walk over the model's declarations.
class Legalizer {
 public:
  Legalizer(absl::FunctionRef<ShapeOracle&()> shapes, DeclarationCorrected corrected,
            bool drop_unproven)
      : shapes_(shapes), corrected_(corrected), drop_unproven_(drop_unproven) {}

  void legalize(ir::Graph& graph) {
    if (graph.parentNode() != nullptr) legalizeInterface(graph);
    if (!graph.mayHaveValueInfo()) return;
    for (ir::Node& node : graph) {
      for (ir::Value* output : node.outputs()) {
        if (output == nullptr || output->valueInfo() == nullptr || output->isGraphOutput()) continue;
        const ir::Type declared = output->type();
        if (std::optional<ir::Type> type = legal(declared, *output, drop_unproven_)) {
          output->setType(*type);
          record(*output, absl::StrCat("output of ", ir::describe(node)), declared, *type);
        }
      }
    }
  }

  int64_t changes() const { return changes_; }
  int64_t contradicted() const { return contradicted_; }

 private:
  // A body's inputs and outputs. A size a Loop's or Scan's operands do not prove may be as stale
  // as a contradicted one: it goes in any case.
  void legalizeInterface(ir::Graph& body) {
    const bool loop_or_scan = isLoopOrScanBody(body);
    for (ir::Value* input : body.inputs()) {
      if (input->inputInfo() == nullptr || input->isInitializer()) continue;
      const ir::Type declared = ir::Type::fromProto(input->inputInfo()->type());
      if (std::optional<ir::Type> type = legal(declared, *input, drop_unproven_ || loop_or_scan)) {
        body.setInputType(input, *type);
        record(*input, "a body's input", declared, *type);
      }
    }
    for (size_t i = 0; i < body.outputs().size(); ++i) {
      if (body.outputs()[i] == nullptr) continue;
      const ir::Type declared = body.outputType(i);
      if (std::optional<ir::Type> type = legal(declared, *body.outputs()[i], drop_unproven_)) {
        body.setOutputType(i, *type);
        record(*body.outputs()[i], "a body's output", declared, *type);
      }
    }
  }

  // `declared` as it should be for `value`; nullopt when it stays. An Einsum's output keeps
  // what nothing contradicts: ONNX Runtime's inference takes a label's size from the first
  // operand where its kernel broadcasts a 1, so without the declaration it would allocate the
  // wrong size inside a body.
  std::optional<ir::Type> legal(const ir::Type& declared, const ir::Value& value, bool drop) {
    const ir::Type& fact = shapes_().inferredTypeOf(value);
    if (std::optional<ir::Type> type = correctedDeclaration(declared, fact)) {
      ++contradicted_;
      return type;
    }
    const bool einsum = value.producer() != nullptr && value.producer()->is("Einsum");
    return drop && !einsum ? withUnprovenSizesDropped(declared, fact) : std::nullopt;
  }

  void record(const ir::Value& value, absl::string_view what, const ir::Type& declared,
              const ir::Type& type) {
    ++changes_;
    corrected_(value, what, declared, type);
  }

  absl::FunctionRef<ShapeOracle&()> shapes_;
  DeclarationCorrected corrected_;
  const bool drop_unproven_;
  int64_t changes_ = 0;
  int64_t contradicted_ = 0;
};

}  // namespace

int64_t legalizeDeclarations(ir::Model& model, absl::FunctionRef<ShapeOracle&()> shapes,
                             DeclarationCorrected corrected, UnprovenSizes unproven_sizes) {
  Legalizer contradictions(shapes, corrected,
                           /*drop_unproven=*/unproven_sizes == UnprovenSizes::kDrop);
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) { contradictions.legalize(graph); });
  if (contradictions.contradicted() == 0 || unproven_sizes == UnprovenSizes::kDrop) {
    return contradictions.changes();
  }
  // An edit left declarations stale: others may be, where the facts do not reach, and ONNX
  // Runtime, believing one, would check a corrected neighbour against it (a Sub of a corrected
  // [N,3] and a stale [1,2], an If whose branches now disagree). Their sizes the facts do not
  // prove go.
  Legalizer unproven(shapes, corrected, /*drop_unproven=*/true);
  ir::forEachGraph(model.graph(), [&](ir::Graph& graph) { unproven.legalize(graph); });
  return contradictions.changes() + unproven.changes();
}

}  // namespace onnxopt
