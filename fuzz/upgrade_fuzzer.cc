// bytes -> load -> --target-opset -> verify -> save -> load: on any model that loads and
// verifies, raising its opset (ONNX 1.12's version converter, driven by onnx-opt) either
// succeeds or fails with an error, and either way leaves a model that verifies, saves, and loads
// back. The target is 17 for inputs of even size, 13 for odd ones (a model at or above it is
// left as it is, or refused).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/pass/opset_upgrade.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxopt;
  const ir::LoadOptions load_options = fuzz::loadOptions();
  std::unique_ptr<ir::Model> model = fuzz::loadVerified(data, size);
  if (model == nullptr) return 0;

  // The status is not checked: the converter may refuse a model. The model must stay valid.
  (void)upgradeOpset(model, size % 2 == 0 ? 17 : 13);
  fuzz::check(ir::verify(*model), "the model verifies after the upgrade");
  const std::string saved =
      fuzz::checked(ir::saveModelToBytes(*model), "an upgraded model saves");
  std::unique_ptr<ir::Model> reloaded =
      fuzz::checked(ir::loadModelFromBytes(saved, load_options), "an upgraded model loads back");
  fuzz::check(ir::verify(*reloaded), "an upgraded model verifies after loading");
  return 0;
}
