// Kernel-vs-ONNX-Runtime cases of the elementwise kernels (passes/eval/kernels_elementwise.cc):
// every element type each operator version admits, each version whose semantics differ, and
// broadcasting shapes. Values stay where the kernels compute (nonzero integer divisors,
// Sigmoid from -1, ...); what the kernels decline is the unit tests' (elementwise_test.cc).

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "onnxopt/rewrite/tensor_util.h"
#include "kernel_cases.h"

namespace onnxopt::kernel_cases {
namespace {

using onnx::TensorProto;
using Dims = std::vector<int64_t>;
using Inputs = std::vector<std::optional<TensorProto>>;
using Types = std::vector<int32_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::mt19937_64& rng() {
  static std::mt19937_64 generator(20261202);
  return generator;
}

TensorProto random(int32_t type, const Dims& dims, Range range = {}) {
  return randomTensor(type, dims, rng(), range);
}

bool isFloat(int32_t type) {
  return type == TensorProto::FLOAT || type == TensorProto::DOUBLE ||
         type == TensorProto::FLOAT16 || type == TensorProto::BFLOAT16;
}

bool isSigned(int32_t type) {
  return type == TensorProto::INT8 || type == TensorProto::INT16 || type == TensorProto::INT32 ||
         type == TensorProto::INT64;
}

TensorProto smallInts(int32_t type, const Dims& dims) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  const bool with_negatives = isFloat(type) || isSigned(type);
  std::uniform_int_distribution<int> pick(with_negatives ? -3 : 0, with_negatives ? 3 : 6);
  std::vector<double> values;
  for (int64_t k = 0; k < count; ++k) values.push_back(pick(rng()));
  return valuesTensor(type, dims, values);
}

void add(CaseList& cases, const std::string& op, int64_t opset, const std::string& variant,
         Inputs inputs, std::vector<onnx::AttributeProto> attributes = {},
         Match match = Match::kExact) {
  KernelCase c;
  c.name = absl::StrCat(op, "-", opset, ".", variant);
  c.op_type = op;
  c.opset = opset;
  c.inputs = std::move(inputs);
  c.attributes = std::move(attributes);
  c.match = match;
  cases.push_back(std::move(c));
}

// float16 math folds bit for bit: ONNX Runtime rounds its float result, and the kernels decline
// where that float's few ulps of error could change the rounding.
Match halfMatch(int32_t type, Match otherwise) {
  return type == TensorProto::FLOAT16 ? Match::kExact : otherwise;
}

const Types kHalfFloats = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16};
const Types kFloatsWithBf16 = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                               TensorProto::BFLOAT16};

Types withBf16(Types types) {
  types.push_back(TensorProto::BFLOAT16);
  return types;
}

// The numeric types before bfloat16 came (opset 13, 16 for the *OrEqual comparisons).
Types withoutBf16() {
  Types types;
  for (const int32_t type : kNumericTypes) {
    if (type != TensorProto::BFLOAT16) types.push_back(type);
  }
  return types;
}

// Add, Sub, Mul, Div: types at 7, 13 (bfloat16), 14 (8- and 16-bit integers).
void arithmeticCases(CaseList& cases) {
  const Types v7 = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                    TensorProto::INT32, TensorProto::INT64,  TensorProto::UINT32,
                    TensorProto::UINT64};
  const Types v14 = kNumericTypes;
  const struct {
    int64_t opset;
    Types types;
  } versions[] = {{7, v7}, {13, withBf16(v7)}, {14, v14}};
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    const bool div = std::string(op) == "Div";
    for (const auto& version : versions) {
      for (const int32_t type : version.types) {
        if (version.opset != 14 && !isFloat(type) && type != TensorProto::INT32 &&
            type != TensorProto::INT64 && type != TensorProto::UINT32 &&
            type != TensorProto::UINT64) {
          continue;
        }
        // Integer division by nonzero divisors; other integer ops over the whole range (they wrap).
        const Range dividend = div && !isFloat(type) ? Range{-1e6, 1e6} : Range{-1e30, 1e30};
        const Range a_range = isFloat(type) ? Range{-100, 100} : dividend;
        const Range b_range = isFloat(type) ? Range{-100, 100}
                              : div         ? Range{1, 1000}
                                            : Range{-1e30, 1e30};
        add(cases, op, version.opset, absl::StrCat(typeName(type), ".2x3x4+3x1"),
            {random(type, {2, 3, 4}, a_range), random(type, {3, 1}, b_range)});
        if (version.opset == 14) {
          add(cases, op, 14, absl::StrCat(typeName(type), ".scalar+2x5"),
              {random(type, {}, a_range), random(type, {2, 5}, b_range)});
        }
      }
    }
    add(cases, op, 14, "int32.negative_divisors",
        {random(TensorProto::INT32, {12}, {-1e6, 1e6}),
         random(TensorProto::INT32, {12}, div ? Range{-50, -1} : Range{-50, 50})});
    add(cases, op, 14, "float.special",
        {valuesTensor(TensorProto::FLOAT, {8}, {kInf, -kInf, kNaN, 0, -0.0, 1e38, -1e-45, 3}),
         valuesTensor(TensorProto::FLOAT, {8}, {kInf, 2, 1, -0.0, 0, 1e38, 0, -0.0})});
  }
  add(cases, "Add", 6, "float.broadcast_axis",
      {random(TensorProto::FLOAT, {2, 3, 4}), random(TensorProto::FLOAT, {3})},
      {attrInt("broadcast", 1), attrInt("axis", 1)});
}

