// session_wire.h — a training session's commands and state as bytes, for a session that runs on
// another thread (a std::thread on the desktop, a Web Worker in the page) than the UI that drives it.
//
//   UI side                                    session side
//   encode_command(c) ───── command bytes ───▶ decode_command → Session::apply
//   apply_state(bytes, mirror) ◀─ state bytes ─ encode_state(session.state(), cursor)
//
// A state message carries only what changed since the last one the cursor recorded: the small fields
// always; evaluations and batch losses added since; the probe, the replayed probe, the comparison,
// the ideal pattern and the snapshot steps only when their version moved (SessionState::Versions).
// Applied in order, the messages rebuild the sender's state exactly (every float bit for bit).
//
// Sizes: a command is its setup as JSON (≈ 1 KB) plus, for OpenModel, 4 bytes per parameter. A state
// message is ≈ 200 bytes plus ≈ 80 bytes per new evaluation (plus 8 per layer × head × relation),
// 4 per new batch loss, and, when it changed, the probe (4 bytes per attention weight: layers × heads ×
// n × m, twice with gradients, plus 4 per parameter for ∂L/∂W).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "learn/session.h"

namespace attn {

std::vector<uint8_t> encode_command(const learn::Command& c);
// "" or why the bytes are not a command (then `out` is unspecified).
std::string decode_command(std::span<const uint8_t> bytes, learn::Command& out);

// What the receiver has: the versions and counts of the last state message encoded.
struct StateCursor {
  bool any = false;  // nothing sent yet: the next message carries everything
  learn::SessionState::Versions versions;
  size_t history = 0, train_loss = 0;
};
std::vector<uint8_t> encode_state(const learn::SessionState& s, StateCursor& sent);
// Applies one message to the receiver's copy. "" or why not (then the copy is unchanged).
std::string apply_state(std::span<const uint8_t> bytes, learn::SessionState& mirror);

}  // namespace attn
