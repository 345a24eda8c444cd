// Kernel-vs-ONNX-Runtime cases of the data-movement and shape kernels
// (passes/eval/kernels_movement.cc): every element type each op takes, each opset branch, and
// several shapes. Expected outputs must match ORT's bit for bit.

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "kernel_cases.h"

namespace onnxopt::kernel_cases {
namespace {

using onnx::TensorProto;
using Dims = std::vector<int64_t>;
using Inputs = std::vector<std::optional<TensorProto>>;

constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();

std::mt19937_64& rng() {
  static std::mt19937_64 generator(20261201);
  return generator;
}

TensorProto random(int32_t type, const Dims& dims, Range range = {}) {
  return randomTensor(type, dims, rng(), range);
}

void add(CaseList& cases, const std::string& op, int64_t opset, const std::string& variant, Inputs inputs,
         std::vector<onnx::AttributeProto> attributes = {}, int outputs = 1) {
  KernelCase c;
  c.name = absl::StrCat(op, "-", opset, ".", variant);
  c.op_type = op;
  c.opset = opset;
  c.inputs = std::move(inputs);
  c.attributes = std::move(attributes);
  c.num_outputs = outputs;
  cases.push_back(std::move(c));
}

// bfloat16 tensors are allowed by these ops from opset 13 (Where: 16; ConstantOfShape: 20).
bool typeAllowed(int32_t type, int64_t opset, int64_t bfloat16_from = 13) {
  return type != TensorProto::BFLOAT16 || opset >= bfloat16_from;
}

void identityCases(CaseList& cases) {
  for (const int64_t opset : {7, 13, 14, 16, 19, 21, 23}) {
    for (const int32_t type : kAllTypes) {
      if (!typeAllowed(type, opset)) continue;
      add(cases, "Identity", opset, typeName(type), {random(type, {2, 3})});
    }
  }
  for (const Dims& dims : {Dims{}, Dims{0, 3}, Dims{2, 3, 4}}) {
    add(cases, "Identity", 13, absl::StrCat("float.", dimsName(dims)), {random(TensorProto::FLOAT, dims)});
  }
}

// Values of `from` that cast to `to` without NaN or overflow (the evaluator declines those).
Range castRange(int32_t from, int32_t to) {
  const bool from_float = from == TensorProto::FLOAT || from == TensorProto::DOUBLE ||
                          from == TensorProto::FLOAT16 || from == TensorProto::BFLOAT16;
  if (!from_float) return {-1e30, 1e30};  // integers: their whole range (clamped to the type)
  switch (to) {
    case TensorProto::UINT8: return {0, 255};
    case TensorProto::INT8: return {-128, 127};
    case TensorProto::UINT16: case TensorProto::UINT32: case TensorProto::UINT64: return {0, 1000};
    case TensorProto::INT16: case TensorProto::INT32: case TensorProto::INT64: return {-1000, 1000};
    default: return {-70000, 70000};  // float16's overflow and rounding
  }
}

void castCases(CaseList& cases) {
  for (const int32_t from : kAllFixedTypes) {
    for (const int32_t to : kAllFixedTypes) {
      const bool from_float = from == TensorProto::FLOAT || from == TensorProto::DOUBLE ||
                              from == TensorProto::FLOAT16 || from == TensorProto::BFLOAT16;
      if (from_float && to == TensorProto::BOOL) continue;  // declined (NaN), see docs/evaluator.md
      add(cases, "Cast", 13, absl::StrCat(typeName(from), ".to_", typeName(to)),
          {random(from, {3, 5}, castRange(from, to))}, {attrInt("to", to)});
    }
  }
  // Rounding to float16 and bfloat16: subnormals, halfway values, overflow to infinity.
  for (const int32_t to : {TensorProto::FLOAT16, TensorProto::BFLOAT16}) {
    for (const int32_t from : {TensorProto::FLOAT, TensorProto::DOUBLE}) {
      add(cases, "Cast", 13, absl::StrCat(typeName(from), ".to_", typeName(to), ".tiny"),
          {random(from, {64}, {-1e-6, 1e-6})}, {attrInt("to", to)});
      add(cases, "Cast", 13, absl::StrCat(typeName(from), ".to_", typeName(to), ".huge"),
          {random(from, {64}, {-1e39, 1e39})}, {attrInt("to", to)});
    }
  }
  for (const int64_t opset : {7, 9, 19, 21, 23}) {
    for (const auto& [from, to] : {std::pair{TensorProto::FLOAT, TensorProto::INT32},
                                   std::pair{TensorProto::INT64, TensorProto::FLOAT16},
                                   std::pair{TensorProto::DOUBLE, TensorProto::UINT8},
                                   std::pair{TensorProto::BOOL, TensorProto::FLOAT}}) {
      add(cases, "Cast", opset, absl::StrCat(typeName(from), ".to_", typeName(to)),
          {random(from, {4, 3}, castRange(from, to))}, {attrInt("to", to)});
    }
  }
  for (const int64_t opset : {15, 19, 21, 23}) {
    for (const auto& [from, to] : {std::pair{TensorProto::FLOAT, TensorProto::INT64},
                                   std::pair{TensorProto::INT32, TensorProto::DOUBLE},
                                   std::pair{TensorProto::FLOAT, TensorProto::BFLOAT16}}) {
      add(cases, "CastLike", opset, absl::StrCat(typeName(from), ".like_", typeName(to)),
          {random(from, {2, 5}, castRange(from, to)), random(to, {1})});
    }
  }
}

void shapeAndSizeCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Shape", 13, typeName(type), {random(type, {2, 3, 4})});
    add(cases, "Size", 13, typeName(type), {random(type, {2, 3, 4})});
  }
  for (const int64_t opset : {7, 15, 19, 21, 23}) {
    for (const Dims& dims : {Dims{}, Dims{5}, Dims{0, 2}, Dims{2, 1, 3, 4}}) {
      add(cases, "Shape", opset, absl::StrCat("float.", dimsName(dims)), {random(TensorProto::FLOAT, dims)});
      add(cases, "Size", opset, absl::StrCat("float.", dimsName(dims)), {random(TensorProto::FLOAT, dims)});
    }
  }
  const std::vector<std::pair<std::optional<int64_t>, std::optional<int64_t>>> bounds = {
      {1, std::nullopt}, {-2, std::nullopt}, {1, 3}, {0, -1}, {-10, 10}, {3, 1}, {std::nullopt, -3}, {4, 4}};
  for (const int64_t opset : {15, 19, 21, 23}) {
    for (const auto& [start, end] : bounds) {
      std::vector<onnx::AttributeProto> attributes;
      if (start) attributes.push_back(attrInt("start", *start));
      if (end) attributes.push_back(attrInt("end", *end));
      add(cases, "Shape", opset,
          absl::StrCat("int8.start", start ? absl::StrCat(*start) : "_", ".end", end ? absl::StrCat(*end) : "_"),
          {random(TensorProto::INT8, {2, 1, 3, 4})}, attributes);
    }
  }
}

void reshapeCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Reshape", 13, typeName(type), {random(type, {2, 3, 4}), int64s({4, -1})});
  }
  struct Variant {
    Dims in;
    std::vector<int64_t> shape;
  };
  const std::vector<Variant> variants = {
      {{2, 3, 4}, {0, -1}}, {{2, 3, 4}, {-1}}, {{2, 3, 4}, {4, 0, 2}}, {{2, 3, 4}, {2, 3, 4, 1}},
      {{6}, {}}, {{1}, {}}, {{}, {1, 1}}, {{0, 3}, {0, 5}}, {{2, 0, 3}, {0, -1, 3}}};
  for (const int64_t opset : {7, 13, 14, 19, 21, 23}) {
    for (const Variant& v : variants) {
      if (v.in.size() == 1 && v.in[0] == 6 && v.shape.empty()) continue;  // 6 elements into a scalar
      add(cases, "Reshape", opset, absl::StrCat("float.", dimsName(v.in), "_to_", dimsName(v.shape)),
          {random(TensorProto::FLOAT, v.in), int64s(v.shape)});
    }
  }
  // allowzero: 0 is a zero dim.
  for (const int64_t opset : {14, 19, 21, 23}) {
    add(cases, "Reshape", opset, "float.allowzero.0x3_to_3x0",
        {random(TensorProto::FLOAT, {0, 3}), int64s({3, 0})}, {attrInt("allowzero", 1)});
    add(cases, "Reshape", opset, "float.allowzero.2x3_to_6",
        {random(TensorProto::FLOAT, {2, 3}), int64s({6})}, {attrInt("allowzero", 1)});
  }
}

void flattenSqueezeCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Flatten", 13, typeName(type), {random(type, {2, 3, 4})});
    add(cases, "Squeeze", 13, typeName(type), {random(type, {2, 1, 4}), int64s({1})});
    add(cases, "Unsqueeze", 13, typeName(type), {random(type, {2, 4}), int64s({0, 3})});
  }
  for (const int64_t opset : {9, 11, 13, 21, 23}) {
    for (int64_t axis = opset >= 11 ? -3 : 0; axis <= 3; ++axis) {
      add(cases, "Flatten", opset, absl::StrCat("float.axis", axis), {random(TensorProto::FLOAT, {2, 3, 4})},
          {attrInt("axis", axis)});
    }
  }
  const std::vector<std::vector<int64_t>> squeeze_axes = {{1}, {1, 3}, {-1}, {-1, 1}};
  const std::vector<std::vector<int64_t>> unsqueeze_axes = {{0}, {2}, {0, 3}, {-1}, {-1, 1}, {3, 0}};
  for (const int64_t opset : {7, 11, 13, 21, 23}) {
    const Dims dims = {2, 1, 3, 1};
    add(cases, "Squeeze", opset, "float.all", {random(TensorProto::FLOAT, dims)});
    for (const auto& axes : squeeze_axes) {
      const bool negative = axes[0] < 0;
      if (negative && opset < 11) continue;
      const std::string variant = absl::StrCat("float.axes", absl::StrJoin(axes, "_"));
      if (opset < 13) {
        add(cases, "Squeeze", opset, variant, {random(TensorProto::FLOAT, dims)}, {attrInts("axes", axes)});
      } else {
        add(cases, "Squeeze", opset, variant, {random(TensorProto::FLOAT, dims), int64s(axes)});
      }
    }
    for (const auto& axes : unsqueeze_axes) {
      const bool negative = axes[0] < 0;
      if (negative && opset < 11) continue;
      const std::string variant = absl::StrCat("float.axes", absl::StrJoin(axes, "_"));
      if (opset < 13) {
        add(cases, "Unsqueeze", opset, variant, {random(TensorProto::FLOAT, {3, 2})}, {attrInts("axes", axes)});
      } else {
        add(cases, "Unsqueeze", opset, variant, {random(TensorProto::FLOAT, {3, 2}), int64s(axes)});
      }
    }
  }
  add(cases, "Unsqueeze", 13, "float.scalar", {random(TensorProto::FLOAT, {}), int64s({0})});
}

void concatSplitCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Concat", 13, typeName(type),
        {random(type, {2, 3}), random(type, {2, 1}), random(type, {2, 4})}, {attrInt("axis", 1)});
    add(cases, "Split", 13, typeName(type), {random(type, {6, 2}), int64s({1, 2, 3})}, {attrInt("axis", 0)}, 3);
  }
  for (const int64_t opset : {7, 11, 13}) {
    for (const int64_t axis : {0, 1, 2, -1, -3}) {
      if (axis < 0 && opset < 11) continue;
      const int64_t a = axis < 0 ? axis + 3 : axis;
      Dims d1 = {2, 3, 4}, d2 = {2, 3, 4};
      d2[a] = 1;
      add(cases, "Concat", opset, absl::StrCat("float.axis", axis),
          {random(TensorProto::FLOAT, d1), random(TensorProto::FLOAT, d2)}, {attrInt("axis", axis)});
    }
    add(cases, "Concat", opset, "int64.empty_part",
        {random(TensorProto::INT64, {2, 0}), random(TensorProto::INT64, {2, 3})}, {attrInt("axis", 1)});
    add(cases, "Concat", opset, "int64.one_input", {random(TensorProto::INT64, {3})}, {attrInt("axis", 0)});
    add(cases, "Split", opset, "float.equal", {random(TensorProto::FLOAT, {2, 6})}, {attrInt("axis", 1)}, 3);
  }
  for (const int64_t opset : {7, 11}) {
    add(cases, "Split", opset, "float.attr", {random(TensorProto::FLOAT, {5, 2})},
        {attrInt("axis", 0), attrInts("split", {2, 0, 3})}, 3);
  }
  add(cases, "Split", 11, "float.negative_axis", {random(TensorProto::FLOAT, {2, 4})},
      {attrInt("axis", -1), attrInts("split", {1, 3})}, 2);
  for (const int64_t opset : {13, 18}) {
    add(cases, "Split", opset, "float.input", {random(TensorProto::FLOAT, {7, 2}), int64s({4, 3})}, {}, 2);
    if (opset < 18) {
      add(cases, "Split", opset, "uint8.equal", {random(TensorProto::UINT8, {4, 3})}, {attrInt("axis", 0)}, 2);
    }
  }
  for (const auto& [dim, parts] : {std::pair{7, 3}, std::pair{6, 3}, std::pair{5, 2}, std::pair{1, 1}}) {
    add(cases, "Split", 18, absl::StrCat("float.num_outputs", parts, "_of_", dim),
        {random(TensorProto::FLOAT, {2, dim})}, {attrInt("axis", 1), attrInt("num_outputs", parts)}, parts);
  }
}

void sliceCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Slice", 13, typeName(type),
        {random(type, {4, 5}), int64s({1, -4}), int64s({kMaxInt, -1}), int64s({0, 1}), int64s({2, 1})});
  }
  struct Variant {
    std::string name;
    std::vector<int64_t> starts, ends;
    std::optional<std::vector<int64_t>> axes, steps;
  };
  const std::vector<Variant> variants = {
      {"plain", {1, 0}, {3, 2}, std::nullopt, std::nullopt},
      {"one_axis", {1}, {3}, std::nullopt, std::nullopt},
      {"neg_starts", {-3, -2}, {-1, 5}, std::nullopt, std::nullopt},
      {"clamped", {-100, 2}, {100, kMaxInt}, std::vector<int64_t>{0, 2}, std::nullopt},
      {"neg_axes", {1}, {kMaxInt}, std::vector<int64_t>{-1}, std::nullopt},
      {"steps", {0, 1}, {5, 6}, std::vector<int64_t>{1, 2}, std::vector<int64_t>{2, 3}},
      {"neg_steps", {-1, 4}, {-kMaxInt, 0}, std::vector<int64_t>{0, 2}, std::vector<int64_t>{-1, -2}},
      {"neg_step_clamped", {100, -100}, {-100, 100}, std::vector<int64_t>{1, 2}, std::vector<int64_t>{-2, -1}},
      {"empty", {3, 0}, {1, 6}, std::vector<int64_t>{0, 2}, std::nullopt},
      {"int_min_end", {2}, {std::numeric_limits<int64_t>::min()}, std::vector<int64_t>{1}, std::vector<int64_t>{-1}},
      // ONNX Runtime reads an end of INT64_MAX or INT32_MAX as no end, backwards too.
      {"open_end_backward", {2, -2}, {kMaxInt, std::numeric_limits<int32_t>::max()},
       std::vector<int64_t>{0, 2}, std::vector<int64_t>{-1, -2}},
  };
  const Dims dims = {4, 5, 6};
  for (const int64_t opset : {10, 11, 13}) {
    for (const Variant& v : variants) {
      if (opset < 11 && v.axes && (*v.axes)[0] < 0) continue;
      Inputs inputs = {random(TensorProto::FLOAT, dims), int64s(v.starts), int64s(v.ends)};
      if (v.axes || v.steps) {
        inputs.push_back(v.axes ? std::optional(int64s(*v.axes)) : std::nullopt);
      }
      if (v.steps) inputs.push_back(int64s(*v.steps));
      add(cases, "Slice", opset, absl::StrCat("float.", v.name), inputs);
    }
  }
  add(cases, "Slice", 13, "float.int32_operands",
      {random(TensorProto::FLOAT, dims), int32Tensor({2}, {1, -1}), int32Tensor({2}, {3, -5}),
       int32Tensor({2}, {0, 2}), int32Tensor({2}, {1, -1})});
  add(cases, "Slice", 13, "float.int32_open_end_backward",
      {random(TensorProto::FLOAT, dims), int32Tensor({1}, {-2}),
       int32Tensor({1}, {std::numeric_limits<int32_t>::max()}), int32Tensor({1}, {1}),
       int32Tensor({1}, {-1})});
  for (const int64_t opset : {7, 9}) {
    for (const Variant& v : variants) {
      if (v.steps || (v.axes && (*v.axes)[0] < 0)) continue;
      std::vector<onnx::AttributeProto> attributes = {attrInts("starts", v.starts), attrInts("ends", v.ends)};
      if (v.axes) attributes.push_back(attrInts("axes", *v.axes));
      add(cases, "Slice", opset, absl::StrCat("float.", v.name), {random(TensorProto::FLOAT, dims)}, attributes);
    }
  }
}

void gatherCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    if (type != TensorProto::STRING) {  // declined: see the Gather kernel
      add(cases, "Gather", 13, typeName(type), {random(type, {4, 3}), int64Tensor({2, 2}, {3, 0, -1, 1})});
    }
    add(cases, "GatherElements", 13, typeName(type),
        {random(type, {3, 3}), int64Tensor({2, 3}, {0, 2, -1, 1, 0, 2})}, {attrInt("axis", 0)});
  }
  for (const int64_t opset : {7, 11, 13}) {
    for (const int64_t axis : {0, 1, 2, -1}) {
      if (axis < 0 && opset < 11) continue;
      const std::vector<int64_t> indices = opset >= 11 ? std::vector<int64_t>{1, -1, 0} : std::vector<int64_t>{1, 2, 0};
      add(cases, "Gather", opset, absl::StrCat("float.axis", axis), {random(TensorProto::FLOAT, {3, 4, 5}), int64s(indices)},
          {attrInt("axis", axis)});
    }
    add(cases, "Gather", opset, "int64.scalar_index", {random(TensorProto::INT64, {4, 2}), int64Tensor({}, {2})});
    add(cases, "Gather", opset, "float.int32_indices",
        {random(TensorProto::FLOAT, {4, 2}), int32Tensor({3}, {3, 0, 3})}, {attrInt("axis", 0)});
    add(cases, "Gather", opset, "float.empty_indices", {random(TensorProto::FLOAT, {4, 2}), int64Tensor({0}, {})});
  }
  for (const int64_t opset : {11, 13}) {
    for (const int64_t axis : {0, 1, 2, -1}) {
      add(cases, "GatherElements", opset, absl::StrCat("float.axis", axis),
          {random(TensorProto::FLOAT, {3, 4, 5}), randomTensor(TensorProto::INT64, {2, 3, 4}, rng(), {-3, 2})},
          {attrInt("axis", axis)});
    }
    add(cases, "GatherElements", opset, "float.int32_indices",
        {random(TensorProto::FLOAT, {3, 4}), int32Tensor({1, 4}, {2, 0, -3, 1})});
  }
}

