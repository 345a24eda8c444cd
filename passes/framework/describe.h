#pragma once

#include "onnxopt/ir/describe.h"

namespace onnxopt::detail {

using ir::describe;

}  // namespace onnxopt::detail
