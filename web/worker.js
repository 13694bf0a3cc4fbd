// Learn mode's training on a thread of its own (docs/web-api.md, "Training off the page's thread"):
// loads the engine-only module and runs the session there. Messages in: {command: ArrayBuffer},
// {taken: true} (the page applied the last state), {weights: true} (send the weights now). Messages
// out: {ready: true}, {state: ArrayBuffer}, {weights: Float32Array, step, run, replayed}, {failed: text}.
// It trains in slices of kSliceMs and yields between them so that commands arrive; while the page has
// not taken a state message it sends no other (the next one carries everything since).
'use strict';
const kSliceMs = 15;
// A throwaway run once the worker is ready, so that the learner's first run does not pay for the
// browser's compiling and optimising the training code (worker_main.cpp, worker_warm): this much
// training in all, in slices, until the page's first command ends it.
const kWarmMs = 600;
let M = null, waiting = [], pageHasState = true, stateDirty = true, weightsWanted = false, wasBusy = false, scheduled = false;
let warming = false;

function fail(e) { postMessage({ failed: String((e && e.message) || e) }); close(); }
self.onerror = (e) => { fail(e.message || e); };

function command(buffer) {
  const bytes = new Uint8Array(buffer);
  const p = M._malloc(bytes.length);
  M.HEAPU8.set(bytes, p);
  M._worker_command(p, bytes.length);
  M._free(p);
  stateDirty = true;
}

// The weights go to the page when they can be needed and have changed: a run paused, over or replayed
// (and on request), never on every step.
function sendWeights() {
  const sp = M._malloc(12);
  for (const replayed of [0, 1]) {
    const p = M._worker_weights(replayed, sp, sp + 4, sp + 8);
    const count = M.HEAP32[sp >> 2], step = M.HEAP32[(sp + 4) >> 2], run = M.HEAP32[(sp + 8) >> 2];
    if (!count) continue;
    const weights = new Float32Array(M.HEAPF32.buffer, p, count).slice();
    postMessage({ weights, step, run, replayed: !!replayed }, [weights.buffer]);
  }
  M._free(sp);
}

function pump() {
  scheduled = false;
  try {
    const busy = M._worker_busy();
    if (busy) stateDirty = M._worker_work(kSliceMs) || stateDirty;
    if (stateDirty && pageHasState) {
      const sp = M._malloc(4);
      const p = M._worker_state(sp);
      const bytes = M.HEAPU8.slice(p, p + M.HEAP32[sp >> 2]);
      M._free(sp);
      postMessage({ state: bytes.buffer }, [bytes.buffer]);
      pageHasState = false;
      stateDirty = false;
    }
    const still = M._worker_busy();
    // Training stopped (paused, over, diverged) or the page asked: the weights it may now need.
    if (weightsWanted || (wasBusy && !still)) sendWeights(), weightsWanted = false;
    wasBusy = still;
    // Training goes on. (A state the page has not taken yet waits for its {taken}, which schedules
    // the pump that sends it: re-scheduled from here it would spin a core the page needs to draw.)
    if (still) {
      schedule();
    } else if (warming) {  // nothing else to do: a slice of the warm-up
      warming = M._worker_warm(kSliceMs, kWarmMs) === 1;
      if (warming) schedule();
    }
  } catch (e) {
    fail(e);
  }
}
// The next slice as a message to itself, not setTimeout(0): a browser holds chained timeouts back by
// 4 ms each after the fifth, which cost a fifth of the worker's time at 15 ms slices. The page's
// messages wait in the same queue, so they still arrive between slices.
const tick = new MessageChannel();
tick.port1.onmessage = pump;
function schedule() {
  if (!scheduled) scheduled = true, tick.port2.postMessage(0);
}

function handle(data) {
  if (data.command) {
    if (warming) warming = false, M._worker_warm_end();  // the learner's session has the worker now
    command(data.command);
  }
  if (data.taken) pageHasState = true;
  if (data.weights) weightsWanted = true;
  schedule();
}
self.onmessage = (e) => { if (M) handle(e.data); else waiting.push(e.data); };

try {
  importScripts('attnlab-worker.js');
  AttnlabWorker().then((module) => {
    M = module;
    postMessage({ ready: true });
    warming = true;
    for (const d of waiting) handle(d);  // (commands that came while the module loaded: no warm-up then)
    waiting = [];
    schedule();
  }, fail);
} catch (e) {
  fail(e);
}
