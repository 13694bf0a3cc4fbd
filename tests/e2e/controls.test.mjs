// Every control of the web UI that no other browser test presses, pressed once by a person's hands
// (page.mouse, page.keyboard): the formula strip and its Presets, Share and Help; every Controls setting;
// the Matrices panel's head buttons, enlarge buttons, colour bars, cells and right-click menu; the
// Inspector, All heads and Lines panels; the tour's Back, Set up again, title bar and close box; the
// presenter's keys; Learn mode's settings, run buttons, replay, probe and file buttons; the side
// column's and the phone's tabs; the keyboard's shortcuts and navigation. window.attnlab only sets a
// state up and reads what the person got (config, view, layout, trainStatus, result, pixels). Three
// controls that did not work for real input were fixed where they are met: the P key, the phone's
// sentence box once the Input tab was shown, and Esc straight after typing in Dear ImGui's text box.
//   ATTNLAB_SITE=build-web/site ATTNLAB_OUT=build/e2e node --test tests/e2e/controls.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, decodePng, scrollWidgetIntoView, drain, widget, typeInto } from './lib.mjs';

const lab = labSuite();
const OUT = lab.OUT;
const layout = (page) => page.evaluate(() => window.attnlab.layout());
const config = (page) => page.evaluate(() => window.attnlab.config());
const view = (page) => page.evaluate(() => window.attnlab.view());
const status = (page) => page.evaluate(() => window.attnlab.trainStatus());
async function until(page, fn, arg, what, timeout = 30000) {
  await page.waitForFunction(fn, arg, { timeout, polling: 50 }).catch((e) => { throw new Error(`${what}: ${e.message}`); });
}
const settle = drain;
// The mask as a list of kinds, whichever form the config gives it in ("causal", ["causal"], [{"window": 3}]).
const maskKinds = (mask) => (typeof mask === 'string' ? (mask === 'none' ? [] : [mask]) : mask.map((t) => (typeof t === 'string' ? t : Object.keys(t)[0])));
const maskTerm = (mask, kind) => (Array.isArray(mask) ? mask : [mask]).find((t) => t === kind || (typeof t === 'object' && kind in t));
async function press(page, key) {
  await page.keyboard.press(key);
  await settle(page);
}
// A click in the middle of a widget (`dx` moves it along: a slider's or field's frame starts at its left,
// its label is at the right and takes no clicks).
async function clickWidget(page, name, { dx = 0.5, button = 'left' } = {}) {
  const w = await widget(page, name);
  await page.mouse.click(w.x + w.w * dx, w.y + w.h / 2, { button });
  await settle(page);
}
// A control below the fold of its panel is brought into view with the mouse wheel, as a person does.
const scrollIntoView = (page, name, windowName) => scrollWidgetIntoView(page, name, windowName, settle);
// A press at (x, y), a move in small steps to each of `to` (settling at each: a drag seen by the lab
// frame by frame, `atEach` reads what it did), a release.
async function drag(page, from, to, atEach = async () => {}) {
  await page.mouse.move(from.x, from.y);
  await settle(page);
  await page.mouse.down();
  await settle(page);
  for (const p of to) {
    await page.mouse.move(p.x, p.y, { steps: 6 });
    await settle(page);
    await atEach(p);
  }
  await page.mouse.up();
  await settle(page);
}
// A download started by a person's click on a widget, saved and read back.
async function download(page, name) {
  const w = await widget(page, name);
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 20000 }), page.mouse.click(w.x + w.w / 2, w.y + w.h / 2)]);
  const file = path.join(OUT, 'c-' + dl.suggestedFilename());
  await dl.saveAs(file);
  await settle(page);
  return { name: dl.suggestedFilename(), bytes: fs.readFileSync(file) };
}
async function openPage(options) {
  const context = await lab.browser.newContext({ acceptDownloads: true, viewport: { width: 1366, height: 768 }, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push('console error: ' + m.text()); });
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  await page.goto(lab.server.url);
  await page.waitForFunction(() => window.attnlab && document.getElementById('loading').hidden, null, { timeout: 60000 });
  await page.evaluate(() => window.attnlab.ready);
  await settle(page);
  return { context, page, problems };
}
const shot = async (page, clip) => decodePng(await page.screenshot({ clip: { x: clip.x, y: clip.y, width: Math.max(1, clip.w), height: Math.max(1, clip.h) } }));
const px = (img, x, y) => { const i = (Math.round(y) * img.width + Math.round(x)) * 4; return [img.rgba[i], img.rgba[i + 1], img.rgba[i + 2]]; };
const differs = (a, b, tol = 24) => Math.abs(a[0] - b[0]) + Math.abs(a[1] - b[1]) + Math.abs(a[2] - b[2]) > tol;
// Fraction of pixels that differ between two screenshots of the same rectangle.
function changed(a, b) {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) if (differs([a.rgba[i], a.rgba[i + 1], a.rgba[i + 2]], [b.rgba[i], b.rgba[i + 1], b.rgba[i + 2]])) n++;
  return n / (a.rgba.length / 4);
}
// A window's close box (x): Dear ImGui 1.86 draws it at the right end of the title bar, one font size
// square plus the frame padding; the title bar is a frame tall.
async function closeWindow(page, windowName) {
  const l = await layout(page);
  const key = Object.keys(l.windows).find((k) => k === windowName || k.endsWith('###' + windowName));
  assert.ok(key, `the window ${windowName} is open`);
  const win = l.windows[key], font = l.ui.font_px;
  await page.mouse.click(win.x + win.w - font / 2, win.y + (font + 6 * l.ui.ui_scale) / 2);
  await settle(page);
}
const windowOpen = async (page, name) => Object.keys((await layout(page)).windows).some((k) => k === name || k.endsWith('###' + name));
// An item of a combo box whose items have no names of their own: the list opens under the box (above
// it when it does not fit below), its items one line (font + 5 px at UI scale 1) apart, the first 6 px
// under the box's edge. The Controls test checks these numbers on the position combo's named items.
const COMBO = { pitch: 21, top: 6, pad: 8 };
async function pickFromCombo(page, name, index, count) {
  await clickWidget(page, name, { dx: 0.1 });
  const l = await layout(page);
  const box = l.widgets[name];
  const shown = Math.min(count, 8);
  const listH = 2 * COMBO.pad + shown * COMBO.pitch - 5;
  const below = box.y + box.h + listH <= l.ui.display_h - 3;
  const first = below ? box.y + box.h + COMBO.top : box.y - listH + COMBO.top;
  await page.mouse.click(box.x + 20, first + COMBO.pitch * (index + 0.5));
  await settle(page);
}

