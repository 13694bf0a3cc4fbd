// Learn mode's Inspect view in the browser: train the default induction model in the page, switch the
// probe's window to "Inspect heads", click the previous-token head to ablate it and see the accuracy
// readout change (on screen and in inspectView()), click it again to restore it; the page API's
// ablate / patch / attribute / circuits give what attnlab-cli gives on the downloaded model, and bad
// options throw an Error naming the field with the run kept. Screenshots at several screen sizes.
//   ATTNLAB_SITE=build-web/site ATTNLAB_CLI=build/attnlab-cli ATTNLAB_OUT=build/e2e node --test tests/e2e/inspect.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labSuite, openLab, changedFraction, clickWidget, settle } from './lib.mjs';

const lab = labSuite();
const CLI = process.env.ATTNLAB_CLI;
const widgets = (page) => page.evaluate(() => window.attnlab.layout().widgets);
const inspectView = (page) => page.evaluate(() => window.attnlab.inspectView());
const cli = (args) => JSON.parse(execFileSync(CLI, args).toString());
const near = (a, b, tol, what) => assert.ok(Math.abs(a - b) <= tol, `${what}: page ${a}, cli ${b}`);

// The default induction config (seed 1), stopped once converged (99% at 3 evaluations in a row, as Learn
// mode's settings start): a few hundred of its 1000 steps. The bound only keeps a broken run from hanging.
async function trainInduction(page) {
  await page.evaluate(() => window.attnlab.train({ task: 'induction', train: { stop_accuracy: 0.99 } }));
  await page.waitForFunction(() => window.attnlab.trainStatus().state === 'done', null, { timeout: 600000, polling: 250 });
  const s = await page.evaluate(() => window.attnlab.trainStatus());
  assert.ok(s.accuracy > 0.98, `the induction model learned: accuracy ${s.accuracy}`);
  assert.equal(s.trains_on, 'worker');
  return s;
}

