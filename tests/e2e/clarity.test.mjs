// Teaching clarity in the browser (issue 8): what a learner sees at the default size and on a projector
// (1280×720, UI scale 2): the formula for each mode, the √d_k lesson in the pixels of S, a tour whose
// highlight lasts, links that keep the selected head and view, and exports that open.
//   ATTNLAB_SITE=build-web/site ATTNLAB_OUT=build/e2e node --test tests/e2e/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { openLab, decodePng, frames, labSuite, showView } from './lib.mjs';

const lab = labSuite();
const OUT = lab.OUT;
const shot = lab.shot;
function pngFromDataUrl(url) {
  assert.match(url, /^data:image\/png;base64,/);
  const buf = Buffer.from(url.slice(url.indexOf(',') + 1), 'base64');
  assert.equal(buf.subarray(1, 4).toString('ascii'), 'PNG');
  return decodePng(buf);
}
// Share of a rectangle's pixels that are saturated red or blue (the ends of the diverging map).
function saturated(img, r) {
  let n = 0, hot = 0;
  for (let y = Math.ceil(r.y); y < r.y + r.h; y++)
    for (let x = Math.ceil(r.x); x < r.x + r.w; x++) {
      const i = (y * img.width + x) * 4, R = img.rgba[i], G = img.rgba[i + 1], B = img.rgba[i + 2];
      n++;
      if ((R > 95 && G < 70 && B < 80) || (B > 70 && R < 40 && G < 90)) hot++;
    }
  return hot / n;
}
const draw = (page, n = 3) => page.evaluate((k) => window.attnlab.redraw(k), n);
async function setScaling(page, on) {
  await page.evaluate((on) => { const c = window.attnlab.config(); c.scale = on; window.attnlab.apply(c); }, on);
  await draw(page);
}

const SQRT = '\u221A', TAU = '\u03C4', DOT = '\u00B7', KT = 'K\u1D40';

