// The first load of the web app in headless Chromium: a measurement, not a test (it asserts nothing).
//   ATTNLAB_SITE=build-web/site node tests/e2e/load_perf.mjs
//   LOAD_RUNS=7 LOAD_QUERY='?lang=zh' LOAD_SETTLE=0 ...
// Each run opens the page in a fresh browser context (nothing cached) at 1280x720 and prints one JSON
// line: the milliseconds from navigation start until window.attnlab.ready resolved (the first frame
// drawn), the files the page fetched until then with their sizes as served and gzipped (gzip -9, what a
// static host that compresses would send), and their sums, and how long the new window took to go quiet
// before the page was opened in it (settled_ms). A last line gives the median and the range.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { serve, launch, browserSettled } from './lib.mjs';

const site = process.env.ATTNLAB_SITE;
const runs = Number(process.env.LOAD_RUNS || 5);
const settle = process.env.LOAD_SETTLE !== '0';
const query = process.env.LOAD_QUERY || '';
const server = await serve(site);
const browser = await launch();
const gzipped = (rel) => zlib.gzipSync(fs.readFileSync(path.join(site, rel)), { level: 9 }).length;

const times = [];
let files = [];
for (let r = 0; r < runs; ++r) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  const fetched = [];
  page.on('requestfinished', (q) => fetched.push(new URL(q.url()).pathname.replace(/^\//, '') || 'index.html'));
  // A fresh context is a new window, which builds its interface for a second or two; a person's
  // browser was open before they typed the address. So the page loads once the window is quiet
  // (LOAD_SETTLE=0: at once, beside it, as before 2026-12-05 evening).
  let settled_ms = null;
  if (settle) await page.goto('about:blank'), settled_ms = await browserSettled();
  await page.goto(server.url + query);
  const ms = await page.evaluate(async () => {
    await new Promise((done) => { const wait = () => (window.attnlab ? done() : setTimeout(wait, 5)); wait(); });
    await window.attnlab.ready;
    return performance.now();
  });
  times.push(ms);
  files = fetched.filter((f) => fs.existsSync(path.join(site, f)));
  const sizes = files.map((f) => ({ file: f, bytes: fs.statSync(path.join(site, f)).size, gzip: gzipped(f) }));
  console.log(JSON.stringify({ run: r + 1, query, ready_ms: Math.round(ms), settled_ms,
    bytes: sizes.reduce((a, s) => a + s.bytes, 0), gzip_bytes: sizes.reduce((a, s) => a + s.gzip, 0), files: sizes }));
  await context.close();
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({ runs, query, settle, ready_ms_median: Math.round(times[Math.floor(runs / 2)]),
  ready_ms_min: Math.round(times[0]), ready_ms_max: Math.round(times[runs - 1]), files: files.length }));
await browser.close();
await server.close();
