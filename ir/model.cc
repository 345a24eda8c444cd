#include "onnxopt/ir/ir.h"

namespace onnxopt::ir {

namespace {
// Blocks of 64 KiB stay below glibc's mmap threshold, so that a process optimizing model after
// model reuses freed blocks instead of mapping and faulting in fresh pages each time (measured on
// 10k-node models loaded over and over: a third or more of the load time). Weights are not in
// the blocks: tensor bytes are strings the arena only owns.
std::shared_ptr<google::protobuf::Arena> newArena() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 64 << 10;
  options.max_block_size = 64 << 10;
  return std::make_shared<google::protobuf::Arena>(options);
}
}  // namespace

Model::Model()
    : arena_(newArena()),
      proto_(newProto<onnx::ModelProto>(arena_.get())),
      graph_(std::make_unique<Graph>(this)) {}
Model::~Model() = default;

namespace {
bool isDefaultDomain(absl::string_view domain) { return domain.empty() || domain == "ai.onnx"; }
bool sameDomain(absl::string_view a, absl::string_view b) {
  return a == b || (isDefaultDomain(a) && isDefaultDomain(b));
}
}  // namespace

std::optional<int64_t> Model::opsetVersion(absl::string_view domain) const {
  for (const auto& opset : proto_->opset_import()) {
    if (sameDomain(opset.domain(), domain)) return opset.version();
  }
  return std::nullopt;
}

void Model::setOpsetVersion(const std::string& domain, int64_t version) {
  ++modifications_;
  for (auto& opset : *proto_->mutable_opset_import()) {
    if (sameDomain(opset.domain(), domain)) {
      opset.set_version(version);
      return;
    }
  }
  auto* opset = proto_->add_opset_import();
  opset->set_domain(domain);
  opset->set_version(version);
}

}  // namespace onnxopt::ir
