#pragma once

// fold-shapes' patterns (Shape and Size of known dims, Gather and Slice of the known part of a
// shape; defined in fold_shapes.cc), which fold-constants runs too: a Reshape whose shape it
// folds has known dims, so a Shape read below folds in the same run, and its readers after it.
// Apart, the two passes would take a round of the pipeline per such step.

namespace onnxopt {

class RewritePatternSet;

void addShapeFoldingPatterns(RewritePatternSet& patterns);

}  // namespace onnxopt