test('the formula strip reads right in every mode', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  const formula = (cfg) => page.evaluate((c) => { window.attnlab.apply(c); return window.attnlab.formula(); }, cfg);
  const base = { text: 'the cat sat', d_model: 16, heads: 2 };
  assert.equal(await formula(base), `out = concat(softmax(Q${DOT}${KT} / ${SQRT}d_k) ${DOT} V) ${DOT} W_O`);
  assert.equal(await formula({ ...base, scale: false }), `out = concat(softmax(Q${DOT}${KT}) ${DOT} V) ${DOT} W_O   no scaling`);
  assert.equal(await formula({ ...base, scale: 0.5 }), `out = concat(softmax(Q${DOT}${KT} ${DOT} 0.5) ${DOT} V) ${DOT} W_O`);
  assert.equal(await formula({ ...base, temperature: 2, mask: 'causal' }),
               `out = concat(softmax(mask(Q${DOT}${KT} / ${SQRT}d_k / ${TAU})) ${DOT} V) ${DOT} W_O   ${TAU} = 2`);
  assert.equal(await formula({ ...base, source: 'a b c' }),
               `out = concat(softmax(Q${DOT}${KT} / ${SQRT}d_k) ${DOT} V) ${DOT} W_O   (Q from X; K, V from X_src)`);
  // and the strip's pixels follow: turning scaling off removes the "/ √d_k" button
  await page.evaluate((c) => window.attnlab.apply(c), base);
  await draw(page);
  const on = await shot(page, 'c01-formula-scaled');
  await page.evaluate((c) => window.attnlab.apply(c), { ...base, scale: false });
  await draw(page);
  const off = await shot(page, 'c02-formula-unscaled');
  let diff = 0;
  for (let i = 0; i < 30 * on.width * 4; i += 4) diff += Math.abs(on.rgba[i] - off.rgba[i]) > 30 ? 1 : 0;
  assert.ok(diff > 100, 'the formula strip did not change: ' + diff);
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [label, opts] of [['default size', { width: 1280, height: 720 }], ['projector (UI scale 2)', { width: 1280, height: 720, uiScale: 2 }]]) {
  test(`√d_k is visible at a glance in S (${label})`, async () => {
    const { page, problems } = await openLab(lab.browser, lab.server.url, opts);
    if (opts.uiScale) {
      // On a projector the matrices are big: the teacher shows S large (its ↗ button).
      await page.evaluate((s) => window.attnlab.setView({ ui_scale: s, zoom: 'scores' }), opts.uiScale);
      await draw(page);
      assert.equal((await page.evaluate(() => window.attnlab.view())).ui_scale, opts.uiScale);
    }
    await page.evaluate(() => window.attnlab.apply({ text: 'the students read the books in the quiet room', d_model: 64, heads: 1, d_k: 64, d_v: 16 }));
    await draw(page);
    const cells = async (name) => {
      if (!opts.uiScale) await showView(page, 'scores', Infinity);  // X (d_model 64) takes a line of its own above
      const lay = await page.evaluate(() => window.attnlab.layout());
      const v = opts.uiScale ? lay.widgets.zoom_cells : lay.views.scores;
      assert.ok(v, 'S is on screen');
      const r = opts.uiScale ? v : { x: v.x, y: v.y, w: v.cell_w * v.cols, h: v.cell_h * v.rows };
      assert.ok(r.y + r.h <= opts.height && r.x + r.w <= opts.width, 'all of S is on screen: ' + JSON.stringify(r));
      const img = await shot(page, name);
      return saturated(img, r);
    };
    const tag = opts.uiScale ? 'projector' : 'default';
    const scaled = await cells(`c03-sqrt-dk-on-${tag}`);
    await setScaling(page, false);
    const unscaled = await cells(`c04-sqrt-dk-off-${tag}`);
    // Fixed colours: without 1/√d_k the scores run past ±5 and most cells saturate; with it few do.
    assert.ok(unscaled > 0.4, `unscaled S should look saturated, got ${unscaled.toFixed(2)}`);
    assert.ok(scaled < 0.1, `scaled S should look calm, got ${scaled.toFixed(2)}`);
    console.log(`# saturated share of S (${label}): scaled ${scaled.toFixed(3)}, unscaled ${unscaled.toFixed(3)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('the tour drives the lab and its highlight lasts', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  const lay = await page.evaluate(() => window.attnlab.layout());
  const t = lay.widgets.tour;
  await page.mouse.click(t.x + t.w / 2, t.y + t.h / 2);
  await frames(page, 3);
  let next = (await page.evaluate(() => window.attnlab.layout())).widgets.tour_next;
  assert.ok(next, 'the tour window is open');
  for (let k = 0; k < 3; k++) {  // to step 4: the √d_k experiment
    await page.mouse.click(next.x + next.w / 2, next.y + next.h / 2);
    await frames(page, 3);
    next = (await page.evaluate(() => window.attnlab.layout())).widgets.tour_next;
  }
  const cfg = await page.evaluate(() => window.attnlab.config());
  assert.equal(cfg.scale, false);
  assert.equal(cfg.d_k, 64);
  await page.mouse.move(5, 700);
  await page.waitForTimeout(2500);  // longer than the old 1.5 s flash
  await draw(page, 1);
  const img = await shot(page, 'c05-tour-step4');
  const b = (await page.evaluate(() => window.attnlab.layout())).widgets['block:scores'];
  assert.ok(b, 'S is framed on screen');
  let gold = 0;
  for (let x = Math.floor(b.x); x < b.x + b.w; x++)
    for (const y of [Math.floor(b.y) - 2, Math.floor(b.y) - 1, Math.floor(b.y)]) {
      const i = (y * img.width + x) * 4;
      if (img.rgba[i] > 220 && img.rgba[i + 1] > 170 && img.rgba[i + 1] < 230 && img.rgba[i + 2] < 90) gold++;
    }
  assert.ok(gold > b.w * 0.5, 'the highlight around S faded: ' + gold);
  // On to the Learn chapter (step 14): it opens Learn mode on previous_token and frames Train.
  for (let k = 3; k < 13; k++) {
    await page.mouse.click(next.x + next.w / 2, next.y + next.h / 2);
    await frames(page, 3);
    next = (await page.evaluate(() => window.attnlab.layout())).widgets.tour_next;
  }
  const train = (await page.evaluate(() => window.attnlab.layout())).widgets.learn_train;
  assert.ok(train, 'the Learn chapter shows Learn mode');
  assert.equal((await page.evaluate(() => window.attnlab.trainStatus())).state, 'idle');
  await draw(page, 1);
  const learn = await shot(page, 'c05b-tour-learn-chapter');
  let framed = 0;
  for (let x = Math.floor(train.x); x < train.x + train.w; x++)
    for (let y = Math.floor(train.y) - 6; y < train.y; y++) {
      const i = (y * learn.width + x) * 4;
      if (learn.rgba[i] > 220 && learn.rgba[i + 1] > 170 && learn.rgba[i + 1] < 230 && learn.rgba[i + 2] < 90) { framed++; break; }
    }
  assert.ok(framed > train.w * 0.8, 'Train is framed in gold: ' + framed + ' of ' + Math.round(train.w) + ' columns');
  assert.deepEqual(problems, []);
  await page.close();
});

test('presets: listed and applied through the page API, and opened by a #preset= link', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  const list = await page.evaluate(() => window.attnlab.presets());
  assert.deepEqual(list.map((p) => p.key), ['pronoun', 'causal', 'no_scaling', 'position', 'cross', 'window', 'padding', 'rope', 'temperature', 'positional_heads']);
  assert.ok(list.every((p) => p.name && p.description && p.file.endsWith('.json')));
  const before = await page.evaluate(() => window.attnlab.config());
  const refused = await page.evaluate(() => { try { window.attnlab.preset('nope'); return 'applied'; } catch (e) { return e.message; } });
  assert.match(refused, /^preset: unknown preset "nope" \(one of: pronoun, causal, no_scaling/);
  assert.deepEqual(await page.evaluate(() => window.attnlab.config()), before);
  await page.evaluate(() => window.attnlab.preset('causal'));
  assert.deepEqual((await page.evaluate(() => window.attnlab.config())).mask, ['causal']);
  await page.close();

  // A link for a lesson: the pronoun preset (its view points at the row of "it") in presenter mode.
  const opened = await openLab(lab.browser, lab.server.url + '#preset=pronoun&present');
  const cfg = await opened.page.evaluate(() => window.attnlab.config());
  assert.ok(cfg.text.includes(' it '), cfg.text);
  assert.equal((await opened.page.evaluate(() => window.attnlab.view())).query, 6);
  assert.equal((await opened.page.evaluate(() => window.attnlab.layout())).ui.presenter, true);
  // The hash changed by hand opens another preset.
  await opened.page.evaluate(() => { location.hash = 'preset=rope'; });
  await opened.page.waitForFunction(() => window.attnlab.config().positional === 'rope', null, { timeout: 10000 });
  assert.deepEqual([...problems, ...opened.problems], []);
  await opened.page.close();
});

test('a shared link keeps the selected head and the view', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await page.evaluate(() => {
    window.attnlab.apply({ text: 'links keep what you were looking at', d_model: 16, heads: 4, mask: 'causal' });
    window.attnlab.setView({ head: 2, numbers: false, ranges: { q: 3 }, zoom: 'weights' });
  });
  await draw(page);
  const url = await page.evaluate(() => window.attnlab.shareUrl());
  assert.match(url, /#c=[A-Za-z0-9_-]+&v=[A-Za-z0-9_-]+$/);
  const before = await page.evaluate(() => ({ c: window.attnlab.config(), v: window.attnlab.view() }));
  const { page: again, problems: p2 } = await openLab(lab.browser, url);
  await draw(again);
  const after = await again.evaluate(() => ({ c: window.attnlab.config(), v: window.attnlab.view() }));
  assert.deepEqual(after.c, before.c);
  assert.equal(after.v.head, 2);
  assert.equal(after.v.numbers, false);
  assert.equal(after.v.ranges.q, 3);
  assert.equal(after.v.zoom, 'weights');
  await shot(again, 'c06-shared-link-head2-zoom');
  // a bad view is refused with the key named, and nothing changes
  const err = await again.evaluate(() => { try { window.attnlab.setView({ head: 'two' }); return ''; } catch (e) { return e.message; } });
  assert.match(err, /^view\.head/);
  assert.equal((await again.evaluate(() => window.attnlab.view())).head, 2);
  assert.deepEqual([...problems, ...p2], []);
  await page.close();
  await again.close();
});

test('exports open: PNG of the lab and of one view, CSV back to the matrix, JSON result download', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat', d_model: 16, heads: 2, mask: 'causal' }));
  await draw(page);
  const whole = pngFromDataUrl(await page.evaluate(() => window.attnlab.screenshot()));
  const size = await page.evaluate(() => [document.getElementById('canvas').width, document.getElementById('canvas').height]);
  assert.deepEqual([whole.width, whole.height], size);
  let lit = 0;  // not blank: plenty of bright pixels
  for (let i = 0; i < whole.rgba.length; i += 4) lit += whole.rgba[i] + whole.rgba[i + 1] + whole.rgba[i + 2] > 300 ? 1 : 0;
  assert.ok(lit > whole.width * whole.height * 0.02, 'the screenshot is blank');
  fs.writeFileSync(path.join(OUT, 'c07-screenshot-api.png'), Buffer.from((await page.evaluate(() => window.attnlab.screenshot())).split(',')[1], 'base64'));
  const weights = pngFromDataUrl(await page.evaluate(() => window.attnlab.screenshot('weights')));
  assert.ok(weights.width < whole.width && weights.height < whole.height && weights.width > 50);
  let viridisYellow = 0;
  for (let i = 0; i < weights.rgba.length; i += 4) viridisYellow += weights.rgba[i] > 200 && weights.rgba[i + 1] > 190 && weights.rgba[i + 2] < 80 ? 1 : 0;
  assert.ok(viridisYellow > 20, 'the weights PNG shows no weight near 1');
  fs.writeFileSync(path.join(OUT, 'c08-screenshot-weights.png'), Buffer.from((await page.evaluate(() => window.attnlab.screenshot('weights'))).split(',')[1], 'base64'));
  // CSV: header of key tokens, then rows led by their token, numbers exactly the result's
  const { csv, result } = await page.evaluate(() => ({ csv: window.attnlab.csv('weights'), result: window.attnlab.result() }));
  const lines = csv.trim().split('\n');
  assert.equal(lines[0], '"","the","cat","sat","on","the","mat"');
  lines.slice(1).forEach((line, i) => {
    const cells = line.split(',');
    assert.equal(cells[0], JSON.stringify(result.tokens[i]));
    assert.deepEqual(cells.slice(1).map(Number), result.heads[0].weights[i]);
  });
  // The Export menu's "Result as JSON" downloads a file that parses to attnlab.result()
  const e = (await page.evaluate(() => window.attnlab.layout())).widgets.export;
  await page.mouse.click(e.x + e.w / 2, e.y + e.h / 2);
  await frames(page, 2);
  await draw(page, 2);
  const item = (await page.evaluate(() => window.attnlab.layout())).widgets['export:json'];
  assert.ok(item, 'the Export menu is open');
  const [download] = await Promise.all([page.waitForEvent('download'), page.mouse.click(item.x + item.w / 2, item.y + item.h / 2)]);
  assert.equal(download.suggestedFilename(), 'attention-lab_result.json');
  const file = path.join(OUT, 'c09-result.json');
  await download.saveAs(file);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), result);
  assert.deepEqual(problems, []);
  await page.close();
});

test('screenshots a teacher would check at every size', async () => {
  for (const [name, w, h, s, ui] of [['c10-390x844', 390, 844, 1, 1], ['c11-1024x768', 1024, 768, 1, 1],
                                     ['c12-projector-1280x720-ui2', 1280, 720, 1, 2], ['c13-1920x1080', 1920, 1080, 1, 1]]) {
    const { page, problems } = await openLab(lab.browser, lab.server.url, { width: w, height: h, scale: s });
    if (ui !== 1) await page.evaluate((u) => window.attnlab.setView({ ui_scale: u }), ui);
    await draw(page);
    await shot(page, name);
    assert.deepEqual(problems, []);
    await page.close();
  }
});
