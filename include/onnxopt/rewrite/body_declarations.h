#pragma once

// The declared types of a body's inputs and outputs, kept true to what the graph computes.
//
// ONNX Runtime runs a model whose Loop body declares a carried value of another size than the
// value it carries, until a rewrite makes a size inside the body constant (an Expand's target,
// a Reshape's shape): its inference then meets the stale declaration and refuses the model. Any
// pass that folds can do that, so the pass manager applies this after a pipeline that changed a
// model, and legalize-value-info at the start of -O1.

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

// Called for each declaration changed: the value, what it is ("a body's input", "a body's
// output"), its declared type before and after.
using DeclarationCorrected = absl::FunctionRef<void(const ir::Value&, absl::string_view,
                                                    const ir::Type&, const ir::Type&)>;

// Corrects `body`'s input and output declarations that the facts (ShapeOracle::inferredTypeOf)
// contradict, and drops the sizes of a Loop's or Scan's body inputs that the facts do not prove
// (those dims become unknown). `body` must be a subgraph. Returns how many it changed.
ONNXOPT_API int64_t legalizeBodyDeclarations(ir::Graph& body, ShapeOracle& shapes,
                                             DeclarationCorrected corrected);

// The same for every body of `model`, nested ones included.
ONNXOPT_API int64_t legalizeAllBodyDeclarations(ir::Model& model, ShapeOracle& shapes,
                                                DeclarationCorrected corrected);

}  // namespace onnxopt
