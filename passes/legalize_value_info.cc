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
// contradiction inside the body and refuse the model). Once one declaration is contradicted,
// the sizes the facts do not prove go everywhere (rewrite/declarations.h).

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "onnxopt/pass/analysis.h"
#include "onnxopt/pass/pass.h"
#include "onnxopt/rewrite/declarations.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {
namespace {

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
    legalizeDeclarations(model, shapes, report, UnprovenSizes::kDropWhereStale);
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
