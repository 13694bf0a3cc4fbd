// UI languages in Chromium (issue 21): the pseudo-language leaves no English on screen and cuts no
// label at a phone's, a projector's (UI scale 2) and a large screen's size, in the lab and in Learn mode (its
// windows, Inspect heads' five views, the recurrence lesson); zh, de and es fit Inspect heads, the first
// screen, the recurrence lesson and its experiment at those sizes (a phone by touch; at 1920x1080, the
// roomiest, each view in one of the three in turn), photographed;
// the nav bar is as tall as its buttons in every language; CJK tokens draw as glyphs;
// the chosen language survives a shared link; a real click on the language menu switches it.
//   ATTNLAB_SITE=build-web/site ATTNLAB_OUT=build/e2e node --test tests/e2e/i18n.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { labSuite, openLab, frames, settle, pixelStats, decodePng, clickWidget, widget } from './lib.mjs';

const lab = labSuite();
const layout = (page) => page.evaluate(() => window.attnlab.layout());
async function until(page, fn, arg, what) {
  await page.waitForFunction(fn, arg, { timeout: 30000, polling: 50 }).catch((e) => { throw new Error(`${what}: ${e.message}`); });
}

// Words drawn outside the pseudo-language's « » that are not the learner's own tokens or notation:
// text that did not come from the catalogue.
const kNotation = new Set(['d_model', 'd_k', 'd_v', 'softmax', 'concat', 'mask', 'out', 'rot', 'W_Q', 'W_K', 'W_V', 'W_O',
                           'X_src', 'ms', 'px', 'AVX2', 'AVX512', 'SSE2', 'simd128', 'scalar', 'NEON', 'RoPE']);
function englishLeft(text, tokens) {
  const allowed = new Set([...kNotation, ...tokens.map((t) => t.toLowerCase())]);
  const left = new Set();
  for (const line of text.split('\n')) {
    const outside = line.replace(/«[^»]*»/g, ' ').replace(/U\+[0-9A-F]{4,6}/g, ' ');
    // Words that start after an accented letter are the pseudo-language's own ("ávx512": not "vx512").
    for (const w of outside.match(/(?<!\p{L})[A-Za-z][A-Za-z_0-9]{2,}/gu) || [])
      if (!allowed.has(w) && !allowed.has(w.toLowerCase())) left.add(`${w} (in "${line.trim().slice(0, 80)}")`);
  }
  return [...left];
}
const kInspectViews = ['ablation', 'patching', 'attribution', 'circuits', 'rollout'];
// The nav bar is as tall as the lines its buttons take (one where they fit across), padding included.
function checkNav(l, where) {
  const nav = l.windows.nav;
  // The buttons this layout draws (layout() keeps the last place of every widget ever drawn): a tab per
  // panel on a phone, the side toggle and the side panels' tabs beside a side column, the toggle alone in columns.
  const mode = l.ui.mode;
  const drawn = (k) => k === 'present' || k === 'mode_learn' || (mode !== 'tabs' && k === 'side_panels') ||
                       (k.startsWith('tab_') && (mode === 'tabs' || (mode === 'sidebar' && !l.ui.side_collapsed && k !== 'tab_Matrices')));
  const buttons = Object.entries(l.widgets).filter(([k]) => drawn(k)).map(([, r]) => r);
  assert.ok(buttons.length >= 3, `${where}: the nav bar's buttons`);
  const top = Math.min(...buttons.map((r) => r.y)), bottom = Math.max(...buttons.map((r) => r.y + r.h));
  const pad = top - nav.y;
  assert.ok(Math.abs(nav.y + nav.h - (bottom + pad)) <= 1.5, `${where}: the nav bar is ${nav.h.toFixed(1)} px tall for buttons from ${top.toFixed(1)} to ${bottom.toFixed(1)} (padding ${pad.toFixed(1)})`);
  return new Set(buttons.map((r) => Math.round(r.y))).size;  // its lines
}
function checkLayout(l, w, h, where) {
  for (const [name, r] of Object.entries(l.windows)) {
    assert.ok(r.x >= -0.5 && r.y >= -0.5 && r.x + r.w <= w + 0.5 && r.y + r.h <= h + 0.5, `${where}: window ${name} leaves the screen: ${JSON.stringify(r)}`);
    assert.notEqual(r.scroll, 2, `${where}: ${name} is too small for its contents and cannot scroll`);
    assert.equal(r.clipped, false, `${where}: something in ${name} is wider than it and is cut at its edge`);
  }
}