void modCases(CaseList& cases) {
  for (const int64_t opset : {10, 13}) {
    for (const int32_t type : kIntegerTypes) {
      for (const int64_t fmod : {0, 1}) {
        add(cases, "Mod", opset, absl::StrCat(typeName(type), ".fmod", fmod),
            {random(type, {3, 4}, {-1000, 1000}), random(type, {4}, {1, 60})},
            {attrInt("fmod", fmod)});
        if (isSigned(type)) {
          add(cases, "Mod", opset, absl::StrCat(typeName(type), ".fmod", fmod, ".negative_divisor"),
              {random(type, {3, 4}, {-1000, 1000}), random(type, {4}, {-60, -1})},
              {attrInt("fmod", fmod)});
        }
      }
    }
    for (const int32_t type : opset >= 13 ? kFloatsWithBf16 : kHalfFloats) {
      add(cases, "Mod", opset, absl::StrCat(typeName(type), ".fmod1"),
          {random(type, {3, 4}, {-100, 100}), random(type, {4}, {-10, 10})}, {attrInt("fmod", 1)});
    }
  }
}

void powCases(CaseList& cases) {
  for (const int32_t type : kHalfFloats) {
    add(cases, "Pow", 7, typeName(type),
        {random(type, {3, 4}, {0.1, 4}), random(type, {4}, {-2, 3})}, {},
        halfMatch(type, Match::kUlp4));
  }
  const Types exponents = {TensorProto::FLOAT,  TensorProto::DOUBLE, TensorProto::FLOAT16,
                           TensorProto::INT8,   TensorProto::INT16,  TensorProto::INT32,
                           TensorProto::INT64,  TensorProto::UINT8,  TensorProto::UINT16,
                           TensorProto::UINT32, TensorProto::UINT64};
  for (const int64_t opset : {12, 13, 15}) {
    Types bases = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                   TensorProto::INT32, TensorProto::INT64};
    if (opset >= 13) bases.push_back(TensorProto::BFLOAT16);
    const Types exponent_types = opset >= 15 ? withBf16(exponents) : exponents;
    for (const int32_t base : bases) {
      for (const int32_t exponent : exponent_types) {
        // Negative integer bases only with integer exponents (a fractional power of one is NaN).
        const Range base_range = isFloat(base)       ? Range{0.1, 4}
                                 : isFloat(exponent) ? Range{0, 6}
                                                     : Range{-6, 6};
        const Range exponent_range =
            isFloat(exponent) ? (isFloat(base) ? Range{-2, 3} : Range{0, 3}) : Range{0, 7};
        add(cases, "Pow", opset, absl::StrCat(typeName(base), "^", typeName(exponent)),
            {random(base, {2, 3}, base_range), random(exponent, {3}, exponent_range)}, {},
            halfMatch(base, Match::kUlp4));
      }
    }
  }
  // ORT squares and cubes with a scalar exponent by multiplying.
  for (const double exponent : {2.0, 3.0}) {
    add(cases, "Pow", 15, absl::StrCat("float.scalar_exponent", exponent),
        {random(TensorProto::FLOAT, {10}, {-5, 5}),
         valuesTensor(TensorProto::FLOAT, {}, {exponent})},
        {}, Match::kUlp4);
    add(cases, "Pow", 15, absl::StrCat("int64.scalar_exponent", exponent),
        {random(TensorProto::INT64, {10}, {-1000, 1000}),
         valuesTensor(TensorProto::INT64, {}, {exponent})});
  }
}

