// line_plot.cpp — the line plot widget (line_plot.h).
#include "line_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "i18n.h"
#include "widgets.h"

namespace attnlab {

void line_plot(const LinePlot& plot, const std::vector<PlotSeries>& series) {
  const float x_max = plot.x_max, y_lo = plot.y_lo, y_hi = plot.y_hi;
  const int marker = plot.marker;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + plot.size.x);  // a long title (a longer language) wraps over the plot
  text_wrapped_words("%s", plot.title);
  ImGui::PopTextWrapPos();
  if (plot.help) ImGui::SameLine(), help_marker(plot.help);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  const float label_w = ImGui::CalcTextSize("0.000").x + 4.0f;
  const ImVec2 a(p0.x + label_w, p0.y), b(p0.x + plot.size.x, p0.y + plot.size.y - ImGui::GetTextLineHeight());
  ImGui::InvisibleButton(plot.id, plot.size);
  const bool hovered = ImGui::IsItemHovered();
  dl->AddRectFilled(a, b, IM_COL32(22, 24, 28, 255));
  const auto X = [&](float x) { return a.x + (b.x - a.x) * (x_max > 0 ? x / x_max : 0.0f); };
  const auto Y = [&](float y) { return b.y - (b.y - a.y) * std::clamp((y - y_lo) / (y_hi - y_lo), 0.0f, 1.0f); };
  char buf[32];
  // grid and value labels: five, or three when the plot is too short for five to stay apart
  const int ticks = b.y - a.y < 6.0f * ImGui::GetTextLineHeight() ? 2 : 4;
  for (int k = 0; k <= ticks; ++k) {
    const float v = y_lo + (y_hi - y_lo) * (float)k / (float)ticks;
    dl->AddLine(ImVec2(a.x, Y(v)), ImVec2(b.x, Y(v)), IM_COL32(255, 255, 255, k == 0 ? 60 : 22));
    std::snprintf(buf, sizeof buf, plot.y_format, v);
    dl->AddText(ImVec2(p0.x, Y(v) - ImGui::GetTextLineHeight() * 0.5f), IM_COL32(160, 160, 160, 255), buf);
  }
  std::snprintf(buf, sizeof buf, "%d", (int)x_max);
  dl->AddText(ImVec2(b.x - ImGui::CalcTextSize(buf).x, b.y), IM_COL32(160, 160, 160, 255), buf);
  dl->AddText(ImVec2(a.x, b.y), IM_COL32(160, 160, 160, 255), tr("plot.step_zero"));
  dl->PushClipRect(a, b, true);
  std::vector<ImVec2> line;
  for (const PlotSeries& s : series) {
    // At most about two points per pixel: average runs of points that share a pixel.
    line.clear();
    const size_t per = std::max<size_t>(1, s.pts.size() / (size_t)std::max(1.0f, 2.0f * (b.x - a.x)));
    for (size_t i = 0; i < s.pts.size(); i += per) {
      float sx = 0, sy = 0;
      const size_t end = std::min(s.pts.size(), i + per);
      for (size_t j = i; j < end; ++j) sx += s.pts[j].x, sy += s.pts[j].y;
      line.emplace_back(X(sx / (float)(end - i)), Y(sy / (float)(end - i)));
    }
    if (line.size() == 1) dl->AddCircleFilled(line[0], s.thickness + 1.5f, s.color);
    else dl->AddPolyline(line.data(), (int)line.size(), s.color, 0, s.thickness);
  }
  if (marker >= 0) dl->AddLine(ImVec2(X((float)marker), a.y), ImVec2(X((float)marker), b.y), IM_COL32(255, 205, 90, 200), 2.0f);
  dl->PopClipRect();
  if (hovered && x_max > 0) {
    const float step = std::clamp((ImGui::GetIO().MousePos.x - a.x) / (b.x - a.x), 0.0f, 1.0f) * x_max;
    dl->AddLine(ImVec2(X(step), a.y), ImVec2(X(step), b.y), IM_COL32(255, 255, 255, 90));
    ImGui::BeginTooltip();
    ImGui::TextUnformatted(trf("plot.step", {{"step", (int)std::lround(step)}}).c_str());
    for (const PlotSeries& s : series) {
      if (s.pts.empty()) continue;
      const auto it = std::min_element(s.pts.begin(), s.pts.end(),
                                       [&](const ImVec2& u, const ImVec2& v) { return std::fabs(u.x - step) < std::fabs(v.x - step); });
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(s.color), "%s",
                         trf("plot.point", {{"name", s.name}, {"value", num(it->y, 4)}, {"step", (int)it->x}}).c_str());
    }
    ImGui::EndTooltip();
  }
}

}  // namespace attnlab
