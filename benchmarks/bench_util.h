#pragma once

// Operations shared by the benchmark binaries and peak_memory: the bare-protobuf floor and the
// library's load/save, on bytes or on files. Each returns an error message ("" on success).

#include <cstdint>
#include <string>

namespace onnxopt::bench {

// The floor on bytes: ModelProto::ParseFromString + SerializeToString (and the proto's and the
// output's destruction).
std::string protobufFloorBytes(const std::string& bytes);

// The floor on files: read the whole file into one buffer, ParseFromArray, release the buffer,
// SerializeToString, write the output file. At its peak it holds two copies of the model (the
// parsed proto and the serialized output).
std::string protobufFloorFile(const std::string& in_path, const std::string& out_path);

// Read the file into one buffer and write it out again: the physical limit of a load+save.
std::string copyFileThroughMemory(const std::string& in_path, const std::string& out_path);

// The library: loadModelFromFile + saveModelToFile (+ the model's destruction).
std::string libraryLoadSaveFile(const std::string& in_path, const std::string& out_path);

// loadModelFromFile, the passes of `pipeline`, saveModelToFile (+ destruction). Sets
// `largest_tensor_bytes` to the largest initializer's data after the passes (inline or
// external, from its dims and type).
std::string libraryOptimizeFile(const std::string& in_path, const std::string& out_path,
                                const std::string& pipeline, int64_t* largest_tensor_bytes);

// The library on bytes: loadModelFromBytes + saveModelToBytes (+ destruction).
std::string libraryLoadSaveBytes(const std::string& bytes);

// Keeps memory the process frees instead of handing it back to the system (glibc's trim and mmap
// thresholds), so that every benchmark iteration, the floor's included, starts from the same warm
// heap. Whether glibc gives the heap's free top back after an iteration (and the next one faults
// it in again) depends on where the last long-lived allocation happened to land: it changed from
// build to build with no change in the code measured. For the timing binaries; peak_memory,
// which measures what a process holds, does not call it.
void keepFreedMemory();

// Peak resident set size of this process so far (getrusage ru_maxrss), in bytes.
int64_t peakRssBytes();
// Current resident set size (from /proc/self/statm), in bytes.
int64_t currentRssBytes();

}  // namespace onnxopt::bench
