// Learn mode in the browser: train previous_token through clicks and keys, pause and resume, read the
// attention thumbnails' pixels for the sub-diagonal; the same seed gives the page and `attnlab-cli train`
// the same loss curve; bad settings are refused with the field named and the run kept; training in the
// Web Worker, and a click on Train while the worker warms up.
//   ATTNLAB_SITE=build-web/site ATTNLAB_CLI=build/attnlab-cli ATTNLAB_OUT=build/e2e node --test tests/e2e/learn.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, openLab, clickWidget, settle, drain, typeInto, scrollWidgetIntoView } from './lib.mjs';

const lab = labSuite();
const CLI = process.env.ATTNLAB_CLI;
const shot = lab.shot;
const widgets = (page) => page.evaluate(() => window.attnlab.layout().widgets);
const status = (page) => page.evaluate(() => window.attnlab.trainStatus());
const luminance = (img, x, y) => {
  const i = (Math.round(y) * img.width + Math.round(x)) * 4;
  return 0.299 * img.rgba[i] + 0.587 * img.rgba[i + 1] + 0.114 * img.rgba[i + 2];
};
// For a thumbnail of n×n cells: in how many rows i ≥ 1 the cell (i, i−1) is clearly brighter than (i, i).
function subDiagonalRows(img, r, n) {
  let rows = 0;
  for (let i = 1; i < n; i++) {
    const at = (row, col) => luminance(img, r.x + (col + 0.5) * r.w / n, r.y + (row + 0.5) * r.h / n);
    if (at(i, i - 1) > at(i, i) + 60) rows++;
  }
  return rows;
}

// The CLI trains `config` again (its log in ATTNLAB_OUT as `name`): the page's curve `web` must be its
// curve, step for step, the loss to float tolerance: WebAssembly SIMD and native AVX sum in different
// orders, so not bit equality. Returns the CLI's log.
function assertCliCurve(web, config, name) {
  const log = path.join(lab.OUT, name);
  execFileSync(CLI, ['train', '-', '--log', log, '--quiet'], { input: JSON.stringify(config) });
  const cli = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(web.map((p) => p.step), cli.map((p) => p.step));
  for (let i = 0; i < web.length; i++)
    assert.ok(Math.abs(web[i].loss - cli[i].loss) <= 2e-3 * (1 + cli[i].loss), `step ${web[i].step}: loss ${web[i].loss} vs ${cli[i].loss}`);
  return cli;
}

// Held: no command on its way to the worker, so `step` is where the run stays.
const held = (page) => page.waitForFunction(() => window.attnlab.trainStatus().in_flight === 0, null, { timeout: 20000, polling: 50 });

