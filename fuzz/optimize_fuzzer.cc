// (c) bytes -> load -> -O1 or -O2 -> verify -> save -> load: on any model that loads and
// verifies, the pipeline either succeeds or fails with an error, and either way leaves a model
// that verifies (optimize() promises a valid model even after a failing pass), saves, and loads
// back. Inputs of even size run -O1, of odd size -O2 (its passes beyond -O1's), so that a
// mutation that adds or drops a byte tries the other.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "fuzz_check.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/verifier.h"
#include "onnxopt/onnxopt.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace onnxopt;
  const ir::LoadOptions load_options = fuzz::loadOptions();
  std::unique_ptr<ir::Model> model = fuzz::loadVerified(data, size);
  if (model == nullptr) return 0;

  OptimizeOptions options;
  options.fixed_point = true;  // as the CLI runs named pipelines
  const char* pipeline = size % 2 == 0 ? "-O1" : "-O2";
  // The status is not checked: a pass may refuse a model. The model must stay valid regardless.
  (void)optimizeModel(*model, pipeline, options);
  fuzz::check(ir::verify(*model), "the model verifies after the pipeline");
  const std::string saved =
      fuzz::checked(ir::saveModelToBytes(*model), "an optimized model saves");
  std::unique_ptr<ir::Model> reloaded =
      fuzz::checked(ir::loadModelFromBytes(saved, load_options), "an optimized model loads back");
  fuzz::check(ir::verify(*reloaded), "an optimized model verifies after loading");
  return 0;
}
