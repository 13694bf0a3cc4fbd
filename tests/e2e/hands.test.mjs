// What a teacher meets in the first ten minutes (issue 16), each through the hands that use it: the
// Export menu's downloads (decoded), the d_k tie box, quick clicks, the tour walked by clicking and
// doing each step's action, the first screen of a school laptop, a tablet and a phone, links that
// cannot be opened, presenter mode on a projector, hiding the side panels.
//   ATTNLAB_SITE=build-web/site ATTNLAB_OUT=build/e2e node --test tests/e2e/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, openLab, decodePng, frames } from './lib.mjs';

const lab = labSuite();
const OUT = lab.OUT;
const layout = (page) => page.evaluate(() => window.attnlab.layout());
const center = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
async function until(page, fn, arg, what, timeout = 30000) {
  await page.waitForFunction(fn, arg, { timeout, polling: 50 }).catch((e) => { throw new Error(`${what}: ${e.message}`); });
}
// Waits until the lab has drawn everything it was handed (its input queue is empty and no frame came
// for a while): every click and key has reached Dear ImGui and its result is on screen.
async function settle(page) {
  let last = -1, still = 0;
  for (let i = 0; i < 300 && still < 3; i++) {
    const s = await page.evaluate(() => window.attnlab.stats());
    still = s.frames === last && s.input.waiting === 0 ? still + 1 : 0;
    last = s.frames;
    await page.waitForTimeout(120);
  }
}
// The mask as a list of kinds, whichever form the config gives it in ("causal", ["causal"], [{"window": 3}]).
const maskKinds = (mask) => (typeof mask === 'string' ? (mask === 'none' ? [] : [mask]) : mask.map((t) => (typeof t === 'string' ? t : Object.keys(t)[0])));
// A control below the fold of its panel is brought into view with the mouse wheel, as a person does.
async function scrollIntoView(page, name, windowName) {
  for (let i = 0; i < 30; i++) {
    const l = await layout(page);
    const w = l.widgets[name], win = l.windows[windowName];
    if (w.y >= win.y + 24 && w.y + w.h <= win.y + win.h - 6) return;
    await page.mouse.move(win.x + win.w / 2, win.y + win.h / 2);
    await page.mouse.wheel(0, w.y + w.h > win.y + win.h - 6 ? 100 : -100);
    await settle(page);
  }
  throw new Error(`${name} could not be scrolled into view in ${windowName}`);
}
// Ctrl+click turns a slider into a text field: select all, type the value, Enter.
async function typeIntoSlider(page, name, text) {
  const w = (await layout(page)).widgets[name];
  await page.keyboard.down('Control');
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2);
  await page.keyboard.up('Control');
  await settle(page);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await settle(page);
}
async function clickWidget(page, name) {
  const w = (await layout(page)).widgets[name];
  assert.ok(w, `the widget ${name} is drawn`);
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2);
  await settle(page);
}
// A download started by a person's click on a widget, saved and read back.
async function download(page, widget) {
  const w = (await layout(page)).widgets[widget];
  assert.ok(w, `the widget ${widget} is drawn`);
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 20000 }), page.mouse.click(w.x + w.w / 2, w.y + w.h / 2)]);
  const file = path.join(OUT, 'dl-' + dl.suggestedFilename());
  await dl.saveAs(file);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}
