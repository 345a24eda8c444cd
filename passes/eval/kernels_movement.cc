#include "kernel.h"

namespace onnxopt::eval {

absl::Span<const KernelEntry> movementKernels() { return {}; }

}  // namespace onnxopt::eval
