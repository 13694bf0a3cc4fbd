// What a frame of the lab costs the browser on a software GPU: a measurement, not a test.
//   ATTNLAB_SITE=build-web/site node tests/e2e/raster_perf.mjs        (PERF_SIZE=1920x1080 for another size)
// The page's own frame time (attnlab.stats()) leaves out the GPU process, where SwiftShader rasterises
// what the page drew, on the same cores as the page and its training worker. This draws 20 frames, 0.1 s
// apart, of the lab and then of Learn mode (after a 400-step induction run) and reads each Chromium thread's
// CPU time from /proc (Linux) around them; it prints one JSON line per mode with the CPU milliseconds per
// frame of SwiftShader's threads, the GPU process's main thread and the page's, the frame's vertices, and
// what was drawn (the lab's tokens, heads and d_model; the model Learn mode trained, and its step). First,
// one line for the lab left alone for 3 s, 3 s after it loaded: the CPU milliseconds a second of all Chromium's threads.
import { serve, launch, openLab, cpuByThread } from './lib.mjs';

function perFrame(before, after, frames) {
  const sum = (pred) => {
    let ms = 0;
    for (const [k, t] of after) if (pred(t.thread)) ms += t.ms - (before.get(k)?.ms || 0);
    return Math.round((ms / frames) * 10) / 10;
  };
  return {
    swiftshader_ms: sum((t) => /^gpu-process:Thread<\d+>$/.test(t)),  // SwiftShader's rasterising threads
    gpu_main_ms: sum((t) => t === 'gpu-process:chromium'),
    page_main_ms: sum((t) => t === 'renderer:chromium'),
    page_pool_ms: sum((t) => t.startsWith('renderer:ThreadPoolForeg')),  // compiling, collecting
  };
}

const [width, height] = (process.env.PERF_SIZE || '1280x720').split('x').map(Number);
const server = await serve(process.env.ATTNLAB_SITE);
const browser = await launch();
const { page } = await openLab(browser, server.url, { width, height });
await page.mouse.move(1, 1);
// The lab left alone for 3 s (after 3 s to settle): what an idle page costs, all of Chromium's threads.
{
  await new Promise((d) => setTimeout(d, 3000));
  const before = cpuByThread(), frames0 = await page.evaluate(() => window.attnlab.stats().frames);
  await new Promise((d) => setTimeout(d, 3000));
  const after = cpuByThread(), frames = (await page.evaluate(() => window.attnlab.stats().frames)) - frames0;
  const by = {};
  let total = 0;
  for (const [k, t] of after) {
    const ms = t.ms - (before.get(k)?.ms || 0);
    if (ms > 0) by[t.thread.replace(/\d+/g, '#')] = (by[t.thread.replace(/\d+/g, '#')] || 0) + ms / 3, total += ms / 3;
  }
  const top = Object.entries(by).sort((a, b) => b[1] - a[1]).slice(0, 5).map(([k, v]) => [k, Math.round(v)]);
  const lab = await page.evaluate(() => { const c = window.attnlab.config(); return { tokens: window.attnlab.result().tokens.length, heads: c.heads, d_model: c.d_model }; });
  console.log(JSON.stringify({ mode: 'idle', size: `${width}x${height}`, ...lab, frames_drawn: frames, cpu_ms_per_s: Math.round(total), busiest: Object.fromEntries(top) }));
}
for (const mode of ['lab', 'learn']) {
  if (mode === 'learn') {
    await page.evaluate(async () => {
      window.attnlab.train({ task: 'induction', train: { eval_every: 20, steps: 400 } });
      for (;;) { await new Promise((d) => setTimeout(d, 100)); if (window.attnlab.trainStatus().state === 'done') break; }
    });
  }
  await new Promise((d) => setTimeout(d, 500));
  const before = cpuByThread();
  const st = await page.evaluate(async () => {
    window.attnlab.resetStats();
    for (let k = 0; k < 20; ++k) { window.attnlab.redraw(1); await new Promise((d) => setTimeout(d, 100)); }
    return window.attnlab.stats();
  });
  // What was drawn: the lab's sizes in effect, or the model Learn mode trained.
  const drawn = await page.evaluate((mode) => {
    if (mode === 'learn') {
      const c = window.attnlab.model().config;
      return { task: c.task, n: c.n, layers: c.layers, heads: c.heads, d_model: c.d_model, step: window.attnlab.trainStatus().step };
    }
    const c = window.attnlab.config();
    return { tokens: window.attnlab.result().tokens.length, heads: c.heads, d_model: c.d_model };
  }, mode);
  console.log(JSON.stringify({ mode, size: `${width}x${height}`, ...drawn, frames: st.frames, vertices: st.vertices, ...perFrame(before, cpuByThread(), st.frames) }));
}
await browser.close();
await server.close();