test('Learn mode trains previous_token through clicks and keys, pauses, resumes, and its pixels show the sub-diagonal', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await clickWidget(page, 'mode_learn');
  await settle(page);
  await shot(page, 'learn-01-idle');
  assert.equal((await status(page)).state, 'idle');
  assert.equal((await status(page)).task, 'previous_token');

  // A run long enough to pause by hand, however fast it trains: "stop once converged" unticked by a
  // click, and 5000 steps typed into the steps field.
  await clickWidget(page, 'learn_stop_early');
  await drain(page);
  await typeInto(page, 'learn_steps', '5000', { ctrl: false });
  await clickWidget(page, 'learn_train');
  await page.waitForFunction(() => window.attnlab.trainStatus().step > 0, null, { timeout: 20000 });
  const long = await status(page);
  assert.equal(long.steps, 5000, 'the typed step count');
  assert.equal(long.converged, false);
  await clickWidget(page, 'learn_train');  // now labelled Pause
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'paused', null, { timeout: 20000 });
  await held(page);
  const pausedAt = (await status(page)).step;
  assert.ok(pausedAt < 5000, `paused at step ${pausedAt}`);
  await settle(page);  // frames drawn while paused: the run must stay put
  assert.equal((await status(page)).step, pausedAt, 'a paused run took steps');
  assert.equal((await status(page)).state, 'paused');

  await page.keyboard.press('Space');  // resume from the keyboard
  await page.waitForFunction((at) => window.attnlab.trainStatus().step > at + 20, pausedAt, { timeout: 60000, polling: 100 });
  assert.equal((await status(page)).state, 'running');

  // "stop once converged" ticked again by a click: another setup, so Train starts a new run, which
  // Learn mode ends once it has converged (said on screen): well before its 5000 steps.
  await clickWidget(page, 'learn_train');  // Pause
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'paused', null, { timeout: 20000 });
  await scrollWidgetIntoView(page, 'learn_stop_early', 'Training', settle);  // the run's readout pushed it down
  await clickWidget(page, 'learn_stop_early');
  await drain(page);
  await scrollWidgetIntoView(page, 'learn_train', 'Training', settle);
  await clickWidget(page, 'learn_train');  // the settings changed: a new run
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 120000, polling: 200 });
  const done = await status(page);
  assert.ok(done.converged && done.step < done.steps, `the run stopped at step ${done.step} of ${done.steps}: ${done.message}`);
  assert.match(done.message, new RegExp('^converged at step ' + done.step + ': held-out accuracy at least 99%'));
  assert.ok(done.accuracy >= 0.99, `held-out accuracy ${done.accuracy}`);
  assert.ok(done.steps_per_s > 0, 'steps per second were measured');
  assert.equal(done.trains_on, 'worker');
  await settle(page);
  const img = await shot(page, 'learn-02-trained');

  const w = await widgets(page);
  const n = 16;  // previous_token's default length
  const best = Math.max(subDiagonalRows(img, w.learn_l0_h0, n), subDiagonalRows(img, w.learn_l0_h1, n));
  assert.ok(best >= n - 2, `the best head shows the sub-diagonal in only ${best} of ${n - 1} rows`);
  assert.equal(subDiagonalRows(img, w.learn_l0_ideal0, n), n - 1, 'the ideal pattern is the sub-diagonal');

  // Open in the lab: the trained layer's every stage in the lab's matrices, its weights the probe's.
  await clickWidget(page, 'learn_open');
  await settle(page);
  const r = await page.evaluate(() => window.attnlab.result());
  assert.equal(r.tokens.length, n);
  const heads = r.heads.map((hd) => hd.weights);
  const subDiag = heads.map((a) => a.slice(1).reduce((t, row, i) => t + row[i], 0) / (n - 1));
  assert.ok(Math.max(...subDiag) > 0.9, `the lab shows sub-diagonal mass ${subDiag}`);
  assert.ok((await page.evaluate(() => window.attnlab.layout())).views.weights, 'the lab draws the weights');
  await shot(page, 'learn-04-in-the-lab');
  assert.deepEqual(problems, []);
  await page.close();
});

// Without a worker (`?worker=0`, the same path as a browser that has none): slices of the page's frames.
test('the same seed gives the page (trained in its frames) and attnlab-cli train the same loss curve', { skip: !CLI && 'ATTNLAB_CLI not set' }, async () => {
  const cfg = { task: 'previous_token', train: { steps: 120, eval_every: 20, seed: 5 } };
  const { page, problems } = await openLab(lab.browser, lab.server.url + '?worker=0');
  assert.equal(await page.evaluate(() => window.attnlabWorker), null);
  await page.evaluate((c) => window.attnlab.train(c), cfg);
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 60000, polling: 100 });
  assert.equal((await status(page)).trains_on, 'frames');
  const web = await page.evaluate(() => window.attnlab.trainHistory());
  assert.deepEqual(web.map((p) => p.step), [0, 20, 40, 60, 80, 100, 120]);
  const cli = assertCliCurve(web, cfg, 'learn-cli.jsonl');
  for (let i = 0; i < web.length; i++) {
    assert.ok(Math.abs(web[i].train_loss - cli[i].train_loss) <= 2e-3 * (1 + cli[i].train_loss), `step ${web[i].step}: train_loss`);
    assert.ok(Math.abs(web[i].accuracy - cli[i].accuracy) <= 0.01, `step ${web[i].step}: accuracy ${web[i].accuracy} vs ${cli[i].accuracy}`);
  }
  assert.ok(web.at(-1).loss < web[0].loss * 0.5, 'the loss fell');
  assert.deepEqual(problems, []);
  await page.close();
});

