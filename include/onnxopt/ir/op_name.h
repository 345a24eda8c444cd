#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"
#include "onnxopt/export.h"

namespace onnxopt::ir {

// An operator's identity: op type and domain, made once per process and never freed ("" and
// "ai.onnx" are one domain). A node points at its OpName, so a walk that compares operators or
// reads op types touches this small shared table, not each node's NodeProto.
class ONNXOPT_API OpName {
 public:
  // The one OpName of this pair. Thread-safe.
  static const OpName& of(absl::string_view op_type, absl::string_view domain = "");

  OpName(const OpName&) = delete;
  OpName& operator=(const OpName&) = delete;

  const std::string& opType() const { return op_type_; }
  // "" for the default ONNX domain, however the model spells it.
  const std::string& domain() const { return domain_; }
  // 1, 2, 3, ... in order of first use: equal keys, equal names. A key for bit sets and tables.
  uint32_t key() const { return key_; }

 private:
  OpName(std::string op_type, std::string domain, uint32_t key)
      : op_type_(std::move(op_type)), domain_(std::move(domain)), key_(key) {}

  std::string op_type_;
  std::string domain_;
  uint32_t key_;
};

}  // namespace onnxopt::ir
