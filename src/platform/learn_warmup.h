// learn_warmup.h — Learn mode drawn once, out of sight, before a learner opens it.
//
// A browser compiles each WebAssembly function the first time it is called. Learn mode's first frame
// therefore took 53-57 ms in headless Chromium on two cores, and its first run was drawn while the
// browser was still compiling its panels, beside the training worker. The web shell calls this once
// the lab is idle after its first frame. It draws a few frames of Learn mode, a two-step run included,
// for a throwaway App in a throwaway ImGui context that shares the lab's font atlas. Nothing reaches
// the screen, and the lab's App and context are left as they were.
#pragma once

namespace attnlab {

struct App;

// `lab`: the shell's App, for its scale (the warm frames lay out as the learner's will). Returns the
// frames drawn, 0 when nothing was (no ImGui context, or the run was refused).
int warm_learn_mode(const App& lab);

}  // namespace attnlab
