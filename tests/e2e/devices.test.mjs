// Classroom devices in Chromium (issue 7): the mouse wheel, the layout rule at phone to 4K sizes and
// UI scales 1–3, touch (taps, drags, long press, the on-screen keyboard's text field), the
// screen-reader mirror (Chromium's accessibility tree) and presenter mode.
//   ATTNLAB_SITE=build-web/site ATTNLAB_OUT=build/e2e node --test tests/e2e/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, openLab, decodePng, pixelStats, frames, showView } from './lib.mjs';

const lab = labSuite();
const OUT = lab.OUT;

// Waits until the lab stops drawing (it draws only when something changed): input has been handled.
// "Stopped" = no new frame for 0.6 s; a software renderer under load can take a while per frame.
async function settle(page) {
  let last = -1, still = 0;
  for (let i = 0; i < 200 && still < 3; i++) {
    const n = await page.evaluate(() => window.attnlab.stats().frames);
    still = n === last ? still + 1 : 0;
    last = n;
    await page.waitForTimeout(200);
  }
}
const layout = (page) => page.evaluate(() => window.attnlab.layout());
const center = (r) => ({ x: r.x + r.w / 2, y: r.y + r.h / 2 });
async function until(page, fn, arg, what) {
  await page.waitForFunction(fn, arg, { timeout: 45000, polling: 50 }).catch((e) => { throw new Error(`${what}: ${e.message}`); });
}

test('wheel: one notch down moves the content up by a few lines, one notch up brings it back', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  let l = await layout(page);
  const m = l.windows.Matrices;
  const y0 = l.views.x.y;
  await page.mouse.move(m.x + m.w / 2, m.y + m.h / 2);
  await settle(page);
  await page.mouse.wheel(0, 100);  // what Chromium sends for one notch of a mouse wheel
  await until(page, (y) => window.attnlab.layout().views.x?.y !== y, y0, 'the wheel did not scroll');
  await settle(page);
  l = await layout(page);
  const moved = y0 - l.views.x.y;
  const line = l.ui.font_px * 1.3;
  // Content moves up (the page's direction), by ImGui's notch (5 lines) as on the desktop: not 100 lines.
  assert.ok(moved > line && moved < 8 * line, `one notch moved the content by ${moved} px (a line is ${line})`);
  await page.mouse.wheel(0, -100);
  await until(page, (y) => Math.abs(window.attnlab.layout().views.x.y - y) < 1, y0, 'wheel up did not come back');
  assert.deepEqual(problems, []);
  await page.close();
});

test('layout rule: windows inside the screen, nothing unreachable, every matrix cell >= 8 px, at phone to 4K and UI scale 1-3', async () => {
  const page = await lab.browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(lab.server.url);
  await page.evaluate(() => window.attnlab.ready);
  const cases = [[390, 844, 1, 'tabs'], [1024, 768, 1, 'sidebar'], [1280, 720, 1, 'columns'], [1920, 1080, 1, 'columns'],
                 [1280, 720, 2, 'tabs'], [1920, 1080, 2, 'sidebar'], [1280, 720, 3, 'tabs'], [3840, 2160, 1, 'columns'], [3840, 2160, 3, 'columns']];
  for (const [w, h, scale, mode] of cases) {
    await page.setViewportSize({ width: w, height: h });
    await page.evaluate((s) => window.attnlab.uiScale(s), scale);
    await until(page, ([w, h, s]) => { const u = window.attnlab.layout().ui; return u.display_w === w && u.display_h === h && u.ui_scale === s; },
                [w, h, scale], `layout at ${w}x${h} scale ${scale}`);
    await settle(page);
    const l = await layout(page);
    const where = `${w}x${h} at UI scale ${scale}`;
    assert.equal(l.ui.mode, mode, where + ': layout mode');
    for (const [name, r] of Object.entries(l.windows)) {
      assert.ok(r.x >= -0.5 && r.y >= -0.5 && r.x + r.w <= w + 0.5 && r.y + r.h <= h + 0.5, `${where}: window ${name} leaves the screen: ${JSON.stringify(r)}`);
      assert.notEqual(r.scroll, 2, `${where}: ${name} is too small for its contents and cannot scroll`);
    }
    assert.ok(l.windows.Matrices, where + ': the matrices are not shown');
    for (const [name, v] of Object.entries(l.views)) {
      assert.ok(v.cell_w >= 8 && v.cell_h >= 8, `${where}: ${name} cells are ${v.cell_w.toFixed(1)} x ${v.cell_h.toFixed(1)} px`);
    }
    for (const v of ['x', 'q', 'scores', 'weights']) assert.ok(l.views[v], `${where}: ${v} is not drawn`);
    if (w <= 1920 && scale !== 3) await page.screenshot({ path: path.join(OUT, `layout-${w}x${h}-s${scale}.png`) });
  }
  // On a phone every panel is a tab away: Controls brings the heads slider on screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.evaluate(() => window.attnlab.uiScale(1));
  await until(page, () => window.attnlab.layout().ui.display_w === 390 && window.attnlab.layout().ui.ui_scale === 1, null, 'back to the phone');
  await settle(page);
  const tab = (await layout(page)).widgets.tab_Controls;
  await page.mouse.click(center(tab).x, center(tab).y, { delay: 80 });
  await until(page, () => !!window.attnlab.layout().widgets.heads && window.attnlab.layout().windows.Controls, null, 'the Controls tab did not open');
  const heads = (await layout(page)).widgets.heads;
  assert.ok(heads.x >= 0 && heads.x + heads.w <= 390 && heads.y + heads.h <= 844);
  await page.close();
});

