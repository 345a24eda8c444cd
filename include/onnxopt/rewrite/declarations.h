#pragma once

// Declared types (value_info, a body's inputs and outputs) kept true to what the graph computes.
//
// ONNX Runtime believes a declaration where its own inference knows less, and inside a body it
// refuses a declaration its inference contradicts. A model whose declarations an edit left stale
// may load only because the inference knows just as little there: a rewrite that lets it know
// more (a fold inside a body: "Can't merge shape info"), or less (a Reshape removed before an
// Unsqueeze, whose stale declared dim a Squeeze then checks), makes it refuse the model. Any pass
// can do that, so the pass manager applies this after a pipeline that changed a model, and
// legalize-value-info at the start of -O1.

#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt {

// Called for each declaration changed: the value, what it is ("a body's input", "output of
// node 'n' (Relu)"), its declared type before and after.
using DeclarationCorrected = absl::FunctionRef<void(const ir::Value&, absl::string_view,
                                                    const ir::Type&, const ir::Type&)>;

// Corrects every declaration of `model` that the facts (ShapeOracle::inferredTypeOf) contradict
// (correctedDeclaration: another element type or rank, or another size for a dim both know): the
// value_info of node outputs in every graph, and the inputs and outputs of every body. The sizes
// of a Loop's or Scan's body inputs that the facts do not prove are dropped too (those dims
// become unknown), and, once one declaration of the model is found contradicted, those of
// every declaration (the edit that left it stale may have left others where the facts do not
// reach). The main graph's inputs and outputs are the model's interface and stay.
// `shapes` is called only once a declaration is met. Returns how many declarations it changed.
ONNXOPT_API int64_t legalizeDeclarations(ir::Model& model, absl::FunctionRef<ShapeOracle&()> shapes,
                                         DeclarationCorrected corrected);

}  // namespace onnxopt