// The page resized (as a window or a rotated tablet is) and its UI scale set, waited for until the lab
// lays itself out at that size.
async function resize(page, w, h, scale) {
  await page.setViewportSize({ width: w, height: h });
  await page.evaluate((s) => window.attnlab.uiScale(s), scale);
  await until(page, ([w, h, s]) => { const u = window.attnlab.layout().ui; return u.display_w === w && u.display_h === h && u.ui_scale === s; },
              [w, h, scale], `layout at ${w}x${h} scale ${scale}`);
  await settle(page);
}
// Where every language need not be looked at in every view: a large screen at UI scale 1 has the most
// room of the sizes checked, so there each view is checked in one language, in turn (the phone and the
// projector, where labels are tightest, check every view in every language).
const roomy = (w, h, scale) => scale === 1 && w >= 1920 && h >= 1080;
const inTurn = (w, h, scale, viewIndex, langIndex) => !roomy(w, h, scale) || viewIndex % 3 === langIndex;

// The UI switched to `lang` (set up through the page API; the menu's own click is tested below), waited
// for until its text draws: a CJK language's font arrives on demand, and until then its glyphs are U+.
async function switchLanguage(page, lang) {
  await page.evaluate((c) => window.attnlab.language(c), lang);
  await until(page, () => !/U\+[0-9A-F]{4}/.test(window.attnlab.drawnText()), null, `the page in ${lang}, every glyph drawn`);
  await settle(page);
}

