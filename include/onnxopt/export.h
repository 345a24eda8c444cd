#pragma once

// ONNXOPT_API marks what libonnxopt.so exports: the public classes and functions of
// include/onnxopt/. The library is compiled with -fvisibility=hidden and
// -fvisibility-inlines-hidden, so everything else (the private headers, anonymous namespaces) stays
// inside it. Put it between `class` and the name, or before a function's return type:
//
//   class ONNXOPT_API Pass { ... };
//   ONNXOPT_API absl::Status verify(const Model& model);
//
// Not marked: class templates (each program instantiates its own) and classes whose members are
// all inline (nothing to export). tests/api/check_exported_symbols.py checks that the library
// exports every marked name and nothing else; docs/packaging.md has the ABI policy.

#define ONNXOPT_API __attribute__((visibility("default")))
