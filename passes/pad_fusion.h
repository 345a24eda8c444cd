#pragma once

// What fuse-pad-into-conv and fuse-pad-into-pool share: reading a Pad that adds zeros on the
// spatial axes only, in the form every Pad version gives it, and adding it to the consumer's own
// `pads`. Header-only: passes/CMakeLists.txt compiles every .cc here as a pass.

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "onnxopt/ir/attribute.h"
#include "onnxopt/ir/describe.h"
#include "onnxopt/rewrite/constant.h"
#include "onnxopt/rewrite/match.h"
#include "onnxopt/rewrite/rewriter.h"
#include "onnxopt/rewrite/schema.h"
#include "onnxopt/rewrite/shape_oracle.h"

namespace onnxopt::pad_fusion {

// Reads `pad` (the producer of `root`'s input 0) for a fusion into `root`. On success
// `spatial_pads` holds what it adds in the layout of Conv's and the pools' `pads`: the begins of
// axes 2.. then their ends. Declines (reason recorded on `root`) unless it is constant mode with
// value +0 (a -0.0 pad would give -0.0 sums where the consumer's own padding gives +0.0), pads
// that are non-negative constants, zero on axes 0 and 1 (batch, channel), and a data rank of at
// least 3; an error for malformed attributes or constants.
//
// Pad-1: `paddings` and `value` attributes; Pad-2: `pads` and `value`; Pad-11 on: `pads` is
// input 1, `constant_value` optional input 2 (absent: 0); Pad-18 on: optional input 3 `axes`
// (negative counts from the end) names the axes `pads` covers, the others get none; Pad-19 adds
// mode "wrap"; Pad-21 and 23 add element types only.
inline LogicalResult readSpatialZeroPad(const ir::Node& root, const ir::Node& pad,
                                        PatternRewriter& rewriter,
                                        std::vector<int64_t>* spatial_pads) {
  auto decline = [&](absl::string_view why) {
    return rewriter.notifyMatchFailure(root, [&] { return absl::StrCat(ir::describe(pad), ": ", why); });
  };
  const std::optional<int64_t> version = sinceVersionOf(pad);
  if (!version || pad.input(0) == nullptr) return decline("its version or data is not known");
  absl::StatusOr<std::string> mode = getStringOr(pad, "mode", "constant");
  if (!mode.ok()) return rewriter.emitError(pad, mode.status());
  if (*mode != "constant") return decline(absl::StrCat("mode is '", *mode, "', not 'constant'"));

  std::vector<int64_t> pads;
  double value = 0.0;
  std::optional<std::vector<int64_t>> axes;
  if (*version < 11) {
    absl::StatusOr<std::optional<std::vector<int64_t>>> attribute =
        getInts(pad, *version < 2 ? "paddings" : "pads");
    if (!attribute.ok()) return rewriter.emitError(pad, attribute.status());
    if (!*attribute) return decline("it has no pads");
    pads = **std::move(attribute);
    absl::StatusOr<float> value_attribute = getFloatOr(pad, "value", 0.0f);
    if (!value_attribute.ok()) return rewriter.emitError(pad, value_attribute.status());
    value = *value_attribute;
  } else {
    if (pad.input(1) == nullptr) return decline("it has no pads");
    absl::StatusOr<std::optional<std::vector<int64_t>>> operand = readConstantInts(*pad.input(1));
    if (!operand.ok()) return rewriter.emitError(pad, operand.status());
    if (!*operand) return decline("the pads are not a constant");
    pads = **std::move(operand);
    if (const ir::Value* constant_value = pad.numInputs() > 2 ? pad.input(2) : nullptr) {
      absl::StatusOr<std::optional<ConstantView>> constant = readConstant(*constant_value);
      if (!constant.ok()) return rewriter.emitError(pad, constant.status());
      if (!*constant) return decline("the constant_value is not a constant");
      std::optional<std::vector<double>> values = (*constant)->asDoubles();
      if (!values || values->size() != 1) return decline("the constant_value is not one readable number");
      value = (*values)[0];
    }
    if (const ir::Value* axes_value = pad.numInputs() > 3 ? pad.input(3) : nullptr) {
      absl::StatusOr<std::optional<std::vector<int64_t>>> operand = readConstantInts(*axes_value);
      if (!operand.ok()) return rewriter.emitError(pad, operand.status());
      if (!*operand) return decline("the axes are not a constant");
      axes = *std::move(operand);
    }
  }
  if (value != 0.0 || std::signbit(value)) {
    return decline(absl::StrCat("the pad value is ", value, ", not +0"));
  }

  int64_t rank = 0;
  if (axes) {
    const std::optional<int64_t> data_rank = rewriter.shapes().inferredTypeOf(*pad.input(0)).rank();
    if (!data_rank) return decline("it has axes and the data's rank is not known");
    rank = *data_rank;
  } else {
    if (pads.size() % 2 != 0) return decline("it has an odd number of pads");
    rank = static_cast<int64_t>(pads.size() / 2);
    axes.emplace();
    for (int64_t i = 0; i < rank; ++i) axes->push_back(i);
  }
  if (pads.size() != 2 * axes->size()) return decline("the pads are not two per axis");
  if (rank < 3) return decline(absl::StrCat("the data has rank ", rank, ", below 3"));

  std::vector<int64_t> full(static_cast<size_t>(2 * rank), 0);
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (size_t i = 0; i < axes->size(); ++i) {
    const int64_t axis = (*axes)[i] < 0 ? (*axes)[i] + rank : (*axes)[i];
    if (axis < 0 || axis >= rank || seen[axis]) return decline("its axes are out of range or repeated");
    seen[axis] = true;
    full[axis] = pads[i];
    full[axis + rank] = pads[i + axes->size()];
  }
  for (int64_t p : full) {
    if (p < 0) return decline(absl::StrCat("it crops (pads [", absl::StrJoin(full, ", "), "])"));
  }
  if (full[0] != 0 || full[1] != 0 || full[rank] != 0 || full[rank + 1] != 0) {
    return decline(absl::StrCat("it pads the batch or channel axis (pads [", absl::StrJoin(full, ", "), "])"));
  }
  spatial_pads->clear();
  for (int64_t i = 2; i < rank; ++i) spatial_pads->push_back(full[i]);
  for (int64_t i = 2; i < rank; ++i) spatial_pads->push_back(full[rank + i]);
  return success();
}

// The `pads` of `consumer` (a Conv or pool reading a Pad's output) once it also pads by
// `spatial_pads`: its own (absent: zeros) plus those. Declines (reason recorded on the consumer)
// when auto_pad is set, which computes pads from the input's shape, or when its pads are not
// 2 * (rank - 2) non-negative numbers.
inline LogicalResult fusedPads(const ir::Node& consumer, const std::vector<int64_t>& spatial_pads,
                               PatternRewriter& rewriter, std::vector<int64_t>* fused) {
  absl::StatusOr<std::string> auto_pad = getStringOr(consumer, "auto_pad", "NOTSET");
  if (!auto_pad.ok()) return rewriter.emitError(consumer, auto_pad.status());
  if (*auto_pad != "NOTSET") {
    return rewriter.notifyMatchFailure(consumer, absl::StrCat("auto_pad is ", *auto_pad, ", not NOTSET"));
  }
  absl::StatusOr<std::optional<std::vector<int64_t>>> own = getInts(consumer, "pads");
  if (!own.ok()) return rewriter.emitError(consumer, own.status());
  *fused = own->value_or(std::vector<int64_t>(spatial_pads.size(), 0));
  if (fused->size() != spatial_pads.size()) {
    return rewriter.notifyMatchFailure(consumer, "its pads do not cover the Pad's spatial axes");
  }
  for (size_t i = 0; i < fused->size(); ++i) {
    if ((*fused)[i] < 0) return rewriter.notifyMatchFailure(consumer, "its own pads are negative");
    (*fused)[i] += spatial_pads[i];
  }
  return success();
}

// The rewrite, after a successful rewriter.match(consumer, {pad}): the consumer reads the Pad's
// data and pads by `fused` itself.
inline void rewriteConsumer(const ir::Node& consumer, const ir::Node& pad,
                            const std::vector<int64_t>& fused, PatternRewriter& rewriter) {
  rewriter.setInput(consumer, 0, pad.input(0));
  rewriter.setAttr(consumer, ir::Attribute::makeInts("pads", fused));
}

}  // namespace onnxopt::pad_fusion
