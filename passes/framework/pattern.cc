#include "onnxopt/rewrite/pattern.h"

namespace onnxopt {

RewritePattern::RewritePattern(std::string name, PatternRoot root)
    : name_(std::move(name)), root_(std::move(root)) {}

RewritePattern::~RewritePattern() = default;

}  // namespace onnxopt