test('the formula strip: Presets and a preset, its explanation closed, Share, Help (button, H, ?, close box), Export ▸ Config, a formula button', async () => {
  const { context, page, problems } = await openPage();
  const before = (await layout(page)).widgets['block:x'];
  // Presets ▸ Sliding window: its config, its view and its explanation.
  await clickWidget(page, 'presets');
  await clickWidget(page, 'preset:window');
  let c = await config(page);
  assert.deepEqual(maskKinds(c.mask), ['window']);
  assert.match((await layout(page)).ui.notice, /^Preset: Sliding window/);
  const withNote = (await layout(page)).widgets['block:x'];
  assert.ok(withNote.y > before.y + 20, 'the explanation is shown above the matrices');
  await clickWidget(page, 'note_close');
  assert.ok((await layout(page)).widgets['block:x'].y < withNote.y - 20, 'the explanation closed: the matrices moved up');
  // Share: the address bar holds the link that reopens this setup.
  await clickWidget(page, 'share');
  assert.match(page.url(), /#c=[A-Za-z0-9_-]+&v=/);
  assert.equal(page.url(), await page.evaluate(() => window.attnlab.shareUrl()));
  assert.equal((await layout(page)).ui.notice, 'Link to this exact setup copied');
  // Help: the button opens it, H closes it, ? opens it, Esc closes it, its close box closes it.
  await clickWidget(page, 'help');
  assert.ok(await windowOpen(page, 'Help'), 'Help opened by its button');
  await page.mouse.move(4, 4);
  await press(page, 'h');
  assert.ok(!(await windowOpen(page, 'Help')), 'H closes it');
  await press(page, '?');
  assert.ok(await windowOpen(page, 'Help'), '? opens it');
  await press(page, 'Escape');
  assert.ok(!(await windowOpen(page, 'Help')), 'Esc closes it');
  await press(page, '?');
  assert.ok(await windowOpen(page, 'Help'), '? opens it again');
  await closeWindow(page, 'Help');
  assert.ok(!(await windowOpen(page, 'Help')), 'the close box closes it');
  // Export ▸ Config as JSON: the config as attnlab-cli reads it.
  await clickWidget(page, 'export');
  const file = await download(page, 'export:config');
  assert.equal(file.name, 'attention-lab_config.json');
  const saved = JSON.parse(file.bytes.toString('utf8'));
  c = await config(page);
  assert.equal(saved.text, c.text);
  assert.deepEqual(saved.mask, c.mask);
  // A formula button: "· W_O" brings the output (below the fold) into view and flashes its block.
  let l = await layout(page);
  assert.ok(l.widgets['block:output'].y > l.windows.Matrices.y + l.windows.Matrices.h, 'the output starts below the fold');
  const o = l.widgets['formula:output'];
  await page.mouse.click(o.x + o.w / 2, o.y + o.h / 2);
  // The flash fades within 1.2 s: draw frame after frame at once and look for it in each.
  const flash = await page.evaluate(() => {
    const canvas = document.getElementById('canvas');
    const c2 = document.createElement('canvas');
    let best = 0;
    for (let k = 0; k < 60 && best <= 0.8; k++) {
      window.attnlab.redraw(1);
      const l = window.attnlab.layout(), b = l.widgets['block:output'], m = l.windows.Matrices;
      if (!b || b.y < m.y || b.y > m.y + m.h / 2) continue;
      c2.width = Math.ceil(b.w); c2.height = 1;
      const g = c2.getContext('2d');
      g.drawImage(canvas, b.x, b.y - 2, b.w, 1, 0, 0, b.w, 1);
      const d = g.getImageData(0, 0, c2.width, 1).data;
      let yellow = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 110 && d[i + 1] > 85 && d[i + 2] < d[i + 1] * 0.55) yellow++;
      best = Math.max(best, yellow / c2.width);
    }
    return best;
  });
  await settle(page);
  l = await layout(page);
  const b = l.widgets['block:output'], m = l.windows.Matrices;
  assert.ok(b.y >= m.y && b.y + 40 <= m.y + m.h, `the output scrolled into view: ${JSON.stringify(b)} in ${JSON.stringify(m)}`);
  assert.ok(flash > 0.8, `its block flashed (${(flash * 100).toFixed(0)}% of its top edge yellow)`);
  assert.deepEqual(problems, []);
  await context.close();
});

// The − and + buttons of a Dear ImGui InputInt: the last two runs of frame colour along the row just under
// the widget's top edge (the field, −, +; the label after them starts lower).
async function stepButtons(page, name) {
  const w = await widget(page, name);
  const img = await shot(page, { x: w.x, y: w.y + w.h * 0.2, w: w.w, h: 1 });
  const bg = px(img, img.width - 1, 0);
  const runs = [];
  for (let x = 0; x < img.width; x++) {
    const on = differs(px(img, x, 0), bg, 30);
    if (on && (!runs.length || runs.at(-1).end !== x - 1)) runs.push({ start: x, end: x });
    else if (on) runs.at(-1).end = x;
  }
  const wide = runs.filter((r) => r.end - r.start >= w.h * 0.6);
  assert.ok(wide.length >= 3, `${name}: the field and its two buttons (${JSON.stringify(runs)})`);
  const at = (r) => ({ x: w.x + (r.start + r.end) / 2, y: w.y + w.h / 2 });
  return { minus: at(wide.at(-2)), plus: at(wide.at(-1)) };
}