test('a tablet turned, or a window resized, with no input: the lab is drawn again at its new size', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1024, height: 768 });
  await settle(page);
  for (const [w, h] of [[768, 1024], [1366, 768]]) {
    await page.setViewportSize({ width: w, height: h });  // no mouse, key or touch, and no page call that draws
    await until(page, ([w, h]) => { const u = window.attnlab.layout().ui; return u.display_w === w && u.display_h === h; }, [w, h],
                `the lab drawn at ${w}x${h}`);
    await settle(page);
    const img = decodePng(await page.screenshot({ path: path.join(OUT, `resized-${w}x${h}.png`) }));
    assert.ok(pixelStats(img).distinct > 300, `${w}x${h}: the canvas was emptied by the new size and not drawn again`);
    for (const [name, r] of Object.entries((await layout(page)).windows))
      assert.ok(r.x + r.w <= w + 0.5 && r.y + r.h <= h + 0.5, `${w}x${h}: ${name} laid out for the old size: ${JSON.stringify(r)}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// CDP touch: Playwright's touchscreen only taps; drags and long presses need raw touch events.
async function touch(page, cdp, type, x, y) {
  await cdp.send('Input.dispatchTouchEvent', { type, touchPoints: type === 'touchEnd' ? [] : [{ x, y }] });
}
async function drag(page, cdp, from, to, steps = 8) {
  await touch(page, cdp, 'touchStart', from.x, from.y);
  await frames(page, 2);
  for (let i = 1; i <= steps; i++) {
    await touch(page, cdp, 'touchMove', from.x + ((to.x - from.x) * i) / steps, from.y + ((to.y - from.y) * i) / steps);
    await frames(page, 1);
  }
  await touch(page, cdp, 'touchEnd');
  await settle(page);
}

test('touch on a phone: tabs, a slider dragged by finger, a tap inspects a cell, a long press masks it, a drag scrolls, the text field', async () => {
  const context = await lab.browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, hasTouch: true, isMobile: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(lab.server.url);
  await page.evaluate(() => window.attnlab.ready);
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat', heads: 2, d_model: 8 }));
  await settle(page);
  const cdp = await context.newCDPSession(page);

  // A tap on a tab opens it.
  await until(page, () => window.attnlab.layout().ui.mode === 'tabs' && !!window.attnlab.layout().widgets.tab_Controls, null, 'phone layout');
  let l = await layout(page);
  const tapAt = center(l.widgets.tab_Controls);
  const framesBefore = (await page.evaluate(() => window.attnlab.stats())).frames;
  await page.touchscreen.tap(tapAt.x, tapAt.y);
  await until(page, () => !!window.attnlab.layout().widgets.heads, null, 'a tap on the Controls tab').catch(async (e) => {
    // What the page saw, so a failure here says where the tap was lost.
    const seen = await page.evaluate(([p, n]) => ({ frames_since: window.attnlab.stats().frames - n, input: window.attnlab.stats().input,
      target: document.elementFromPoint(p.x, p.y)?.id, visible: document.visibilityState, tabs: window.attnlab.layout().widgets.tab_Controls,
      windows: Object.keys(window.attnlab.layout().windows) }), [tapAt, framesBefore]);
    await page.screenshot({ path: path.join(OUT, 'touch-tab-lost.png') });
    throw new Error(`${e.message}; tapped ${JSON.stringify(tapAt)}; the page saw ${JSON.stringify(seen)}`);
  });
  // Drag the heads slider with a finger from its left end to its right end.
  const heads = (await layout(page)).widgets.heads;
  const before = await page.evaluate(() => window.attnlab.config().heads);
  await drag(page, cdp, { x: heads.x + 4, y: heads.y + heads.h / 2 }, { x: heads.x + heads.w - 4, y: heads.y + heads.h / 2 });
  const after = await page.evaluate(() => window.attnlab.config().heads);
  assert.ok(after > before, `dragging the heads slider by touch: heads ${before} -> ${after}`);
  await page.evaluate(() => window.attnlab.apply({ ...window.attnlab.config(), heads: 2 }));

  // Matrices: a tap on a weight inspects it (the reader's text names it) and masks nothing.
  l = await layout(page);
  await page.touchscreen.tap(center(l.widgets.tab_Matrices).x, center(l.widgets.tab_Matrices).y);
  await until(page, () => !!window.attnlab.layout().views.weights && !!window.attnlab.layout().windows.Matrices, null, 'the Matrices tab');
  const matrices = (await layout(page)).windows.Matrices;
  // The phone's first screen leads with the sentence and the weights (the first-screen rule).
  let w = (await layout(page)).views.weights;
  assert.ok(w.y >= matrices.y && w.y + w.cell_h * w.rows <= matrices.y + matrices.h, `the weights are on the first screen: ${JSON.stringify(w)}`);
  const cell = { x: w.x + w.cell_w * 1.5, y: w.y + w.cell_h * 2.5 };  // query 2 ("sat"), key 1 ("cat")
  await page.touchscreen.tap(cell.x, cell.y);
  await until(page, () => /Weights, head \d: query .sat. and key .cat./.test(window.attnlab.a11y().live), null, 'a tap on a weight did not inspect it');
  assert.equal(typeof (await page.evaluate(() => window.attnlab.config().mask)), 'string', 'a tap must not mask');
  // A long press does what a click does: the pair is masked.
  await touch(page, cdp, 'touchStart', cell.x, cell.y);
  await page.waitForTimeout(700);
  await settle(page);
  await touch(page, cdp, 'touchEnd');
  await until(page, () => Array.isArray(window.attnlab.config().mask), null, 'a long press did not mask the cell');
  const r = await page.evaluate(() => window.attnlab.result());
  assert.equal(r.heads[w.head].weights[2][1], 0);
  // A finger dragged up over the cells scrolls the matrices like a page: X, below A, comes up.
  const x0 = (await layout(page)).views.x.y;
  await drag(page, cdp, { x: w.x + w.cell_w * 5, y: w.y + w.cell_h * 8 }, { x: w.x + w.cell_w * 5, y: w.y + w.cell_h * 1 });
  const x1 = (await layout(page)).views.x.y;
  assert.ok(x1 < x0 - 50, `a finger drag up scrolled the matrices by ${x0 - x1} px`);

  // The text box is a real text field: tapping it focuses it (a phone opens its keyboard), typing
  // reaches the engine, and a change made elsewhere shows in it.
  l = await layout(page);
  await page.touchscreen.tap(center(l.widgets.tab_Input).x, center(l.widgets.tab_Input).y);
  await until(page, () => !document.getElementById('text-box').hidden, null, 'the text field did not appear');
  const box = await page.locator('#text-box').boundingBox();
  await page.touchscreen.tap(box.x + 20, box.y + 10);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'text-box');
  await page.evaluate(() => { const t = document.getElementById('text-box'); t.select(); });
  await page.keyboard.insertText('a dog ran home');
  await until(page, () => window.attnlab.config().text === 'a dog ran home', null, 'typed text did not reach the engine');
  // An IME composes first: nothing is sent until the composition ends.
  await page.evaluate(() => {
    const t = document.getElementById('text-box');
    t.dispatchEvent(new CompositionEvent('compositionstart'));
    t.value = 'a dog ran home ねこ';
    t.dispatchEvent(new InputEvent('input', { isComposing: true, data: 'ねこ' }));
  });
  await settle(page);
  assert.equal(await page.evaluate(() => window.attnlab.config().text), 'a dog ran home');
  await page.evaluate(() => document.getElementById('text-box').dispatchEvent(new CompositionEvent('compositionend', { data: 'ねこ' })));
  await until(page, () => window.attnlab.config().text === 'a dog ran home ねこ', null, 'the composed text did not arrive');
  assert.deepEqual((await page.evaluate(() => window.attnlab.result())).tokens, ['a', 'dog', 'ran', 'home', 'ね', 'こ']);
  await page.evaluate(() => window.attnlab.apply({ text: 'set from a preset' }));
  await until(page, () => document.getElementById('text-box').value === 'set from a preset', null, 'the field did not follow the lab');
  // Shortcut letters typed into the field are text, not shortcuts (M would cycle the mask).
  const maskBefore = JSON.stringify(await page.evaluate(() => window.attnlab.config().mask));
  await page.keyboard.insertText(' m');
  await page.keyboard.press('m');
  await settle(page);
  assert.equal(JSON.stringify(await page.evaluate(() => window.attnlab.config().mask)), maskBefore);
  await page.screenshot({ path: path.join(OUT, 'touch-390x844.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('screen readers: the hovered cell, its weights row and the matrix are in the accessibility tree', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat', heads: 2, d_model: 8 }));
  await settle(page);
  await showView(page, 'weights', 6);
  await settle(page);
  const w = (await layout(page)).views.weights;
  await page.mouse.move(w.x + w.cell_w * 0.5, w.y + w.cell_h * 1.5);  // query 1 "cat", key 0 "the"
  await until(page, () => /query .cat. and key .the./.test(document.getElementById('a11y-live').textContent), null, 'live region');
  const weight = (await page.evaluate(() => window.attnlab.result())).heads[w.head].weights[1][0];
  const snap = await page.locator('body').ariaSnapshot();
  fs.writeFileSync(path.join(OUT, 'aria-snapshot.txt'), snap);
  assert.match(snap, /Weights, head \d: query “cat” and key “the”/);
  assert.ok(snap.includes('Weight ' + Number(weight.toPrecision(3))), 'the weight is read out: ' + weight);
  assert.match(snap, /Weights of query “cat” in head \d: “the” [0-9.]+, “cat” [0-9.]+/);
  assert.match(snap, /table "Weights, head \d \(6 by 6\)"/);
  assert.match(snap, /rowheader "sat"/);
  assert.match(snap, /columnheader "mat"/);
  assert.match(snap, /textbox "Text: the tokens attention works on"/);
  // New numbers reach the table (its cells rewritten in place): the weight at (1, 0) after the
  // temperature changes, and the cell read out as current is still the hovered one.
  const cell = () => page.evaluate(() => {
    const td = document.querySelectorAll('#a11y-table tbody tr')[1].cells[1];
    return { text: td.textContent, current: td.getAttribute('aria-current') };
  });
  assert.equal(Number((await cell()).text), Number(weight.toPrecision(3)));
  await page.evaluate(() => window.attnlab.apply({ ...window.attnlab.config(), temperature: 0.25 }));
  const sharper = (await page.evaluate(() => window.attnlab.result())).heads[w.head].weights[1][0];
  assert.notEqual(Number(sharper.toPrecision(3)), Number(weight.toPrecision(3)));
  await until(page, (v) => Number(document.querySelectorAll('#a11y-table tbody tr')[1].cells[1].textContent) === v,
              Number(sharper.toPrecision(3)), 'the table shows the new weight');
  assert.equal((await cell()).current, 'true');
  assert.deepEqual(problems, []);
  await page.close();
});

test('keyboard: shortcuts still work with navigation on; arrows walk the cells of a focused matrix and the reader follows', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  await page.evaluate(() => window.attnlab.apply({ text: 'the cat sat on the mat', heads: 2, d_model: 8 }));
  await settle(page);
  const heads0 = await page.evaluate(() => window.attnlab.config().heads);
  await page.keyboard.press('m');
  await until(page, () => JSON.stringify(window.attnlab.config().mask) === '["causal"]', null, 'M shortcut');
  await page.keyboard.press(']');
  await settle(page);
  assert.equal((await layout(page)).views.weights.head, 1, '] selects the next head');
  assert.equal(await page.evaluate(() => window.attnlab.config().heads), heads0);
  await page.keyboard.press('[');
  await settle(page);
  // Click Q(1, 1) (selects it; the matrix takes the keyboard focus), move the mouse away, then arrows.
  const q = (await layout(page)).views.q;
  await page.mouse.click(q.x + q.cell_w * 1.5, q.y + q.cell_h * 1.5, { delay: 80 });
  await settle(page);
  await page.mouse.move(1279, 400);
  await settle(page);
  await page.keyboard.press('ArrowRight');
  await until(page, () => /^Q, head 0: token .cat., column 2/.test(window.attnlab.a11y().live), null, 'ArrowRight did not move the cursor');
  const snap = await page.locator('body').ariaSnapshot();
  assert.match(snap, /Q, head 0: token “cat”, column 2: -?[0-9.]+/);
  await page.screenshot({ path: path.join(OUT, 'keyboard-cursor.png') });
  assert.deepEqual(problems, []);
  await page.close();
});

test('presenter mode: a link opens it, numbers in large type, arrows step through presets, contrast, Esc leaves', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url + '?present', { width: 1280, height: 720 });
  await until(page, () => window.attnlab.layout().ui.presenter && !!window.attnlab.layout().views.weights, null, 'presenter from the link');
  await page.keyboard.press('ArrowRight');  // first preset
  await settle(page);
  const first = await page.evaluate(() => window.attnlab.config().text);
  await page.keyboard.press('PageDown');  // a presenter clicker's "next"
  await until(page, (t) => window.attnlab.config().text !== t, first, 'PageDown did not move to the next preset');
  await settle(page);
  let l = await layout(page);
  // The rule: cell text at >= 24 CSS px, and every shown matrix's cells hold a number in that type.
  assert.ok(l.ui.big_font_px >= 24, 'presenter type is ' + l.ui.big_font_px);
  const shown = ['scores', 'masked', 'weights'].filter((v) => l.views[v]);
  assert.ok(shown.length >= 1);
  for (const v of shown) {
    const c = l.views[v];
    assert.ok(c.cell_w >= 2.4 * l.ui.big_font_px && c.cell_h >= l.ui.big_font_px, `${v}: ${c.cell_w} x ${c.cell_h} px cells for ${l.ui.big_font_px} px numbers`);
    assert.ok(c.x >= 0 && c.x + c.cell_w * c.cols <= 1280 && c.y + c.cell_h * c.rows <= 720, `${v} leaves the screen`);
  }
  const img = decodePng(await page.screenshot({ path: path.join(OUT, 'presenter-1280x720.png') }));
  await page.keyboard.press('c');
  await until(page, () => window.attnlab.layout().ui.high_contrast, null, 'C did not switch to high contrast');
  await settle(page);
  const hc = decodePng(await page.screenshot({ path: path.join(OUT, 'presenter-high-contrast.png') }));
  const black = (im) => { let n = 0; for (let i = 0; i < im.rgba.length; i += 4) if (im.rgba[i] + im.rgba[i + 1] + im.rgba[i + 2] === 0) n++; return n / (im.width * im.height); };
  assert.ok(black(hc) > black(img) + 0.1, `high contrast background: ${black(img)} -> ${black(hc)} black`);
  await page.keyboard.press('PageUp');
  await until(page, (t) => window.attnlab.config().text === t, first, 'PageUp did not come back');
  await page.keyboard.press('Escape');
  await until(page, () => !window.attnlab.layout().ui.presenter && !!window.attnlab.layout().windows.Matrices, null, 'Esc did not leave');
  // The Present button and the P key open it again.
  const present = (await layout(page)).widgets.present;
  await page.mouse.click(center(present).x, center(present).y, { delay: 80 });
  await until(page, () => window.attnlab.layout().ui.presenter, null, 'the Present button');
  await page.keyboard.press('p');
  await until(page, () => !window.attnlab.layout().ui.presenter, null, 'P did not leave');
  assert.ok(pixelStats(img).distinct > 100);
  assert.deepEqual(problems, []);
  await page.close();
});
