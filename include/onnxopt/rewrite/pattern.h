#pragma once

// A rewrite pattern: a local transformation rooted at one node, applied by GreedyRewriteDriver.
//
// Contract (as in MLIR): matchAndRewrite changes the IR if and only if it returns success. Do
// every check first, declare the match with PatternRewriter::match() (which applies the
// framework's guards), then rewrite through the PatternRewriter only. The driver checks the
// contract and erases whatever the rewrite left dead.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "onnxopt/export.h"
#include "onnxopt/ir/ir.h"

namespace onnxopt {

class PatternRewriter;

class [[nodiscard]] LogicalResult {
 public:
  static LogicalResult success() { return LogicalResult(true); }
  static LogicalResult failure() { return LogicalResult(false); }
  bool succeeded() const { return succeeded_; }
  bool failed() const { return !succeeded_; }

 private:
  explicit LogicalResult(bool succeeded) : succeeded_(succeeded) {}
  bool succeeded_;
};

inline LogicalResult success() { return LogicalResult::success(); }
inline LogicalResult failure() { return LogicalResult::failure(); }
inline bool succeeded(LogicalResult result) { return result.succeeded(); }
inline bool failed(LogicalResult result) { return result.failed(); }

class ONNXOPT_API RewritePattern {
 public:
  // The driver offers the pattern every node of op type `root_op_type` in `root_domain` ("" and
  // "ai.onnx" are the default domain). `name` shows in --debug output and errors.
  RewritePattern(std::string root_op_type, std::string name, std::string root_domain = "");
  RewritePattern(const RewritePattern&) = delete;
  RewritePattern& operator=(const RewritePattern&) = delete;
  virtual ~RewritePattern();

  const std::string& rootOpType() const { return root_op_type_; }
  const std::string& rootDomain() const { return root_domain_; }
  const std::string& name() const { return name_; }

  virtual LogicalResult matchAndRewrite(ir::Node& root, PatternRewriter& rewriter) const = 0;

 private:
  std::string root_op_type_;
  std::string root_domain_;
  std::string name_;
};

class RewritePatternSet {
 public:
  template <typename PatternT, typename... Args>
  RewritePatternSet& add(Args&&... args) {
    patterns_.push_back(std::make_unique<PatternT>(std::forward<Args>(args)...));
    return *this;
  }
  RewritePatternSet& add(std::unique_ptr<RewritePattern> pattern) {
    patterns_.push_back(std::move(pattern));
    return *this;
  }
  const std::vector<std::unique_ptr<RewritePattern>>& patterns() const { return patterns_; }

 private:
  std::vector<std::unique_ptr<RewritePattern>> patterns_;
};

}  // namespace onnxopt