test('pseudo-language: no English left and nothing cut at 390x844, 1280x720 at UI scale 2 and 1920x1080', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url + '?lang=pseudo', { width: 1280, height: 720 });
  assert.equal(await page.evaluate(() => window.attnlab.language()), 'pseudo');
  const tokens = await page.evaluate(() => window.attnlab.result().tokens);
  for (const [w, h, scale] of [[390, 844, 1], [1280, 720, 2], [1920, 1080, 1]]) {
    await resize(page, w, h, scale);
    const where = `${w}x${h} at UI scale ${scale}`;
    let l = await layout(page);
    // One panel at a time (a phone, or a projector's scale): each tab in turn.
    const tabs = Object.keys(l.widgets).filter((k) => k.startsWith('tab_'));
    for (const tab of tabs.length ? tabs : [null]) {
      if (tab) {
        const r = l.widgets[tab];
        await page.mouse.click(r.x + r.w / 2, r.y + r.h / 2);
        await frames(page, 3);
        await settle(page);
      }
      l = await layout(page);
      checkLayout(l, w, h, where + (tab ? ' ' + tab : ''));
      const text = await page.evaluate(() => window.attnlab.drawnText());
      assert.ok(text.includes('«'), `${where}: no pseudo-language text drawn`);
      assert.deepEqual(englishLeft(text, tokens), [], `${where}${tab ? ' ' + tab : ''}: English left on screen`);
    }
    checkNav(await layout(page), where);
    await page.screenshot({ path: path.join(lab.OUT, `i18n-pseudo-${w}x${h}-s${scale}.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// The nav bar in every language, opened on a phone (two or three lines of tabs) and then widened to a
// large screen, and back: exactly as tall as its buttons each time, one line at 1920x1080.
test('the nav bar is as tall as its buttons in every language: one line at 1920x1080', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 390, height: 844 });
  for (const lang of ['en', 'zh', 'de', 'es', 'pseudo']) {
    await resize(page, 390, 844, 1);
    await switchLanguage(page, lang);
    for (const [w, h, scale] of [[390, 844, 1], [1920, 1080, 1], [1280, 720, 2], [1920, 1080, 1]]) {
      await resize(page, w, h, scale);
      const lines = checkNav(await layout(page), `${lang} ${w}x${h} at UI scale ${scale}`);
      if (w === 1920) assert.equal(lines, 1, `${lang} at 1920x1080: the nav bar's buttons on one line`);
    }
    await page.screenshot({ path: path.join(lab.OUT, `i18n-nav-${lang}-1920x1080.png`) });
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// Learn mode in the pseudo-language, where a class uses it: its three windows (one at a time under tabs on
// a phone or at UI scale 2), the Inspect heads view of the trained model, and the recurrence lesson's six
// views of a delayed-copy run. Runs are started through the page API (the same config the CLI reads); what
// is looked at is only what is drawn: no English outside « », no window cut or unable to scroll.
test('pseudo-language: Learn mode, Inspect heads and the recurrence lesson leave no English and cut nothing', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url + '?lang=pseudo', { width: 390, height: 844 });
  const kSizes = [[390, 844, 1], [1280, 720, 2], [1920, 1080, 1]];
  let where = '';
  const look = async (what) => {
    await settle(page, 2);  // (a click or tap has drawn its frames: two more, the mouse moved off any tooltip)
    const l = await layout(page);
    const { display_w: w, display_h: h } = l.ui;
    try {
      checkLayout(l, w, h, `${where}, ${what}`);
    } catch (e) {  // the picture of what was cut, to look at
      await page.screenshot({ path: path.join(lab.OUT, `i18n-pseudo-cut-${where.replace(/ /g, '_')}.png`) });
      throw e;
    }
    const text = await page.evaluate(() => window.attnlab.drawnText());
    assert.ok(text.includes('«'), `${where}, ${what}: no pseudo-language text drawn`);
    assert.deepEqual(englishLeft(text, []), [], `${where}, ${what}: English left on screen`);
    return l;
  };
  const tabs = async (what) => {  // every Learn window: side by side, or each tab in turn
    const l = await layout(page);
    // (layout() keeps every widget ever drawn: the tabs count only while their row is.)
    const names = l.windows['Learn##tabs'] ? Object.keys(l.widgets).filter((k) => k.startsWith('learn_tab_')) : [];
    if (!names.length) return look(what);
    for (const tab of names) {
      await clickWidget(page, tab);
      await look(`${what}, ${tab}`);
    }
    return layout(page);
  };
  const done = () => page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 120000, polling: 200 });
  // One run, looked at in each size the page is resized to: the windows, then Inspect heads' five views.
  await page.evaluate(() => window.attnlab.train({ task: 'previous_token', train: { steps: 60, eval_every: 20 } }));
  await done();
  for (const [w, h, scale] of kSizes) {
    await resize(page, w, h, scale);
    where = `${w}x${h} at UI scale ${scale}`;
    await tabs('Learn mode after a run');
    if ((await layout(page)).windows['Learn##tabs']) await clickWidget(page, 'learn_tab_Attention');
    await clickWidget(page, 'learn_view_inspect');
    await look('Inspect heads');
    await clickWidget(page, 'inspect_each');
    await look('Inspect heads, every head ablated');
    await page.screenshot({ path: path.join(lab.OUT, `i18n-pseudo-inspect-${w}x${h}-s${scale}.png`) });
    for (const view of kInspectViews.slice(1)) {
      await clickWidget(page, `inspect_view_${view}`);
      await look(`Inspect heads, the ${view} view`);
      await page.screenshot({ path: path.join(lab.OUT, `i18n-pseudo-inspect-${view}-${w}x${h}-s${scale}.png`) });
    }
    await clickWidget(page, 'inspect_view_ablation');
    await clickWidget(page, 'learn_view_attention');
  }
  // The recurrence lesson's six views of a delayed-copy run, in each size.
  await page.evaluate(() => window.attnlab.train({ task: 'delayed_copy', model: 'rnn', distance: 4, train: { steps: 60, eval_every: 20 } }));
  await done();
  for (const [w, h, scale] of kSizes) {
    await resize(page, w, h, scale);
    where = `${w}x${h} at UI scale ${scale}`;
    await tabs('the recurrence lesson');
    if ((await layout(page)).windows['Learn##tabs']) await clickWidget(page, 'learn_tab_Attention');
    for (const view of ['probe', 'gradient', 'sweep', 'compare', 'path', 'wall_time']) {
      await clickWidget(page, `learn_view_${view}`);
      await look(`the lesson's ${view} view`);
    }
    await page.screenshot({ path: path.join(lab.OUT, `i18n-pseudo-lesson-${w}x${h}-s${scale}.png`) });
    await clickWidget(page, 'learn_view_attention');
  }
  assert.deepEqual(problems, []);
  await page.close();
});