test('clicking a head in the Inspect grid ablates it and the accuracy readout changes; the page API equals the CLI', async () => {
  // Trained in the Web Worker (the page's default): the interventions then read the weights it sent.
  const { page, problems } = await openLab(lab.browser, lab.server.url, { width: 1366, height: 768 });
  const trained = await trainInduction(page);
  await settle(page);
  await clickWidget(page, 'learn_view_inspect');
  await settle(page);
  let v = await inspectView(page);
  assert.equal(v.open, true, JSON.stringify(v));
  assert.deepEqual(v.ablated, []);
  near(v.accuracy, trained.accuracy, 1e-7, 'nothing ablated: the run\'s last evaluation (trainStatus rounds to 8 digits)');
  const w = await widgets(page);
  const readout = w.inspect_readout;
  assert.ok(readout && w.inspect_l0_h1 && w.inspect_l1_h1 && !w.inspect_l2_h0, 'a 2 x 2 grid and a readout');
  const intact = await lab.shot(page, 'inspect-01-intact');

  // Layer 0's head 1: the previous-token head (docs/inspect.md: without it 58% accuracy, natively after 1000 steps).
  await clickWidget(page, 'inspect_l0_h1');
  await settle(page);
  v = await inspectView(page);
  assert.deepEqual(v.ablated, [[0, 1]]);
  // (stopped at convergence the model leans on it less than the full run does: 83% here, 72% after 1000 steps)
  assert.ok(v.accuracy < trained.accuracy - 0.1, `ablated accuracy ${v.accuracy}`);
  const ablated = await lab.shot(page, 'inspect-02-head-0.1-ablated');
  const scale = ablated.width / (await page.evaluate(() => window.innerWidth));
  const px = (r) => ({ x: r.x * scale, y: r.y * scale, w: r.w * scale, h: r.h * scale });
  assert.ok(changedFraction(intact, ablated, px(readout)) > 0.02, 'the readout on screen changed');

  // The page API on the same weights, against attnlab-cli on the model the page downloads.
  const file = path.join(lab.OUT, 'inspect-induction.json');
  fs.writeFileSync(file, JSON.stringify(await page.evaluate(() => window.attnlab.model())));
  const api = await page.evaluate(() => window.attnlab.ablate({ heads: '0.1' }));
  near(api.accuracy, v.accuracy, 1e-6, 'the API (6 digits) and the view');
  if (CLI) {
    const c = cli(['ablate', file, '--heads', '0.1']);
    near(api.accuracy, c.accuracy, 0.004, 'ablate accuracy');
    near(api.loss, c.loss, 2e-3 * (1 + c.loss), 'ablate loss');
    assert.deepEqual(api.ablated, c.ablated);
    assert.equal(api.probe.tokens.join(' '), c.probe.tokens.join(' '));
    const each = await page.evaluate(() => window.attnlab.ablate({ each: true, mode: 'mean' }));
    const ce = cli(['ablate', file, '--each', '--mode', 'mean']);
    for (let l = 0; l < 2; l++)
      for (let h = 0; h < 2; h++) near(each.heads[l][h].accuracy, ce.heads[l][h].accuracy, 0.004, `each ${l}.${h}`);
    const p = await page.evaluate(() => window.attnlab.patch({ example: 3, corrupt_at: 7 }));
    const cp = cli(['patch', file, '--example', '3', '--corrupt-at', '7']);
    assert.deepEqual(p.corrupt_tokens, cp.corrupt_tokens);
    assert.equal(p.position, cp.position);
    for (let l = 0; l < 2; l++)
      for (let h = 0; h < 2; h++) near(p.heads[l][h], cp.heads[l][h], 0.02, `patch head ${l}.${h}`);
    const a = await page.evaluate(() => window.attnlab.attribute({ tokens: 'a b c a b' }));
    const ca = cli(['attribute', file, '--tokens', 'a b c a b']);
    a.positions.forEach((q, i) => near(q.logit, ca.positions[i].logit, 1e-3 * (1 + Math.abs(q.logit)), `logit at ${i}`));
    const k = await page.evaluate(() => window.attnlab.circuits({ layer: 1, head: 0 }));
    const ck = cli(['circuits', file, '--layer', '1', '--head', '0']);
    assert.deepEqual(k.tokens, ck.tokens);
    near(k.composition.from[1].k, ck.composition.from[1].k, 1e-4, 'K-composition of 0.1 into 1.0');
  }

  // Bad options: an Error naming the field, and the run as it was.
  const before = await page.evaluate(() => window.attnlab.trainStatus());
  for (const [fn, opts, field] of [['ablate', { heads: '2.0' }, 'heads'], ['ablate', { heads: '0.1', mode: 'max' }, 'mode'],
    ['patch', { corrupt: 'a b' }, 'corrupt'], ['attribute', { target: 9999 }, 'target'], ['circuits', { layer: 0 }, 'head'],
    ['ablate', { each: true, bogus: 1 }, 'bogus']]) {
    const msg = await page.evaluate(([f, o]) => { try { window.attnlab[f](o); return 'no error'; } catch (e) { return e.message; } }, [fn, opts]);
    assert.ok(msg.startsWith(field + ':'), `${fn}(${JSON.stringify(opts)}) -> ${msg}`);
  }
  const after = await page.evaluate(() => window.attnlab.trainStatus());
  assert.equal(after.step, before.step);
  assert.equal(after.accuracy, before.accuracy);

  // Restored by a second click: the readout is the intact model's again.
  await clickWidget(page, 'inspect_l0_h1');
  await settle(page);
  v = await inspectView(page);
  assert.deepEqual(v.ablated, []);
  near(v.accuracy, trained.accuracy, 1e-7, 'restored');
  const restored = await lab.shot(page, 'inspect-03-restored');
  assert.ok(changedFraction(intact, restored, px(readout)) < 0.005, 'the readout is back');

  await clickWidget(page, 'inspect_each');
  await settle(page);
  assert.equal((await inspectView(page)).each, true);
  await lab.shot(page, 'inspect-04-each-1366x768');

  // The view at other sizes: the grid inside the window, no window that cannot scroll.
  for (const [width, height, ui] of [[390, 844, 1], [1280, 720, 2], [1920, 1080, 1]]) {
    await page.setViewportSize({ width, height });
    await page.evaluate((s) => window.attnlab.uiScale(s), ui);
    await settle(page, 4);
    let l = await page.evaluate(() => window.attnlab.layout());
    if (l.widgets.learn_tab_Attention) await clickWidget(page, 'learn_tab_Attention'), await settle(page);
    l = await page.evaluate(() => window.attnlab.layout());
    const win = l.windows['Attention on a probe'];
    assert.ok(win, `the probe window at ${width}x${height}`);
    for (const name of ['inspect_each', 'inspect_readout', 'inspect_l0_h0', 'inspect_l1_h1']) {
      const r = l.widgets[name];
      assert.ok(r, `${name} at ${width}x${height}`);
      assert.ok(r.x >= win.x - 1 && r.x + r.w <= win.x + win.w + 1 && r.y + r.h <= win.y + win.h + 1, `${name} inside the window at ${width}x${height}`);
    }
    for (const [name, r] of Object.entries(l.windows)) assert.notEqual(r.scroll, 2, `${name} at ${width}x${height}`);
    await lab.shot(page, `inspect-05-${width}x${height}-scale${ui}`);
  }
  assert.deepEqual(problems, []);
  await page.close();
});
