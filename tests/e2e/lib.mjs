// Helpers for the browser tests: a loopback static server, Chromium with the flags that work on
// these machines, and a small PNG decoder to look at screenshot pixels.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
                '.wasm': 'application/wasm', '.json': 'application/json', '.png': 'image/png' };

// Serves `root` on 127.0.0.1 (a free port); resolves to { url, close }.
export function serve(root) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.join(root, rel.endsWith('/') ? rel + 'index.html' : rel);
    if (!file.startsWith(path.resolve(root)) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
      res.writeHead(404).end('not found');
      return;
    }
    const body = fs.readFileSync(file);
    res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream', 'Content-Length': body.length });
    res.end(body);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () =>
    resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) })));
}

export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'];

export function launch(extraArgs = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: [...CHROMIUM_ARGS, ...extraArgs] });
}

// CPU time (ms) of every thread of every Chromium process on this machine (Linux: /proc), keyed by
// process/thread id, each with its process's kind and the thread's name ('gpu-process:Thread<2>').
export function cpuByThread() {
  const out = new Map();
  for (const pid of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let cmd, tids;
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      if (!cmd.includes('chrom')) continue;
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch { continue; }
    const kind = (cmd.match(/--type=([a-z-]+)/) || [, 'browser'])[1];
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');  // utime, stime: fields 14 and 15
        out.set(`${pid}/${tid}`, { thread: `${kind}:${name}`, ms: ((+f[11] + +f[12]) * 1000) / 100 });
      } catch {}
    }
  }
  return out;
}
// Waits until Chromium's processes together use at most 8 % of one core for half a second (at most
// `limit` ms; resolves to the ms waited). A new browser window builds its own interface in its first
// seconds (Chromium's top-chrome WebUI renderer took 0.6 s of CPU while a page loaded beside it on two
// cores), which the browser of a person typing an address has long finished.
export async function browserSettled(limit = 10000) {
  const total = () => { let ms = 0; for (const t of cpuByThread().values()) ms += t.ms; return ms; };
  const t0 = Date.now();
  let quiet = 0, last = total();
  while (quiet < 2 && Date.now() - t0 < limit) {
    await new Promise((d) => setTimeout(d, 250));
    const now = total();
    quiet = now - last <= 20 ? quiet + 1 : 0;  // (/proc counts in 10 ms ticks)
    last = now;
  }
  return Date.now() - t0;
}

// Opens the lab and waits for window.attnlab.ready; collects console errors, page errors and any
// request that leaves the page's own origin.
// `touch`: a phone's screen (touch events, a mobile browser's viewport), to be tapped (page.touchscreen).
export async function openLab(browser, url, { width = 1280, height = 720, scale = 1, touch = false } = {}) {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: scale, hasTouch: touch, isMobile: touch });
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  const origin = new URL(url).origin;
  page.on('request', (r) => {
    if (new URL(r.url()).origin !== origin && !r.url().startsWith('data:')) problems.push('request to another host: ' + r.url());
  });
  await page.goto(url);
  await page.waitForFunction(() => window.attnlab && window.Module && document.getElementById('loading').hidden, null, { timeout: 60000 });
  await page.evaluate(() => window.attnlab.ready);
  await page.waitForTimeout(300);
  return { page, problems };
}

// PNG (8-bit RGB/RGBA, non-interlaced, as Chromium writes) -> { width, height, rgba }
export function decodePng(buf) {
  let pos = 8, width = 0, height = 0, type = 0;
  const idat = [];
  while (pos < buf.length) {
    const len = buf.readUInt32BE(pos);
    const kind = buf.toString('ascii', pos + 4, pos + 8);
    const data = buf.subarray(pos + 8, pos + 8 + len);
    if (kind === 'IHDR') { width = data.readUInt32BE(0); height = data.readUInt32BE(4); type = data[9]; }
    if (kind === 'IDAT') idat.push(data);
    pos += 12 + len;
  }
  const bpp = type === 6 ? 4 : 3;
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = Buffer.alloc(width * height * 4);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; y++) {
    const f = raw[y * (stride + 1)];
    const line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? line[i - bpp] : 0, b = prev[i], c = i >= bpp ? prev[i - bpp] : 0;
      let p = 0;
      if (f === 1) p = a; else if (f === 2) p = b; else if (f === 3) p = (a + b) >> 1;
      else if (f === 4) { const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c); p = pa <= pb && pa <= pc ? a : pb <= pc ? b : c; }
      line[i] = (line[i] + p) & 255;
    }
    for (let x = 0; x < width; x++) {
      out[(y * width + x) * 4] = line[x * bpp];
      out[(y * width + x) * 4 + 1] = line[x * bpp + 1];
      out[(y * width + x) * 4 + 2] = line[x * bpp + 2];
      out[(y * width + x) * 4 + 3] = bpp === 4 ? line[x * bpp + 3] : 255;
    }
    prev = line;
  }
  return { width, height, rgba: out };
}