void minMaxCases(CaseList& cases) {
  for (const char* op : {"Min", "Max"}) {
    for (const int32_t type : kHalfFloats) {
      add(cases, op, 6, typeName(type),
          {random(type, {2, 3}), random(type, {2, 3}), random(type, {2, 3})});
      add(cases, op, 8, typeName(type),
          {random(type, {2, 3}), random(type, {3}), random(type, {2, 1})});
    }
    for (const int64_t opset : {12, 13}) {
      for (const int32_t type : opset >= 13 ? kNumericTypes : withoutBf16()) {
        add(cases, op, opset, typeName(type),
            {random(type, {2, 3}, {-1e30, 1e30}), random(type, {3}, {-1e30, 1e30})});
      }
    }
    add(cases, op, 13, "float.one_input", {random(TensorProto::FLOAT, {4})});
    add(cases, op, 13, "float.nan",
        {valuesTensor(TensorProto::FLOAT, {4}, {kNaN, 1, kNaN, -kInf}),
         valuesTensor(TensorProto::FLOAT, {4}, {1, kNaN, kNaN, 2})});
  }
}

void unaryCases(CaseList& cases) {
  struct Unary {
    const char* op;
    Range range;
    Match match;
    bool integers;  // from the version that admits them: Neg/Abs 6, Relu 14, Sign 9
  };
  const Unary unaries[] = {
      {"Neg", {-100, 100}, Match::kExact, true},   {"Abs", {-100, 100}, Match::kExact, true},
      {"Sqrt", {0, 100}, Match::kExact, false},    {"Reciprocal", {-10, 10}, Match::kExact, false},
      {"Floor", {-10, 10}, Match::kExact, false},  {"Ceil", {-10, 10}, Match::kExact, false},
      {"Relu", {-10, 10}, Match::kExact, true},    {"Exp", {-20, 20}, Match::kUlp4, false},
      {"Log", {0.001, 1000}, Match::kUlp4, false}, {"Sigmoid", {-1, 20}, Match::kUlp4, false},
      {"Tanh", {-1.9, 1.9}, Match::kUlp4, false},  {"Erf", {-4, 4}, Match::kUlp4, false},
      {"Sign", {-10, 10}, Match::kExact, true},
  };
  for (const Unary& u : unaries) {
    const std::string op = u.op;
    const bool from9 = op == "Erf" || op == "Sign";
    for (const int64_t opset : {from9 ? int64_t{9} : int64_t{6}, int64_t{13}}) {
      for (const int32_t type : opset >= 13 ? kFloatsWithBf16 : kHalfFloats) {
        add(cases, op, opset, typeName(type), {random(type, {3, 5}, u.range)}, {},
            halfMatch(type, u.match));
      }
    }
    if (!u.integers) continue;
    Types integers = {TensorProto::INT8, TensorProto::INT16, TensorProto::INT32,
                      TensorProto::INT64};
    if (op == "Abs" || op == "Sign") {
      for (const int32_t type :
           {TensorProto::UINT8, TensorProto::UINT16, TensorProto::UINT32, TensorProto::UINT64}) {
        integers.push_back(type);
      }
    }
    for (const int32_t type : integers) {
      add(cases, op, op == "Relu" ? 14 : 13, typeName(type), {random(type, {10}, {-1e30, 1e30})});
    }
  }
  add(cases, "Tanh", 13, "float.wide", {random(TensorProto::FLOAT, {40}, {-30, 30})}, {},
      Match::kUlp4);
  add(cases, "Sigmoid", 13, "float.wide", {random(TensorProto::FLOAT, {40}, {-1, 100})}, {},
      Match::kUlp4);
  add(cases, "Exp", 13, "double.wide", {random(TensorProto::DOUBLE, {40}, {-700, 700})}, {},
      Match::kUlp4);
  for (const int32_t type : kHalfFloats) {
    add(cases, "Round", 11, typeName(type),
        {valuesTensor(type, {10}, {0.5, 1.5, 2.5, -0.5, -2.5, 3.25, -3.75, 0, -0.0, 1e4})});
    add(cases, "Round", 11, absl::StrCat(typeName(type), ".random"),
        {random(type, {20}, {-100, 100})});
  }
  add(cases, "Round", 22, "bfloat16",
      {valuesTensor(TensorProto::BFLOAT16, {6}, {0.5, 1.5, 2.5, -0.5, -2.5, 3.25})});
  for (const char* op : {"Relu", "Sign", "Abs", "Neg", "Floor", "Ceil", "Sqrt", "Reciprocal"}) {
    add(cases, op, 13, "float.special",
        {valuesTensor(TensorProto::FLOAT, {7}, {kNaN, kInf, -kInf, 0, -0.0, 1e-40, -1e-40})});
  }
  for (const int64_t opset : {9, 13, 20}) {
    for (const int32_t type : opset >= 13 ? kFloatsWithBf16 : kHalfFloats) {
      add(cases, "IsNaN", opset, typeName(type),
          {valuesTensor(type, {5}, {kNaN, kInf, -kInf, 0, 1.5})});
    }
  }
}