test('bad settings are refused with the field named, and the running state is kept', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await page.evaluate(() => window.attnlab.train({ task: 'previous_token', train: { steps: 100000 } }));
  await page.waitForFunction(() => window.attnlab.trainStatus().step >= 10, null, { timeout: 20000 });
  assert.equal((await page.evaluate(() => window.attnlab.stopTraining())).state, 'paused');
  await held(page);
  const stopped = await status(page);
  const cases = [
    [{ task: 'previous_token', train: { lr: 0 } }, /train\.lr/],
    [{ task: 'previous_token', train: { lr: NaN } }, /train\.lr/],  // JSON.stringify turns NaN into null
    [{ task: 'previous_token', train: { lr: Infinity } }, /train\.lr/],
    ['{"task": "previous_token", "train": {"lr": 1e999}}', /JSON/],  // out of a double's range: the parser refuses it
    [{ task: 'previous_token', train: { steps: 1e9 } }, /train\.steps/],
    [{ task: 'previous_token', temperature: -1 }, /temperature/],
    [{ task: 'juggling' }, /task/],
    ['{"task": ', /./],
  ];
  for (const [options, field] of cases) {
    const err = await page.evaluate((o) => { try { window.attnlab.train(o); return null; } catch (e) { return e.message; } }, options);
    assert.ok(err && field.test(err), `${JSON.stringify(options)}: ${err}`);
    const s = await status(page);
    assert.equal(s.state, 'paused', `${JSON.stringify(options)} changed the state`);
    assert.equal(s.step, stopped.step, `${JSON.stringify(options)} changed the run`);
  }
  await settle(page, 2);
  await shot(page, 'learn-03-refused');
  assert.deepEqual(problems, []);
  await page.close();
});

test('a trained model downloads, opens again through the file picker and in attnlab-cli run; a #train= link trains the same run', async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  assert.equal(await page.evaluate(() => window.attnlab.model()), null);  // nothing trained yet
  await page.evaluate(() => window.attnlab.train({ task: 'previous_token', train: { steps: 60, eval_every: 30, seed: 11 } }));
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 60000 });
  await settle(page);
  const model = await page.evaluate(() => window.attnlab.model());
  assert.equal(model.format, 'attnlab-model');
  assert.equal(model.step, 60);
  const history = await page.evaluate(() => window.attnlab.trainHistory());

  // The Download model button saves exactly attnlab.model().
  const w = (await widgets(page)).learn_download;
  assert.ok(w, 'the Download model button is drawn');
  const [download] = await Promise.all([page.waitForEvent('download'), page.mouse.click(w.x + w.w / 2, w.y + w.h / 2, { delay: 80 })]);
  assert.equal(download.suggestedFilename(), 'attnlab-previous_token-step60.json');
  const file = path.join(lab.OUT, 'learn-model.json');
  await download.saveAs(file);
  assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), model);
  if (CLI) {
    const run = JSON.parse(execFileSync(CLI, ['run', file]).toString());
    assert.equal(run.model.task, 'previous_token');
    assert.ok(Number.isFinite(run.loss) && run.accuracy >= 0);
  }
  // The run's link, before this page goes.
  const link = await page.evaluate(() => window.attnlab.trainUrl());
  // Another model file of the same shape and step opened over this run is the model at once: not the
  // trained run's weights, which the page already holds (with training in a worker, the opened weights
  // reach the worker and come back only later).
  const other = JSON.parse(JSON.stringify(model));
  const flip = (o) => { for (const k of Object.keys(o)) { if (typeof o[k] === 'number') { o[k] = -o[k] - 0.25; return true; } if (o[k] && typeof o[k] === 'object' && flip(o[k])) return true; } return false; };
  assert.ok(flip(other.weights), 'a weight to change');
  const now = await page.evaluate((m) => { window.attnlab.openModel(m); return window.attnlab.model(); }, other);
  assert.ok(now, 'the opened model is there at once');
  assert.deepEqual(now.weights, other.weights);
  await settle(page);
  assert.deepEqual((await page.evaluate(() => window.attnlab.model())).weights, other.weights, 'and stays once the worker has it');
  assert.match(link, /#train=[A-Za-z0-9_-]+$/);
  assert.deepEqual(problems, []);
  await page.close();

  // A fresh page: Learn mode, Open model... and the file from the picker. The same weights give the
  // same held-out accuracy at the same step; a damaged file is refused naming the field.
  const fresh = await openLab(lab.browser, lab.server.url);
  await clickWidget(fresh.page, 'mode_learn');
  await settle(fresh.page);
  const bad = await fresh.page.evaluate((m) => { try { window.attnlab.openModel({ ...m, weights: {} }); return 'opened'; } catch (e) { return e.message; } }, model);
  assert.match(bad, /^weights\.layers: expected 1 layers/);
  const o = (await widgets(fresh.page)).learn_open_file;
  assert.ok(o, 'the Open model... button is drawn');
  const [chooser] = await Promise.all([fresh.page.waitForEvent('filechooser'), fresh.page.mouse.click(o.x + o.w / 2, o.y + o.h / 2, { delay: 80 })]);
  await chooser.setFiles(file);
  await fresh.page.waitForFunction(() => window.attnlab.trainStatus().evaluated_at === 60, null, { timeout: 20000 });
  const st = await fresh.page.evaluate(() => window.attnlab.trainStatus());
  assert.equal(st.state, 'done');
  assert.equal(st.accuracy, history[history.length - 1].accuracy);
  assert.deepEqual((await fresh.page.evaluate(() => window.attnlab.model())).weights, model.weights);
  await settle(fresh.page);
  await shot(fresh.page, 'learn-05-opened-model');
  assert.deepEqual(fresh.problems, []);
  await fresh.page.close();

  // The link trains the same run again: the same curve.
  const again = await openLab(lab.browser, link);
  await again.page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 60000 });
  assert.deepEqual(await again.page.evaluate(() => window.attnlab.trainHistory().map((p) => [p.step, p.loss, p.accuracy])),
                   history.map((p) => [p.step, p.loss, p.accuracy]));
  assert.deepEqual(again.problems, []);
  await again.page.close();
});

