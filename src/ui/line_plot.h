// line_plot.h — a stateless line plot: series of (x, y) points in, pixels and a hover readout out
// (Learn mode's curves). It keeps nothing between frames; the caller owns the data.
#pragma once
#include <string>
#include <vector>

#include "imgui.h"

namespace attnlab {

struct PlotSeries {
  std::vector<ImVec2> pts;  // (step, value), steps increasing
  ImU32 color;
  float thickness;
  std::string name;         // in the hover readout
};

struct LinePlot {
  const char* id = "##plot";  // the plot's ImGui ID (an invisible button over it)
  const char* title = "";     // the line above it
  const char* help = nullptr; // a "(?)" after the title, or none
  ImVec2 size{0, 0};          // the plot with its axis labels, under the title
  float x_max = 0.0f;         // the steps axis spans [0, x_max]
  float y_lo = 0.0f, y_hi = 1.0f;
  const char* y_format = "%.2f";  // the value labels (printf)
  int marker = -1;            // a step marked by a vertical line (the replayed snapshot); -1 none
};

// Draws `plot` with `series` over it. Runs of points that share a pixel are averaged (at most about
// two points per pixel), a single point is a dot; hovering shows each series' nearest point.
void line_plot(const LinePlot& plot, const std::vector<PlotSeries>& series);

}  // namespace attnlab