void scatterNdCases(CaseList& cases) {
  // Rows 1 and 3 of a [4,3] replaced (a tuple of one index: slices of 3 elements).
  for (const int32_t type : kAllTypes) {
    add(cases, "ScatterND", 16, typeName(type),
        {random(type, {4, 3}), int64Tensor({2, 1}, {3, 1}), random(type, {2, 3})});
  }
  for (const int64_t opset : {11, 13, 16, 18}) {
    // Single elements of a [3,4] (tuples of the full rank), indices of rank 3.
    add(cases, "ScatterND", opset, "float.elements",
        {random(TensorProto::FLOAT, {3, 4}), int64Tensor({2, 2, 2}, {0, 1, 2, 3, 1, 0, 2, 2}),
         random(TensorProto::FLOAT, {2, 2})});
    // Planes of a [2,3,4] named by one index, and the whole tensor's rows by two.
    add(cases, "ScatterND", opset, "int64.planes",
        {random(TensorProto::INT64, {2, 3, 4}), int64Tensor({1, 1}, {1}), random(TensorProto::INT64, {1, 3, 4})});
    add(cases, "ScatterND", opset, "float.rows",
        {random(TensorProto::FLOAT, {2, 3, 4}), int64Tensor({3, 2}, {0, 2, 1, 0, 1, 1}),
         random(TensorProto::FLOAT, {3, 4})});
  }
}

void transposeExpandTileCases(CaseList& cases) {
  for (const int32_t type : kAllTypes) {
    add(cases, "Transpose", 13, typeName(type), {random(type, {2, 3, 4})}, {attrInts("perm", {1, 2, 0})});
    add(cases, "Expand", 13, typeName(type), {random(type, {3, 1}), int64s({2, 1, 4})});
    add(cases, "Tile", 13, typeName(type), {random(type, {2, 3}), int64s({2, 2})});
  }
  for (const int64_t opset : {7, 13, 21, 23}) {
    add(cases, "Transpose", opset, "float.default_perm", {random(TensorProto::FLOAT, {2, 3, 4})});
    for (const std::vector<int64_t>& perm : {std::vector<int64_t>{0, 1, 2, 3}, {3, 2, 1, 0}, {0, 2, 1, 3}, {2, 0, 3, 1}}) {
      add(cases, "Transpose", opset, absl::StrCat("float.perm", absl::StrJoin(perm, "")),
          {random(TensorProto::FLOAT, {2, 3, 1, 5})}, {attrInts("perm", perm)});
    }
    add(cases, "Transpose", opset, "float.scalar", {random(TensorProto::FLOAT, {})});
  }
  const std::vector<std::pair<Dims, std::vector<int64_t>>> expands = {
      {{3, 1}, {3, 4}}, {{3, 1}, {2, 1, 1}}, {{1}, {2, 3}}, {{}, {4}}, {{2, 3}, {1}}, {{2, 3}, {}},
      {{1, 3}, {0, 3}}, {{4, 1, 2}, {4, 3, 1}}};
  for (const int64_t opset : {8, 13}) {
    for (const auto& [in, shape] : expands) {
      add(cases, "Expand", opset, absl::StrCat("float.", dimsName(in), "_to_", dimsName(shape)),
          {random(TensorProto::FLOAT, in), int64s(shape)});
    }
  }
  const std::vector<std::pair<Dims, std::vector<int64_t>>> tiles = {
      {{3}, {4}}, {{2, 3}, {1, 1}}, {{2, 3}, {3, 2}}, {{2, 1, 3}, {1, 4, 0}}, {{2, 3}, {2, 1}}};
  for (const int64_t opset : {7, 13}) {
    for (const auto& [in, repeats] : tiles) {
      add(cases, "Tile", opset, absl::StrCat("float.", dimsName(in), "_by_", absl::StrJoin(repeats, "x")),
          {random(TensorProto::FLOAT, in), int64s(repeats)});
    }
  }
}

