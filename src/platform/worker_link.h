// worker_link.h — the page's training session in a Web Worker (web/worker.js, worker_main.cpp): an
// io/session_link.h SessionLink whose state() is rebuilt from the worker's messages. If the worker
// cannot start, or stops, the link carries on in the page: it replays the run's commands into a session
// of its own (the same run: the same seed gives the same numbers), trains in slices of the frames as
// before, and says so once on screen.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "session_link.h"

namespace attnlab {

// nullptr when the page has no worker (`?worker=0`, or none could be made): then use a local link.
// `report` tells the learner, on screen, that training moved to the page's thread and why.
std::unique_ptr<attn::SessionLink> make_worker_link(std::function<void(const std::string&)> report);

}  // namespace attnlab