// Learn mode in Chinese, German and Spanish as a teacher sees it: screenshots at a phone's size, a
// projector's UI scale 2 and a large screen, and every Inspect heads view checked for fit (the words of
// the pseudo-language test above, in real translations: CJK lines wrap between characters).
test('Learn mode in zh, de and es: Inspect heads fits at 390x844, 1280x720 at UI scale 2 and 1920x1080', async () => {
  // One trained model, looked at in each language at each size the page is resized to.
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 390, height: 844 });
  await page.evaluate(() => window.attnlab.train({ task: 'induction', train: { steps: 40, eval_every: 20 } }));
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 120000, polling: 200 });
  for (const [w, h, scale] of [[390, 844, 1], [1280, 720, 2], [1920, 1080, 1]])
    for (const [langIndex, lang] of ['zh', 'de', 'es'].entries()) {
      await resize(page, w, h, scale);
      await switchLanguage(page, lang);
      const l = await layout(page);
      checkLayout(l, w, h, `${lang} ${w}x${h} at UI scale ${scale}`);
      await page.screenshot({ path: path.join(lab.OUT, `i18n-learn-${lang}-${w}x${h}-s${scale}.png`) });
      if (l.windows['Learn##tabs']) await clickWidget(page, 'learn_tab_Attention');
      await clickWidget(page, 'learn_view_inspect');
      for (const [viewIndex, view] of kInspectViews.entries()) {
        if (!inTurn(w, h, scale, viewIndex, langIndex)) continue;
        await clickWidget(page, `inspect_view_${view}`);
        await settle(page, 2);  // (a click or tap has drawn its frames: two more, the mouse moved off any tooltip)
        checkLayout(await layout(page), w, h, `${lang} ${w}x${h} at UI scale ${scale}, Inspect heads' ${view} view`);
        await page.screenshot({ path: path.join(lab.OUT, `i18n-inspect-${view}-${lang}-${w}x${h}-s${scale}.png`) });
      }
      await clickWidget(page, 'inspect_view_ablation');
      await clickWidget(page, 'learn_view_attention');
      if (l.windows['Learn##tabs']) await clickWidget(page, 'learn_tab_Training');
    }
  assert.deepEqual(problems, []);
  await page.close();
});

// The mouse wheel over the part of window `windowName` nearest widget `name` (a scrolling child, such as
// Training's settings under its run buttons, scrolls only under the mouse) until the widget is inside it.
async function bringIntoView(page, name, windowName) {
  for (let i = 0; i < 40; i++) {
    const l = await layout(page);
    const w = l.widgets[name], win = l.windows[windowName];
    assert.ok(w && win, `${name} in ${windowName}`);
    if (w.y >= win.y && w.y + w.h <= win.y + win.h - 4) return;
    await page.mouse.move(w.x + 4, Math.min(Math.max(w.y + w.h / 2, win.y + 40), win.y + win.h - 12));
    await page.mouse.wheel(0, w.y + w.h > win.y + win.h - 4 ? 100 : -100);
    await frames(page, 2);
  }
  throw new Error(`${name} could not be scrolled into view in ${windowName}`);
}