// Training in a Web Worker (the page's default, docs/web-api.md): the page only sends commands and draws
// the worker's state; the curve is the CLI's, stopTraining() pauses at once, the model file is the
// trained one, and a worker that stops is reported on screen while the run goes on in the page, the
// same run. Until Learn mode is first used the worker is not started, so the first load fetches none
// of it.
test('training in a Web Worker: the CLI\'s curve, a pause that holds, the trained model, and a worker that stops', { skip: !CLI && 'ATTNLAB_CLI not set' }, async () => {
  const cfg = { task: 'previous_token', train: { steps: 120, eval_every: 20, seed: 5 } };
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  assert.equal(await page.evaluate(() => window.attnlabWorker.status()), 3, 'not started before Learn mode is used');
  assert.ok(!(await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /attnlab-worker/.test(r.name)))),
            'the first load fetched the worker\'s module');
  await page.evaluate((c) => window.attnlab.train(c), cfg);
  assert.equal((await status(page)).state, 'running', 'train() then trainStatus(): the new run, at once');
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 60000, polling: 100 });
  const done = await status(page);
  assert.equal(done.trains_on, 'worker');
  const web = await page.evaluate(() => window.attnlab.trainHistory());
  assertCliCurve(web, cfg, 'learn-cli-worker.jsonl');
  // The model file: the worker's final weights, which attnlab-cli run reads to the same accuracy.
  await page.waitForFunction(() => window.attnlab.model() !== null, null, { timeout: 20000 });
  const model = await page.evaluate(() => window.attnlab.model());
  assert.equal(model.step, 120);
  const file = path.join(lab.OUT, 'learn-worker-model.json');
  fs.writeFileSync(file, JSON.stringify(model));
  const run = JSON.parse(execFileSync(CLI, ['run', file]).toString());
  assert.ok(Math.abs(run.accuracy - done.accuracy) <= 0.2, `run accuracy ${run.accuracy} vs trained ${done.accuracy}`);

  // A long run, paused: stopTraining() answers paused at once, and the run stays put.
  await page.evaluate(() => window.attnlab.train({ task: 'previous_token', train: { steps: 100000, seed: 2 } }));
  await page.waitForFunction(() => window.attnlab.trainStatus().step >= 5, null, { timeout: 20000 });
  const stopped = await page.evaluate(() => window.attnlab.stopTraining());
  assert.equal(stopped.state, 'paused');
  await settle(page, 6);
  const held = await status(page);
  await settle(page, 6);
  assert.equal((await status(page)).step, held.step, 'a paused run took steps');
  assert.equal((await status(page)).state, 'paused');

  // The worker stops (as a crash would): a notice on screen, and the same run goes on in the page.
  await page.evaluate(() => window.attnlab.train(JSON.stringify({ task: 'previous_token', train: { steps: 60, eval_every: 20, seed: 5 } })));
  await page.evaluate(() => window.attnlabWorker.stop('a test stopped it'));
  // Done in the page's frames: a warm worker may have finished the 60 steps (and said done) before it
  // stopped, and then the page trains the run again from its commands, its state running meanwhile.
  await page.waitForFunction(() => { const s = window.attnlab.trainStatus(); return s.trains_on === 'frames' && s.state === 'done'; },
                             null, { timeout: 60000, polling: 100 });
  const after = await status(page);
  assert.equal(after.trains_on, 'frames');
  const ui = (await page.evaluate(() => window.attnlab.layout())).ui;
  assert.match(ui.notice_title || '', /Training moved/);
  assert.match(ui.notice || '', /a test stopped it/);
  const again = await page.evaluate(() => window.attnlab.trainHistory());
  assert.deepEqual(again.map((p) => p.loss), web.slice(0, 4).map((p) => p.loss), 'the same seed: the same first 60 steps');
  assert.deepEqual(problems, []);
  await page.close();
});

