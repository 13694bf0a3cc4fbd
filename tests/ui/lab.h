// lab.h — the lab's real UI run headless (no renderer), driven through Dear ImGui's input queue.
// Shared by the UI test files.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "app.h"
#include "imgui.h"
#include "imgui_internal.h"

namespace labtest {

using attnlab::App;
using attnlab::View;

class Lab : public ::testing::Test {
 protected:
  App app;
  void SetUp() override { open(1280, 720); }
  void TearDown() override { ImGui::DestroyContext(); }

  void open(float w, float h) {
    if (ImGui::GetCurrentContext()) ImGui::DestroyContext();
    ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = ImVec2(w, h);
    // Dear ImGui 1.86 maps its named keys to the backend's key codes; any distinct indices will do.
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k + 1;
    app.config = attnlab::default_lab_config();
    app.text = app.config.target.text;
    attnlab::setup_style(app, nullptr, 0, 1.0f);
    unsigned char* pixels;
    int pw, ph;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &pw, &ph);
    frames(2);
  }

#ifdef ATTNLAB_FONT_PATH
  // The shells' font (DejaVu Sans, wider than Dear ImGui's built-in one) at UI scale `scale`, for tests
  // of what fits at a size.
  void use_shell_font(float scale) {
    static const std::vector<char> font = [] {
      std::ifstream in(ATTNLAB_FONT_PATH, std::ios::binary);
      return std::vector<char>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }();
    ASSERT_FALSE(font.empty()) << ATTNLAB_FONT_PATH;
    attnlab::setup_style(app, font.data(), (int)font.size(), scale);
    unsigned char* pixels;
    int pw, ph;
    ImGui::GetIO().Fonts->GetTexDataAsRGBA32(&pixels, &pw, &ph);
  }
#endif

  void frames(int n) {
    for (int i = 0; i < n; ++i) {
      ImGuiIO& io = ImGui::GetIO();
      io.DeltaTime = 1.0f / 60.0f;
      ImGui::NewFrame();
      attnlab::frame(app);
      ImGui::Render();
    }
  }
  void click(ImVec2 p, bool ctrl = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = p;
    io.KeyCtrl = ctrl;
    frames(1);
    io.MouseDown[0] = true;
    frames(1);
    io.MouseDown[0] = false;
    frames(1);
    io.KeyCtrl = false;
    frames(1);
  }
  void key(ImGuiKey k, bool ctrl = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeysDown[io.KeyMap[k]] = true;
    frames(1);
    io.KeysDown[io.KeyMap[k]] = false;
    io.KeyCtrl = false;
    frames(1);
  }
  void type(const std::string& s) {
    ImGui::GetIO().AddInputCharactersUTF8(s.c_str());
    frames(2);
  }
  ImRect window(const char* name) {
    ImGuiWindow* w = attnlab::find_window(name);
    EXPECT_NE(w, nullptr) << name;
    return w ? w->Rect() : ImRect();
  }
  // The text box: first widget under the "Text" line of the Input window.
  ImVec2 text_box() {
    const ImRect r = window("Input");
    const ImGuiStyle& st = ImGui::GetStyle();
    return ImVec2(r.Min.x + 60.0f, r.Min.y + ImGui::GetFrameHeight() + st.WindowPadding.y + ImGui::GetTextLineHeightWithSpacing() + 12.0f);
  }
  // The centre of a cell, on screen: a matrix below the fold of the Matrices panel (or above it) is
  // first brought into view with the mouse wheel, as a person would.
  ImVec2 cell(View v, int i, int j) {
    const auto at = [&] {
      const attnlab::ViewRect& r = app.view_rects[(int)v];
      return ImVec2(r.x + r.cell_w * (j + 0.5f), r.y + r.cell_h * (i + 0.5f));
    };
    ImGuiWindow* m = attnlab::find_window(app.ui.presenter ? "Presenter" : "Matrices");
    for (int k = 0; k < 80 && m && app.view_rects[(int)v].drawn; ++k) {
      const ImVec2 p = at();
      const ImRect inner = m->InnerClipRect;
      if (p.y >= inner.Min.y + 4.0f && p.y <= inner.Max.y - 4.0f && p.x >= inner.Min.x && p.x <= inner.Max.x) break;
      ImGuiIO& io = ImGui::GetIO();
      const ImVec2 saved = io.MousePos;
      io.MousePos = inner.GetCenter();
      io.MouseWheel = p.y > inner.Max.y - 4.0f ? -1.0f : p.y < inner.Min.y + 4.0f ? 1.0f : 0.0f;
      io.MouseWheelH = io.MouseWheel == 0.0f ? (p.x > inner.Max.x ? -1.0f : 1.0f) : 0.0f;
      frames(1);
      io.MouseWheel = io.MouseWheelH = 0.0f;
      io.MousePos = saved;
      frames(1);
    }
    EXPECT_TRUE(app.view_rects[(int)v].drawn) << attnlab::view_key(v);
    return at();
  }
  // Pastes `s` into the focused widget through the clipboard, as Ctrl+V does.
  void paste(const std::string& s) {
    clipboard = s;
    ImGuiIO& io = ImGui::GetIO();
    io.ClipboardUserData = &clipboard;
    io.GetClipboardTextFn = [](void* user) { return static_cast<std::string*>(user)->c_str(); };
    key(ImGuiKey_V, true);
    frames(2);
  }
  std::string clipboard;
  void replace_text(const std::string& s) {
    click(text_box());
    key(ImGuiKey_A, true);  // select all
    type(s);
    frames(2);
  }
  const attn::Result& result() { return app.engine.result(); }
};

}  // namespace labtest
