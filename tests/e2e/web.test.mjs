// Browser end-to-end tests: the built web app in Debian's Chromium (real WebGL2 through SwiftShader),
// driven with the keyboard and mouse, checked through pixels and window.attnlab.
//   ATTNLAB_SITE=build-web/site ATTNLAB_CLI=build/attnlab-cli ATTNLAB_OUT=build/e2e node --test tests/e2e/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, launch, openLab, pixelStats, changedFraction, frames, showView } from './lib.mjs';

const CLI = process.env.ATTNLAB_CLI;
const lab = labSuite();
const OUT = lab.OUT;
const shot = lab.shot;

function near(a, b, tol, where = '') {
  if (typeof a === 'number') {
    assert.ok(Math.abs(a - b) <= tol * (1 + Math.abs(b)), `${where}: ${a} vs ${b}`);
  } else if (Array.isArray(a)) {
    assert.equal(a.length, b.length, where + ' length');
    a.forEach((x, i) => near(x, b[i], tol, `${where}[${i}]`));
  } else if (a && typeof a === 'object') {
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort(), where + ' keys');
    for (const k of Object.keys(a)) near(a[k], b[k], tol, `${where}.${k}`);
  } else {
    assert.equal(a, b, where);
  }
}

test('the page loads, draws the lab and contacts no other host', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await showView(page, 'weights', 10);
  const img = await shot(page, '01-loaded');
  const s = pixelStats(img);
  assert.ok(s.distinct > 300, `only ${s.distinct} colours: the UI is not drawn`);
  // A cleared canvas is one colour; the drawn lab's background (panels, gaps) stays near 60%.
  assert.ok(s.dominant < 0.66, `one colour covers ${(s.dominant * 100).toFixed(0)}%: mostly a cleared canvas`);
  const layout = await page.evaluate(() => window.attnlab.layout());
  for (const v of ['x', 'q', 'k', 'v', 'scores', 'masked', 'weights']) assert.ok(layout.views[v], `view ${v} not drawn`);
  // The weights heatmap region is colourful (a heatmap, not background).
  const w = layout.views.weights;
  const ws = pixelStats(img, { x: w.x, y: w.y, w: w.cell_w * w.cols, h: w.cell_h * w.rows });
  assert.ok(ws.distinct > 20, 'weights heatmap has too few colours');
  assert.deepEqual(problems, []);
  await page.close();
});