// The worker warms up once it is ready: a throwaway run, in slices, while the page sends nothing
// (docs/web-api.md). A learner may press Train at any moment of it: the click's command ends the warm-up
// at once, and the run is the learner's alone, the CLI's curve. The warm-up is kept going here until the
// click (each slice told there is more to do), so the click always lands in it, however fast the machine.
test('a click on Train while the training worker warms up: the warm-up gives way, and the run is the CLI\'s', { skip: !CLI && 'ATTNLAB_CLI not set' }, async () => {
  const { page, problems } = await openLab(lab.browser, lab.server.url);
  await clickWidget(page, 'mode_learn');
  await page.waitForFunction(() => window.attnlabWorker.status() === 1, null, { timeout: 20000 });
  const worker = page.workers().find((w) => /\/worker\.js$/.test(w.url()));
  assert.ok(worker, 'the training worker runs');
  await worker.evaluate(() => {
    const seen = (self.warmSeen = { slices: 0, ended: false });
    // Emscripten binds an export on its first call by assigning it again: a setter keeps the wrapper.
    const wrap = (name, f) => {
      let inner = M[name];
      const wrapper = (...a) => f(inner, a);
      Object.defineProperty(M, name, { get: () => wrapper, set: (v) => { inner = v; }, configurable: true });
    };
    wrap('_worker_warm', (inner, a) => { seen.slices++; inner(...a); return 1; });
    wrap('_worker_warm_end', (inner, a) => { seen.ended = true; return inner(...a); });
    warming = true;  // a warm-up from the start, as when the worker said it was ready
    schedule();
  });
  for (let k = 0; k < 200 && (await worker.evaluate(() => self.warmSeen.slices)) < 3; ++k) await page.waitForTimeout(20);
  assert.ok((await worker.evaluate(() => self.warmSeen.slices)) >= 3, 'the worker is warming up');
  await clickWidget(page, 'learn_train');
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 60000, polling: 100 });
  const seen = await worker.evaluate(() => ({ ...self.warmSeen, warming }));
  assert.equal(seen.ended, true, 'the click\'s command ended the warm-up');
  assert.equal(seen.warming, false);
  const done = await status(page);
  assert.equal(done.trains_on, 'worker');
  // The run the click started, as the page has it (every key), trained again by the CLI.
  await page.waitForFunction(() => window.attnlab.model() !== null, null, { timeout: 20000 });
  const config = (await page.evaluate(() => window.attnlab.model())).config;
  const web = await page.evaluate(() => window.attnlab.trainHistory());
  assertCliCurve(web, config, 'learn-cli-warm.jsonl');
  assert.equal(web[web.length - 1].accuracy, done.accuracy);
  assert.deepEqual(problems, []);
  await page.close();
});
