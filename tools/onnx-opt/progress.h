#pragma once

// The progress line onnx-opt draws on a terminal's stderr while it loads, optimizes and saves:
// one line, rewritten in place with '\r', at most once per interval, erased when a stage ends.

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

#include "absl/strings/string_view.h"

namespace onnxopt::cli {

// "512 B", "1.5 KiB", "3.2 GiB": one decimal from KiB on.
std::string formatBytes(int64_t bytes);

class ProgressLine {
 public:
  // Seconds on a monotonic clock; tests pass their own.
  using Clock = std::function<double()>;
  static double steadySeconds();

  // Draws on `out`, no more often than every `interval` seconds; the first line comes only
  // `interval` after construction, so a quick run draws nothing. `columns` (0: unknown) is the
  // terminal's width: longer lines are cut, since a wrapped line cannot be rewritten with '\r'.
  ProgressLine(std::ostream& out, double interval, int columns, Clock clock = steadySeconds);
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { clear(); }

  // Starts a stage ("loading", "optimizing", "saving"): rates count from now.
  void beginStage(absl::string_view label);
  // "loading: 1.2 GiB of 3.4 GiB (35%), 812.0 MiB/s"; without the total when it is negative.
  void bytes(int64_t done, int64_t total);
  // "optimizing: round 1, pass 2/4 fuse-matmul-add-gemm, 12288 nodes visited, 40960 nodes/s"
  void pass(int64_t round, size_t position, size_t passes, absl::string_view pass,
            int64_t nodes_visited);
  // Erases the line, if one is drawn.
  void clear();

 private:
  // What a line says: the text, and a rate to append where the terminal has room for both (a
  // narrow terminal loses the rate before the text is cut).
  struct Text {
    std::string text;
    std::string rate;
  };
  // Draws the text `make` returns, if the interval has passed since the last draw.
  void draw(const std::function<Text(double stage_seconds)>& make);

  std::ostream& out_;
  const double interval_;
  const int columns_;
  const Clock clock_;
  std::string label_;
  double stage_start_;
  double last_draw_;
  size_t drawn_width_ = 0;  // of the line on screen; 0: none
};

}  // namespace onnxopt::cli
