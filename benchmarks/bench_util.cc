#include "bench_util.h"

#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "onnx/onnx_pb.h"
#include "onnxopt/ir/serialization.h"
#include "onnxopt/ir/type.h"
#include "onnxopt/pass/pass_manager.h"
#include "synthetic_models.h"

namespace onnxopt::bench {
namespace {

// Reads a whole file into an uninitialised buffer (no zero fill, unlike std::string::resize).
std::string readRaw(const std::string& path, std::unique_ptr<char[]>* buffer, size_t* size) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return "cannot open " + path;
  *size = static_cast<size_t>(fileSize(path));
  buffer->reset(new char[*size > 0 ? *size : 1]);
  size_t read = *size ? std::fread(buffer->get(), 1, *size, file) : 0;
  std::fclose(file);
  if (read != *size) return "short read from " + path;
  return "";
}

std::string writeRaw(const std::string& path, const char* data, size_t size) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (!file) return "cannot create " + path;
  size_t written = size ? std::fwrite(data, 1, size, file) : 0;
  if (std::fclose(file) != 0 || written != size) return "cannot write " + path;
  return "";
}

}  // namespace

std::string protobufFloorBytes(const std::string& bytes) {
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return "ParseFromString failed";
  std::string out;
  if (!model.SerializeToString(&out)) return "SerializeToString failed";
  if (out.size() != bytes.size()) return "floor changed the size";
  return "";
}

std::string protobufFloorFile(const std::string& in_path, const std::string& out_path) {
  onnx::ModelProto model;
  {
    std::unique_ptr<char[]> buffer;
    size_t size = 0;
    std::string error = readRaw(in_path, &buffer, &size);
    if (!error.empty()) return error;
    if (size > static_cast<size_t>(INT32_MAX) ||
        !model.ParseFromArray(buffer.get(), static_cast<int>(size))) {
      return "ParseFromArray failed for " + in_path;
    }
  }
  std::string out;
  if (!model.SerializeToString(&out)) return "SerializeToString failed";
  return writeRaw(out_path, out.data(), out.size());
}

std::string copyFileThroughMemory(const std::string& in_path, const std::string& out_path) {
  std::unique_ptr<char[]> buffer;
  size_t size = 0;
  std::string error = readRaw(in_path, &buffer, &size);
  if (!error.empty()) return error;
  return writeRaw(out_path, buffer.get(), size);
}

std::string libraryLoadSaveFile(const std::string& in_path, const std::string& out_path) {
  auto model = ir::loadModelFromFile(in_path);
  if (!model.ok()) return std::string(model.status().message());
  absl::Status saved = ir::saveModelToFile(**model, out_path);
  if (!saved.ok()) return std::string(saved.message());
  return "";
}

std::string libraryOptimizeFile(const std::string& in_path, const std::string& out_path,
                                const std::string& pipeline, int64_t* largest_tensor_bytes) {
  auto model = ir::loadModelFromFile(in_path);
  if (!model.ok()) return std::string(model.status().message());
  PassManager manager;
  if (absl::Status added = manager.addPipeline(pipeline); !added.ok()) {
    return std::string(added.message());
  }
  auto report = manager.run(**model);
  if (!report.ok()) return std::string(report.status().message());
  *largest_tensor_bytes = 0;
  for (const ir::Value* value : (*model)->graph().initializers()) {
    const ir::Tensor& tensor = *value->initializer();
    const int64_t bytes = tensor.numElements().value_or(0) * ir::elemTypeSize(tensor.dataType());
    *largest_tensor_bytes = std::max(*largest_tensor_bytes, bytes);
  }
  absl::Status saved = ir::saveModelToFile(**model, out_path);
  if (!saved.ok()) return std::string(saved.message());
  return "";
}

std::string libraryLoadSaveBytes(const std::string& bytes) {
  auto model = ir::loadModelFromBytes(bytes);
  if (!model.ok()) return std::string(model.status().message());
  auto out = ir::saveModelToBytes(**model);
  if (!out.ok()) return std::string(out.status().message());
  return "";
}

void keepFreedMemory() {
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
}

int64_t peakRssBytes() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

int64_t currentRssBytes() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (!file) return -1;
  long pages_total = 0, pages_resident = 0;
  int n = std::fscanf(file, "%ld %ld", &pages_total, &pages_resident);
  std::fclose(file);
  if (n != 2) return -1;
  return static_cast<int64_t>(pages_resident) * sysconf(_SC_PAGESIZE);
}

}  // namespace onnxopt::bench