// A press as the device makes it: a tap on a touch screen, else a click of the mouse. `windowName`: the
// window to scroll until the widget is inside it.
async function press(page, name, touch, windowName) {
  if (windowName) await bringIntoView(page, name, windowName);
  if (!touch) return clickWidget(page, name);
  const w = await widget(page, name);
  const vp = page.viewportSize();
  assert.ok(w.y + w.h / 2 < vp.height && w.x + w.w / 2 < vp.width, `widget ${name} is below or right of the screen: ${JSON.stringify(w)}`);
  await page.touchscreen.tap(w.x + w.w / 2, w.y + w.h / 2);
  await frames(page, 3);
}

// What a teacher in Shanghai, Madrid or Berlin sees, photographed to be looked at: the lab's first screen
// (each panel's tab where the panels are tabs), then the recurrence lesson's six views of a delayed-copy
// run, then the recurrence experiment loaded from its menu with a prediction made and the outcome shown
// (Training and Curves), in zh, de and es on a phone (touch, tapped), at 1280x720 at UI scale 2 and at
// 1920x1080. Every screen fits (no window cut or unable to scroll) and no glyph is missing (no U+).
test('zh, de and es: the first screen, the recurrence lesson and its experiment fit on a phone (touch), at UI scale 2 and at 1920x1080', async () => {
  // A page per device, switched to each language in turn; each size starts with another language, the
  // one that makes the prediction and reveals the outcome there (the outcome stays revealed after).
  for (const [w, h, scale, touch, langs] of [[390, 844, 1, true, ['zh', 'de', 'es']], [1280, 720, 2, false, ['de', 'es', 'zh']],
                                             [1920, 1080, 1, false, ['es', 'zh', 'de']]]) {
    const { page, problems } = await openLab(lab.browser, lab.server.url, { width: w, height: h, touch });
    if (scale !== 1) await resize(page, w, h, scale);
    let where = '', lang = '';
    const look = async (what, file) => {
      await settle(page, 2);  // (a click or tap has drawn its frames: two more, the mouse moved off any tooltip)
      const l = await layout(page);
      await page.screenshot({ path: path.join(lab.OUT, `i18n-${file}-${lang}-${w}x${h}-s${scale}.png`) });
      checkLayout(l, w, h, `${where}, ${what}`);
      const text = await page.evaluate(() => window.attnlab.drawnText());
      assert.ok(!/U\+[0-9A-F]{4}/.test(text), `${where}, ${what}: a character drawn as its code point`);
      return l;
    };
    const inLanguage = async (code) => {
      lang = code;
      where = `${lang} ${w}x${h} at UI scale ${scale}${touch ? ' (touch)' : ''}`;
      await switchLanguage(page, lang);
    };
    // The first screen, and each panel's tab where there are tabs.
    for (const code of langs) {
      await inLanguage(code);
      const first = await look('the first screen', 'first');  // (the first language's is the page's first screen)
      for (const tab of Object.keys(first.widgets).filter((k) => k.startsWith('tab_'))) {
        await press(page, tab, touch);
        await look(`the first screen, ${tab}`, `first-${tab.slice(4).replace(/ /g, '_')}`);
      }
    }
    // The recurrence lesson's views of a delayed-copy run (trained through the page API, as the CLI would).
    await page.evaluate(() => window.attnlab.train({ task: 'delayed_copy', model: 'rnn', distance: 4, train: { steps: 60, eval_every: 20 } }));
    await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 120000, polling: 200 });
    for (const [langIndex, code] of langs.entries()) {
      await inLanguage(code);
      if ((await layout(page)).windows['Learn##tabs']) await press(page, 'learn_tab_Attention', touch);
      for (const [viewIndex, view] of ['probe', 'gradient', 'sweep', 'compare', 'path', 'wall_time'].entries()) {
        if (!inTurn(w, h, scale, viewIndex, langIndex)) continue;
        await press(page, `learn_view_${view}`, touch);
        await look(`the lesson's ${view} view`, `lesson-${view}`);
      }
    }
    // The experiment, as a class meets it: chosen in its menu, a prediction made, the outcome shown.
    for (const code of langs) {
      await inLanguage(code);
      const tabbed = !!(await layout(page)).windows['Learn##tabs'];
      if (tabbed) await press(page, 'learn_tab_Training', touch);
      await press(page, 'learn_experiment', touch, 'Training');
      await press(page, 'learn_experiment_recurrence', touch);
      await look('the recurrence experiment', 'experiment');
      if (code === langs[0]) {
        await press(page, 'learn_predict_1', touch, 'Training');
        await press(page, 'learn_reveal', touch, 'Training');
      }
      if (tabbed) await press(page, 'learn_tab_Curves', touch);
      await look('the experiment revealed', 'experiment-revealed');
    }
    assert.deepEqual(problems, [], where);
    await page.close();
  }
});