// Distinct colours and the share of the most common one, inside an optional rectangle.
export function pixelStats(img, rect = { x: 0, y: 0, w: img.width, h: img.height }) {
  const counts = new Map();
  let n = 0;
  for (let y = Math.max(0, Math.floor(rect.y)); y < Math.min(img.height, rect.y + rect.h); y++)
    for (let x = Math.max(0, Math.floor(rect.x)); x < Math.min(img.width, rect.x + rect.w); x++) {
      const i = (y * img.width + x) * 4;
      const key = (img.rgba[i] << 16) | (img.rgba[i + 1] << 8) | img.rgba[i + 2];
      counts.set(key, (counts.get(key) || 0) + 1);
      n++;
    }
  return { distinct: counts.size, dominant: Math.max(...counts.values()) / n };
}

// Fraction of pixels that differ between two screenshots inside a rectangle.
export function changedFraction(a, b, rect) {
  let changed = 0, n = 0;
  for (let y = Math.floor(rect.y); y < rect.y + rect.h; y++)
    for (let x = Math.floor(rect.x); x < rect.x + rect.w; x++) {
      const i = (y * a.width + x) * 4;
      n++;
      if (Math.abs(a.rgba[i] - b.rgba[i]) + Math.abs(a.rgba[i + 1] - b.rgba[i + 1]) + Math.abs(a.rgba[i + 2] - b.rgba[i + 2]) > 24) changed++;
    }
  return n ? changed / n : 0;
}

// Draws `count` frames now, one per animation frame, so input the page has received is handled
// (Dear ImGui samples input once per frame). Waiting for frames to come by themselves races the lab's
// idle rule: after an input it draws a few frames and stops, and a slow machine may read the frame
// count only after they were drawn.
export async function frames(page, count = 2) {
  for (let i = 0; i < count; i++)
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => resolve(window.attnlab.redraw(1)))));
}

// A test file's shared set-up: the site from ATTNLAB_SITE served on loopback, one Chromium, and the
// output folder for screenshots (ATTNLAB_OUT). Returns { SITE, OUT, server, browser, shot } (server and
// browser are set once `before` has run); lab.shot(page, name) saves a screenshot and returns it decoded.
export function labSuite() {
  const SITE = process.env.ATTNLAB_SITE;
  const OUT = process.env.ATTNLAB_OUT || '/tmp/attnlab-e2e';
  assert.ok(SITE && fs.existsSync(path.join(SITE, 'attnlab.wasm')), 'set ATTNLAB_SITE to the built site folder');
  fs.mkdirSync(OUT, { recursive: true });
  const lab = { SITE, OUT, server: null, browser: null };
  before(async () => { lab.server = await serve(SITE); lab.browser = await launch(); });
  after(async () => { await lab.browser?.close(); await lab.server?.close(); });
  lab.shot = async (page, name) => decodePng(await page.screenshot({ path: path.join(OUT, name + '.png') }));
  return lab;
}

// Scrolls the Matrices panel with the mouse wheel until the first `rows` rows of a view (all: Infinity)
// are on screen (on a 1280×720 screen X, Q, K and V come first and the weights may start below the fold).
export async function showView(page, view = 'weights', rows = 8) {
  for (let i = 0; i < 40; i++) {
    const l = await page.evaluate(() => window.attnlab.layout());
    const m = l.windows.Matrices, w = l.views[view];
    if (w && w.y >= m.y + 30 && w.y + w.cell_h * Math.min(rows, w.rows) <= m.y + m.h - 16) return;
    await page.mouse.move(m.x + m.w / 2, m.y + m.h / 2);
    const before = await page.evaluate(() => window.attnlab.stats().frames);
    // Whole notches while the view is far away, small steps near it.
    const far = !w || w.y > m.y + m.h || w.y < m.y - m.h / 2;
    await page.mouse.wheel(0, (w && w.y < m.y + 30 ? -1 : 1) * (far ? 100 : 40));
    // A wheel notch that scrolls nothing (already at the end) draws no frame: an idle lab draws none.
    // So wait for the frames that a scroll draws, but go on re-reading the layout without them.
    await page.waitForFunction((n) => window.attnlab.stats().frames >= n, before + 2, { timeout: 5000, polling: 20 })
      .catch(() => {});
    await page.waitForTimeout(150);
  }
}

