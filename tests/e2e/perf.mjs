// Frame times of the web app in headless Chromium (software WebGL through SwiftShader): prints one
// JSON line per case. A measurement, not a test: it asserts nothing.
//   ATTNLAB_SITE=build-web/site node tests/e2e/perf.mjs
//   PERF_N=100 PERF_SIZE=1280x720 ... (the classroom case: ~100 tokens on a 1280×720 projector)
// For each n (heads 8, d_model 256, causal; the help and W panels open, the tour closed: its steps apply
// setups of their own):
//   static   nothing changes: the lab draws only when something does (frames_drawn says how many it drew)
//   live     the temperature changes every frame (a full softmax -> output recompute each frame)
// frame_ms = the app's own work per frame (attnlab.stats: ImGui + engine + GL calls),
// raf_ms   = intervals between requestAnimationFrame callbacks (how often the page's thread is free),
// drawn_per_s = the frames the lab drew a second over the case's 180 animation frames (what the person
//            sees: since the loop waits for the GPU to finish a frame before it draws the next, a slow
//            GPU gets fewer frames than the page gets animation frames),
// apply_ms = live: each attnlab.apply() of the new temperature, the recompute it runs (softmax onwards) and
//            the page API's own cost; a slider dragged does that recompute inside its frame instead.
import { serve, launch, openLab, browserSettled } from './lib.mjs';

const site = process.env.ATTNLAB_SITE;
const server = await serve(site);
const browser = await launch();
const sizes = (process.env.PERF_N || '16,64,128').split(',').map(Number);
const [width, height] = (process.env.PERF_SIZE || '1920x1080').split('x').map(Number);
for (const n of sizes) {
  const { page } = await openLab(browser, server.url, { width, height });
  const words = Array.from({ length: n }, (_, i) => ['the', 'cat', 'sat', 'on', 'mat', 'and', 'slept', 'well'][i % 8] + (i >= 8 ? i : ''));
  await page.evaluate((text) => window.attnlab.apply({ text, heads: 8, d_model: 256, mask: 'causal' }), words.join(' '));
  await page.mouse.move(5, 5);
  await page.keyboard.press('h');
  await page.keyboard.press('w');
  // What is measured is what was asked, or nothing is reported.
  const inEffect = () => page.evaluate(() => {
    const c = window.attnlab.config();
    return { tokens: window.attnlab.result().tokens.length, heads: c.heads, d_model: c.d_model, mask: c.mask, tour_open: window.attnlab.layout().ui.tour.open };
  });
  const check = async (when) => {
    const m = await inEffect();
    if (m.tokens !== n || m.heads !== 8 || m.d_model !== 256) {
      console.error(`perf.mjs: asked for ${n} tokens, 8 heads, d_model 256 but ${when} the lab had ${JSON.stringify(m)}: not reported`);
      process.exit(1);
    }
    return m;
  };
  await check('before measuring');
  for (const mode of ['static', 'live']) {
    await page.waitForTimeout(500);
    await browserSettled();  // (a new window builds its own interface in its first seconds)
    const r = await page.evaluate(async (live) => {
      window.attnlab.resetStats();
      const gaps = [], applies = [];
      let last = performance.now(), t = 1;
      await new Promise((done) => {
        const tick = (now) => {
          gaps.push(now - last);
          last = now;
          if (live) {
            const config = { ...window.attnlab.config(), temperature: (t = t === 1 ? 0.9 : 1) };
            const a0 = performance.now();
            window.attnlab.apply(config);  // the recompute (softmax onwards), outside the frame here
            applies.push(performance.now() - a0);
          }
          if (gaps.length < 180) requestAnimationFrame(tick); else done();
        };
        requestAnimationFrame(tick);
      });
      gaps.shift();
      const seconds = gaps.reduce((a, g) => a + g, 0) / 1000;
      gaps.sort((a, b) => a - b);
      applies.sort((a, b) => a - b);
      const s = window.attnlab.stats();
      return { seconds, raf_median: gaps[gaps.length >> 1], raf_p95: gaps[Math.floor(gaps.length * 0.95)], ...s,
               apply_median: applies.length ? applies[applies.length >> 1] : null, apply_p95: applies.length ? applies[Math.floor(applies.length * 0.95)] : null };
    }, mode === 'live');
    const m = await check('after measuring');
    console.log(JSON.stringify({ n: m.tokens, width, height, heads: m.heads, d_model: m.d_model, mask: m.mask, mode, frames_drawn: r.frames, seconds: +r.seconds.toFixed(2), drawn_per_s: +(r.frames / r.seconds).toFixed(1), frame_ms_median: r.frame_ms_median, frame_ms_p95: r.frame_ms_p95,
      raf_ms_median: +r.raf_median.toFixed(2), raf_ms_p95: +r.raf_p95.toFixed(2), ui_ms_median: r.ui_ms_median, ui_ms_p95: r.ui_ms_p95, recompute_ms: r.recompute_ms,
      apply_ms_median: r.apply_median === null ? null : +r.apply_median.toFixed(2), apply_ms_p95: r.apply_p95 === null ? null : +r.apply_p95.toFixed(2), texture_uploads: r.texture_uploads, vertices: r.vertices }));
  }
  if (n === sizes[sizes.length - 1]) await page.screenshot({ path: (process.env.ATTNLAB_OUT || '/tmp') + `/perf-n${n}.png` });
  await page.close();
}
await browser.close();
await server.close();
