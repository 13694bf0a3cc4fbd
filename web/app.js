// Attention Lab — the page around the WebAssembly app.
//  * checks for WebAssembly and WebGL2 and explains plainly when either is missing;
//  * downloads attnlab.wasm with a progress bar;
//  * exposes window.attnlab (documented in docs/web-api.md): ready, apply, config, result, stats;
//  * reads and writes shareable links: #c=<base64url of the config JSON>.
'use strict';

(function () {
  const loading = document.getElementById('loading');
  const loadingText = document.getElementById('loading-text');
  const bar = document.getElementById('loading-bar');

  function fatal(title, text) {
    loading.hidden = true;
    const box = document.getElementById('fatal');
    box.innerHTML = '';
    const h = document.createElement('h1');
    h.textContent = title;
    const p = document.createElement('p');
    p.textContent = text;
    box.append(h, p);
    box.hidden = false;
  }

  function hasWebGL2() {
    try {
      return !!document.createElement('canvas').getContext('webgl2');
    } catch (e) {
      return false;
    }
  }

  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    fatal('WebAssembly is not available',
          'Attention Lab runs its attention engine as WebAssembly, which this browser does not offer ' +
          '(or has switched off). Any current Chrome, Edge, Firefox or Safari will work.');
    return;
  }
  if (!hasWebGL2()) {
    fatal('WebGL 2 is not available',
          'Attention Lab draws with WebGL 2, which this browser or graphics driver does not provide. ' +
          'Try turning on hardware acceleration, updating the browser, or another browser.');
    return;
  }

  // ---- shareable links ---------------------------------------------------------------------------
  function toBase64Url(text) {
    const bytes = new TextEncoder().encode(text);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function fromBase64Url(s) {
    const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  }
  function configFromHash() {
    const m = /^#c=([A-Za-z0-9_-]*)$/.exec(location.hash);
    if (!m) return null;
    try {
      return JSON.parse(fromBase64Url(m[1]));
    } catch (e) {
      return { error: 'the link is damaged (' + e.message + ')' };
    }
  }
  window.attnlabShare = function (json) {
    const url = location.href.split('#')[0] + '#c=' + toBase64Url(json);
    history.replaceState(null, '', url);
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).catch(() => {});
  };

  // ---- the WebAssembly module --------------------------------------------------------------------
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  function call(name, arg) {
    const M = window.Module;
    if (arg === undefined) return M.UTF8ToString(M['_' + name]());
    const size = M.lengthBytesUTF8(arg) + 1;
    const ptr = M._malloc(size);
    try {
      M.stringToUTF8(arg, ptr, size);
      return M.UTF8ToString(M['_' + name](ptr));
    } finally {
      M._free(ptr);
    }
  }

  const api = {
    ready,
    // Applies a config object (or JSON text) in the attnlab-cli schema; throws an Error naming the
    // field if it is invalid, and then nothing changes.
    apply(config) {
      const text = typeof config === 'string' ? config : JSON.stringify(config);
      if (text === undefined) throw new Error('config: expected an object');
      const err = call('attnlab_apply', text);
      if (err) throw new Error(err);
    },
    config() { return JSON.parse(call('attnlab_config')); },
    result() { return JSON.parse(call('attnlab_result')); },
    stats() { return JSON.parse(call('attnlab_stats')); },
    // Starts stats() afresh, e.g. before measuring a scenario.
    resetStats() { window.Module._attnlab_reset_stats(); },
    // Where matrices and controls are drawn, in CSS pixels (for tests and scripted tours).
    layout() {
      const raw = JSON.parse(call('attnlab_layout'));
      const k = 1 / (window.devicePixelRatio || 1);
      const out = { views: {}, widgets: {} };
      for (const [name, r] of Object.entries(raw)) {
        if ('cell_w' in r) out.views[name] = { x: r.x * k, y: r.y * k, cell_w: r.cell_w * k, cell_h: r.cell_h * k, rows: r.rows, cols: r.cols, head: r.head };
        else out.widgets[name] = { x: r.x * k, y: r.y * k, w: r.w * k, h: r.h * k };
      }
      return out;
    },
    // Learn mode: trains a model on a toy task (options: a training config as `attnlab-cli train` reads it,
    // docs/train.md), switching the page to Learn mode; throws an Error naming the field, and then the
    // current run is kept as it was.
    train(options) {
      const text = typeof options === 'string' ? options : JSON.stringify(options === undefined ? {} : options);
      if (text === undefined) throw new Error('options: expected an object');
      const err = call('attnlab_train', text);
      if (err) throw new Error(err);
    },
    // { state, task, step, steps, steps_per_s, train_loss, loss, accuracy, pattern_score, ... }
    trainStatus() { return JSON.parse(call('attnlab_train_status')); },
    // Every evaluation of the run so far, each as one `attnlab-cli train --log` line.
    trainHistory() { return JSON.parse(call('attnlab_train_history')); },
    // Pauses training (the weights stay; the Train button or train() goes on). Returns trainStatus().
    stopTraining() { window.Module._attnlab_stop_training(); return api.trainStatus(); },
    version: '1',
  };

  window.Module = {
    canvas: document.getElementById('canvas'),
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    // Fetch the .wasm ourselves to show real download progress.
    instantiateWasm(imports, done) {
      fetch('attnlab.wasm').then(async (response) => {
        if (!response.ok) throw new Error('attnlab.wasm: HTTP ' + response.status);
        const total = Number(response.headers.get('Content-Length')) || 0;
        const reader = response.body.getReader();
        const chunks = [];
        let got = 0;
        for (;;) {
          const { done: end, value } = await reader.read();
          if (end) break;
          chunks.push(value);
          got += value.length;
          if (total) bar.value = Math.round((100 * got) / total);
          loadingText.textContent = 'Loading the attention engine… ' + (got / 1048576).toFixed(1) + ' MB';
        }
        const bytes = new Uint8Array(got);
        let at = 0;
        for (const c of chunks) { bytes.set(c, at); at += c.length; }
        loadingText.textContent = 'Starting…';
        const { instance, module } = await WebAssembly.instantiate(bytes, imports);
        done(instance, module);
      }).catch((e) => {
        fatal('Attention Lab could not start', String(e.message || e));
        rejectReady(e);
      });
      return {};
    },
    attnlabFirstFrame() {
      loading.hidden = true;
      document.getElementById('canvas').focus();
      const shared = configFromHash();
      if (shared) {
        try {
          if (shared.error) throw new Error(shared.error);
          api.apply(shared);
        } catch (e) {
          console.warn('Attention Lab: the shared link could not be used: ' + e.message);
        }
      }
      window.attnlab = api;
      resolveReady(api);
    },
    onAbort(what) {
      fatal('Attention Lab stopped', 'Something went wrong inside the engine: ' + what);
      rejectReady(new Error(String(what)));
    },
  };
  window.attnlab = api;  // methods work once `ready` has resolved

  window.addEventListener('hashchange', () => {
    const shared = configFromHash();
    if (!shared) return;
    ready.then(() => {
      try {
        if (shared.error) throw new Error(shared.error);
        api.apply(shared);
      } catch (e) {
        console.warn('Attention Lab: the shared link could not be used: ' + e.message);
      }
    });
  });

  const script = document.createElement('script');
  script.src = 'attnlab.js';
  script.onerror = () => fatal('Attention Lab could not start', 'attnlab.js is missing from this folder.');
  document.body.appendChild(script);
})();
