#include "progress.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace onnxopt::cli {

std::string formatBytes(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " B");
  constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024;
  size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return absl::StrFormat("%.1f %s", value, kUnits[unit]);
}

double ProgressLine::steadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

ProgressLine::ProgressLine(std::ostream& out, double interval, int columns, Clock clock)
    : out_(out), interval_(interval), columns_(columns), clock_(std::move(clock)) {
  stage_start_ = last_draw_ = clock_();
}

void ProgressLine::beginStage(absl::string_view label) {
  label_ = std::string(label);
  stage_start_ = clock_();
}

void ProgressLine::bytes(int64_t done, int64_t total) {
  draw([&](double seconds) {
    std::string text = absl::StrCat(label_, ": ", formatBytes(done));
    if (total >= 0) {
      absl::StrAppend(&text, " of ", formatBytes(total));
      if (total > 0) absl::StrAppend(&text, " (", 100 * done / total, "%)");
    }
    if (seconds <= 0) return Text{text, ""};
    return Text{text, absl::StrFormat(", %.1f MiB/s",
                                      static_cast<double>(done) / seconds / (1 << 20))};
  });
}

void ProgressLine::pass(int64_t round, size_t position, size_t passes, absl::string_view pass,
                        int64_t nodes_visited) {
  draw([&](double seconds) {
    std::string text = absl::StrCat(label_, ": round ", round, ", ");
    if (position < passes) {
      absl::StrAppend(&text, "pass ", position + 1, "/", passes, " ", pass, ", ");
    } else {
      absl::StrAppend(&text, "done, ");
    }
    absl::StrAppend(&text, nodes_visited, " nodes visited");
    if (seconds <= 0) return Text{text, ""};
    return Text{text,
                absl::StrFormat(", %.0f nodes/s", static_cast<double>(nodes_visited) / seconds)};
  });
}

void ProgressLine::draw(const std::function<Text(double stage_seconds)>& make) {
  const double now = clock_();
  if (now - last_draw_ < interval_) return;
  last_draw_ = now;
  Text made = make(now - stage_start_);
  std::string text = std::move(made.text);
  // The last column stays free, so that the cursor stays on the line.
  const auto fits = [&](size_t size) { return columns_ <= 1 || size < static_cast<size_t>(columns_); };
  if (fits(text.size() + made.rate.size())) text += made.rate;
  if (!fits(text.size())) text.resize(columns_ - 1);
  const size_t width = text.size();
  // Spaces over what is left of a longer previous line.
  if (drawn_width_ > width) text.append(drawn_width_ - width, ' ');
  out_ << '\r' << text;
  out_.flush();
  drawn_width_ = width;
}

void ProgressLine::clear() {
  if (drawn_width_ == 0) return;
  out_ << '\r' << std::string(drawn_width_, ' ') << '\r';
  out_.flush();
  drawn_width_ = 0;
}

}  // namespace onnxopt::cli
