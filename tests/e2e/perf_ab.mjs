// Live frames of two builds of the web app compared in one headless Chromium, in turns: a measurement
// for a machine whose speed drifts (this one's did by half within an hour), where two perf.mjs runs made
// minutes apart compare the machine more than the builds. A measurement, not a test: it asserts nothing.
//   PERF_A=<site> PERF_B=<site> node tests/e2e/perf_ab.mjs
//   PERF_N=256 PERF_BLOCKS=6 ... (default 103 tokens, 10 blocks a side)
// Each site gets a page (1280×720; heads 8, d_model 256, causal; help and W panels open, as perf.mjs).
// Then, block by block, one page is brought to the front and draws 60 frames with the temperature
// changing every frame, then the other (the order alternates, so neither always goes first). Printed:
// one JSON line per site with every block's frame_ms median and p95 (attnlab.stats: the app's own work
// per frame), their medians, the tokens, heads and d_model in effect, and in how many pairs of blocks
// B's median was below A's. It refuses to report when the lab is not at the sizes asked for.
import { serve, launch, openLab } from './lib.mjs';

const sites = [process.env.PERF_A, process.env.PERF_B];
if (!sites[0] || !sites[1]) {
  console.error('perf_ab.mjs: set PERF_A and PERF_B to the two sites (folders with index.html)');
  process.exit(2);
}
const n = +(process.env.PERF_N || 103), blocks = +(process.env.PERF_BLOCKS || 10), framesPerBlock = 60;
const servers = await Promise.all(sites.map((s) => serve(s)));
const browser = await launch();
const pages = [];
for (const server of servers) {
  const { page } = await openLab(browser, server.url, { width: 1280, height: 720 });
  const words = Array.from({ length: n }, (_, i) => ['the', 'cat', 'sat', 'on', 'mat', 'and', 'slept', 'well'][i % 8] + (i >= 8 ? i : ''));
  await page.evaluate((text) => window.attnlab.apply({ text, heads: 8, d_model: 256, mask: 'causal' }), words.join(' '));
  await page.mouse.move(5, 5);
  await page.keyboard.press('h');
  await page.keyboard.press('w');
  pages.push(page);
}
const inEffect = (page) => page.evaluate(() => {
  const c = window.attnlab.config();
  return { tokens: window.attnlab.result().tokens.length, heads: c.heads, d_model: c.d_model };
});
const block = (page) => page.evaluate(async (count) => {
  window.attnlab.resetStats();
  let t = 1, k = 0;
  await new Promise((done) => {
    const tick = () => {
      window.attnlab.apply({ ...window.attnlab.config(), temperature: (t = t === 1 ? 0.9 : 1) });
      if (++k < count) requestAnimationFrame(tick); else done();
    };
    requestAnimationFrame(tick);
  });
  const s = window.attnlab.stats();
  return { median: s.frame_ms_median, p95: s.frame_ms_p95 };
}, framesPerBlock);
const runs = [[], []];
for (let b = 0; b < blocks; ++b) {
  for (const i of b % 2 ? [1, 0] : [0, 1]) {
    await pages[i].bringToFront();
    await pages[i].waitForTimeout(200);
    runs[i].push(await block(pages[i]));
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const i of [0, 1]) {
  const m = await inEffect(pages[i]);
  if (m.tokens !== n || m.heads !== 8 || m.d_model !== 256) {
    console.error(`perf_ab.mjs: asked for ${n} tokens, 8 heads, d_model 256 but site ${'AB'[i]} had ${JSON.stringify(m)}: not reported`);
    process.exit(1);
  }
  console.log(JSON.stringify({ site: 'AB'[i], path: sites[i], ...m, width: 1280, height: 720, blocks, frames_per_block: framesPerBlock,
    block_medians: runs[i].map((r) => r.median), block_p95s: runs[i].map((r) => r.p95),
    frame_ms_median: median(runs[i].map((r) => r.median)), frame_ms_p95: median(runs[i].map((r) => r.p95)),
    ...(i === 1 ? { b_lower_in_pairs: runs[1].filter((r, k) => r.median < runs[0][k].median).length } : {}) }));
}
await browser.close();
for (const server of servers) await server.close();
