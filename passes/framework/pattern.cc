#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

RewritePattern::RewritePattern(std::string root_op_type, std::string name, std::string root_domain)
    : root_op_type_(std::move(root_op_type)),
      root_domain_(std::move(root_domain)),
      name_(std::move(name)) {}

RewritePattern::~RewritePattern() = default;

}  // namespace onnxopt