// Clicks a named control (attnlab.layout().widgets.<name>) at its centre and draws the frames after it.
export async function clickWidget(page, name) {
  const w = await widget(page, name);
  const vp = page.viewportSize();
  assert.ok(w.y + w.h / 2 < vp.height && w.x + w.w / 2 < vp.width, `widget ${name} is below or right of the screen: ${JSON.stringify(w)}`);
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2, { delay: 80 });
  await frames(page);
}

// An idle lab draws nothing: small mouse moves over the title strip (no tooltip there) make it draw.
export async function settle(page, count = 3) {
  for (let i = 0; i < count; i++) {
    await page.mouse.move(6 + i, 6);
    await frames(page, 1);
  }
}

// The mouse wheel over window `windowName` until widget `name` (attnlab.layout()'s names) is inside it;
// `settle(page)` lets the lab take each turn of the wheel. Throws after 30 turns.
export async function scrollWidgetIntoView(page, name, windowName, settle) {
  for (let i = 0; i < 30; i++) {
    const l = await page.evaluate(() => window.attnlab.layout());
    const w = l.widgets[name], win = l.windows[windowName];
    assert.ok(w && win, `${name} in ${windowName}`);
    if (w.y >= win.y + 24 && w.y + w.h <= win.y + win.h - 6) return;
    await page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await page.mouse.wheel(0, w.y + w.h > win.y + win.h - 6 ? 100 : -100);
    await settle(page);
  }
  throw new Error(`${name} could not be scrolled into view in ${windowName}`);
}

// Waits until the lab has handed every click and key the page received to Dear ImGui (its input queue
// is empty: each press and release gets a frame of its own, drawn here one after another) and has drawn
// two frames more, so what they did is on screen. Where Learn mode's worker runs, also until it has
// answered every command those inputs sent (trainStatus().in_flight is 0), and drawn that. (Waiting for
// the lab to stop drawing by itself would wait out every 6 s notice.)
export async function drain(page) {
  const left = await page.evaluate(() => {
    for (let i = 0; i < 500 && window.attnlab.stats().input.waiting > 0; i++) window.attnlab.redraw(1);
    window.attnlab.redraw(2);
    return window.attnlab.stats().input.waiting;
  });
  assert.equal(left, 0, 'the lab took every input event');
  const worker = () => window.attnlabWorker && window.attnlabWorker.status() !== 3;
  if (await page.evaluate(worker)) {
    await page.waitForFunction(() => window.attnlab.trainStatus().in_flight === 0, null, { timeout: 30000, polling: 20 });
    await page.evaluate(() => window.attnlab.redraw(2));
  }
}

// A named control's rectangle (attnlab.layout().widgets.<name>) once it stands still; fails when it is
// not drawn. After a resize, a switch of layout or a window that grew, a widget can move for a frame or
// two after it is first drawn there (a window's size follows its last frame's content), and a click
// where it was would land on something else: so frames are drawn until two in a row agree (8 at most).
export async function widget(page, name) {
  const read = () => page.evaluate((n) => window.attnlab.layout().widgets[n] || null, name);
  let w = await read();
  for (let i = 0; i < 8; i++) {
    await page.evaluate(() => window.attnlab.redraw(1));
    const again = await read();
    if (JSON.stringify(again) === JSON.stringify(w)) break;
    w = again;
  }
  assert.ok(w, `the widget ${name} is drawn`);
  return w;
}

// Ctrl+click turns a slider or drag box into a text field; a plain click focuses a number field. Then:
// select all, type the value, Enter.
export async function typeInto(page, name, text, { ctrl = true } = {}) {
  const w = await widget(page, name);
  const x = w.x + Math.min(w.w / 2, 24), y = w.y + w.h / 2;
  if (ctrl) {
    await page.keyboard.down('Control');
    await page.mouse.click(x, y);
    await page.keyboard.up('Control');
  } else {
    await page.mouse.click(x, y);
  }
  await drain(page);
  await page.keyboard.press('Control+A');
  await drain(page);
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await drain(page);
}