test('typing, changing heads and clicking a mask cell update the engine and the pixels', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  let layout = await page.evaluate(() => window.attnlab.layout());
  const box = layout.widgets.text;
  // The box is the page's <textarea> laid over the lab's (on-screen keyboards, IMEs): a click focuses it.
  await page.mouse.click(box.x + 30, box.y + box.h / 2);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'text-box');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('the quick brown fox jumps over it');
  // The lab handles input on its next drawn frame; software WebGL draws a few per second.
  await page.waitForFunction(() => window.attnlab.config().text === 'the quick brown fox jumps over it', null, { timeout: 20000 })
    .catch(async (e) => { throw new Error(`typed text did not arrive: ${JSON.stringify((await page.evaluate(() => window.attnlab.config())).text)} (${e.message})`); });
  let r = await page.evaluate(() => window.attnlab.result());
  assert.deepEqual(r.tokens, ['the', 'quick', 'brown', 'fox', 'jumps', 'over', 'it']);
  const typed = await shot(page, '02-typed');
  await page.keyboard.press('Escape');  // leaves the text field: keys go to the lab again
  assert.equal(await page.evaluate(() => document.activeElement.id), 'canvas');

  // Heads through the UI: Ctrl+click the slider turns it into a text field.
  const heads = layout.widgets.heads;
  // Dear ImGui samples input once per frame, so hold each key and button across a few frames.
  await page.keyboard.down('Control');
  await frames(page);
  await page.mouse.click(heads.x + heads.w / 2, heads.y + heads.h / 2, { delay: 100 });
  await frames(page);
  await page.keyboard.up('Control');
  await frames(page);
  await page.keyboard.press('Control+A');
  await frames(page);
  await page.keyboard.type('8');
  await frames(page);
  await page.keyboard.press('Enter');
  await page.mouse.move(4, 716);
  await page.waitForFunction(() => window.attnlab.config().heads === 8, null, { timeout: 20000 });
  await page.waitForTimeout(300);
  r = await page.evaluate(() => window.attnlab.result());
  assert.equal(r.heads.length, 8);
  assert.equal(r.config.d_k, 4, 'd_k follows d_model / heads');
  await showView(page, 'weights', 8);
  await page.mouse.move(4, 716);
  await page.waitForTimeout(300);
  const eight = await shot(page, '03-eight-heads');
  layout = await page.evaluate(() => window.attnlab.layout());

  // Click weight cell (3, 1) of the shown head: it is masked and the row renormalises.
  const w = layout.views.weights;
  const before = r.heads[w.head].weights[3][1];
  assert.ok(before > 0);
  await page.mouse.click(w.x + w.cell_w * 1.5, w.y + w.cell_h * 3.5, { delay: 80 });
  await page.mouse.move(4, 716);  // away, so the hover card does not cover the matrices
  await page.waitForFunction(() => Array.isArray(window.attnlab.config().mask), null, { timeout: 20000 });
  await page.waitForTimeout(500);
  r = await page.evaluate(() => window.attnlab.result());
  assert.equal(r.allowed[3][1], 0);  // the mask, shared by every head (docs/cli.md)
  assert.equal(r.heads[w.head].weights[3][1], 0);
  assert.ok(Math.abs(r.heads[w.head].weights[3].reduce((a, b) => a + b, 0) - 1) < 1e-5);
  const masked = await shot(page, '04-cell-masked');
  const cellRect = { x: w.x + w.cell_w, y: w.y + w.cell_h * 3, w: w.cell_w, h: w.cell_h };
  assert.ok(changedFraction(eight, masked, cellRect) > 0.5, 'the masked cell did not change colour');
  const far = { x: w.x, y: w.y + w.cell_h * 6, w: w.cell_w * w.cols, h: w.cell_h };
  assert.ok(changedFraction(eight, masked, far) < 0.05, 'a row the mask does not touch changed');
  assert.ok(changedFraction(typed, eight, { x: 0, y: 0, w: typed.width, h: typed.height }) > 0.01);

  // attnlab.result() is exactly what attnlab-cli prints for attnlab.config().
  const cfg = await page.evaluate(() => window.attnlab.config());
  assert.equal(cfg.mask[0].custom[3][1], 0);
  if (CLI) {
    const cli = JSON.parse(execFileSync(CLI, ['run', '-'], { input: JSON.stringify(cfg) }).toString());
    near(r, cli, 2e-6, 'result');
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('bad input: invalid configs are refused with the field named and state kept; huge and exotic text is handled', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  const before = await page.evaluate(() => window.attnlab.config());
  const heapBefore = await page.evaluate(() => window.Module.HEAPU8.buffer.byteLength);
  const errors = await page.evaluate(() => {
    const out = [];
    for (const bad of [{ heads: 0 }, { temperature: -1 }, { mask: 'diagonal' }, '{"text": ', { d_model: 1e9 },
                       { text: 'a b', mask: [{ padding: [7] }] }, { colour: 'red' }, 42,
                       { d_model: 4096, heads: 16, d_k: 1024, d_v: 1024 }, '{"heads": 1, "heads": 2}']) {
      try { window.attnlab.apply(bad); out.push('accepted'); } catch (e) { out.push(e.message); }
    }
    return out;
  });
  assert.match(errors[0], /^heads:/);
  assert.match(errors[1], /^temperature:/);
  assert.match(errors[2], /^mask\[0\]:/);  // a single term is mask[0], as in the engine's messages
  assert.match(errors[3], /^config: not valid JSON/);
  assert.match(errors[4], /^d_model:/);
  assert.match(errors[5], /^mask\[0\]\.padding:/);
  assert.match(errors[6], /^colour: unknown key/);
  assert.match(errors[7], /^config: expected a JSON object/);
  // Over the memory budget (docs/cli.md, Limits): refused before anything is allocated.
  assert.match(errors[8], /^d_model: this config needs about 1\.3 GiB of memory .* over the budget of 512 MiB$/);
  assert.equal(errors[9], 'config: duplicate key "heads"');
  assert.deepEqual(await page.evaluate(() => window.attnlab.config()), before);
  // The refusals allocated nothing: the WebAssembly heap (which can only grow) kept its size.
  assert.equal(await page.evaluate(() => window.Module.HEAPU8.buffer.byteLength), heapBefore);

  const many = Array.from({ length: 10000 }, (_, i) => 'w' + (i % 50)).join(' ');
  await page.evaluate((text) => window.attnlab.apply({ text }), many);
  await page.waitForTimeout(200);
  const r = await page.evaluate(() => window.attnlab.result());
  assert.equal(r.tokens.length, 256);
  assert.ok(r.dropped_tokens > 0);
  await shot(page, '05-clamped');

  await page.evaluate(() => window.attnlab.apply({ text: '猫が寝る 🐈‍⬛ and naïve café 😀!' }));
  await page.waitForTimeout(200);
  const e = await page.evaluate(() => window.attnlab.result());
  assert.deepEqual(e.tokens, ['猫', 'が', '寝', 'る', '🐈‍⬛', 'and', 'naïve', 'café', '😀', '!']);
  await shot(page, '06-cjk-emoji');
  const stats = await page.evaluate(() => window.attnlab.stats());
  assert.ok(stats.frames >= 3 && stats.frame_ms_p95 > 0);
  // redraw(n) draws exactly n frames now, idle or not, and refuses what is not 1–60 frames.
  const drawn = await page.evaluate(() => { const f = window.attnlab.stats().frames; return window.attnlab.redraw(4) - f; });
  assert.equal(drawn, 4);
  const refused = await page.evaluate(() => [0, 61, 1.5, 'x', NaN].map((n) => { try { window.attnlab.redraw(n); return 'drawn'; } catch (e) { return e.message; } }));
  for (const m of refused) assert.match(m, /^redraw: expected a whole number of frames from 1 to 60/);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a shared link reopens the same setup', async () => {
  const config = { text: 'links carry the whole setup', d_model: 12, heads: 3, mask: 'causal', temperature: 0.5 };
  const b64 = Buffer.from(JSON.stringify(config)).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const { page, problems } = await openLab(lab.browser, lab.server.url + '#c=' + b64);
  const cfg = await page.evaluate(() => window.attnlab.config());
  assert.equal(cfg.text, config.text);
  assert.equal(cfg.heads, 3);
  assert.deepEqual(cfg.mask, ['causal']);
  assert.equal(cfg.temperature, 0.5);
  assert.deepEqual(problems, []);
  await page.close();
});

