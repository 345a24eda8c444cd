#pragma once

// The case table of the kernel-vs-ONNX-Runtime test (see kernel_cases_main.cc and docs/evaluator.md).
// Each cases_*.cc file registers a function that appends its kernels' cases; a case is one node
// with its input values. The generator evaluates the node with eval::evaluate and writes a
// one-node model (inputs as graph inputs) with the expected outputs; check_kernels.mjs runs the
// model on ONNX Runtime and compares.

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"
#include "onnxopt/rewrite/tensor_util.h"

namespace onnxopt::kernel_cases {

enum class Match {
  kExact,  // bit for bit: integer, comparison, data-movement, Cast, IEEE-rounded float math
  kUlp4,   // floats within 4 ulp of each other: transcendental math
};

struct KernelCase {
  std::string name;  // unique; by convention "<Op>-<opset>.<type>.<variant>"
  std::string op_type;
  int64_t opset = 0;
  std::vector<std::optional<onnx::TensorProto>> inputs;  // nullopt: an omitted optional input
  std::vector<onnx::AttributeProto> attributes;
  int num_outputs = 1;
  Match match = Match::kExact;
};

using CaseList = std::vector<KernelCase>;
using AddCasesFn = void (*)(CaseList&);

// Registers a case family at static initialization: `static CaseFamily family("movement", addMovementCases);`.
struct CaseFamily {
  CaseFamily(const char* name, AddCasesFn add);
};

// Element types, as ONNX's TensorProto.DataType.
extern const std::vector<int32_t> kFloatTypes;     // float, double, float16, bfloat16
extern const std::vector<int32_t> kIntegerTypes;   // int8..int64, uint8..uint64
extern const std::vector<int32_t> kNumericTypes;   // both of the above
extern const std::vector<int32_t> kAllFixedTypes;  // numeric and bool
extern const std::vector<int32_t> kAllTypes;       // numeric, bool and string
std::string typeName(int32_t elem_type);           // "float", "int64", ... (ONNX's names)
std::string dimsName(const std::vector<int64_t>& dims);  // "2x3x4", "scalar"

// Random values of `elem_type`: floats uniform in [low, high) rounded to the type, integers
// uniform in [low, high] clamped to the type, bools fair coins, strings "s0".."s9".
struct Range {
  double low = -4;
  double high = 4;
};
onnx::TensorProto randomTensor(int32_t elem_type, const std::vector<int64_t>& dims, std::mt19937_64& rng,
                               Range range = {});
onnx::TensorProto int64Tensor(const std::vector<int64_t>& dims, const std::vector<int64_t>& values);
onnx::TensorProto int32Tensor(const std::vector<int64_t>& dims, const std::vector<int32_t>& values);
// A 1-D int64 tensor of `values`.
onnx::TensorProto int64s(const std::vector<int64_t>& values);

onnx::AttributeProto attrInt(const std::string& name, int64_t value);
onnx::AttributeProto attrInts(const std::string& name, const std::vector<int64_t>& values);
onnx::AttributeProto attrFloat(const std::string& name, float value);
onnx::AttributeProto attrTensor(const std::string& name, const onnx::TensorProto& value);

// The case tables' shared builders.

// A tensor of `values` converted to `type` (exactly, for the values used here).
inline onnx::TensorProto valuesTensor(int32_t type, const std::vector<int64_t>& dims,
                                     const std::vector<double>& values) {
  using onnx::TensorProto;
  std::string raw;
  auto append = [&raw](auto value) {
    raw.append(reinterpret_cast<const char*>(&value), sizeof(value));
  };
  for (const double v : values) {
    switch (type) {
      case TensorProto::FLOAT: append(static_cast<float>(v)); break;
      case TensorProto::DOUBLE: append(v); break;
      case TensorProto::FLOAT16: append(floatToHalf(static_cast<float>(v))); break;
      case TensorProto::BFLOAT16: append(floatToBfloat16(static_cast<float>(v))); break;
      case TensorProto::INT8: append(static_cast<int8_t>(v)); break;
      case TensorProto::INT16: append(static_cast<int16_t>(v)); break;
      case TensorProto::INT32: append(static_cast<int32_t>(v)); break;
      case TensorProto::INT64: append(static_cast<int64_t>(v)); break;
      case TensorProto::UINT8: append(static_cast<uint8_t>(v)); break;
      case TensorProto::UINT16: append(static_cast<uint16_t>(v)); break;
      case TensorProto::UINT32: append(static_cast<uint32_t>(v)); break;
      case TensorProto::UINT64: append(static_cast<uint64_t>(v)); break;
      case TensorProto::BOOL: append(static_cast<uint8_t>(v != 0)); break;
      default: break;
    }
  }
  return makeTensor(type, dims, std::move(raw));
}

// Small integers (so that comparisons see equal elements), non-negative for unsigned types.
}  // namespace onnxopt::kernel_cases
