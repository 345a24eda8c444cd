// (a) bytes -> load -> verify -> save -> load: whatever the bytes, loading returns a model or an
// error; a model that verifies saves, and what it saves loads back, verifies, and saves to the
// same bytes again.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxopt;
  const ir::LoadOptions load_options = fuzz::loadOptions();
  std::unique_ptr<ir::Model> model = fuzz::loadVerified(data, size);
  if (model == nullptr) return 0;

  const std::string saved = fuzz::checked(ir::saveModelToBytes(*model), "a verified model saves");
  std::unique_ptr<ir::Model> reloaded =
      fuzz::checked(ir::loadModelFromBytes(saved, load_options), "a saved model loads");
  fuzz::check(ir::verify(*reloaded), "a saved model verifies after loading");
  const std::string resaved =
      fuzz::checked(ir::saveModelToBytes(*reloaded), "a reloaded model saves");
  if (resaved != saved) fuzz::fail("load(save(m)) saves to the same bytes", "they differ");
  return 0;
}