async function openContext(options) {
  const context = await lab.browser.newContext({ acceptDownloads: true, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  return { context, page, problems };
}
async function load(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.attnlab && document.getElementById('loading').hidden, null, { timeout: 60000 });
  await page.evaluate(() => window.attnlab.ready);
  await settle(page);
}

test('Export menu: the whole lab and one view download as PNGs that decode, a matrix as CSV, the result as JSON', async () => {
  const { context, page, problems } = await openContext({ viewport: { width: 1366, height: 768 } });
  await load(page, lab.server.url);
  const l = await layout(page);
  // The whole lab: Export, then its first item. The item under the pointer is highlighted in the
  // menu's hover colour: the saved picture is taken after the menu has closed, so none of it is there.
  await clickWidget(page, 'export');
  const item = (await layout(page)).widgets['export:png'];
  await page.mouse.move(item.x + 4, item.y + item.h / 2);
  await settle(page);
  const menuShot = decodePng(await page.screenshot());
  const px = (im, x, y) => { const i = 4 * (Math.round(y) * im.width + Math.round(x)); return (im.rgba[i] << 16) | (im.rgba[i + 1] << 8) | im.rgba[i + 2]; };
  const hover = px(menuShot, item.x + 2, item.y + item.h / 2);
  const whole = await download(page, 'export:png');
  assert.equal(whole.name, 'attention-lab.png');
  const img = decodePng(whole.bytes);
  assert.equal(img.width, Math.round(l.ui.display_w));
  assert.equal(img.height, Math.round(l.ui.display_h));
  const colours = new Set();
  for (let i = 0; i < img.rgba.length; i += 4 * 97) colours.add((img.rgba[i] << 16) | (img.rgba[i + 1] << 8) | img.rgba[i + 2]);
  assert.ok(colours.size > 200, `the saved lab is drawn (${colours.size} colours sampled)`);
  let highlighted = 0, sampled = 0;
  for (let y = item.y + 2; y < item.y + item.h - 2; y += 2)
    for (let x = item.x + 2; x < item.x + item.w - 2; x += 3) ++sampled, highlighted += px(img, x, y) === hover ? 1 : 0;
  assert.ok(highlighted < 0.2 * sampled, `the Export menu is not in the saved picture (${highlighted} of ${sampled} pixels in its hover colour ${hover.toString(16)})`);
  await until(page, () => /^Saved attention-lab\.png \(\d+(\.\d)? KB\) to your downloads$/.test(window.attnlab.layout().ui.notice), null,
              'the lab said what it saved');
  await settle(page);
  // One view: Export → One view as PNG → the weights.
  await clickWidget(page, 'export');
  await clickWidget(page, 'export:view_png');  // the section opens in place
  assert.ok((await layout(page)).widgets['export:view_png:weights'], 'the list of views is open');
  const one = await download(page, 'export:view_png:weights');
  await settle(page);
  assert.equal(one.name, 'attention-lab_weights_head0.png');
  const block = (await layout(page)).widgets['block:weights'];
  const v = decodePng(one.bytes);
  assert.ok(Math.abs(v.width - block.w - 8) <= 2 && Math.abs(v.height - block.h - 8) <= 2, `the view's PNG is its block: ${v.width}x${v.height} vs ${block.w}x${block.h}`);
  // Views below the fold (Q, the output): the lab scrolls each into view, or shows it large where it
  // cannot fit, and saves the whole block, never a strip of whatever lay at its place (it once saved
  // the status bar as "Q", and a 1-pixel-high "Output").
  for (const view of ['q', 'output']) {
    const before = (await layout(page)).widgets[`block:${view}`];
    assert.ok(before, `${view} is drawn in the Matrices panel`);
    await clickWidget(page, 'export');
    await clickWidget(page, 'export:view_png');
    const shot = await download(page, `export:view_png:${view}`);
    await until(page, (v) => new RegExp(`^Saved attention-lab_${v}(_head0)?\\.png`).test(window.attnlab.layout().ui.notice), view, `${view}: the lab said what it saved`);
    await settle(page);
    const after = await layout(page);
    const png = decodePng(shot.bytes);
    const seen = new Set();
    for (let i = 0; i < png.rgba.length; i += 4 * 13) seen.add((png.rgba[i] << 16) | (png.rgba[i + 1] << 8) | png.rgba[i + 2]);
    assert.ok(png.width >= 100 && png.height >= 100 && seen.size > 60, `${view}: a whole block (${png.width}x${png.height}, ${seen.size} colours; it was ${before.w}x${before.h}, whole ${before.whole})`);
    const b = after.widgets[`block:${view}`];
    if (b.whole) assert.ok(Math.abs(png.width - b.w - 8) <= 2 && Math.abs(png.height - b.h - 8) <= 2, `${view}: the PNG is the block scrolled into view`);
    assert.ok(!after.windows.zoom, `${view}: the large view used for the picture is closed again`);
  }
  // A view taller than its window (60 tokens): shown large for the picture, then put back.
  await page.evaluate(() => window.attnlab.apply({ text: Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ') }));
  await settle(page);
  const tall = (await layout(page)).widgets['block:weights'];
  const matrices = (await layout(page)).windows.Matrices;
  assert.ok(tall.h > matrices.h, `the weights block (${tall.h} px) is taller than its window (${matrices.h} px)`);
  await clickWidget(page, 'export');
  await clickWidget(page, 'export:view_png');
  const big = await download(page, 'export:view_png:weights');
  await settle(page);
  const bigPng = decodePng(big.bytes);
  assert.ok(bigPng.width >= 300 && bigPng.height >= 300, `the tall view saved whole from the large view: ${bigPng.width}x${bigPng.height}`);
  assert.ok(!(await layout(page)).windows.zoom, 'the large view is closed again');
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat because it was tired' }));
  await settle(page);
  // A matrix as CSV: Export → One matrix as CSV → Weights; the numbers are the result's.
  await clickWidget(page, 'export');
  await clickWidget(page, 'export:view_csv');
  assert.ok((await layout(page)).widgets['export:view_csv:weights'], 'the list of matrices is open');
  const csv = await download(page, 'export:view_csv:weights');
  await settle(page);
  const rows = csv.bytes.toString('utf8').trim().split('\n');
  const r = await page.evaluate(() => window.attnlab.result());
  assert.equal(rows.length, r.tokens.length + 1);
  const first = rows[1].split(',').slice(1).map(Number);
  first.forEach((x, j) => assert.ok(Math.abs(x - r.heads[0].weights[0][j]) < 1e-6, `weights[0][${j}]`));
  // The result as JSON (attnlab-cli's format).
  await clickWidget(page, 'export');
  const json = await download(page, 'export:json');
  assert.deepEqual(JSON.parse(json.bytes.toString('utf8')).tokens, r.tokens);
  assert.deepEqual(problems, [], 'no console errors (a blocked fetch under the CSP was one)');
  await context.close();
});

test('the d_k = d_v = d_model / heads box stays unticked when clicked, and heads that do not divide d_model are said on screen', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await settle(page);
  await clickWidget(page, 'tie_sizes');
  await page.mouse.move(4, 4);
  await frames(page, 5);
  await settle(page);
  // Still unticked: d_k can be set on its own.
  await typeIntoSlider(page, 'd_k', '5');
  assert.ok(await page.evaluate(() => { const s = window.getSelection(); return !s || s.rangeCount === 0 || s.isCollapsed; }),
            'Ctrl+A in the slider\'s field selects nothing on the page around the lab');
  let c = await page.evaluate(() => window.attnlab.config());
  assert.equal(c.d_k, 5, 'd_k was set by hand: the box stayed unticked');
  assert.equal(c.d_v, 8);
  // Ticked again: d_k and d_v follow d_model / heads; 10 heads do not divide 32, and the lab says so.
  await clickWidget(page, 'tie_sizes');
  c = await page.evaluate(() => window.attnlab.config());
  assert.equal(c.d_k, 8);
  await typeIntoSlider(page, 'heads', '10');
  c = await page.evaluate(() => window.attnlab.config());
  assert.equal(c.heads, 10);
  assert.equal(c.d_k, 3);
  assert.ok((await layout(page)).widgets.sizes_note, 'the note on d_k 3 and a concat of 30 is on screen');
  assert.deepEqual(problems, []);
  await page.close();
});

// How many animation frames the page asks the browser for in the next `ms` (the lab's loop asks the
// window for each one it wants).
async function framesAsked(page, ms) {
  await page.evaluate(() => {
    window.framesAsked = 0;
    if (window.countingFrames) return;
    window.countingFrames = true;
    const ask = window.requestAnimationFrame.bind(window);
    window.requestAnimationFrame = (f) => (++window.framesAsked, ask(f));
  });
  await page.waitForTimeout(ms);
  return page.evaluate(() => window.framesAsked);
}

test('an idle lab asks the browser for no frames, and a key and a click still reach it', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await settle(page);
  const asked = await framesAsked(page, 1500);
  assert.ok(asked <= 2, `an idle lab asked for ${asked} animation frames in 1.5 s: its loop did not sleep`);
  // Asleep, it still hears the keyboard and the mouse.
  const mask = () => page.evaluate(() => JSON.stringify(window.attnlab.config().mask));
  const before = await mask();
  await page.keyboard.press('m');
  await settle(page);
  const cycled = await mask();
  assert.notEqual(cycled, before, 'M cycles the mask');
  await page.waitForTimeout(1000);
  await scrollIntoView(page, 'mask:causal', 'Controls');
  await page.waitForTimeout(1000);
  await clickWidget(page, 'mask:causal');
  assert.notEqual(await mask(), cycled, 'a click on the causal box changes the mask');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a notice leaves the lab idle while it shows, and goes when its time is up with no input', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await settle(page);
  await page.keyboard.press('m');  // the mask cycles, and a notice says to what
  const pressed = Date.now();
  await page.waitForTimeout(1000);
  const notice = (await layout(page)).ui.notice;
  assert.ok(notice.length > 0, 'M shows a notice');
  const asked = await framesAsked(page, 1500);
  assert.ok(asked <= 2, `the lab asked for ${asked} animation frames in 1.5 s while a notice showed: nothing on screen moves`);
  // A short notice shows for 8 s; a frame then takes it away, with no input.
  await page.waitForTimeout(Math.max(0, pressed + 9500 - Date.now()));
  assert.equal((await layout(page)).ui.notice, '', `"${notice}" is still on screen 9.5 s later`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('quick clicks all count: five 15 ms clicks on Next move the tour five steps, fifteen on causal leave it on', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await clickWidget(page, 'tour');
  assert.equal((await layout(page)).ui.tour.step, 0);
  const next = (await layout(page)).widgets.tour_next;
  await page.mouse.move(next.x + next.w / 2, next.y + next.h / 2);
  for (let i = 0; i < 5; i++) {
    await page.mouse.down();
    await page.waitForTimeout(15);
    await page.mouse.up();
    await page.waitForTimeout(15);
  }
  await settle(page);
  assert.equal((await layout(page)).ui.tour.step, 5, 'five clicks, five steps');
  // The tour's window may have moved with a step; close it (T) and go back to the default setup.
  await page.keyboard.press('t');
  await settle(page);
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat because it was tired' }));
  await settle(page);
  // The causal mask box, clicked fifteen times at 30 ms each: odd, so on.
  await scrollIntoView(page, 'mask:causal', 'Controls');
  const box = (await layout(page)).widgets['mask:causal'];
  await page.mouse.move(box.x + box.h / 2, box.y + box.h / 2);
  for (let i = 0; i < 15; i++) {
    await page.mouse.down();
    await page.waitForTimeout(15);
    await page.mouse.up();
    await page.waitForTimeout(15);
  }
  await settle(page);
  assert.deepEqual(maskKinds((await page.evaluate(() => window.attnlab.config())).mask), ['causal'], 'fifteen clicks toggle it fifteen times');
  assert.deepEqual(problems, []);
  await page.close();
});

test('the tour: walked with Next and each step done as asked; ticks stay, the ✓ draws, the tour follows every mode switch', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await clickWidget(page, 'tour');
  const tour = () => layout(page).then((l) => l.ui.tour);
  // Step 1: hover a cell of X; the tick stays once the mouse has moved on.
  let v = (await layout(page)).views.x;
  await page.mouse.move(v.x + v.cell_w * 2.5, v.y + v.cell_h * 1.5);
  await settle(page);
  await page.mouse.move(4, 4);
  await settle(page);
  assert.ok((await tour()).done, 'step 1 ticked after hovering X, and stays so');
  // The tick is drawn as a ✓ (the glyph is in the font): green pixels where "✓ Done:" starts.
  const tick = (await layout(page)).widgets.tour_tick;
  const shot = decodePng(await page.screenshot({ clip: { x: tick.x, y: tick.y, width: Math.min(18, tick.w), height: tick.h } }));
  let green = 0;
  for (let i = 0; i < shot.rgba.length; i += 4) if (shot.rgba[i + 1] > 180 && shot.rgba[i] < 170 && shot.rgba[i + 2] < 170) green++;
  assert.ok(green > 4, `the ✓ is drawn (${green} green pixels in its place)`);
  // On to step 3: hover S; on to step 7: press M as asked (causal → window → none): it stays ticked.
  await clickWidget(page, 'tour_next');
  await clickWidget(page, 'tour_next');
  v = (await layout(page)).views.scores;
  await page.mouse.move(v.x + v.cell_w * 2.5, v.y + v.cell_h * 2.5);
  await settle(page);
  await page.mouse.move(4, 4);
  await settle(page);
  assert.equal((await tour()).step, 2);
  assert.ok((await tour()).done, 'step 3 ticked after hovering S');
  for (let k = 3; k < 7; k++) await clickWidget(page, 'tour_next');
  assert.equal((await tour()).step, 6);
  for (let i = 0; i < 2; i++) {  // causal, then a sliding window, then none
    await page.keyboard.press('m');
    await settle(page);
  }
  assert.deepEqual(maskKinds((await page.evaluate(() => window.attnlab.config())).mask), [], 'M twice: no mask');
  assert.ok((await tour()).done, 'step 7 keeps its tick');
  // The tour never covers the matrix its step points at.
  const l = await layout(page);
  const b = l.widgets['block:masked'], t = l.windows.Tour;
  const overlap = Math.max(0, Math.min(b.x + b.w, t.x + t.w) - Math.max(b.x, t.x)) * Math.max(0, Math.min(b.y + b.h, t.y + t.h) - Math.max(b.y, t.y));
  assert.ok(overlap < 0.05 * b.w * b.h, 'the tour covers masked S');
  // Learn chapter: step 14 opens Learn mode; Train through the button.
  for (let k = 6; k < 13; k++) await clickWidget(page, 'tour_next');
  assert.equal((await tour()).step, 13);
  assert.ok((await layout(page)).widgets.learn_train, 'Learn mode is shown');
  await clickWidget(page, 'learn_train');
  await until(page, () => window.attnlab.trainStatus().state === 'done', null, 'the run ended', 120000);
  await settle(page);
  assert.ok((await tour()).done, 'step 14 ticked: the model was trained');
  // Step 15: Open in the lab; the tour comes along, in front, and ticks when a trained weight is hovered.
  await clickWidget(page, 'tour_next');
  await clickWidget(page, 'learn_open');
  let lay = await layout(page);
  assert.ok(lay.windows.Tour && lay.ui.tour.open, 'the tour is still open in the lab');
  assert.ok(!lay.widgets.learn_train || lay.windows.Matrices, 'the lab is shown');
  const tw = lay.windows.Tour;
  const hit = await page.evaluate(([x, y]) => document.elementFromPoint(x, y)?.id, [tw.x + tw.w / 2, tw.y + 10]);
  assert.equal(hit, 'canvas');
  v = lay.views.weights;
  await page.mouse.move(v.x + v.cell_w * 3.5, v.y + v.cell_h * 4.5);
  await settle(page);
  assert.ok((await tour()).done, 'step 15 ticked after hovering a trained weight');
  // L returns to Learn mode with the tour visible in front; T then closes it (one press, not two).
  await page.mouse.move(4, 4);
  await page.keyboard.press('l');
  await settle(page);
  lay = await layout(page);
  assert.ok(lay.widgets.learn_train && lay.windows.Tour, 'back in Learn mode, with the tour');
  await page.keyboard.press('t');
  await settle(page);
  assert.equal((await tour()).open, false, 'one T closes the tour');
  await page.keyboard.press('t');
  await settle(page);
  assert.ok((await layout(page)).windows.Tour, 'and one T brings it back');
  await page.screenshot({ path: path.join(OUT, 'h-tour-learn.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [w, h] of [[1366, 768], [1024, 768]]) {
  test(`first screen at ${w}x${h}: S, masked S and A whole on it, cells at least 14 px, every key labelled`, async () => {
    const { page, problems } = await openLab(lab.browser, lab.server.url, { width: w, height: h });
    await settle(page);
    const l = await layout(page);
    const m = l.windows.Matrices;
    const img = decodePng(await page.screenshot({ path: path.join(OUT, `h-first-${w}x${h}.png`) }));
    for (const name of ['scores', 'masked', 'weights']) {
      const v = l.views[name];
      assert.ok(v, `${name} drawn`);
      assert.ok(v.y >= m.y && v.y + v.cell_h * v.rows <= m.y + m.h && v.x >= m.x && v.x + v.cell_w * v.cols <= m.x + m.w,
                `${name} is whole on the first screen: ${JSON.stringify(v)} in ${JSON.stringify(m)}`);
      assert.ok(v.cell_w >= 14, `${name} cells are ${v.cell_w.toFixed(1)} px wide`);
      // Every key's label is drawn above its own column, apart from its neighbours': text pixels in
      // each column's header, and a clear strip at each boundary between two columns.
      for (let j = 0; j < v.cols; j++) {
        let ink = 0, edge = 0;
        for (let y = Math.floor(v.y - 40); y < v.y - 3; y++) {
          for (let x = Math.ceil(v.x + v.cell_w * j + 2); x < v.x + v.cell_w * (j + 1) - 2; x++) {
            const i = (y * img.width + x) * 4;
            if (img.rgba[i] + img.rgba[i + 1] + img.rgba[i + 2] > 450) ink++;
          }
          if (j > 0) {
            const i = (y * img.width + Math.round(v.x + v.cell_w * j)) * 4;
            if (img.rgba[i] + img.rgba[i + 1] + img.rgba[i + 2] > 450) edge++;
          }
        }
        assert.ok(ink > 10, `${name}: key ${j} has no label drawn above it (${ink} text pixels)`);
        assert.ok(edge <= 2, `${name}: the labels of keys ${j - 1} and ${j} touch (${edge} text pixels on the boundary)`);
      }
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('hiding the side panels widens the matrices on the next frame, and showing them puts them back', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  await settle(page);
  const before = (await layout(page)).windows.Matrices;
  await clickWidget(page, 'side_panels');
  let l = await layout(page);
  assert.ok(l.ui.side_collapsed);
  assert.ok(l.windows.Matrices.x <= 1 && l.windows.Matrices.w >= 1366 - 2, `the matrices take the width: ${JSON.stringify(l.windows.Matrices)}`);
  assert.ok(!l.windows.Input && !l.windows.Controls, 'the side panels are gone');
  await clickWidget(page, 'side_panels');
  l = await layout(page);
  assert.deepEqual(l.windows.Matrices, before);
  assert.deepEqual(problems, []);
  await page.close();
});

test('a phone: the first screen holds the sentence and the weights, every button of the bar is on screen, a tap leaves no tooltip', async () => {
  const { context, page, problems } = await openContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
  await load(page, lab.server.url);
  const l = await layout(page);
  assert.equal(l.ui.mode, 'tabs');
  const box = l.widgets.text, w = l.views.weights;
  assert.ok(box && box.y + box.h <= 844 && box.x >= 0, 'the text box is on the first screen');
  assert.equal(await page.evaluate(() => document.getElementById('text-box').value), 'the cat sat on the mat because it was tired');
  assert.ok(w && w.y + w.cell_h * w.rows <= l.windows.Matrices.y + l.windows.Matrices.h, 'the weights are whole on the first screen');
  for (const name of ['present', 'mode_learn', 'tab_Lines', 'tour', 'export'])
    assert.ok(l.widgets[name] && l.widgets[name].x + l.widgets[name].w <= 390 + 0.5, `${name} is on screen: ${JSON.stringify(l.widgets[name])}`);
  // Tap a row label (it shows its token in a tooltip while touched): once the finger lifts, nothing stays.
  await page.touchscreen.tap(w.x - 20, w.y + w.cell_h * 8.5);
  await settle(page);
  assert.equal((await layout(page)).ui.tooltip, false, 'no tooltip left after the finger lifted');
  // Present is one tap away.
  const present = (await layout(page)).widgets.present;
  await page.touchscreen.tap(present.x + present.w / 2, present.y + present.h / 2);
  await until(page, () => window.attnlab.layout().ui.presenter, null, 'Present by a tap');
  await page.screenshot({ path: path.join(OUT, 'h-phone-present.png') });
  // Presenter mode on a phone: it fits, and a finger steps through the presets and leaves (no keyboard).
  let l2 = await layout(page);
  assert.equal(l2.windows.Presenter.scroll, 0, 'presenter mode fits a phone');
  assert.equal(l2.windows.Presenter.clipped, false, 'no line of presenter mode is cut at the phone\'s edge');
  const tap = async (name) => {
    const r = (await layout(page)).widgets[name];
    assert.ok(r && r.x + r.w <= 390 && r.y + r.h <= 844, `${name} on screen: ${JSON.stringify(r)}`);
    await page.touchscreen.tap(r.x + r.w / 2, r.y + r.h / 2);
    await settle(page);
  };
  // (the place in the presets' list that presenter mode draws beside the preset's name, "2/12")
  const count = (await page.evaluate(() => window.attnlab.presets())).length;
  const place = async () => (await page.evaluate(() => window.attnlab.drawnText())).match(new RegExp(`\\b(\\d+)/${count}\\b`))?.[1];
  await tap('presenter_next');
  assert.equal(await place(), '1', 'Next opens the first preset');
  await tap('presenter_next');
  assert.equal(await place(), '2', 'Next again: the second');
  await tap('presenter_prev');
  assert.equal(await place(), '1', 'Previous: the first again');
  await tap('presenter_contrast');
  assert.equal((await layout(page)).ui.high_contrast, true, 'Contrast by a tap');
  await tap('presenter_contrast');
  await tap('presenter_leave');
  assert.equal((await layout(page)).ui.presenter, false, 'Leave by a tap');
  // The Export menu on a phone: a section opened in it keeps the menu inside the screen.
  await tap('export');
  await tap('export:view_csv');
  await settle(page);
  l2 = await layout(page);
  for (const name of ['export:png', 'export:view_csv', 'export:view_csv:weights', 'export:view_csv:w_o'])
    assert.ok(l2.widgets[name] && l2.widgets[name].x >= 0 && l2.widgets[name].x + l2.widgets[name].w <= 390 + 0.5, `${name} inside the phone's screen: ${JSON.stringify(l2.widgets[name])}`);
  await page.screenshot({ path: path.join(OUT, 'h-phone-export.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('links that cannot be opened say so on screen, with what opened instead', async () => {
  const cases = [
    ['#c=%%%garbage', /link to a lab setup could not be opened/, /characters that a link made by the lab never contains/],
    ['#c=eyJoZWFkcyI6', /link to a lab setup could not be opened/, /damaged/],
    ['#c=' + Buffer.from(JSON.stringify({ text: 'a b', heads: 99 })).toString('base64url'), /lab setup could not be opened/, /heads/],
    ['#train=bm90IGpzb24', /training link could not be opened/, /damaged/],
    ['#train=' + Buffer.from(JSON.stringify({ task: 'juggling' })).toString('base64url'), /training link could not be opened/, /task/],
    ['#preset=nosuch', /preset link could not be opened/, /nosuch/],
    ['#colour=blue', /link could not be opened/, /colour/],
  ];
  const { context, page, problems } = await openContext({ viewport: { width: 1366, height: 768 } });
  for (const [hash, title, detail] of cases) {
    await load(page, lab.server.url + hash);
    const l = await layout(page);
    assert.match(l.ui.notice_title, title, hash);
    assert.match(l.ui.notice, detail, hash);
    assert.match(l.ui.notice, /opened with its own example sentence instead/, hash);
    assert.equal((await page.evaluate(() => window.attnlab.config())).text, 'the cat sat on the mat because it was tired', hash);
    // A screen reader hears it too: the page's status region.
    assert.match(await page.locator('#a11y-notice').textContent(), title, hash + ': the status region');
    await page.goto('about:blank');
  }
  // The notice stays until OK is pressed.
  await load(page, lab.server.url + '#preset=nosuch');
  await page.waitForTimeout(7000);
  await settle(page);
  assert.match((await layout(page)).ui.notice_title, /could not be opened/, 'still shown after 7 s');
  await page.screenshot({ path: path.join(OUT, 'h-link-notice.png') });
  await clickWidget(page, 'notice_ok');
  assert.equal((await layout(page)).ui.notice, '');
  assert.deepEqual(problems, []);
  await context.close();
});

test('presenter mode on a projector (1280x720, UI scale 2): every line fits, S one click away, high contrast reaches the heatmaps', async () => {
  const { context, page, problems } = await openContext({ viewport: { width: 1280, height: 720 } });
  await load(page, lab.server.url + '?scale=2');
  await clickWidget(page, 'present');
  let l = await layout(page);
  assert.ok(l.ui.presenter);
  assert.equal(l.windows.Presenter.scroll, 0, 'the presenter view fits: nothing hidden below');
  const keys = l.widgets.presenter_keys;
  assert.ok(keys.x + keys.w <= 1280 + 0.5, `the key hints fit: ${JSON.stringify(keys)}`);
  assert.ok(l.views.weights && !l.views.scores && !l.views.masked, 'one matrix: A');
  await clickWidget(page, 'presenter_swap');
  l = await layout(page);
  assert.ok(l.views.scores || l.views.masked, 'the button shows S');
  await page.keyboard.press('s');
  await settle(page);
  assert.ok((await layout(page)).views.weights, 'S on the keyboard swaps back');
  // High contrast: black lines between the cells of the heatmap.
  await page.keyboard.press('c');
  await settle(page);
  l = await layout(page);
  assert.ok(l.ui.high_contrast);
  const v = l.views.weights;
  const img = decodePng(await page.screenshot({ path: path.join(OUT, 'h-presenter-contrast.png') }));
  let dark = 0;
  for (let i = 0; i < v.rows; i++) {
    const y = Math.round(v.y + v.cell_h * (i + 0.5)), x = Math.round(v.x + v.cell_w * 2);
    const k = (y * img.width + x) * 4;
    if (img.rgba[k] + img.rgba[k + 1] + img.rgba[k + 2] < 60) dark++;
  }
  assert.ok(dark >= v.rows - 1, `a dark line between columns 1 and 2 in ${dark} of ${v.rows} rows`);
  assert.deepEqual(problems, []);
  await context.close();
});

// The Lines panel at 103 words: rows are 3 px and a name about 11 px tall, so clicking a little off a
// name's middle followed the next row's token. A click, and a tap on a phone, on the first name, in the
// row below its own, follow that name's token ("the", 0); the note says the followed token's lines are
// drawn, and the rows stay where they were; a second click lets go. Unticking "all heads" names the head.
test('the Lines panel at 103 words: a click or a tap on a name follows that token, the note says so, the rows stay; one head is named', async () => {
  const words = Array.from({ length: 103 }, (_, i) => ['the', 'cat', 'sat', 'on', 'mat', 'and', 'slept', 'well'][i % 8] + (i >= 8 ? i : ''));
  for (const touch of [false, true]) {
    const { page, problems } = touch
      ? await openLab(lab.browser, lab.server.url, { width: 390, height: 844, touch: true })
      : await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
    await page.evaluate((text) => window.attnlab.apply({ ...window.attnlab.config(), text }), words.join(' '));
    await settle(page);
    const press = async (p) => { if (touch) await page.touchscreen.tap(p.x, p.y); else await page.mouse.click(p.x, p.y); await settle(page); };
    if (touch) await press(center((await layout(page)).widgets.tab_Lines));
    const l = await layout(page), rows = l.widgets.lines_queries, row_h = rows.h / 103;
    // A point inside the first name (its type is at least 70 % of the UI's) that lies in the next row.
    const off = 0.3 * l.ui.font_px;
    assert.ok(0.5 * row_h + off > row_h, `rows ${row_h} px: a name spans more than one, as this test needs`);
    const followed = await page.evaluate(() => window.attnlab.drawnText());
    assert.ok(!followed.includes('every line of the followed token'), 'no token followed yet');
    const on_name = { x: rows.x + rows.w / 2, y: rows.y + 0.5 * row_h + off };  // inside "the", in row 1
    await press(on_name);
    assert.equal((await page.evaluate(() => window.attnlab.view())).query, 0, `${touch ? 'a tap' : 'a click'} on the name "the" follows it`);
    assert.ok((await page.evaluate(() => window.attnlab.drawnText())).includes('every line of the followed token'), 'the note says a token is followed');
    assert.equal((await layout(page)).widgets.lines_queries.y, rows.y, 'the rows stay where they were');
    await press(on_name);
    assert.equal((await page.evaluate(() => window.attnlab.view())).query, -1, 'a second press lets go');
    // "all heads" unticked by a click or a tap: the panel names the one head it shows, beside the box.
    assert.equal(l.widgets.lines_head, undefined, 'no head named while all heads are shown');
    await press(center(l.widgets.lines_all_heads));
    const one = await layout(page), named = one.widgets.lines_head, box = one.widgets.lines_all_heads, win = one.windows.Lines;
    assert.ok(named, `${touch ? 'a tap' : 'a click'} on "all heads": the head shown is named`);
    assert.ok(named.x > box.x + box.w && Math.abs((named.y + named.h / 2) - (box.y + box.h / 2)) < box.h / 2, 'beside the box');
    assert.ok(named.x + named.w <= win.x + win.w, 'inside the panel');
    assert.ok((await page.evaluate(() => window.attnlab.drawnText())).includes('head 0'));
    assert.deepEqual(problems, []);
    await page.close();
  }
});
