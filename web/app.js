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
  // #c=<config>[&v=<view: selected head, colour ranges, ...>], each base64url JSON.
  function configFromHash() {
    const m = /^#c=([A-Za-z0-9_-]*)(?:&v=([A-Za-z0-9_-]*))?$/.exec(location.hash);
    if (!m) return null;
    try {
      const config = JSON.parse(fromBase64Url(m[1]));
      if (m[2] !== undefined) Object.defineProperty(config, '__view', { value: JSON.parse(fromBase64Url(m[2])) });
      return config;
    } catch (e) {
      return { error: 'the link is damaged (' + e.message + ')' };
    }
  }
  function linkFor(configJson) {
    return location.href.split('#')[0] + '#c=' + toBase64Url(configJson) + '&v=' + toBase64Url(call('attnlab_view_state'));
  }
  window.attnlabShare = function (json) {
    const url = linkFor(json);
    history.replaceState(null, '', url);
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).catch(() => {});
  };

  // ---- files leaving the lab (Export menu, screenshot()) -----------------------------------------
  function saveBlob(name, blob) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }
  window.attnlabDownload = function (name, mime, bytes) { saveBlob(name, new Blob([bytes], { type: mime })); };
  // The canvas as a PNG data URL, cropped to (x, y, w, h) in backing-store pixels when w > 0. Must run
  // in the task that drew the frame (or with preserveDrawingBuffer, which the page asks for).
  function canvasPng(x, y, w, h) {
    const canvas = document.getElementById('canvas');
    if (!(w > 0)) return canvas.toDataURL('image/png');
    const x0 = Math.max(0, Math.floor(x)), y0 = Math.max(0, Math.floor(y));
    const cw = Math.min(canvas.width - x0, Math.ceil(w)), ch = Math.min(canvas.height - y0, Math.ceil(h));
    const out = document.createElement('canvas');
    out.width = Math.max(1, cw);
    out.height = Math.max(1, ch);
    out.getContext('2d').drawImage(canvas, x0, y0, cw, ch, 0, 0, cw, ch);
    return out.toDataURL('image/png');
  }
  window.attnlabSavePng = function (name, x, y, w, h) {
    const url = canvasPng(x, y, w, h);
    fetch(url).then((r) => r.blob()).then((b) => saveBlob(name, b));
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
    // The link that reopens the lab exactly: config (edits and masks included) and view (head, colour
    // ranges, numbers, the large view).
    shareUrl() { return linkFor(call('attnlab_config')); },
    // A PNG data URL of the lab as shown, at the screen's resolution; with a view name ('weights',
    // 'scores', ...) just that matrix's block (title, labels, colour bar). Throws for a view not on screen.
    screenshot(view) {
      window.Module._attnlab_redraw();
      if (view === undefined) return canvasPng(0, 0, 0, 0);
      const raw = JSON.parse(call('attnlab_layout'));
      const b = raw['block:' + view];
      if (!b) throw new Error('screenshot: the view "' + view + '" is not on screen');
      return canvasPng(b.x - 4, b.y - 4, b.w + 8, b.h + 8);
    },
    // One matrix as CSV text (header row of column labels, each row led by its token).
    csv(view) {
      const text = call('attnlab_csv', String(view));
      if (!text) throw new Error('csv: unknown view "' + view + '"');
      return text;
    },
    // How the lab is shown, and a way to set it (keys as in docs/web-api.md); setView throws naming a bad key.
    view() { return JSON.parse(call('attnlab_view_state')); },
    setView(view) {
      const err = call('attnlab_set_view_state', typeof view === 'string' ? view : JSON.stringify(view));
      if (err) throw new Error(err);
    },
    // The formula strip's text, exactly as shown for the current settings.
    formula() { return call('attnlab_formula'); },
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
          if (shared.__view) api.setView(shared.__view);
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
        if (shared.__view) api.setView(shared.__view);
      } catch (e) {
        console.warn('Attention Lab: the shared link could not be used: ' + e.message);
      }
    });
  });

  // Keep the last frame readable, so the browser's "Save image as" and screenshots are not blank: the
  // context is made here with preserveDrawingBuffer, and Emscripten's later getContext gets this one
  // (the other attributes are what its GLFW asks for).
  document.getElementById('canvas').getContext('webgl2', {
    alpha: true, depth: true, stencil: true, antialias: false, preserveDrawingBuffer: true,
  });

  const script = document.createElement('script');
  script.src = 'attnlab.js';
  script.onerror = () => fatal('Attention Lab could not start', 'attnlab.js is missing from this folder.');
  document.body.appendChild(script);
})();
