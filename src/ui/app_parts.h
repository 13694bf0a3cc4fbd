// app_parts.h — what the files of App's work share among themselves (app.cpp, frame.cpp, layout.cpp,
// shortcuts.cpp): not for panels, which use app.h.
#pragma once

namespace attnlab {

struct App;

void refresh_labels(App& app);                  // app.cpp: the token labels for the current result
void handle_shortcuts(App& app);                // shortcuts.cpp: this frame's shortcut keys
void keep_on_screen(App& app, const char* name);  // layout.cpp: a floating window inside the display
void remember_windows(App& app);                // layout.cpp: every top-level window drawn this frame
void resume_text_capture(App& app);             // frame.cpp: the text capture goes on in the next window

}  // namespace attnlab
