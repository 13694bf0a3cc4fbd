// The lesson "why did attention replace RNNs?" in the browser (issue 19): an RNN picked in Learn's
// settings with the mouse trains the delayed copy, and the page draws its influence matrix and the
// accuracy readout; the same run trained by `attnlab-cli train` gives the same curve; the experiment
// loads by clicks (three variants, one distance slider for all); the lesson's views at a phone's, a
// laptop's and a projector's size (UI scale 2), as screenshots, and none of them unreachable.
//   ATTNLAB_SITE=build-web/site ATTNLAB_CLI=build/attnlab-cli ATTNLAB_OUT=build/e2e node --test tests/e2e/recurrent.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, openLab, scrollWidgetIntoView, settle, widget } from './lib.mjs';

const lab = labSuite();
const CLI = process.env.ATTNLAB_CLI;
const layout = (page) => page.evaluate(() => window.attnlab.layout());
const status = (page) => page.evaluate(() => window.attnlab.trainStatus());
// The settings as the next Train uses them: the run link's config.
const settings = async (page) =>
  JSON.parse(Buffer.from((await page.evaluate(() => window.attnlab.trainUrl())).split('#train=')[1], 'base64url').toString('utf8'));
async function clickWidget(page, name) {
  const w = await widget(page, name);
  await page.mouse.click(w.x + w.w / 2, w.y + w.h / 2, { delay: 80 });
  await settle(page);
}
const scrollTo = (page, name, windowName) => scrollWidgetIntoView(page, name, windowName, settle);
// A number field: click (Ctrl+click for a slider), select all, type, Enter.
async function enter(page, name, text, slider = false) {
  await scrollTo(page, name, 'Training');
  const w = await widget(page, name);
  if (slider) await page.keyboard.down('Control');
  await page.mouse.click(w.x + Math.min(w.w / 2, 24), w.y + w.h / 2);
  if (slider) await page.keyboard.up('Control');
  await settle(page);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
  await settle(page);
}
const luminance = (img, x, y) => {
  const i = (Math.round(y) * img.width + Math.round(x)) * 4;
  return 0.299 * img.rgba[i] + 0.587 * img.rgba[i + 1] + 0.114 * img.rgba[i + 2];
};

