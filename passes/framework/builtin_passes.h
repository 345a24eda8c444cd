#pragma once

// The factories that passes/passes.def names, one per built-in pass.

#include <memory>

#include "onnxopt/pass/pass.h"

namespace onnxopt {

#define ONNXOPT_PASS(name, factory, summary) std::unique_ptr<Pass> factory();
#include "../passes.def"

}  // namespace onnxopt