test('CJK tokens draw as glyphs once the CJK font has loaded on demand, not as U+ code points', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  const fontRequests = [];
  page.on('request', (r) => { if (r.url().includes('cjk.ttf')) fontRequests.push(r.url()); });
  assert.equal(fontRequests.length, 0, 'an English page does not load the CJK font');
  await page.evaluate(() => window.attnlab.apply({ text: '我 爱 猫' }));
  await until(page, () => { const t = window.attnlab.drawnText(); return t.includes('猫') && !t.includes('U+'); }, null, 'the tokens as glyphs');
  assert.equal(fontRequests.length, 1, 'the CJK font is fetched once');
  await settle(page);
  // Pixels: the chip of 猫 holds a glyph (ink across its middle), and is as narrow as one character.
  const chip = (await layout(page)).widgets.token_2;
  const shot = decodePng(await page.screenshot({ path: path.join(lab.OUT, 'i18n-cjk-tokens.png') }));
  const s = pixelStats(shot, { x: Math.round(chip.x + 4), y: Math.round(chip.y + 3), w: Math.round(chip.w - 8), h: Math.round(chip.h - 6) });
  assert.ok(chip.w < 40, `the chip is one glyph wide, not "U+732B": ${chip.w.toFixed(1)} px`);
  assert.ok(s.distinct >= 6 && s.dominant < 0.95, `the chip shows a glyph (${s.distinct} colours, ${(100 * s.dominant).toFixed(0)} % one colour)`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('the language survives a shared link, and a real click on the language menu switches it', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1280, height: 720 });
  assert.equal(await page.evaluate(() => window.attnlab.language()), 'en');
  const langs = await page.evaluate(() => window.attnlab.languages());
  assert.ok(langs.some((l) => l.code === 'zh' && l.menu), 'zh is in the menu');
  // The mouse: the bar's language button, then 简体中文 in its menu.
  let w = (await layout(page)).widgets.language;
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2, { delay: 60 });
  await frames(page, 3);
  await until(page, () => !!window.attnlab.layout().widgets['language:zh'], null, 'the language menu opened');
  w = (await layout(page)).widgets['language:zh'];
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2, { delay: 60 });
  await until(page, () => window.attnlab.language() === 'zh', null, 'the click chose zh');
  await until(page, () => window.attnlab.drawnText().includes('分享'), null, 'the bar in Chinese');
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh');
  await page.screenshot({ path: path.join(lab.OUT, 'i18n-zh-1280x720.png') });
  // Share: the link names the language, and opens in it in a fresh page.
  const url = await page.evaluate(() => window.attnlab.shareUrl());
  assert.match(url, /[#&]lang=zh(&|$)/);
  await page.close();
  const opened = await openLab(lab.browser, url, { width: 1280, height: 720 });
  await until(opened.page, () => window.attnlab.language() === 'zh', null, 'the shared link opened in zh');
  await until(opened.page, () => window.attnlab.drawnText().includes('分享'), null, 'the shared link in Chinese');
  assert.deepEqual([...problems, ...opened.problems], []);
  await opened.page.close();
});