test('Controls: sizes, self/cross and the source box, position and embedding, scale and its value, temperature, every mask, seed, numbers, W, UI scale, Tab and arrows', async () => {
  const { context, page, problems } = await openPage();
  // position: the combo's named items are where pickFromCombo expects any combo's items.
  await clickWidget(page, 'position', { dx: 0.1 });
  let l = await layout(page);
  const box = l.widgets.position;
  ['none', 'sinusoidal', 'learned', 'rope'].forEach((k, i) => {
    const it = l.widgets['position:' + k];
    assert.ok(Math.abs(it.y - (box.y + box.h + COMBO.top + i * COMBO.pitch)) <= 1 && Math.abs(it.h - COMBO.pitch) <= 1,
              `combo item ${i} at ${JSON.stringify(it)} under ${JSON.stringify(box)}`);
  });
  await clickWidget(page, 'position:learned');
  assert.equal((await config(page)).positional, 'learned');
  await pickFromCombo(page, 'position', 3, 4);
  assert.equal((await config(page)).positional, 'rope');
  await clickWidget(page, 'position', { dx: 0.1 });
  await clickWidget(page, 'position:sinusoidal');
  assert.equal((await config(page)).positional, 'sinusoidal');
  // embedding
  await pickFromCombo(page, 'embedding', 1, 2);
  assert.equal((await config(page)).embedding, 'interpretable');
  await pickFromCombo(page, 'embedding', 0, 2);
  assert.equal((await config(page)).embedding, 'hashed');

  // d_model: dragged to its right end (d_k and d_v follow, tied), then typed.
  const dm = await widget(page, 'd_model');
  await drag(page, { x: dm.x + 10, y: dm.y + dm.h / 2 }, [{ x: dm.x + dm.w + 150, y: dm.y + dm.h / 2 }]);
  let c = await config(page);
  assert.equal(c.d_model, 512);
  assert.equal(c.d_k, 128);
  await typeInto(page, 'd_model', '64');
  c = await config(page);
  assert.deepEqual([c.d_model, c.d_k, c.d_v], [64, 16, 16]);
  // d_v on its own once the tie is off; ticked again it follows.
  await clickWidget(page, 'tie_sizes');
  await typeInto(page, 'd_v', '5');
  assert.deepEqual([(await config(page)).d_k, (await config(page)).d_v], [16, 5]);
  await clickWidget(page, 'tie_sizes');
  assert.equal((await config(page)).d_v, 16);

  // cross: a second text, typed into its own box; its chips answer the pointer; self again.
  await clickWidget(page, 'attention:cross');
  c = await config(page);
  assert.equal(c.cross, true);
  await scrollIntoView(page, 'source', 'Input');
  await clickWidget(page, 'source');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'source-box', 'the source box has the keyboard');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('un deux trois');
  await settle(page);
  await page.keyboard.press('Escape');  // back to the lab
  await settle(page);
  assert.deepEqual((await page.evaluate(() => window.attnlab.result())).source_tokens, ['un', 'deux', 'trois']);
  const chip = await widget(page, 'source_token_1');
  await page.mouse.move(chip.x + chip.w / 2, chip.y + chip.h / 2);
  await settle(page);
  assert.ok((await layout(page)).ui.tooltip, 'a source chip says which token it is');
  await clickWidget(page, 'attention:self');
  assert.equal((await config(page)).cross, false);

  // scale: none, custom (its value dragged), 1/√d_k.
  await clickWidget(page, 'scale:none');
  assert.equal((await config(page)).scale, false);
  await clickWidget(page, 'scale:custom');
  const s0 = (await config(page)).scale;
  assert.equal(typeof s0, 'number');
  const sv = await widget(page, 'scale_value');
  await drag(page, { x: sv.x + sv.w / 2, y: sv.y + sv.h / 2 }, [{ x: sv.x + sv.w / 2 + 60, y: sv.y + sv.h / 2 }]);
  const s1 = (await config(page)).scale;
  assert.ok(s1 > s0 + 0.2, `dragging the custom scale right raised it: ${s0} -> ${s1}`);
  assert.match(await page.evaluate(() => window.attnlab.formula()), /custom|· \d/);
  await clickWidget(page, 'scale:inv_sqrt_dk');
  assert.equal((await config(page)).scale, true);

  // temperature: a drag along its logarithmic slider, read while the button is held.
  const t = await widget(page, 'temperature');
  const temps = [];
  await drag(page, { x: t.x + 10, y: t.y + t.h / 2 }, [{ x: t.x + 40, y: t.y + t.h / 2 }, { x: t.x + 90, y: t.y + t.h / 2 }],
             async () => temps.push((await config(page)).temperature));
  assert.ok(temps[0] > 0.05 && temps[0] < temps[1] && temps[1] < 20, `the temperature rose as the slider moved right: ${temps}`);
  await typeInto(page, 'temperature', '1');
  assert.equal((await config(page)).temperature, 1);

  // Masks: a sliding window (its width dragged to 1, "only look back" switched), padding with a key
  // hidden by its chip, a custom mask from a clicked weight and "allow all".
  await scrollIntoView(page, 'mask:window', 'Controls');
  await clickWidget(page, 'mask:window');
  c = await config(page);
  assert.deepEqual(maskKinds(c.mask), ['window']);
  const lookBack = maskTerm(c.mask, 'window').causal;
  await scrollIntoView(page, 'window_causal', 'Controls');
  const ww = await widget(page, 'window_width');
  await drag(page, { x: ww.x + 10, y: ww.y + ww.h / 2 }, [{ x: 2, y: ww.y + ww.h / 2 }]);
  assert.equal(maskTerm((await config(page)).mask, 'window').window, 1);
  await clickWidget(page, 'window_causal');
  assert.equal(maskTerm((await config(page)).mask, 'window').causal, !lookBack, 'only look back switched');
  await clickWidget(page, 'mask:window');
  assert.deepEqual(maskKinds((await config(page)).mask), []);
  await scrollIntoView(page, 'mask:padding', 'Controls');
  await clickWidget(page, 'mask:padding');
  await scrollIntoView(page, 'padding_key_2', 'Controls');
  await clickWidget(page, 'padding_key_2');
  assert.deepEqual(maskTerm((await config(page)).mask, 'padding').padding, [2]);
  assert.ok((await page.evaluate(() => window.attnlab.result())).allowed.every((row) => row[2] === 0), 'key 2 is hidden from every query');
  await clickWidget(page, 'padding_key_2');
  assert.deepEqual(maskTerm((await config(page)).mask, 'padding').padding, []);
  await scrollIntoView(page, 'mask:padding', 'Controls');
  await clickWidget(page, 'mask:padding');
  await scrollIntoView(page, 'mask:custom', 'Controls');
  await clickWidget(page, 'mask:custom');
  assert.deepEqual(maskKinds((await config(page)).mask), ['custom']);
  const w = (await layout(page)).views.weights;
  await page.mouse.click(w.x + w.cell_w * 2.5, w.y + w.cell_h * 1.5);
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.result())).allowed[1][2], 0, 'the clicked pair is hidden');
  await clickWidget(page, 'allow_all');
  assert.ok((await page.evaluate(() => window.attnlab.result())).allowed.flat().every((a) => a === 1), 'allow all');
  await clickWidget(page, 'mask:custom');
  assert.deepEqual(maskKinds((await config(page)).mask), []);

  // seed: typed, + and −, re-roll.
  await scrollIntoView(page, 'reroll', 'Controls');
  await typeInto(page, 'seed', '7', { ctrl: false });
  assert.equal((await config(page)).seed, 7);
  const { minus, plus } = await stepButtons(page, 'seed');
  await page.mouse.click(plus.x, plus.y);
  await settle(page);
  assert.equal((await config(page)).seed, 8);
  await page.mouse.click(minus.x, minus.y);
  await settle(page);
  assert.equal((await config(page)).seed, 7);
  const x0 = (await page.evaluate(() => window.attnlab.result())).x[0][0];
  await clickWidget(page, 'reroll');
  const rolled = Number(((7n * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n)) >> 33n);
  assert.equal((await config(page)).seed, rolled);
  assert.notEqual((await page.evaluate(() => window.attnlab.result())).x[0][0], x0, 'new embeddings');

  // numbers in cells (and N), W matrices (and W).
  await scrollIntoView(page, 'numbers', 'Controls');
  await clickWidget(page, 'numbers');
  assert.equal((await view(page)).numbers, false);
  await page.mouse.move(4, 4);
  await press(page, 'n');
  assert.equal((await view(page)).numbers, true);
  await clickWidget(page, 'weight_matrices');
  assert.equal((await view(page)).weight_matrices, true);
  assert.ok((await layout(page)).views.w_q, 'W_Q is drawn');
  await page.mouse.move(4, 4);
  await press(page, 'w');
  assert.equal((await view(page)).weight_matrices, false);

  // Keyboard navigation: Tab from the heads field to the next field (temperature: d_k and d_v are
  // disabled while tied), Shift+Tab back; arrows from a checkbox to its neighbour, Space presses it.
  // From a field opened by Ctrl+click, `key` moves to another field, where "2" is typed.
  const typeAfter = async (name, key) => {
    const w = await widget(page, name);
    await page.keyboard.down('Control');
    await page.mouse.click(w.x + 20, w.y + w.h / 2);
    await page.keyboard.up('Control');
    await settle(page);
    await press(page, key);
    await page.keyboard.press('Control+A');
    await page.keyboard.type('2');
    await press(page, 'Enter');
    return config(page);
  };
  await scrollIntoView(page, 'heads', 'Controls');
  await typeInto(page, 'heads', '4');
  c = await typeAfter('heads', 'Tab');
  assert.deepEqual([c.heads, c.temperature], [4, 2], 'Tab moved to the temperature field');
  await typeInto(page, 'temperature', '1');
  c = await typeAfter('temperature', 'Shift+Tab');
  assert.deepEqual([c.heads, c.temperature], [2, 1], 'Shift+Tab moved back to the heads field');
  await scrollIntoView(page, 'numbers', 'Controls');
  await clickWidget(page, 'numbers');
  assert.equal((await view(page)).numbers, false);
  await press(page, 'ArrowRight');
  await press(page, 'Space');
  assert.equal((await view(page)).weight_matrices, true, 'ArrowRight went to W matrices, Space ticked it');

  // UI scale: applies when the slider is let go.
  await scrollIntoView(page, 'ui_scale', 'Controls');
  const u = await widget(page, 'ui_scale');
  await drag(page, { x: u.x + 10, y: u.y + u.h / 2 }, [{ x: u.x + 70, y: u.y + u.h / 2 }],
             async () => assert.equal((await layout(page)).ui.ui_scale, 1, 'not applied while held'));
  await settle(page);
  l = await layout(page);
  assert.ok(l.ui.ui_scale > 1.3 && l.ui.font_px > 20, `UI scale ${l.ui.ui_scale}, text ${l.ui.font_px} px`);
  assert.ok(Math.abs((await view(page)).ui_scale - l.ui.ui_scale) < 1e-3);
  assert.deepEqual(problems, []);
  await context.close();
});