void constantRangeWhereNonZeroCases(CaseList& cases) {
  for (const int64_t opset : {9, 20, 21, 23}) {
    add(cases, "ConstantOfShape", opset, "default", {int64s({2, 3})});
    add(cases, "ConstantOfShape", opset, "scalar", {int64s({})}, {attrTensor("value", random(TensorProto::INT32, {1}))});
    add(cases, "ConstantOfShape", opset, "empty", {int64s({2, 0})}, {attrTensor("value", random(TensorProto::FLOAT, {1}))});
    for (const int32_t type : kAllFixedTypes) {
      if (!typeAllowed(type, opset, 20)) continue;
      add(cases, "ConstantOfShape", opset, typeName(type), {int64s({3, 2})}, {attrTensor("value", random(type, {1}))});
    }
  }
  for (const int32_t type : {TensorProto::FLOAT, TensorProto::DOUBLE, TensorProto::INT16, TensorProto::INT32,
                             TensorProto::INT64}) {
    const bool floating = type == TensorProto::FLOAT || type == TensorProto::DOUBLE;
    const std::vector<std::vector<double>> triples = {
        {0, 10, 3}, {10, 0, -3}, {5, 5, 1}, {0, 5, -1}, {-7, 4, 2}, {1, -20, -4}};
    const std::vector<std::vector<double>> float_triples = {{0.1, 2.3, 0.3}, {1, -1, -0.25}, {0, 1, 0.1}};
    std::vector<std::vector<double>> all = triples;
    if (floating) all.insert(all.end(), float_triples.begin(), float_triples.end());
    for (size_t i = 0; i < all.size(); ++i) {
      Inputs inputs;
      for (const double value : all[i]) inputs.push_back(random(type, {}, {value, value}));
      add(cases, "Range", 11, absl::StrCat(typeName(type), ".", i), inputs);
    }
  }
  for (const int64_t opset : {9, 16}) {
    for (const int32_t type : kAllTypes) {
      if (!typeAllowed(type, opset, 16)) continue;
      add(cases, "Where", opset, typeName(type),
          {random(TensorProto::BOOL, {2, 3}), random(type, {2, 3}), random(type, {2, 3})});
    }
    add(cases, "Where", opset, "float.broadcast",
        {random(TensorProto::BOOL, {3, 1}), random(TensorProto::FLOAT, {1, 4}), random(TensorProto::FLOAT, {2, 1, 1})});
    add(cases, "Where", opset, "int64.scalar_condition",
        {random(TensorProto::BOOL, {}), random(TensorProto::INT64, {3}), random(TensorProto::INT64, {2, 3})});
  }
  for (const int64_t opset : {9, 13}) {
    for (const int32_t type : kAllFixedTypes) {
      if (!typeAllowed(type, opset)) continue;
      // Values in [-1, 1]: many zeros among the integers.
      add(cases, "NonZero", opset, typeName(type), {random(type, {3, 4}, {-1, 1})});
    }
    add(cases, "NonZero", opset, "int32.3d", {random(TensorProto::INT32, {2, 3, 2}, {0, 1})});
    add(cases, "NonZero", opset, "bool.empty", {random(TensorProto::BOOL, {0, 2})});
  }
}

void addMovementCases(CaseList& cases) {
  identityCases(cases);
  castCases(cases);
  shapeAndSizeCases(cases);
  reshapeCases(cases);
  flattenSqueezeCases(cases);
  concatSplitCases(cases);
  sliceCases(cases);
  gatherCases(cases);
  scatterNdCases(cases);
  transposeExpandTileCases(cases);
  constantRangeWhereNonZeroCases(cases);
}

const CaseFamily family("movement", addMovementCases);

}  // namespace
}  // namespace onnxopt::kernel_cases
