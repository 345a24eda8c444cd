// Peak memory of one scenario per process, relative to the model file's size.
//
//   peak_memory generate <dir> <MiB> [MODEL]   write the big-weights model (if absent)
//   peak_memory <scenario> <dir> <MiB> [MODEL]  run one scenario, print its peak RSS
//
// MODEL: inline (the default), external, or foldable-inline / foldable-external (each weight
// read through a Transpose; writeBigWeightsModel). Scenarios: floor (read file, ParseFromArray,
// SerializeToString, write file), loadsave (loadModelFromFile + saveModelToFile), copy (read the
// file into memory and write it out), loadsave-bytes (file read into a string,
// loadModelFromBytes + saveModelToBytes; the string counts), fold (loadModelFromFile,
// fold-constants, saveModelToFile). Output, one line: key=value pairs, with ratio = max RSS /
// model file size (for external data, the sizes of the .onnx and its .data file together); fold
// adds held_ratio = max RSS / (model size + the largest tensor after folding), whose held line
// is 1.2 (issue 18).

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "bench_util.h"
#include "synthetic_models.h"

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: peak_memory generate|floor|loadsave|copy|loadsave-bytes|fold <dir> <MiB> "
               "[inline|external|foldable-inline|foldable-external]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace onnxopt::bench;
  if (argc < 4 || argc > 5) return usage();
  const std::string scenario = argv[1];
  const std::string dir = argv[2];
  const int64_t mib = std::atoll(argv[3]);
  const std::string kind = argc == 5 ? argv[4] : "inline";
  const bool foldable = kind.rfind("foldable-", 0) == 0;
  const std::string layout = foldable ? kind.substr(std::strlen("foldable-")) : kind;
  const bool external = layout == "external";
  if (!external && layout != "inline") return usage();
  if (mib <= 0 || (scenario == "fold" && !foldable)) return usage();

  const std::string in = dir + "/" + bigWeightsModelName(mib << 20, external, foldable);
  const std::string out = dir + "/peak_out_" + bigWeightsModelName(mib << 20, external, foldable);
  if (scenario == "generate") {
    writeBigWeightsModel(dir, mib << 20, external, 64, foldable);
    std::printf("generated %s (%lld bytes)\n", in.c_str(),
                static_cast<long long>(fileSize(in)));
    return 0;
  }

  const int64_t baseline = currentRssBytes();
  std::string error;
  int64_t largest_tensor = 0;
  if (scenario == "floor") {
    error = protobufFloorFile(in, out);
  } else if (scenario == "loadsave") {
    error = libraryLoadSaveFile(in, out);
  } else if (scenario == "copy") {
    error = copyFileThroughMemory(in, out);
  } else if (scenario == "loadsave-bytes") {
    error = libraryLoadSaveBytes(readFile(in));
  } else if (scenario == "fold") {
    error = libraryOptimizeFile(in, out, "fold-constants", &largest_tensor);
  } else {
    return usage();
  }
  const int64_t peak = peakRssBytes();
  std::remove(out.c_str());
  std::remove((out + ".data").c_str());
  if (!error.empty()) {
    std::fprintf(stderr, "peak_memory %s: %s\n", scenario.c_str(), error.c_str());
    return 1;
  }
  int64_t size = fileSize(in);
  if (external) size += fileSize(in + ".data");
  const double to_mib = 1.0 / (1 << 20);
  std::printf(
      "scenario=%s model=%s file_MiB=%.1f max_rss_MiB=%.1f baseline_rss_MiB=%.1f "
      "ratio=%.3f ratio_above_baseline=%.3f",
      scenario.c_str(), kind.c_str(), size * to_mib, peak * to_mib,
      baseline * to_mib, static_cast<double>(peak) / size,
      static_cast<double>(peak - baseline) / size);
  if (scenario == "fold") {
    std::printf(" largest_tensor_MiB=%.1f held_ratio=%.3f", largest_tensor * to_mib,
                static_cast<double>(peak) / static_cast<double>(size + largest_tensor));
  }
  std::printf("\n");
  return 0;
}
