// (b) text syntax -> model, along the path the golden tests take: ir::loadModelFromText
// (onnx::OnnxParser behind onnx-opt's guard, then the import as golden_runner does it), the verifier, printer and saver.
// Whatever the text, this returns an error or a model; a model that verifies prints, saves, and
// loads back to a model that verifies and prints the same.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "onnxopt/ir/printer.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxopt;
  const ir::LoadOptions load_options = fuzz::loadOptions();
  absl::StatusOr<std::unique_ptr<ir::Model>> model = ir::loadModelFromText(
      absl::string_view(reinterpret_cast<const char*>(data), size), load_options);
  if (!model.ok() || !ir::verify(**model).ok()) return 0;

  const std::string printed = ir::printModel(**model);
  const std::string saved = fuzz::checked(ir::saveModelToBytes(**model), "a verified model saves");
  std::unique_ptr<ir::Model> reloaded =
      fuzz::checked(ir::loadModelFromBytes(saved, load_options), "a saved model loads");
  fuzz::check(ir::verify(*reloaded), "a saved model verifies after loading");
  if (ir::printModel(*reloaded) != printed) {
    fuzz::fail("load(save(m)) prints as m does", "the printed texts differ");
  }
  return 0;
}