test('HiDPI: at devicePixelRatio 2 the canvas backing store is twice the CSS size', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 960, height: 600, scale: 2 });
  const size = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    return { w: c.width, h: c.height, cw: c.clientWidth, ch: c.clientHeight };
  });
  assert.equal(size.w, size.cw * 2);
  assert.equal(size.h, size.ch * 2);
  await shot(page, '07-hidpi');
  assert.deepEqual(problems, []);
  await page.close();
});

// A catalogue's message as the format reads it (docs/translating.md): `key = text`, indented lines go on.
function catalogueMessage(code, key) {
  const lines = fs.readFileSync(new URL(`../../assets/lang/${code}.txt`, import.meta.url), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.replace(/\s*=.*$/, '').trim() === key);
  assert.ok(i >= 0, `${code}.txt has no ${key}`);
  let text = lines[i].replace(/^[^=]*=/, '').trim();
  for (let j = i + 1; j < lines.length && /^[ \t]+[^ \t#]/.test(lines[j]); ++j) text += ' ' + lines[j].trim();
  return text;
}

// The message comes before any catalogue could load, yet in the language the link (?lang=, #…&lang=) or
// the browser asks for: from boot-words.js, which the build makes from the catalogues, with no fetch.
test('without WebGL 2 the page says so in plain words, in the chosen language, instead of failing silently', async () => {
  const noGl = await launch(['--disable-3d-apis']);
  for (const [query, locale, code] of [['', 'en-US', 'en'], ['?lang=de', 'en-US', 'de'], ['?lang=zh', 'en-US', 'zh'],
                                       ['#present&lang=zh', 'en-US', 'zh'], ['', 'es-ES', 'es']]) {
    const page = await noGl.newPage({ viewport: { width: 900, height: 500 }, locale });
    const fetched = [];
    page.on('request', (r) => { if (/\/lang\//.test(r.url())) fetched.push(r.url()); });
    await page.goto(lab.server.url + query);
    await page.waitForSelector('#fatal:not([hidden])', { timeout: 20000 });
    const text = await page.evaluate(() => document.getElementById('fatal').innerText);
    const where = `${query || '(no lang)'} in a ${locale} browser`;
    assert.ok(text.includes(catalogueMessage(code, 'page.no_webgl')), `${where}: ${JSON.stringify(text)}`);
    assert.ok(text.includes(catalogueMessage(code, 'page.no_webgl.why')), `${where}: ${JSON.stringify(text)}`);
    if (code === 'en') assert.match(text, /WebGL 2 is not available/);
    assert.equal(await page.evaluate(() => document.documentElement.lang), code, where);
    assert.deepEqual(fetched, [], `${where}: fetched a catalogue`);
    assert.equal(await page.evaluate(() => document.getElementById('loading').hidden), true);
    await page.screenshot({ path: path.join(OUT, `08-no-webgl-${code}${query.startsWith('#') ? '-hash' : ''}.png`) });
    await page.close();
  }
  await noGl.close();
});

// The page API is one table (src/platform/web_api.cpp) behind one exported function, attnlab_call:
// app.js calls exactly the table's functions, the module exports no other, and a name the table lacks
// or the wrong number of arguments gets no answer (null) rather than another function's.
test('the page API: one exported entry point, app.js calls exactly its table, and docs/web-api.md documents every member', async () => {
  const source = (p) => fs.readFileSync(new URL(p, import.meta.url), 'utf8');
  const table = [...source('../../src/platform/web_api.cpp').matchAll(/^ {4}\{"([a-z0-9_]+)", (\d+),/gm)].map((m) => m[1]).sort();
  const appJs = source('../../web/app.js');
  const called = [...new Set([...appJs.matchAll(/\bcall\('([a-z0-9_]+)'/g)].map((m) => m[1]))].sort();
  assert.ok(table.length >= 30, `only ${table.length} page functions found in web_api.cpp`);
  assert.deepEqual(called, table, 'web/app.js calls (left) and web_api.cpp\'s table (right) differ');
  // window.attnlab's members, as app.js's `api` object lists them (one a line, four spaces in).
  const api = appJs.slice(appJs.indexOf('const api = {'), appJs.indexOf("version: '1',"));
  const members = [...api.matchAll(/^ {4}([A-Za-z0-9]+)[(,:]/gm)].map((m) => m[1]);
  assert.ok(members.length >= 30, `only ${members.length} members of window.attnlab found in web/app.js`);
  const docs = source('../../docs/web-api.md');
  assert.deepEqual(members.filter((m) => !docs.includes('`attnlab.' + m)), [], 'members of window.attnlab that docs/web-api.md does not document');
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  const got = await page.evaluate(() => {
    const M = window.Module;
    const ask = (parts, argc) => {
      const bytes = parts.map((p) => M.lengthBytesUTF8(p) + 1);
      const ptr = M._malloc(bytes.reduce((a, b) => a + b, 0));
      let at = ptr;
      parts.forEach((p, i) => { M.stringToUTF8(p, at, bytes[i]); at += bytes[i]; });
      const out = M._attnlab_call(ptr, argc);
      M._free(ptr);
      return out ? M.UTF8ToString(out) : null;
    };
    return {
      exports: Object.keys(M).filter((k) => /^_attnlab/.test(k)),
      unknown: ask(['no_such_function'], 0),
      wrongCount: ask(['apply'], 0),
      formula: ask(['formula'], 0),
      pageFormula: window.attnlab.formula(),
      badConfig: ask(['apply', '{"heads": 0}'], 1),
    };
  });
  assert.deepEqual(got.exports, ['_attnlab_call']);
  assert.equal(got.unknown, null);
  assert.equal(got.wrongCount, null);
  assert.equal(got.formula, got.pageFormula);
  assert.ok(got.formula.length > 0);
  assert.match(got.badConfig, /heads/);
  assert.deepEqual(problems, []);
  await page.close();
});

// The file limit is the engine's (shell_frame.h's kMaxFileBytes, which the desktop app reads too): the
// page asks for it and refuses a larger file before reading it, saying the limit; a small one opens.
test('a dropped file over the 16 MiB limit is refused before it is read; a small config opens', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  const drop = async (name, text, size) => {
    const dt = await page.evaluateHandle(([name, text, size]) => {
      const t = new DataTransfer();
      t.items.add(new File([text === null ? new Uint8Array(size) : text], name, { type: 'application/json' }));
      return t;
    }, [name, text, size]);
    await page.dispatchEvent('#canvas', 'drop', { dataTransfer: dt });
  };
  await drop('big.json', null, 16 * 1048576 + 1);
  await page.waitForFunction(() => window.attnlab.layout().ui.notice_title !== '', null, { timeout: 10000 });
  const ui = await page.evaluate(() => window.attnlab.layout().ui);
  assert.equal(ui.notice_title, 'A file could not be opened');
  assert.match(ui.notice, /^big\.json was not opened: it is 16 MiB, over the 16 MiB a file may have\. Nothing changed/);
  await drop('small.json', JSON.stringify({ text: 'one two three four', heads: 2, d_model: 8 }), 0);
  await page.waitForFunction(() => window.attnlab.config().heads === 2, null, { timeout: 10000 });
  assert.equal((await page.evaluate(() => window.attnlab.config())).text, 'one two three four');
  assert.deepEqual(problems, []);
  await page.close();
});