void clipCases(CaseList& cases) {
  for (const int32_t type : kHalfFloats) {
    add(cases, "Clip", 6, typeName(type), {random(type, {12}, {-5, 5})},
        {attrFloat("min", -1.5), attrFloat("max", 2)});
    add(cases, "Clip", 6, absl::StrCat(typeName(type), ".defaults"), {random(type, {12}, {-5, 5})});
    add(cases, "Clip", 11, typeName(type),
        {random(type, {12}, {-5, 5}), valuesTensor(type, {}, {-1}), valuesTensor(type, {}, {2.5})});
  }
  for (const int64_t opset : {12, 13}) {
    for (const int32_t type : opset >= 13 ? kNumericTypes : withoutBf16()) {
      const bool unsigned_type = !isFloat(type) && !isSigned(type);
      add(cases, "Clip", opset, typeName(type),
          {random(type, {12}, {-100, 100}), valuesTensor(type, {}, {unsigned_type ? 10.0 : -10.0}),
           valuesTensor(type, {}, {50})});
      add(cases, "Clip", opset, absl::StrCat(typeName(type), ".max_only"),
          {random(type, {12}, {-100, 100}), std::nullopt, valuesTensor(type, {}, {20})});
    }
  }
  add(cases, "Clip", 13, "float.min_above_max",
      {random(TensorProto::FLOAT, {6}), valuesTensor(TensorProto::FLOAT, {}, {3}),
       valuesTensor(TensorProto::FLOAT, {}, {1})});
  add(cases, "Clip", 13, "float.special",
      {valuesTensor(TensorProto::FLOAT, {5}, {kNaN, -0.0, kInf, -kInf, 0}),
       valuesTensor(TensorProto::FLOAT, {}, {0}), valuesTensor(TensorProto::FLOAT, {}, {1})});
}

void comparisonCases(CaseList& cases) {
  const Types float_types = kHalfFloats;
  for (const char* op : {"Less", "Greater"}) {
    for (const int32_t type : float_types)
      add(cases, op, 7, typeName(type), {smallInts(type, {3, 4}), smallInts(type, {4})});
    for (const int64_t opset : {9, 13}) {
      for (const int32_t type : opset >= 13 ? kNumericTypes : withoutBf16()) {
        add(cases, op, opset, typeName(type), {smallInts(type, {3, 4}), smallInts(type, {4})});
      }
    }
  }
  for (const char* op : {"LessOrEqual", "GreaterOrEqual"}) {
    for (const int64_t opset : {12, 16}) {
      for (const int32_t type : opset >= 16 ? kNumericTypes : withoutBf16()) {
        add(cases, op, opset, typeName(type), {smallInts(type, {3, 4}), smallInts(type, {4})});
      }
    }
  }
  for (const int32_t type : {TensorProto::BOOL, TensorProto::INT32, TensorProto::INT64}) {
    add(cases, "Equal", 7, typeName(type), {smallInts(type, {3, 4}), smallInts(type, {4})});
  }
  for (const int64_t opset : {11, 13, 19}) {
    Types types = opset >= 13 ? kNumericTypes : withoutBf16();
    types.push_back(TensorProto::BOOL);
    for (const int32_t type : types) {
      add(cases, "Equal", opset, typeName(type), {smallInts(type, {3, 4}), smallInts(type, {4})});
    }
  }
  add(cases, "Equal", 19, "string",
      {random(TensorProto::STRING, {3, 4}), random(TensorProto::STRING, {4})});
  for (const char* op : {"Less", "Greater", "Equal", "LessOrEqual", "GreaterOrEqual"}) {
    add(cases, op, 16, "float.special",
        {valuesTensor(TensorProto::FLOAT, {6}, {kNaN, 1, kInf, -0.0, kNaN, -kInf}),
         valuesTensor(TensorProto::FLOAT, {6}, {1, kNaN, kInf, 0, kNaN, 0})});
  }
  for (const char* op : {"And", "Or"}) {
    add(cases, op, 7, "bool", {random(TensorProto::BOOL, {3, 4}), random(TensorProto::BOOL, {4})});
    add(cases, op, 7, "bool.2x1+1x3",
        {random(TensorProto::BOOL, {2, 1}), random(TensorProto::BOOL, {1, 3})});
  }
  add(cases, "Not", 1, "bool", {random(TensorProto::BOOL, {3, 4})});
}

void addElementwiseCases(CaseList& cases) {
  arithmeticCases(cases);
  modCases(cases);
  powCases(cases);
  minMaxCases(cases);
  unaryCases(cases);
  clipCases(cases);
  comparisonCases(cases);
}

const CaseFamily family("elementwise", addElementwiseCases);

}  // namespace
}  // namespace onnxopt::kernel_cases