test('an RNN picked with the mouse trains the delayed copy: its influence matrix, the accuracy readout, and attnlab-cli train\'s curve', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await clickWidget(page, 'mode_learn');
  await clickWidget(page, 'learn_task');
  await clickWidget(page, 'learn_task_delayed_copy');
  await clickWidget(page, 'learn_model');
  await clickWidget(page, 'learn_model_rnn');
  assert.ok((await layout(page)).widgets.learn_hidden, 'an RNN shows its hidden size');
  await enter(page, 'learn_distance', '4', true);
  await enter(page, 'learn_steps', '150');
  await enter(page, 'learn_eval_every', '25');
  const cfg = await settings(page);
  assert.equal(cfg.task, 'delayed_copy');
  assert.equal(cfg.model, 'rnn');
  assert.equal(cfg.distance, 4);
  assert.equal(cfg.train.steps, 150);
  await scrollTo(page, 'learn_train', 'Training');
  await clickWidget(page, 'learn_train');
  await page.waitForFunction(() => ['done', 'diverged'].includes(window.attnlab.trainStatus().state), null, { timeout: 180000, polling: 200 });
  await settle(page, 6);
  const st = await status(page);
  assert.equal(st.state, 'done', st.message);
  const img = await lab.shot(page, 'rnn-01-trained');
  // No attention plots for a model without attention: the pattern and saturation plots give way to a line
  // saying why.
  const curves = (await layout(page)).widgets;
  assert.ok(curves.learn_recurrent_curves_note && curves.learn_loss_plot, 'the loss plot and the reason the attention plots are not there');
  assert.equal(curves.learn_saturation_plot, undefined, 'no saturated-rows plot for an RNN');
  // The influence matrix (white is 0, red is influence): white above the diagonal (a later token moves
  // no earlier prediction), red below it.
  const r = await widget(page, 'learn_influence');
  const n = 32;
  let above = 0, below = 0, cells = 0;
  for (let i = 1; i < n; i++)
    for (let j = 0; j < i; j++) {
      const at = (row, col) => luminance(img, r.x + (col + 0.5) * r.w / n, r.y + (row + 0.5) * r.h / n);
      above += at(j, i), below += at(i, j), cells++;
    }
  assert.ok(above / cells > 240, `white above the diagonal: ${above / cells}`);
  assert.ok(below / cells < above / cells - 5, `influence below the diagonal ${below / cells} vs above ${above / cells}`);
  // The accuracy readout of this run, beside the sweep.
  await clickWidget(page, 'learn_view_sweep');
  assert.ok((await layout(page)).widgets.learn_run_accuracy, 'the run\'s accuracy is stated');
  assert.ok((await layout(page)).widgets.learn_sweep_plot);
  await lab.shot(page, 'rnn-02-sweep');
  await clickWidget(page, 'learn_view_gradient');
  assert.ok((await layout(page)).widgets.learn_gradient_plot, 'measured when the run ended');
  await lab.shot(page, 'rnn-03-gradient');
  // Wall time against n, from the experiment table's bench figures: one line per model, in its colour.
  await clickWidget(page, 'learn_view_wall_time');
  const plot = await widget(page, 'learn_wall_time_plot');
  assert.ok((await layout(page)).widgets.learn_wall_time_summary, 'the growth is stated in words');
  const wall = await lab.shot(page, 'rnn-03b-wall-time');
  const sc = wall.width / (await page.evaluate(() => window.innerWidth));
  for (const [name, rgb] of [['attention', [110, 170, 255]], ['RNN', [255, 150, 70]], ['LSTM', [120, 215, 120]]]) {
    let hits = 0;
    for (let y = Math.floor(plot.y * sc); y < (plot.y + plot.h) * sc; y++)
      for (let x = Math.floor(plot.x * sc); x < (plot.x + plot.w) * sc; x++) {
        const i = (y * wall.width + x) * 4;
        if (Math.abs(wall.rgba[i] - rgb[0]) + Math.abs(wall.rgba[i + 1] - rgb[1]) + Math.abs(wall.rgba[i + 2] - rgb[2]) < 30) hits++;
      }
    assert.ok(hits > 40, `${name}'s line is drawn (${hits} pixels of its colour)`);
  }
  // The page's curve is the CLI's, for the same config.
  if (CLI) {
    const web = await page.evaluate(() => window.attnlab.trainHistory());
    const log = path.join(lab.OUT, 'rnn-cli.jsonl');
    execFileSync(CLI, ['train', '-', '--log', log, '--quiet'], { input: JSON.stringify(cfg) });
    const cli = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(web.map((p) => p.step), [0, 25, 50, 75, 100, 125, 150]);
    assert.deepEqual(cli.map((p) => p.step), web.map((p) => p.step));
    for (let i = 0; i < web.length; i++) {
      // WebAssembly SIMD and native AVX sum in different orders: float tolerance, not bit equality.
      assert.ok(Math.abs(web[i].loss - cli[i].loss) <= 2e-3 * (1 + cli[i].loss), `step ${web[i].step}: loss ${web[i].loss} vs ${cli[i].loss}`);
      assert.ok(Math.abs(web[i].accuracy - cli[i].accuracy) <= 0.01, `step ${web[i].step}: accuracy ${web[i].accuracy} vs ${cli[i].accuracy}`);
    }
    assert.equal(st.accuracy, web.at(-1).accuracy);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test('the experiment "Why did attention replace RNNs?" loads by clicks: three variants, one distance for all', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await clickWidget(page, 'mode_learn');
  await clickWidget(page, 'learn_experiment');
  await clickWidget(page, 'learn_experiment_recurrence');
  let cfg = await settings(page);
  assert.equal(cfg.task, 'delayed_copy');
  assert.equal(cfg.model ?? 'attention', 'attention', 'variant A: attention (a config names only another model)');
  assert.equal(cfg.distance, 16);
  await clickWidget(page, 'learn_variant_b');
  assert.equal((await settings(page)).model, 'rnn');
  await enter(page, 'learn_experiment_distance', '6', true);
  assert.equal((await settings(page)).distance, 6);
  await clickWidget(page, 'learn_variant_c');
  cfg = await settings(page);
  assert.equal(cfg.model, 'lstm');
  assert.equal(cfg.distance, 6, 'the slider\'s distance, kept for the next variant');
  await clickWidget(page, 'learn_predict_1');
  await clickWidget(page, 'learn_reveal');
  assert.ok((await layout(page)).widgets.learn_measured, 'what was measured is shown');
  assert.ok((await layout(page)).widgets.learn_measured_at_distance, 'and what was measured at the slider\'s distance (6)');
  await lab.shot(page, 'rnn-04-experiment');
  assert.deepEqual(problems, []);
  await page.close();
});

// The lesson's views where a class sees them: a phone, a laptop, a projector at UI scale 2. Every window
// fits or scrolls (never `scroll: 2`), and each view leaves a screenshot to look at.
test('the lesson\'s views at 390x844, 1366x768 and 1280x720 at UI scale 2', async () => {
  for (const [width, height, scale] of [[390, 844, 1], [1366, 768, 1], [1280, 720, 2]]) {
    const { page, problems } = await openLab(lab.browser, lab.server.url, { width, height });
    if (scale !== 1) await page.evaluate((s) => window.attnlab.uiScale(s), scale);
    await page.evaluate(() => window.attnlab.train({ task: 'delayed_copy', model: 'rnn', distance: 4, train: { steps: 60, eval_every: 20 } }));
    await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 120000, polling: 200 });
    await settle(page, 4);
    const where = `${width}x${height} scale ${scale}`;
    if ((await layout(page)).widgets.learn_tab_Attention) await clickWidget(page, 'learn_tab_Attention');
    for (const view of ['probe', 'gradient', 'sweep', 'compare', 'path', 'wall_time']) {
      await clickWidget(page, `learn_view_${view}`);
      const l = await layout(page);
      for (const [name, win] of Object.entries(l.windows)) assert.notEqual(win.scroll, 2, `${where}: ${name} cannot scroll (${view})`);
      await lab.shot(page, `rnn-view-${view}-${width}x${height}-s${scale}`);
    }
    assert.deepEqual(problems, [], where);
    await page.close();
  }
});