test('Matrices, Inspector, All heads, Lines: head buttons and keys, token chips, enlarge and the large view, show P, colour bars, the right-click menu, cells by mouse and keyboard, editing a number', async () => {
  const { context, page, problems } = await openPage();
  const result = () => page.evaluate(() => window.attnlab.result());
  const cellAt = (v, i, j) => ({ x: v.x + v.cell_w * (j + 0.5), y: v.y + v.cell_h * (i + 0.5) });
  // Head buttons, then ] [ PageDown PageUp.
  await clickWidget(page, 'head_button_2');
  assert.equal((await view(page)).head, 2);
  assert.equal((await layout(page)).views.weights.head, 2);
  await page.mouse.move(4, 4);
  for (const [key, head] of [[']', 3], ['[', 2], ['PageDown', 3], ['PageUp', 2]]) {
    await press(page, key);
    assert.equal((await view(page)).head, head, key);
  }
  // Token chips: hover says which token, a click follows it as the query, Esc lets it go.
  let chip = await widget(page, 'token_3');
  await page.mouse.move(chip.x + chip.w / 2, chip.y + chip.h / 2);
  await settle(page);
  assert.ok((await layout(page)).ui.tooltip, 'the chip says which token it is');
  await clickWidget(page, 'token_3');
  assert.equal((await view(page)).query, 3);
  await clickWidget(page, 'token_3');
  assert.equal((await view(page)).query, -1, 'a second click lets it go');
  await clickWidget(page, 'token_5');
  assert.equal((await view(page)).query, 5);
  await page.mouse.move(4, 4);
  await press(page, 'Escape');
  assert.equal((await view(page)).query, -1, 'Esc clears the query');

  // ↗ on the weights: the large view; a click on one of its cells hides that pair; its close box.
  await clickWidget(page, 'enlarge:weights');
  assert.equal((await view(page)).zoom, 'weights');
  assert.ok(await windowOpen(page, 'zoom'));
  let l = await layout(page);
  const z = l.widgets.zoom_cells, n = l.views.weights.rows;
  await page.mouse.click(z.x + (z.w / n) * 2.5, z.y + (z.h / n) * 1.5);
  await settle(page);
  assert.equal((await result()).allowed[1][2], 0, 'the large view\'s cell hid the pair');
  await closeWindow(page, 'zoom');
  assert.equal((await view(page)).zoom, '');
  assert.ok(!(await windowOpen(page, 'zoom')));
  // A cell of masked S allows it again.
  let v = (await layout(page)).views.masked;
  let p = cellAt(v, 1, 2);
  await page.mouse.click(p.x, p.y);
  await settle(page);
  assert.equal((await result()).allowed[1][2], 1, 'the masked S cell allowed the pair again');
  // "numbers: enlarge" under S.
  await clickWidget(page, 'numbers_enlarge:scores');
  assert.equal((await view(page)).zoom, 'scores');
  await closeWindow(page, 'zoom');
  // show P / hide P beside X.
  await clickWidget(page, 'show_p');
  assert.equal((await view(page)).position, true);
  assert.ok((await layout(page)).views.position, 'P is drawn');
  await clickWidget(page, 'show_p');
  assert.equal((await view(page)).position, false);
  // The colour bar of S: fixed at ±5 → fitted → fixed again at its own range, rounded up.
  assert.equal((await view(page)).ranges.scores, 5);
  v = (await layout(page)).views.scores;
  const bar = { x: v.x + v.cell_w * v.cols + 8, y: v.y + v.cell_h * 2 };
  await page.mouse.click(bar.x, bar.y);
  await settle(page);
  assert.equal((await view(page)).ranges.scores, 0, 'fitted');
  await page.mouse.click(bar.x, bar.y);
  await settle(page);
  const fixed = (await view(page)).ranges.scores;
  const biggest = Math.max(...(await result()).heads[2].scores.flat().map(Math.abs));
  assert.ok(fixed >= biggest && fixed < biggest * 2, `fixed again at ${fixed} (largest ${biggest})`);

  // Right-click a weight: Save as PNG, Save numbers as CSV, Show large.
  v = (await layout(page)).views.weights;
  p = cellAt(v, 0, 0);
  await page.mouse.click(p.x, p.y, { button: 'right' });
  await settle(page);
  const png = await download(page, 'view_menu:png');
  assert.equal(png.name, 'attention-lab_weights_head2.png');
  const img = decodePng(png.bytes);
  const block = (await layout(page)).widgets['block:weights'];
  assert.ok(Math.abs(img.width - block.w - 8) <= 2, `the PNG is the block: ${img.width} vs ${block.w}`);
  await page.mouse.click(p.x, p.y, { button: 'right' });
  await settle(page);
  const csv = await download(page, 'view_menu:csv');
  assert.equal(csv.name, 'attention-lab_weights_head2.csv');
  const r = await result();
  const row = csv.bytes.toString('utf8').trim().split('\n')[1].split(',').slice(1).map(Number);
  row.forEach((x, j) => assert.ok(Math.abs(x - r.heads[2].weights[0][j]) < 1e-6));
  await page.mouse.click(p.x, p.y, { button: 'right' });
  await settle(page);
  await clickWidget(page, 'view_menu:large');
  assert.equal((await view(page)).zoom, 'weights');
  await closeWindow(page, 'zoom');
  assert.deepEqual(maskKinds((await config(page)).mask), ['custom'], 'the right clicks masked nothing');
  assert.ok((await result()).allowed.flat().every((a) => a === 1));

  // A cell of X, clicked: the Inspector edits it, by typing and by dragging; reset, reset all edits, unselect.
  v = (await layout(page)).views.x;
  p = cellAt(v, 0, 1);
  await page.mouse.click(p.x, p.y);
  await settle(page);
  await typeInto(page, 'inspector_value', '3.5');
  assert.deepEqual((await config(page)).edits, [{ matrix: 'x', head: 0, row: 0, col: 1, value: 3.5 }]);
  assert.equal((await result()).x[0][1], 3.5);
  await clickWidget(page, 'inspector_reset');
  assert.equal((await config(page)).edits, undefined, 'reset drops the edit');
  const before = (await result()).x[0][1];
  const iv = await widget(page, 'inspector_value');
  await drag(page, { x: iv.x + 20, y: iv.y + iv.h / 2 }, [{ x: iv.x + 80, y: iv.y + iv.h / 2 }]);
  const edited = (await config(page)).edits;
  assert.equal(edited.length, 1);
  assert.ok(edited[0].value > before + 0.3, `dragging right raised it: ${before} -> ${edited[0].value}`);
  await scrollIntoView(page, 'reset_edits', 'Controls');
  await clickWidget(page, 'reset_edits');
  assert.equal((await config(page)).edits, undefined, 'reset all edits');
  await page.mouse.move(4, 4);
  await settle(page);
  assert.match((await page.evaluate(() => window.attnlab.a11y())).live, /X/, 'the selected cell is explained');
  await clickWidget(page, 'inspector_unselect');
  await page.mouse.move(4, 4);
  await settle(page);
  assert.equal((await page.evaluate(() => window.attnlab.a11y())).live, '', 'nothing selected');

  // The keyboard in a matrix: a clicked weight hides its pair; ← moves the cursor, Enter and Space act.
  v = (await layout(page)).views.weights;
  p = cellAt(v, 1, 1);
  await page.mouse.click(p.x, p.y);
  await settle(page);
  await press(page, 'ArrowLeft');
  await press(page, 'Enter');
  await press(page, 'ArrowDown');
  await press(page, 'Space');
  const allowed = (await result()).allowed;
  assert.deepEqual([allowed[1][1], allowed[1][0], allowed[2][0], allowed[2][1]], [0, 0, 0, 1], 'click, ← Enter, ↓ Space');

  // All heads: a hand-built head from the combo, back to random; a thumbnail shows its head.
  await clickWidget(page, 'handmade', { dx: 0.5 });
  await clickWidget(page, 'handmade:same_word');
  assert.deepEqual((await config(page)).handmade, [{ head: 2, kind: 'same_word' }]);
  await clickWidget(page, 'handmade', { dx: 0.5 });
  await clickWidget(page, 'handmade:none');
  assert.equal((await config(page)).handmade, undefined);
  const th = await widget(page, 'head_thumb_1');
  await page.mouse.click(th.x + th.w / 2, th.y + th.h * 0.7);
  await settle(page);
  assert.equal((await view(page)).head, 1, 'the thumbnail picked head 1');

  // Lines: all heads off; a query label followed, and let go.
  assert.equal((await view(page)).all_heads_lines, true);
  await clickWidget(page, 'lines_all_heads');
  assert.equal((await view(page)).all_heads_lines, false);
  const q = await widget(page, 'lines_queries');
  const tokens = (await result()).tokens.length;
  await page.mouse.click(q.x + q.w / 2, q.y + (q.h / tokens) * 4.5);
  await settle(page);
  assert.equal((await view(page)).query, 4, 'the label picked query 4');
  await page.mouse.click(q.x + q.w / 2, q.y + (q.h / tokens) * 4.5);
  await settle(page);
  assert.equal((await view(page)).query, -1);

  // / puts the cursor in the text box; Esc there gives the keyboard back to the lab.
  await page.mouse.move(4, 4);
  await press(page, '/');
  await until(page, () => document.activeElement && document.activeElement.id === 'text-box', null, '/ focuses the text box');
  await page.keyboard.press('End');
  await page.keyboard.type(' today');
  await press(page, 'Escape');
  assert.equal((await config(page)).text, 'the cat sat on the mat because it was tired today');
  assert.notEqual(await page.evaluate(() => document.activeElement.id), 'text-box');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the tour (Back, Set up again, dragged by its title, closed by its box) and presenter mode by keys (P, arrows, Space, Backspace, F, Esc)', async (t) => {
  const { context, page, problems } = await openPage();
  await clickWidget(page, 'tour');
  const tour = async () => (await layout(page)).ui.tour;
  assert.equal((await tour()).step, 0);
  const setup = await config(page);
  await clickWidget(page, 'tour_next');
  assert.equal((await tour()).step, 1);
  await clickWidget(page, 'tour_back');
  assert.equal((await tour()).step, 0, 'Back');
  assert.deepEqual(await config(page), setup, 'Back set step 1 up again');
  await page.mouse.move(4, 4);
  await press(page, 'm');
  assert.deepEqual(maskKinds((await config(page)).mask), ['causal']);
  await clickWidget(page, 'tour_again');
  assert.deepEqual(await config(page), setup, 'Set up again undid the mask');
  // Dragged by its title bar, the tour stays where it was put.
  const t0 = (await layout(page)).windows.Tour;
  await drag(page, { x: t0.x + 60, y: t0.y + 10 }, [{ x: t0.x + 60 - 400, y: t0.y + 10 - 200 }]);
  await settle(page);
  const t1 = (await layout(page)).windows.Tour;
  assert.ok(Math.abs(t1.x - (t0.x - 400)) <= 2 && Math.abs(t1.y - (t0.y - 200)) <= 2, `the tour moved: ${JSON.stringify(t0)} -> ${JSON.stringify(t1)}`);
  await page.mouse.move(4, 4);
  await settle(page);
  assert.deepEqual((await layout(page)).windows.Tour, t1, 'and stays there');
  await closeWindow(page, 'Tour');
  assert.equal((await tour()).open, false, 'the close box closed the tour');
  assert.ok(!(await windowOpen(page, 'Tour')));

  // Presenter mode: P, then the presets by arrows, Space and Backspace.
  await page.mouse.move(4, 4);
  // (The P that opens it is not also presenter mode's own P, which leaves: once it was, in one frame.)
  await press(page, 'p');
  assert.ok((await layout(page)).ui.presenter, 'P opens presenter mode');
  const seen = {};
  for (const key of ['ArrowRight', 'ArrowDown', 'Space', 'ArrowLeft', 'ArrowUp', 'Backspace']) {
    await press(page, key);
    seen[key] = await config(page);
  }
  const keys = (await page.evaluate(() => window.attnlab.presets())).map((p) => p.key);
  assert.deepEqual(seen.ArrowLeft, seen.ArrowDown, '← goes back to where ↓ went');
  assert.deepEqual(seen.ArrowUp, seen.ArrowRight, '↑ goes back to where → went');
  assert.notDeepEqual(seen.Space, seen.ArrowDown, 'Space went on');
  assert.notDeepEqual(seen.Backspace, seen.ArrowUp, 'Backspace went back, round to the last preset');
  // F asks for full screen (P already did: leave it first).
  await page.evaluate(() => document.fullscreenElement && document.exitFullscreen());
  await until(page, () => !document.fullscreenElement, null, 'out of full screen');
  await press(page, 'f');
  await until(page, () => !!document.fullscreenElement, null, 'F: full screen');
  await press(page, 'Escape');
  assert.equal((await layout(page)).ui.presenter, false, 'Esc leaves presenter mode');
  // What each key showed was the preset in its place in the list.
  for (const [key, at] of [['ArrowRight', 0], ['ArrowDown', 1], ['Space', 2], ['Backspace', keys.length - 1]]) {
    await page.evaluate((k) => window.attnlab.preset(k), keys[at]);
    assert.deepEqual(seen[key], await config(page), `${key}: preset ${keys[at]}`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});

// The training config Learn mode would run (its settings before a run, the run's once it started), as
// Share run's link carries it.
const runConfig = async (page) => JSON.parse(Buffer.from((await page.evaluate(() => window.attnlab.trainUrl())).split('#train=')[1], 'base64url').toString('utf8'));

test('Learn mode: task and experiment combos, variants, a prediction and its answer, every model and training field, Train, Step, ".", Reset, the replay, your own probe, the gradient views, Download, Share run, the mode switch', async () => {
  const { context, page, problems } = await openPage();
  await clickWidget(page, 'mode_learn');
  assert.equal((await status(page)).state, 'idle');
  // The task combo, then an experiment: its two variants; a prediction; what was measured.
  await pickFromCombo(page, 'learn_task', 1, 6);
  assert.equal((await status(page)).task, 'reverse');
  await pickFromCombo(page, 'learn_experiment', 1, 5);
  let rc = await runConfig(page);
  assert.equal(rc.task, 'reverse', 'the positions experiment');
  assert.notEqual(rc.positional, 'none');
  await clickWidget(page, 'learn_variant_b');
  assert.equal((await runConfig(page)).positional, 'none', 'variant B: no positions');
  await clickWidget(page, 'learn_variant_a');
  assert.notEqual((await runConfig(page)).positional, 'none', 'variant A again');
  const radio = await widget(page, 'learn_predict_1');
  const dot = { x: radio.x, y: radio.y, w: radio.h, h: radio.h };
  const unpicked = await shot(page, dot);
  await clickWidget(page, 'learn_predict_1');
  assert.ok(changed(unpicked, await shot(page, dot)) > 0.05, 'the radio button shows the prediction');
  assert.ok(!(await layout(page)).widgets.learn_measured, 'nothing measured shown yet');
  await clickWidget(page, 'learn_reveal');
  assert.ok((await layout(page)).widgets.learn_measured, 'what was measured is shown');
  // Free settings: the first task again, then the lab's settings and every field by hand.
  await pickFromCombo(page, 'learn_task', 0, 6);
  assert.equal((await status(page)).task, 'previous_token');
  await scrollIntoView(page, 'learn_use_lab', 'Training');
  await clickWidget(page, 'learn_use_lab');
  rc = await runConfig(page);
  assert.deepEqual([rc.d_model, rc.heads, rc.d_k, rc.d_v, rc.positional], [32, 4, 8, 8, 'sinusoidal'], 'the lab\'s settings');
  const fields = [['learn_d_model', '24'], ['learn_heads', '2'], ['learn_d_k', '12'], ['learn_d_v', '12'], ['learn_temperature', '1.5'],
                  ['learn_lr', '0.02'], ['learn_batch', '16'], ['learn_steps', '40'], ['learn_seed', '3'], ['learn_eval_every', '10']];
  for (const [name, value] of fields) {
    await scrollIntoView(page, name, 'Training');
    await typeInto(page, name, value, { ctrl: false });
  }
  await scrollIntoView(page, 'learn_layers', 'Training');
  await typeInto(page, 'learn_layers', '2');
  await clickWidget(page, 'learn_tied');
  await pickFromCombo(page, 'learn_positions', 3, 4);
  await clickWidget(page, 'learn_causal');
  await clickWidget(page, 'learn_scaled');
  await scrollIntoView(page, 'learn_stop_early', 'Training');
  await clickWidget(page, 'learn_stop_early');
  rc = await runConfig(page);
  assert.deepEqual([rc.d_model, rc.heads, rc.d_k, rc.d_v, rc.layers, rc.tied, rc.positional, maskKinds(rc.mask ?? 'none'), rc.scale, rc.temperature],
                   [24, 2, 12, 12, 2, true, 'rope', ['causal'], false, 1.5], JSON.stringify(rc));
  assert.deepEqual([Number(rc.train.lr.toPrecision(6)), rc.train.batch, rc.train.steps, rc.train.seed, rc.train.eval_every, rc.train.stop_accuracy],
                   [0.02, 16, 40, 3, 10, undefined], JSON.stringify(rc.train));
  // Train, then Step, ".", Reset, Train again.
  await clickWidget(page, 'learn_train');
  await until(page, () => window.attnlab.trainStatus().state === 'done', null, 'the run ended', 60000);
  let st = await status(page);
  assert.deepEqual([st.step, st.converged], [40, false]);
  await clickWidget(page, 'learn_step');
  st = await status(page);
  assert.deepEqual([st.state, st.step], ['paused', 1], 'Step after the end starts the run again, one step');
  await page.mouse.move(4, 4);
  await press(page, '.');
  assert.equal((await status(page)).step, 2, '. steps once');
  await clickWidget(page, 'learn_reset');
  st = await status(page);
  assert.deepEqual([st.state, st.step], ['paused', 0], 'Reset');
  await clickWidget(page, 'learn_train');
  await until(page, () => window.attnlab.trainStatus().state === 'done', null, 'the run ended again', 60000);
  await settle(page);
  // The curves and the thumbnails answer the pointer.
  const loss = await widget(page, 'learn_loss_plot');
  await page.mouse.move(loss.x + loss.w / 2, loss.y + loss.h / 2);
  await settle(page);
  assert.ok((await layout(page)).ui.tooltip, 'the loss plot reads out a step');
  const th = await widget(page, 'learn_l0_h0');
  await page.mouse.move(th.x + th.w / 2, th.y + th.h / 2);
  await settle(page);
  assert.ok((await layout(page)).ui.tooltip, 'a thumbnail reads out a weight');
  await page.mouse.move(4, 4);
  await settle(page);
  // The replay: dragged back to step 0 the thumbnails show the untrained weights; Live returns.
  const live = await shot(page, th);
  const rp = await widget(page, 'learn_replay');
  await drag(page, { x: rp.x + rp.w - 4, y: rp.y + rp.h / 2 }, [{ x: rp.x + 2, y: rp.y + rp.h / 2 }]);
  await page.mouse.move(4, 4);
  await settle(page);
  assert.ok((await layout(page)).widgets.learn_live, 'replaying: the Live button is there');
  const replayed = await shot(page, th);
  assert.ok(changed(live, replayed) > 0.05, 'the thumbnail shows another step\'s weights (its allowed half)');
  await clickWidget(page, 'learn_live');
  await page.mouse.move(4, 4);
  await settle(page);
  assert.ok(changed(live, await shot(page, th)) < 0.02, 'Live: the trained weights again');
  // Your own probe, typed: Open in the lab shows its tokens; the held-out example again.
  await clickWidget(page, 'learn_probe_text', { dx: 0.2 });
  await page.keyboard.type('a b c d e');
  await press(page, 'Enter');
  assert.ok((await layout(page)).widgets.learn_probe_heldout, 'the typed probe is in use');
  await clickWidget(page, 'learn_open');
  assert.ok((await layout(page)).windows.Matrices, 'the lab');
  assert.deepEqual((await page.evaluate(() => window.attnlab.result())).tokens, ['a', 'b', 'c', 'd', 'e']);
  await clickWidget(page, 'mode_learn');
  await clickWidget(page, 'learn_probe_heldout');
  // The layer slider: layer 1's X is the residual stream after layer 0.
  await clickWidget(page, 'learn_open');
  const x0 = (await page.evaluate(() => window.attnlab.result())).x;
  assert.equal(x0.length, 16, 'the held-out example again');
  await clickWidget(page, 'mode_learn');
  const ls = await widget(page, 'learn_open_layer');
  await drag(page, { x: ls.x + 4, y: ls.y + ls.h / 2 }, [{ x: ls.x + ls.w + 40, y: ls.y + ls.h / 2 }]);
  await clickWidget(page, 'learn_open');
  const x1 = (await page.evaluate(() => window.attnlab.result())).x;
  assert.equal(x1.length, 16);
  assert.notDeepEqual(x1, x0, 'layer 1 opened');
  await clickWidget(page, 'mode_learn');
  // What the thumbnails show: ∂L/∂A, then ∂L/∂W and its matrices.
  await page.mouse.move(4, 4);
  await settle(page);
  const weights = await shot(page, th);
  await pickFromCombo(page, 'learn_probe_view', 1, 4);
  await page.mouse.move(4, 4);
  await settle(page);
  assert.ok(changed(weights, await shot(page, th)) > 0.05, 'the thumbnails show ∂L/∂A');
  await pickFromCombo(page, 'learn_probe_view', 3, 4);
  const g0 = await widget(page, 'learn_grad_cells');
  await pickFromCombo(page, 'learn_grad_tensor', 0, 9);  // W_E: vocab × d_model, 16 × 24
  const g1 = await widget(page, 'learn_grad_cells');
  assert.ok(Math.abs(g0.w / g0.h - 1) < 0.02 && Math.abs(g1.w / g1.h - 24 / 16) < 0.05, `W_Q (24 × 24), then W_E: ${JSON.stringify(g0)} -> ${JSON.stringify(g1)}`);
  // Download model; Share run.
  const file = await download(page, 'learn_download');
  assert.match(file.name, /^attnlab-previous_token-step40\.json$/);
  const model = JSON.parse(file.bytes.toString('utf8'));
  assert.deepEqual(model, await page.evaluate(() => window.attnlab.model()));
  await clickWidget(page, 'learn_share');
  assert.match(page.url(), /#train=/);
  assert.equal(page.url(), await page.evaluate(() => window.attnlab.trainUrl()));
  assert.match((await layout(page)).ui.notice, /^Link copied/);
  // The mode switch: Learn (already on) stays, Lab goes back.
  await clickWidget(page, 'mode_learn');
  assert.ok((await layout(page)).windows.Training, 'still Learn mode');
  await clickWidget(page, 'mode_lab');
  const l = await layout(page);
  assert.ok(l.windows.Matrices && !l.windows.Training, 'the lab');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the side column\'s tabs and the Controls headers (1024x768), the phone\'s tabs, its sentence box, and Learn mode\'s tabs (390x844)', async (t) => {
  const { context, page, problems } = await openPage({ viewport: { width: 1024, height: 768 } });
  assert.equal((await layout(page)).ui.mode, 'sidebar');
  for (const tab of ['Controls', 'Inspector', 'All heads', 'Lines', 'Input']) {
    await clickWidget(page, 'tab_' + tab);
    const l = await layout(page);
    const side = ['Input', 'Controls', 'Inspector', 'All heads', 'Lines'].filter((k) => l.windows[k]);
    assert.deepEqual(side, [tab], `the side column shows ${tab}`);
  }
  // The Controls headers fold their sections away, top down (the next header moves up), and open again.
  await clickWidget(page, 'tab_Controls');
  const names = ['Sizes', 'Attention', 'Masks', 'Weights and view'].map((n) => 'header:' + n);
  const open = await layout(page);
  for (let i = 0; i < names.length; i++) {
    const before = (await layout(page)).widgets[names[i + 1]];
    await clickWidget(page, names[i]);
    if (i + 1 < names.length) assert.ok((await layout(page)).widgets[names[i + 1]].y < before.y - 40, `${names[i]} folded`);
  }
  assert.equal((await layout(page)).windows.Controls.scroll, 0, 'all folded: nothing to scroll');
  for (let i = names.length - 1; i >= 0; i--) await clickWidget(page, names[i]);
  assert.deepEqual((await layout(page)).widgets.d_model, open.widgets.d_model, 'all open again');

  // A phone: one panel at a time under the tabs; the Matrices tab leads with the sentence.
  await page.setViewportSize({ width: 390, height: 844 });
  await settle(page);
  assert.equal((await layout(page)).ui.mode, 'tabs');
  for (const tab of ['Inspector', 'All heads', 'Lines', 'Matrices']) {
    await clickWidget(page, 'tab_' + tab);
    const l = await layout(page);
    const shown = ['Matrices', 'Input', 'Controls', 'Inspector', 'All heads', 'Lines'].filter((k) => l.windows[k]);
    assert.deepEqual(shown, [tab], `the ${tab} tab`);
  }
  await clickWidget(page, 'text');
  // The Matrices tab's sentence box is the page's <textarea> too (a phone's keyboard, IMEs), also on a
  // page that has shown the Input panel before (the shell once counted the Matrices window, which holds
  // the box, as a window lying over it).
  assert.equal(await page.evaluate(() => document.activeElement.id), 'text-box');
  await page.keyboard.press('Control+A');
  await settle(page);
  await page.keyboard.type('a small dog barked');
  await settle(page);
  await press(page, 'Escape');
  assert.equal((await config(page)).text, 'a small dog barked');
  assert.equal((await page.evaluate(() => window.attnlab.result())).tokens.length, 4);
  // Esc straight after typing keeps every character typed (the queue hands Esc, Enter and Tab to the
  // UI a frame after the characters before them: in one frame, Esc cancelled them with the edit).
  await clickWidget(page, 'text', { dx: 0.9 });  // (not where the last click was: that would be a double click)
  await page.keyboard.press('End');
  await page.keyboard.type(' at the postman');
  await press(page, 'Escape');
  assert.equal((await config(page)).text, 'a small dog barked at the postman');
  // Learn mode on the phone: Training, Curves and Attention one at a time.
  await clickWidget(page, 'mode_learn');
  for (const [tab, win] of [['Curves', 'Curves'], ['Attention', 'Attention on a probe'], ['Training', 'Training']]) {
    await clickWidget(page, 'learn_tab_' + tab);
    const l = await layout(page);
    const shown = ['Training', 'Curves', 'Attention on a probe'].filter((k) => l.windows[k]);
    assert.deepEqual(shown, [win], `the ${tab} tab`);
  }
  assert.deepEqual(problems, []);
  await context.close();
});
