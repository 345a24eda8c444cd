// Kernel-vs-ONNX-Runtime cases of the reduction kernels (passes/eval/kernels_reduction.cc):
// each version (axes attribute, axes input, noop_with_empty_axes, the types of 12, 13 and 20),
// keepdims, several axes and shapes, every admitted element type. Floating-point values are
// small multiples of 1/4 (products: of 1/2), so that every sum and product is exact, which is
// when the kernels fold; the unit tests show them declining otherwise.

#include <cstdint>
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

std::mt19937_64& rng() {
  static std::mt19937_64 generator(20261203);
  return generator;
}

bool isFloat(int32_t type) {
  return type == TensorProto::FLOAT || type == TensorProto::DOUBLE ||
         type == TensorProto::FLOAT16 || type == TensorProto::BFLOAT16;
}

// Values a sum or product of a few dozen of which stays exact in every type (bfloat16: 8 bits).
TensorProto exactValues(int32_t type, const Dims& dims, bool for_product) {
  int64_t count = 1;
  for (const int64_t dim : dims) count *= dim;
  const bool is_unsigned = type == TensorProto::UINT8 || type == TensorProto::UINT16 ||
                           type == TensorProto::UINT32 || type == TensorProto::UINT64;
  const std::vector<double> product_values = isFloat(type) ? std::vector<double>{-2, -1, 0.5, 1, 2}
                                             : is_unsigned ? std::vector<double>{1, 2, 3}
                                                           : std::vector<double>{-2, -1, 1, 2, 3};
  std::uniform_int_distribution<int> quarter(isFloat(type) ? -12 : 0, 12);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(product_values.size()) - 1);
  std::vector<double> values;
  for (int64_t k = 0; k < count; ++k) {
    // bfloat16 has 8 bits: its sums are of integers in [-3, 3].
    const double v = for_product                     ? product_values[pick(rng())]
                     : type == TensorProto::BFLOAT16 ? quarter(rng()) / 4
                     : isFloat(type)                 ? quarter(rng()) / 4.0
                                                     : quarter(rng());
    values.push_back(type == TensorProto::BOOL ? static_cast<double>(rng()() & 1) : v);
  }
  return valuesTensor(type, dims, values);
}

void add(CaseList& cases, const std::string& op, int64_t opset, const std::string& variant,
         Inputs inputs, std::vector<onnx::AttributeProto> attributes) {
  KernelCase c;
  c.name = absl::StrCat(op, "-", opset, ".", variant);
  c.op_type = op;
  c.opset = opset;
  c.inputs = std::move(inputs);
  c.attributes = std::move(attributes);
  cases.push_back(std::move(c));
}

const Types kBaseTypes = {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::FLOAT16,
                          TensorProto::INT32, TensorProto::INT64,  TensorProto::UINT32,
                          TensorProto::UINT64};

// The element types of `op` at `version` (ONNX's docs/Changelog.md).
Types typesOf(const std::string& op, int64_t version) {
  Types types = kBaseTypes;
  const bool min_or_max = op == "ReduceMin" || op == "ReduceMax";
  if (version >= 13) types.push_back(TensorProto::BFLOAT16);
  if (min_or_max && version >= 12) {
    types.push_back(TensorProto::INT8);
    types.push_back(TensorProto::UINT8);
  }
  if (min_or_max && version >= 20) types.push_back(TensorProto::BOOL);
  return types;
}

struct AxesCase {
  const char* name;
  std::optional<std::vector<int64_t>> axes;  // nullopt: no axes (all)
  int64_t keepdims;
};

const AxesCase kAxesCases[] = {
    {"all", std::nullopt, 1},
    {"all.nokeep", std::nullopt, 0},
    {"axis1", std::vector<int64_t>{1}, 1},
    {"axes0_2.nokeep", std::vector<int64_t>{0, 2}, 0},
    {"axis-1", std::vector<int64_t>{-1}, 1},
};

void reduceCases(CaseList& cases, const std::string& op, const std::vector<int64_t>& versions,
                 int64_t axes_input_from) {
  const bool product = op == "ReduceProd";
  const Dims dims = product ? Dims{2, 3, 2} : Dims{3, 4, 5};
  for (const int64_t version : versions) {
    for (const int32_t type : typesOf(op, version)) {
      for (const AxesCase& a : kAxesCases) {
        // Version 1 does not define negative axes.
        if (version < 11 && a.axes && (*a.axes)[0] < 0) continue;
        Inputs inputs = {exactValues(type, dims, product)};
        std::vector<onnx::AttributeProto> attributes = {attrInt("keepdims", a.keepdims)};
        if (a.axes) {
          if (version >= axes_input_from) {
            inputs.push_back(int64s(*a.axes));
          } else {
            attributes.push_back(attrInts("axes", *a.axes));
          }
        }
        add(cases, op, version, absl::StrCat(typeName(type), ".", a.name), std::move(inputs),
            std::move(attributes));
      }
    }
    if (version >= axes_input_from) {
      add(cases, op, version, "float.noop_with_empty_axes",
          {exactValues(TensorProto::FLOAT, dims, product), int64s({})},
          {attrInt("noop_with_empty_axes", 1)});
      add(cases, op, version, "float.empty_axes",
          {exactValues(TensorProto::FLOAT, dims, product), int64s({})}, {});
    }
  }
  add(cases, op, versions.back(), "float.1d", {exactValues(TensorProto::FLOAT, {37}, product)},
      {attrInt("keepdims", 0)});
}

void addReductionCases(CaseList& cases) {
  reduceCases(cases, "ReduceSum", {1, 11, 13}, 13);
  reduceCases(cases, "ReduceMean", {1, 11, 13, 18}, 18);
  reduceCases(cases, "ReduceProd", {1, 11, 13, 18}, 18);
  reduceCases(cases, "ReduceMin", {1, 11, 12, 13, 18, 20}, 18);
  reduceCases(cases, "ReduceMax", {1, 11, 12, 13, 18, 20}, 18);
  // Empty reductions: a sum of nothing is 0, a product 1 (the product of a scalar's shape).
  add(cases, "ReduceSum", 13, "float.empty",
      {exactValues(TensorProto::FLOAT, {0, 3}, false), int64s({0})}, {});
  add(cases, "ReduceProd", 13, "int64.empty", {int64s({})}, {attrInt("keepdims", 0)});
}

const CaseFamily family("reduction", addReductionCases);

}  // namespace
}  // namespace onnxopt::kernel_cases
