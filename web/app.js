// Attention Lab — the page around the WebAssembly app.
//  * checks for WebAssembly and WebGL2 and explains plainly when either is missing;
//  * downloads attnlab.wasm with a progress bar;
//  * exposes window.attnlab (documented in docs/web-api.md): ready, apply, config, result, stats;
//  * reads and writes shareable links: #c=<base64url of the config JSON>; #present or ?present opens
//    presenter mode (&contrast=high for white on black);
//  * routes wheel and touch to the engine itself (Emscripten 3.1.6's GLFW gets both wrong);
//  * lays real <textarea>s over the lab's text boxes (on-screen keyboards, IMEs, screen readers);
//  * mirrors the described cell, its weights row and the focused matrix into hidden HTML for screen
//    readers (an aria-live region and a table).
'use strict';

(function () {
  const loading = document.getElementById('loading');
  const loadingText = document.getElementById('loading-text');
  const bar = document.getElementById('loading-bar');

  // What the page says before any catalogue can load: boot-words.js (made at build time from every
  // catalogue's page.* lines, cmake/ui.cmake) holds it in every language, so the language the link or
  // the browser asks for (as the lab chooses it below) needs no fetch. The English here shows only
  // where boot-words.js is missing.
  const bootWords = self.attnlabBootWords || {};
  const bootCode = (() => {
    const list = Object.keys(bootWords).map((code) => ({ code }));
    for (const w of [linkLanguage(), ...(navigator.languages || [navigator.language])].filter(Boolean)) {
      const m = matchLanguage(list, w);
      if (m) return m;
    }
    return 'en';
  })();
  function bootWord(key, english) { return (bootWords[bootCode] || {})[key] || english; }
  if (loadingText) loadingText.textContent = bootWord('page.loading', 'Loading the attention engine…');

  // What stopped the engine, without Emscripten's wrapper ("Aborted(why). Build with -s ASSERTIONS=1
  // for more info."): the reason alone is what the page shows.
  function reason(e) {
    const text = String((e && e.message) || e);
    const m = /^Aborted\(([\s\S]*)\)(?:\. Build with -s ASSERTIONS=1 for more info\.)?$/.exec(text);
    return m ? m[1] : text;
  }
  function fatal(title, text) {
    if (stopDownloads) stopDownloads.abort();
    document.documentElement.lang = bootCode;
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

  // The lab's own WebGL 2 context, made here (not a throwaway one: a software GL spends a tenth of a
  // second on each context) and so also the check that WebGL 2 is there. Emscripten's later getContext
  // gets this one. preserveDrawingBuffer keeps the last frame readable, so the browser's "Save image as"
  // and screenshots are not blank. alpha: false: the canvas is opaque, so a popup's 94% background hides
  // what lies under it (with an alpha channel the page showed through wherever a window blended); no
  // depth or stencil buffer: Dear ImGui uses neither.
  function labContext() {
    try {
      // The size the engine gives it on its first frame (CSS size times the pixel ratio, web_main.cpp),
      // so that the drawing buffer is made once, not made and then made again.
      const canvas = document.getElementById('canvas');
      const dpr = Math.max(0.5, window.devicePixelRatio || 1);
      canvas.width = Math.max(1, Math.round(canvas.clientWidth * dpr));
      canvas.height = Math.max(1, Math.round(canvas.clientHeight * dpr));
      return canvas.getContext('webgl2', {
        alpha: false, depth: false, stencil: false, antialias: false, preserveDrawingBuffer: true,
      });
    } catch (e) {
      return null;
    }
  }

  // The engine's two files are asked for first, so that they download (and the module compiles as it
  // arrives: instantiateWasm below) while the checks below and the rest of this file run. attnlab.js is
  // only fetched here; it runs once added as a script, after the checks. A failed check stops both.
  const stopDownloads = typeof AbortController === 'function' ? new AbortController() : null;
  const wasmResponse = fetch('attnlab.wasm', stopDownloads ? { signal: stopDownloads.signal } : {});
  wasmResponse.catch(() => {});  // reported where it is used
  {
    const preload = document.createElement('link');
    preload.rel = 'preload', preload.as = 'script', preload.href = 'attnlab.js';
    document.head.appendChild(preload);
  }

  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') {
    fatal(bootWord('page.no_wasm', 'WebAssembly is not available'),
          bootWord('page.no_wasm.why', 'Attention Lab runs its attention engine as WebAssembly, which this browser does not offer (or has switched off). Any current Chrome, Edge, Firefox or Safari will work.'));
    return;
  }
  if (!labContext()) {
    fatal(bootWord('page.no_webgl', 'WebGL 2 is not available'),
          bootWord('page.no_webgl.why', 'Attention Lab draws with WebGL 2, which this browser or graphics driver does not provide. Try turning on hardware acceleration, updating the browser, or another browser.'));
    return;
  }

  // The engine's code runs once this file has run (window.Module is there by then).
  {
    const script = document.createElement('script');
    script.src = 'attnlab.js';
    script.onerror = () => fatal(word('page.cannot_start', 'Attention Lab could not start'), word('page.missing_js', 'attnlab.js is missing from this folder.'));
    document.body.appendChild(script);
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
  // Presenter mode from the link: ?present or #present (also #c=...&present), contrast=high.
  function presenterFromLink() {
    const params = new URLSearchParams(location.search);
    const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
    const on = params.has('present') || hash.has('present');
    const contrast = (params.get('contrast') || hash.get('contrast') || '') === 'high';
    return on ? { contrast } : null;
  }
  // #c=<config>[&v=<view: selected head, colour ranges, ...>], each base64url JSON.
  const kBase64Url = /^[A-Za-z0-9_-]*$/;
  function decodePart(name, text) {  // base64url JSON -> value, or an Error saying what is wrong with it
    if (!kBase64Url.test(text))
      return new Error(words('page.link.characters', 'The link has characters that a link made by the lab never contains (after "{name}="): it was probably changed when it was copied or shared', { name }));
    try {
      return JSON.parse(fromBase64Url(text));
    } catch (e) {
      return new Error(words('page.link.damaged', 'The link is incomplete or damaged (after "{name}="), perhaps cut short when it was copied', { name }));
    }
  }
  function hashParams() {  // "#c=..&v=..&present" -> Map (the values undecoded)
    const out = new Map();
    for (const part of location.hash.replace(/^#/, '').split('&')) {
      if (!part) continue;
      const eq = part.indexOf('=');
      out.set(eq < 0 ? part : part.slice(0, eq), eq < 0 ? '' : part.slice(eq + 1));
    }
    return out;
  }
  function configFromHash() {
    const h = hashParams();
    if (!h.has('c')) return null;
    const config = decodePart('c', h.get('c'));
    if (config instanceof Error) return { error: config.message };
    if (config === null || typeof config !== 'object' || Array.isArray(config)) return { error: word('page.link.no_setup', 'The link does not hold a lab setup (after "c=")') };
    if (h.has('v')) {
      const view = decodePart('v', h.get('v'));
      if (view instanceof Error) return { error: view.message };
      Object.defineProperty(config, '__view', { value: view });
    }
    return config;
  }
  // #train=<training config, base64url JSON>: Learn mode trains that run (same seed: the same curves).
  function trainFromHash() {
    const h = hashParams();
    if (!h.has('train')) return null;
    const run = decodePart('train', h.get('train'));
    if (run instanceof Error) return { error: run.message };
    if (run === null || typeof run !== 'object' || Array.isArray(run)) return { error: word('page.link.no_training', 'The link does not hold a training setup (after "train=")') };
    return run;
  }
  // #preset=<key> or ?preset=<key>: a built-in preset (attnlab.presets() lists the keys).
  function presetFromLink() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ''));
    return hash.get('preset') || new URLSearchParams(location.search).get('preset');
  }
  // Parts of a link the lab reads; anything else is named in the notice (a typo, an old link).
  const kLinkParts = new Set(['c', 'v', 'train', 'preset', 'present', 'contrast', 'scale', 'lang']);
  let linkOpened = false;  // the page has opened a link before (a later one replaces what is shown)
  function applyLink() {
    const shared = configFromHash();
    const preset = presetFromLink();
    const run = trainFromHash();
    const unknown = [...hashParams().keys()].filter((k) => !kLinkParts.has(k));
    const instead = linkOpened ? word('page.link.still', 'The lab still shows what it showed before.')
                               : word('page.link.instead', 'The lab opened with its own example sentence instead.');
    linkOpened = true;
    let reason = '';
    try {
      if (run) {
        if (run.error) reason = run.error;
        else api.train(run);
      } else if (shared) {
        if (shared.error) reason = shared.error;
        else {
          api.apply(shared);
          if (shared.__view) api.setView(shared.__view);
        }
      } else if (preset) {
        api.preset(preset);
      } else if (unknown.length) {
        reason = words('page.link.unknown', 'The link asks for "{part}", which the lab does not know (its links use c=, train=, preset= and present)', { part: unknown[0] });
      }
    } catch (e) {
      reason = words('page.link.refused', 'The setup in the link was refused: {reason}', { reason: e.message });  // the reason: the API's English
    }
    if (reason) {
      const what = run ? 'training link' : shared ? 'link to a lab setup' : preset ? 'preset link' : 'link';
      console.warn('Attention Lab: the link could not be used: ' + reason);
      call('problem', words('page.link.failed.' + what.replace(/ /g, '_'), 'This ' + what + ' could not be opened'), reason + '. ' + instead);
    }
  }
  // The link that reopens this setup: config, view, and presenter mode when it is on.
  function linkFor(configJson) {
    const extra = (presenterState ? '&present' + (lastState && lastState.high_contrast ? '&contrast=high' : '') : '') +
                  langPart();
    return location.href.split('#')[0] + '#c=' + toBase64Url(configJson) + '&v=' + toBase64Url(call('view_state')) + extra;
  }
  window.attnlabShareRun = function (json) {
    const url = location.href.split('#')[0] + '#train=' + toBase64Url(json) + langPart();
    history.replaceState(null, '', url);
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).catch(() => {});
  };
  window.attnlabShare = function (json) {
    const url = linkFor(json);
    history.replaceState(null, '', url);
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(url).catch(() => {});
  };

  // ---- files leaving the lab (Export menu, screenshot()) -----------------------------------------
  // A file is handed to the browser as a Blob behind an object URL and a click on an <a download>:
  // nothing is fetched, so the page's Content-Security-Policy (connect-src 'self', which refuses
  // data: URLs) stays as strict as it is. The lab says on screen what was saved, or why not.
  function tell(message) {
    if (window.Module && window.Module._attnlab_call) call('notify', message);
  }
  function problem(title, detail) {
    if (window.Module && window.Module._attnlab_call) call('problem', title, detail);
  }
  function saveBlob(name, blob) {
    try {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(blob);
      a.download = name;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(a.href), 10000);
      tell(words('page.saved', 'Saved {name} ({size}) to your downloads', { name, size: sizeWords(blob.size) }));
    } catch (e) {
      problem(words('page.not_saved', '{name} could not be saved', { name }),
              words('page.download_refused', 'The browser refused the download: {reason}. Nothing was saved.', { reason: e && e.message ? e.message : e }));
    }
  }
  function sizeWords(bytes) {  // the units are symbols; the decimal separator is the catalogue's @decimal
    const decimal = (x) => x.toFixed(1).replace('.', pageWords['@decimal'] || '.');
    return bytes < 1024 ? words('page.size.bytes', '{n} bytes', { n: bytes }) : bytes < 1048576 ? decimal(bytes / 1024) + ' KB' : decimal(bytes / 1048576) + ' MB';
  }
  // A data: URL's bytes, decoded here (atob), as a Blob.
  function dataUrlBlob(url) {
    const comma = url.indexOf(',');
    const mime = /^data:([^;,]*)/.exec(url)[1] || 'application/octet-stream';
    const bin = atob(url.slice(comma + 1));
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Blob([bytes], { type: mime });
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
    let blob;
    try {
      blob = dataUrlBlob(canvasPng(x, y, w, h));
    } catch (e) {
      problem(words('page.not_saved', '{name} could not be saved', { name }),
              words('page.picture_unreadable', 'The picture could not be read from the screen ({reason}). Nothing was saved.', { reason: e && e.message ? e.message : e }));
      return;
    }
    saveBlob(name, blob);
  };

  // ---- languages (docs/translating.md) ------------------------------------------------------------
  // The lab's words come from the catalogues (assets/lang/<code>.txt): English is built into
  // attnlab.wasm; another language's catalogue is fetched from lang/ (this page's origin) when it is
  // chosen: by ?lang= or #…&lang= in the link, else the browser's languages, else English; later by
  // the language menu or attnlab.language(code). The page's own words (loading, errors) are the
  // catalogue's page.* messages; the English written here shows only where no catalogue can be read.
  let languageCode = 'en';
  let pageWords = {};
  function word(key, english) { return pageWords[key] || english; }
  // The same with {placeholders} filled in from `args`.
  function words(key, english, args) { return word(key, english).replace(/\{(\w+)\}/g, (m, k) => (k in args ? String(args[k]) : m)); }
  // page.* messages of a catalogue's text (the format's plain lines and indented continuations).
  function pageMessages(text) {
    const out = {};
    let last = null;
    for (const raw of String(text).split('\n')) {
      const line = raw.replace(/\r$/, '');
      if (/^[ \t]+\S/.test(line) && !/^\s*#/.test(line)) { if (last) out[last] += ' ' + line.trim(); continue; }
      last = null;
      const m = /^\s*(page\.[A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$/.exec(line);
      if (m) { last = m[1]; out[last] = m[2].replace(/\\n/g, '\n'); }
      const d = /^\s*@decimal\s+(\S)/.exec(line);  // how numbers in sentences are written (0,5)
      if (d) out['@decimal'] = d[1];
    }
    return out;
  }
  let languageIndex = null;  // lang/index.json: [{ code, name, cjk, file }]
  function languagesOffered() {
    if (!languageIndex) languageIndex = fetch('lang/index.json').then((r) => (r.ok ? r.json() : [])).catch(() => []);
    return languageIndex;
  }
  // "de-AT" -> "de", "zh-Hans-CN" -> "zh": the longest prefix that a catalogue has.
  function matchLanguage(list, wanted) {
    let w = String(wanted || '').toLowerCase().replace(/_/g, '-');
    while (w) {
      const hit = list.find((l) => l.code.toLowerCase() === w);
      if (hit) return hit.code;
      w = w.includes('-') ? w.slice(0, w.lastIndexOf('-')) : '';
    }
    return null;
  }
  // "&lang=zh" for links the page makes; nothing for English, so English links stay as they always were.
  function langPart() { return languageCode === 'en' ? '' : '&lang=' + encodeURIComponent(languageCode); }
  function linkLanguage() { return new URLSearchParams(location.search).get('lang') || hashParams().get('lang') || ''; }
  const catalogues = new Map();  // code -> Promise of its text
  function fetchCatalogue(code) {
    if (!catalogues.has(code)) {
      catalogues.set(code, fetch('lang/' + encodeURIComponent(code) + '.txt').then((r) => {
        if (!r.ok) throw new Error('lang/' + code + '.txt: HTTP ' + r.status);
        return r.text();
      }));
      catalogues.get(code).catch(() => catalogues.delete(code));  // a later choice tries again
    }
    return catalogues.get(code);
  }
  // The first language, decided while attnlab.wasm downloads.
  const firstLanguage = languagesOffered().then(async (list) => {
    const wanted = [linkLanguage(), ...(navigator.languages || [navigator.language])].filter(Boolean);
    let code = 'en';
    for (const w of wanted) { const m = matchLanguage(list, w); if (m) { code = m; break; } }
    const entry = list.find((l) => l.code === code);
    const text = entry && entry.file ? await fetchCatalogue(code).catch(() => '') : '';
    if (text) pageWords = pageMessages(text);
    if (loadingText && !engineStarted) loadingText.textContent = word('page.loading', loadingText.textContent);
    return { code: text || !(entry && entry.file) ? code : 'en', text };
  }).catch(() => ({ code: 'en', text: '' }));
  function setLanguage(code, text) {
    const err = call('set_language', code, text || '');
    if (err) throw new Error(err);
    if (call('language') !== code) return;  // the lab asked for the catalogue: it comes back here
    languageCode = code;
    pageWords = text ? pageMessages(text) : {};
    document.documentElement.lang = code === 'pseudo' ? 'en' : code;
    pageLabels();
  }
  // The page's own words outside the canvas: its title and what screen readers call its parts
  // (index.html holds the English, which stays where a catalogue lacks a message).
  const kPageLabels = [
    ['title', null, 'page.title'], ['#canvas', 'aria-label', 'page.canvas'], ['#text-box', 'aria-label', 'page.text_box'],
    ['#source-box', 'aria-label', 'page.source_box'], ['#a11y', 'aria-label', 'page.described'],
  ];
  const englishLabels = kPageLabels.map(([sel, attr]) => {
    const el = document.querySelector(sel);
    return el ? (attr ? el.getAttribute(attr) : el.textContent) : '';
  });
  function pageLabels() {
    kPageLabels.forEach(([sel, attr, key], i) => {
      const el = document.querySelector(sel);
      if (!el) return;
      const text = word(key, englishLabels[i]);
      if (attr) el.setAttribute(attr, text);
      else el.textContent = text;
    });
  }
  async function chooseLanguage(code) {
    const list = JSON.parse(call('languages'));
    const entry = list.find((l) => l.code === code);
    if (!entry) throw new Error('language: unknown code "' + code + '" (attnlab.languages() lists them)');
    const text = entry.builtin ? '' : await fetchCatalogue(code);
    setLanguage(code, text);
    return code;
  }
  // The language menu in the lab chose a language whose catalogue is not built in.
  window.attnlabLoadLanguage = function (code) {
    fetchCatalogue(code).then((text) => setLanguage(code, text)).catch((e) => {
      problem(word('page.language_failed', 'This language could not be loaded'), String(e.message || e));
    });
  };
  // The CJK font (fonts/cjk.ttf, a subset of WenQuanYi Micro Hei), fetched once, when a CJK language
  // or CJK text first needs it; its bytes stay in the WebAssembly heap for the page's lifetime.
  window.attnlabLoadCjkFont = function () {
    fetch('fonts/cjk.ttf').then((r) => {
      if (!r.ok) throw new Error('fonts/cjk.ttf: HTTP ' + r.status);
      return r.arrayBuffer();
    }).then((buf) => {
      const M = window.Module;
      const ptr = M._malloc(buf.byteLength);
      M.HEAPU8.set(new Uint8Array(buf), ptr);
      call('set_cjk_font', ptr, buf.byteLength);
    }).catch((e) => console.warn('Attention Lab: the CJK font could not be loaded: ' + (e.message || e)));
  };

  // ---- the WebAssembly module --------------------------------------------------------------------
  let resolveReady, rejectReady;
  const ready = new Promise((res, rej) => { resolveReady = res; rejectReady = rej; });

  // The engine's page API: attnlab_call(packed, argc) with packed = "name\0arg1\0arg2\0…" (web_api.cpp's
  // table, one entry per function). Arguments go as text (numbers as String(n)); the answer is text.
  function call(name, ...args) {
    const M = window.Module;
    const parts = [name, ...args.map(String)];
    const sizes = parts.map((p) => M.lengthBytesUTF8(p) + 1);
    const ptr = M._malloc(sizes.reduce((a, b) => a + b, 0));
    try {
      let at = ptr;
      parts.forEach((p, i) => { M.stringToUTF8(p, at, sizes[i]); at += sizes[i]; });
      const out = M._attnlab_call(ptr, args.length);
      if (!out) throw new Error('attnlab: the engine has no page function ' + name + ' taking ' + args.length + ' arguments');
      return M.UTF8ToString(out);
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
      const err = call('apply', text);
      if (err) throw new Error(err);
    },
    config() { return JSON.parse(call('config')); },
    result() { return JSON.parse(call('result')); },
    stats() { return JSON.parse(call('stats')); },
    // Starts stats() afresh, e.g. before measuring a scenario.
    resetStats() { call('reset_stats'); },
    // Draws n frames now (1–60), whether or not anything changed, and returns stats().frames. Input the
    // page has already received is handled on them. The lab draws only when something changes, so a
    // script that waits for "the next frames" after an input can wait forever; this cannot.
    redraw(n = 1) {
      if (!Number.isInteger(n) || n < 1 || n > 60) throw new Error('redraw: expected a whole number of frames from 1 to 60, got ' + n);
      for (let i = 0; i < n; i++) call('redraw');
      return JSON.parse(call('stats')).frames;
    },
    // Where matrices and controls are drawn, in CSS pixels (for tests and scripted tours).
    layout() {
      const raw = JSON.parse(call('layout'));
      const k = 1 / (window.devicePixelRatio || 1);
      const out = { views: {}, widgets: {} };
      out.ui = raw._ui;
      out.windows = {};
      for (const [name, r] of Object.entries(raw._windows || {})) out.windows[name] = { x: r.x * k, y: r.y * k, w: r.w * k, h: r.h * k, scroll: r.scroll, clipped: r.clipped };
      out.ui.display_w *= k;
      out.ui.display_h *= k;
      out.ui.font_px *= k;
      out.ui.big_font_px *= k;
      for (const [name, r] of Object.entries(raw)) {
        if (name[0] === '_') continue;
        if ('cell_w' in r) out.views[name] = { x: r.x * k, y: r.y * k, cell_w: r.cell_w * k, cell_h: r.cell_h * k, rows: r.rows, cols: r.cols, head: r.head };
        else out.widgets[name] = { x: r.x * k, y: r.y * k, w: r.w * k, h: r.h * k };
      }
      return out;
    },
    // Presenter mode on or off; contrast: true (white on black), false, or leave it out to keep it.
    presenter(on, { contrast } = {}) {
      call('set_presenter', on ? 1 : 0, contrast === undefined ? -1 : contrast ? 1 : 0);
    },
    // The UI scale, 0.75–3 (1 = 16 px text); the link parameter ?scale=2 sets it too.
    uiScale(scale) {
      if (typeof scale !== 'number' || !Number.isFinite(scale)) throw new Error('uiScale: expected a number');
      call('set_ui_scale', scale);
    },
    // What the screen-reader region says: { live, row, table: { caption, cols, rows: [{label, cells}], focus } }.
    a11y() { return JSON.parse(call('a11y')); },
    // The link that reopens the lab exactly: config (edits and masks included) and view (head, colour
    // ranges, numbers, the large view).
    shareUrl() { return linkFor(call('config')); },
    // A PNG data URL of the lab as shown, at the screen's resolution; with a view name ('weights',
    // 'scores', ...) just that matrix's block (title, labels, colour bar). Throws for a view not on screen.
    screenshot(view) {
      call('redraw');
      if (view === undefined) return canvasPng(0, 0, 0, 0);
      const raw = JSON.parse(call('layout'));
      const b = raw['block:' + view];
      if (!b) throw new Error('screenshot: the view "' + view + '" is not on screen');
      return canvasPng(b.x - 4, b.y - 4, b.w + 8, b.h + 8);
    },
    // One matrix as CSV text (header row of column labels, each row led by its token).
    csv(view) {
      const text = call('csv', String(view));
      if (!text) throw new Error('csv: unknown view "' + view + '"');
      return text;
    },
    // How the lab is shown, and a way to set it (keys as in docs/web-api.md); setView throws naming a bad key.
    view() { return JSON.parse(call('view_state')); },
    setView(view) {
      const err = call('set_view_state', typeof view === 'string' ? view : JSON.stringify(view));
      if (err) throw new Error(err);
    },
    // The formula strip's text, exactly as shown for the current settings.
    formula() { return call('formula'); },
    // The built-in presets ([{key, file, name, description, view}]) and applying one by key, file or
    // title, as the Presets menu does; an unknown one throws naming those there are.
    presets() { return JSON.parse(call('presets')); },
    preset(key) {
      const err = call('preset', String(key));
      if (err) throw new Error(err);
    },
    // Learn mode: trains a model on a toy task (options: a training config as `attnlab-cli train` reads it,
    // docs/train.md), switching the page to Learn mode; throws an Error naming the field, and then the
    // current run is kept as it was.
    train(options) {
      const text = typeof options === 'string' ? options : JSON.stringify(options === undefined ? {} : options);
      if (text === undefined) throw new Error('options: expected an object');
      const err = call('train', text);
      if (err) throw new Error(err);
    },
    // { state, task, step, steps, steps_per_s, train_loss, loss, accuracy, pattern_score, ... }
    trainStatus() { return JSON.parse(call('train_status')); },
    // Every evaluation of the run so far, each as one `attnlab-cli train --log` line.
    trainHistory() { return JSON.parse(call('train_history')); },
    // Pauses training (the weights stay; the Train button or train() goes on). Returns trainStatus().
    stopTraining() { call('stop_training'); return api.trainStatus(); },
    // The trained model as a model file object (docs/train.md; `attnlab-cli run` reads it), null when
    // nothing was trained.
    model() {
      const text = call('model');
      return text ? JSON.parse(text) : null;
    },
    // Opens a model file (object or JSON text) in Learn mode, paused at its step; throws an Error
    // naming the field, and then the current run is kept.
    openModel(file) {
      const text = typeof file === 'string' ? file : JSON.stringify(file);
      if (text === undefined) throw new Error('model: expected a model file (an object or JSON text)');
      const err = call('open_model', text);
      if (err) throw new Error(err);
    },
    // Learn mode's probe: your own input in the task's tokens ("c f k c f"; cross-attention tasks
    // "source -> output"), or "" for the held-out example. Throws naming an unknown token.
    setProbe(text) {
      const err = call('set_probe', String(text ?? ''));
      if (err) throw new Error(err);
    },
    // Interventions on the current Learn run's weights (docs/inspect.md): the options of attnlab-cli
    // ablate, patch, attribute, circuits and rollout as an object's fields (corrupt_at for --corrupt-at),
    // the CLI's JSON back. Throws an Error naming the field; the run is kept either way.
    ablate(options) { return inspect('ablate', options); },
    patch(options) { return inspect('patch', options); },
    attribute(options) { return inspect('attribute', options); },
    circuits(options) { return inspect('circuits', options); },
    rollout(options) { return inspect('rollout', options); },
    // What Learn mode's Inspect view shows: { open, step, mode, ablated, baseline, loss, accuracy, each }.
    inspectView() { return JSON.parse(call('inspect', 'view', '{}')); },
    // The link that trains the current run again (#train= its complete training config).
    trainUrl() { return location.href.split('#')[0] + '#train=' + toBase64Url(call('run_config')) + langPart(); },
    // The UI's language: language() is the current code; language(code) switches to it (its catalogue
    // fetched from lang/ first when it is not built in) and resolves to the code, or rejects naming why.
    // languages(): [{ code, name, cjk, menu, builtin }] as the language menu offers them.
    language(code) {
      if (code === undefined) return call('language');
      return chooseLanguage(String(code));
    },
    languages() { return JSON.parse(call('languages')); },
    // Draws a frame and returns every text the lab's widgets drew in it, one line per line on screen
    // (what a test reads to find words that did not come from the catalogue).
    drawnText() { return call('drawn_text'); },
    version: '1',
  };

  window.Module = {
    canvas: document.getElementById('canvas'),
    print: (t) => console.log(t),
    printErr: (t) => console.warn(t),
    // The .wasm fetched above, with real download progress; compiled as its bytes arrive where the
    // browser can (instantiateStreaming over the counted stream), else once they are all here.
    instantiateWasm(imports, done) {
      wasmResponse.then(async (response) => {
        if (!response.ok) throw new Error('attnlab.wasm: HTTP ' + response.status);
        const total = Number(response.headers.get('Content-Length')) || 0;
        let got = 0, shown = '';
        const progress = (n) => {
          got += n;
          // The page changes only when what it shows changes (a tenth of a MB): each change costs the
          // thread that hands the bytes to the compiler a layout.
          const mb = (got / 1048576).toFixed(1);
          if (mb === shown) return;
          shown = mb;
          if (total) bar.value = Math.round((100 * got) / total);
          loadingText.textContent = word('page.loading_mb', 'Loading the attention engine… {mb} MB').replace('{mb}', mb);
        };
        let result;
        if (typeof WebAssembly.instantiateStreaming === 'function' && typeof TransformStream === 'function') {
          const counted = response.body.pipeThrough(new TransformStream({ transform(chunk, out) { progress(chunk.length); out.enqueue(chunk); } }));
          result = await WebAssembly.instantiateStreaming(new Response(counted, { headers: { 'Content-Type': 'application/wasm' } }), imports);
        } else {
          const reader = response.body.getReader();
          const chunks = [];
          for (;;) {
            const { done: end, value } = await reader.read();
            if (end) break;
            chunks.push(value);
            progress(value.length);
          }
          const bytes = new Uint8Array(got);
          let at = 0;
          for (const c of chunks) { bytes.set(c, at); at += c.length; }
          result = await WebAssembly.instantiate(bytes, imports);
        }
        loadingText.textContent = word('page.starting', 'Starting…');
        done(result.instance, result.module);
      }).catch((e) => {
        fatal(word('page.cannot_start', 'Attention Lab could not start'), reason(e));
        rejectReady(e);
      });
      return {};
    },
    attnlabFirstFrame() {
      engineStarted = true;
      firstLanguage.then(({ code, text }) => { if (code !== 'en') setLanguage(code, text); });
      loading.hidden = true;
      document.getElementById('canvas').focus();
      applyLink();
      const scale = Number(new URLSearchParams(location.search).get('scale'));
      if (scale > 0) api.uiScale(scale);
      const present = presenterFromLink();
      if (present) api.presenter(true, { contrast: present.contrast });
      window.attnlab = api;
      resolveReady(api);
    },
    attnlabPageState(json) { pageState(JSON.parse(json)); },
    onAbort(what) {
      fatal(word('page.stopped', 'Attention Lab stopped'), word('page.stopped.detail', 'Something went wrong inside the engine: {what}').replace('{what}', reason(what)));
      rejectReady(new Error(String(what)));
    },
  };
  window.attnlab = api;  // methods work once `ready` has resolved

  window.addEventListener('hashchange', () => ready.then(applyLink));

  // ---- input the engine takes directly ------------------------------------------------------------
  // Registered on window in the capture phase before attnlab.js adds its own listeners, so these run
  // first and keep Emscripten's GLFW from seeing what it would get wrong.
  const canvas = document.getElementById('canvas');
  const engineReady = () => window.Module && window.Module._attnlab_call && window.attnlab === api && lastState;
  window.addEventListener('wheel', (e) => {
    if (e.target !== canvas || !engineReady()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    // Notches as GLFW counts them: the browser reports pixels (about 100 a notch), lines or pages,
    // with down positive; GLFW's +1 is one notch up.
    const unit = e.deltaMode === 1 ? 3 : e.deltaMode === 2 ? 0.125 : 100;
    call('wheel', -e.deltaX / unit, -e.deltaY / unit);
  }, { capture: true, passive: false });
  let finger = null;  // the identifier of the finger we follow; others are ignored
  function onTouch(kind) {
    return (e) => {
      if (e.target !== canvas || !engineReady()) return;
      e.preventDefault();  // no page scroll or zoom, and no emulated mouse events after a tap
      e.stopImmediatePropagation();
      const rect = canvas.getBoundingClientRect();
      // A first finger down starts a new gesture even if the end of the last one never came (a
      // touchend the browser dropped, or one that arrived before the engine was ready).
      if (kind === 0 && e.touches.length === e.changedTouches.length) finger = null;
      for (const t of e.changedTouches) {
        if (kind === 0 && finger === null) finger = t.identifier;
        if (t.identifier !== finger) continue;
        call('touch', kind, t.clientX - rect.left, t.clientY - rect.top);
        if (kind === 2) finger = null;
      }
    };
  }
  window.addEventListener('touchstart', onTouch(0), { capture: true, passive: false });
  window.addEventListener('touchmove', onTouch(1), { capture: true, passive: false });
  window.addEventListener('touchend', onTouch(2), { capture: true, passive: false });
  window.addEventListener('touchcancel', onTouch(2), { capture: true, passive: false });
  // Ctrl+A (Cmd+A) in the lab selects all of the lab's own field; the browser must not also select the
  // whole page (it painted the sentence box as selected). The lab still gets the key.
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement) return;
    if ((e.ctrlKey || e.metaKey) && (e.key === 'a' || e.key === 'A')) e.preventDefault();
  }, true);
  // Keys typed into the page's own fields stay there (else the lab would read 'm' as a shortcut).
  for (const type of ['keydown', 'keypress', 'keyup']) {
    window.addEventListener(type, (e) => {
      if (!(e.target instanceof HTMLTextAreaElement)) return;
      e.stopImmediatePropagation();
      if (type === 'keydown' && e.key === 'Escape') canvas.focus();
    }, true);
  }

  // ---- text boxes: real <textarea>s over the lab's own ---------------------------------------------
  const boxes = { text: document.getElementById('text-box'), source: document.getElementById('source-box') };
  for (const [which, box] of Object.entries(boxes)) {
    let composing = false;
    const send = () => call('set_text', which, box.value);
    box.addEventListener('compositionstart', () => { composing = true; });
    box.addEventListener('compositionend', () => { composing = false; send(); });
    box.addEventListener('input', (e) => { if (!composing && !e.isComposing) send(); });
    box.composing = () => composing;
  }
  function inspect(command, options) {
    const text = JSON.stringify(options === undefined ? {} : options);
    if (text === undefined) throw new Error('options: expected an object');
    const reply = call('inspect', command, text);
    if (reply[0] !== '{') throw new Error(reply);
    return JSON.parse(reply);
  }

  // ---- files coming in: the Open model... button's picker and files dropped on the page ------------
  // A model file opens in Learn mode, anything else is read as a lab config; the engine says on screen
  // what it opened or why not. Files over the engine's limit (16 MiB, a model of about a million weights;
  // shell_frame.h) are refused before they are read: parsing one takes several times its size in the
  // WebAssembly heap.
  function openFile(file) {
    if (!file || !engineReady()) return;
    const name = String(file.name || word('page.file.unnamed', 'the file'));
    const limit = Number(call('max_file_bytes'));
    if (file.size > limit) {
      problem(word('page.file.failed', 'A file could not be opened'),
              words('page.file.too_big', '{name} was not opened: it is {size} MiB, over the {limit} MiB a file may have. Nothing changed: the lab shows what it showed before.',
                    { name, size: Math.round(file.size / 1048576), limit: Math.round(limit / 1048576) }));
      return;
    }
    file.text().then((text) => call('open_file', name, text))
      .catch((e) => problem(word('page.file.failed', 'A file could not be opened'),
                            words('page.file.unreadable', '{name} could not be read: {reason}. Nothing changed.', { name, reason: e.message })));
  }
  window.attnlabOpenFile = function () {
    const input = document.createElement('input');
    input.type = 'file';
    input.accept = '.json,application/json';
    input.addEventListener('change', () => openFile(input.files && input.files[0]));
    input.click();
  };
  canvas.addEventListener('dragover', (e) => { e.preventDefault(); e.dataTransfer.dropEffect = 'copy'; });
  canvas.addEventListener('drop', (e) => {
    e.preventDefault();
    openFile(e.dataTransfer.files && e.dataTransfer.files[0]);
  });

  // ---- what the engine tells the page after a frame --------------------------------------------------
  const live = document.getElementById('a11y-live');
  const noticeRegion = document.getElementById('a11y-notice');
  const row = document.getElementById('a11y-row');
  const table = document.getElementById('a11y-table');
  let lastState = null, presenterState = false, fullscreenByPresenter = false, tableShape = '', tableCells = [];
  // The focused matrix as a table for screen readers (at most 32 × 32: src/ui/a11y.cpp). Built anew when
  // its shape or labels change; while only its numbers change (a slider dragged, four times a second),
  // the cells that differ are rewritten in place, not a thousand elements made again.
  function a11yTable(t) {
    const shape = JSON.stringify([t.cols, t.rows.map((r) => r.label)]);
    if (shape !== tableShape) {
      tableShape = shape;
      tableCells = [];
      const head = document.createElement('tr');
      head.append(document.createElement('td'));
      for (const c of t.cols) { const th = document.createElement('th'); th.scope = 'col'; th.textContent = c; head.append(th); }
      const thead = document.createElement('thead');
      thead.append(head);
      const body = document.createElement('tbody');
      for (const r of t.rows) {
        const tr = document.createElement('tr');
        const th = document.createElement('th');
        th.scope = 'row';
        th.textContent = r.label;
        tr.append(th);
        tableCells.push(r.cells.map(() => tr.appendChild(document.createElement('td'))));
        body.append(tr);
      }
      table.replaceChildren(document.createElement('caption'), thead, body);
    }
    if (table.caption.textContent !== t.caption) table.caption.textContent = t.caption;
    t.rows.forEach((r, i) => r.cells.forEach((v, j) => {
      const td = tableCells[i][j];
      if (td.textContent !== v) td.textContent = v;
      const current = t.focus.length === 2 && t.focus[0] === i && t.focus[1] === j;
      if (current !== td.hasAttribute('aria-current')) current ? td.setAttribute('aria-current', 'true') : td.removeAttribute('aria-current');
    }));
  }
  function pageState(st) {
    for (const [which, box] of Object.entries(boxes)) {
      const b = st.boxes[which];
      box.hidden = !b;
      if (!b) { if (document.activeElement === box) canvas.focus(); continue; }
      Object.assign(box.style, { left: b.x + 'px', top: b.y + 'px', width: b.w + 'px', height: b.h + 'px', fontSize: b.font_px + 'px' });
      if (box.value !== b.value && !box.composing()) box.value = b.value;
    }
    if (st.focus_text && !boxes.text.hidden) boxes.text.focus();
    if (st.fullscreen === 1 && !document.fullscreenElement) {
      document.documentElement.requestFullscreen?.().then(() => { fullscreenByPresenter = st.presenter; }).catch(() => {});
    } else if (st.fullscreen === 2) {
      if (document.fullscreenElement) document.exitFullscreen?.().catch(() => {});
      else document.documentElement.requestFullscreen?.().catch(() => {});
    }
    if (presenterState && !st.presenter && fullscreenByPresenter && document.fullscreenElement) {
      document.exitFullscreen?.().catch(() => {});
      fullscreenByPresenter = false;
    }
    if (noticeRegion.textContent !== st.notice) noticeRegion.textContent = st.notice;
    presenterState = st.presenter;
    document.body.classList.toggle('presenter', st.presenter);
    const a = st.a11y;
    if (live.textContent !== a.live) live.textContent = a.live;
    if (row.textContent !== (a.row || '')) row.textContent = a.row || '';
    if (a.table) a11yTable(a.table);
    lastState = st;
  }
  // Learn mode's training worker (web/worker.js, docs/web-api.md): a run never shares the page's
  // thread. It starts when Learn mode is first used (the first load does not fetch its module), and
  // not at all with `?worker=0` or where workers are missing; then training runs in slices of the
  // page's frames, as it also does when the worker cannot start or stops: the lab says so and goes on.
  let engineStarted = false;  // the UI module runs (its exports may be called)
  window.attnlabWorker = (() => {
    if (new URLSearchParams(location.search).get('worker') === '0' || typeof Worker === 'undefined') return null;
    let w = null;
    let status = 3, version = 0, asked = false;
    const states = [];
    const wake = () => { if (engineStarted) call('wake'); };
    const failed = (why) => { if (status !== 2) { status = 2; link.failure = why; wake(); } };
    const link = {
      failure: '',
      weights: [null, null],  // [live, replayed]: {data: Float32Array, step, run, version}
      status: () => status,    // 3 not started, 0 starting, 1 ready, 2 stopped
      // Starts the worker (Learn mode's session does, when it is first made); commands posted before
      // the module is ready wait in the worker.
      start() {
        if (w || status === 2) return;
        try {
          w = new Worker('worker.js');
        } catch (e) {
          failed((e && e.message) || 'the training worker could not start');
          return;
        }
        status = 0;
        w.onmessage = (e) => {
          const d = e.data;
          if (d.ready) status = 1;
          if (d.state) states.push(new Uint8Array(d.state));
          if (d.weights) { link.weights[d.replayed ? 1 : 0] = { data: d.weights, step: d.step, run: d.run, version: ++version }; asked = false; }
          if (d.failed) failed(d.failed);
          wake();
        };
        w.onerror = (e) => { e.preventDefault(); failed(e.message || 'the training worker could not run'); };
      },
      post(bytes) { if (w && status !== 2) w.postMessage({ command: bytes.buffer }, [bytes.buffer]); },
      nextState: () => states.shift() || null,
      taken() { if (w && status !== 2) w.postMessage({ taken: true }); },
      wantWeights() { if (w && !asked && status !== 2) { asked = true; w.postMessage({ weights: true }); } },
      // Ends the worker (as a crash would): the lab carries on in the page and says so.
      stop(why) { if (w) w.terminate(); failed(why || 'it was stopped'); },
    };
    return link;
  })();

})();
