// The WebAssembly benchmark: attnlab-bench's WASM build and, in the same node process, the same
// forward pass through @tensorflow/tfjs-core + tfjs-backend-wasm (XNNPACK, one thread).
// Prints attnlab-bench's JSON lines, then one "tfjs-wasm" line per case with the engine's speed-up.
//
//   node --no-experimental-fetch bench/run_wasm_bench.mjs build-wasm-bench/attnlab-bench.cjs [--quick]
//   node --no-experimental-fetch bench/run_wasm_bench.mjs build-wasm-bench/attnlab-bench.cjs --train [--quick]
// --train: training steps per second only (attnlab-bench --train in WebAssembly; no tfjs comparison,
// bench/train_bench.sh puts it beside PyTorch).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const benchPath = path.resolve(process.argv[2] || 'build-wasm-bench/attnlab-bench.cjs');
const quick = process.argv.includes('--quick');
const train = process.argv.includes('--train');

// 1. Our engine (simd128), its scalar build and reference kernels.
const engine = new Map();
const createBench = require(benchPath);
const mod = await createBench({
  print: (line) => {
    console.log(line);
    const d = JSON.parse(line);
    if (d.impl === 'engine') engine.set(`${d.n}/${d.d_model}/${d.heads}/${d.causal}`, d.ms);
  },
  printErr: (line) => console.error(line),
});
if (train) {
  mod.callMain(['--train', ...(quick ? ['--quick'] : [])]);
  process.exit(0);
}
mod.callMain(quick ? ['--quick'] : []);

// 2. tfjs-wasm on the same cases.
const tf = require('@tensorflow/tfjs-core');
const wasm = require('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(path.join(here, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + path.sep);
wasm.setThreadsCount(1);
await tf.setBackend('wasm');
await tf.ready();

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

const cases = [[16, 64, 4], [64, 128, 4], [128, 256, 8], [256, 512, 8], [512, 512, 8], [1024, 512, 8]];
for (const [n, d, h] of cases) {
  if (quick && n > 128) continue;
  const dk = d / h;
  const x = tf.randomNormal([n, d]);
  // One 2-D matmul per head for every product (XNNPACK's path); slicing all-head results measured slower.
  const heads = Array.from({ length: h }, () => ({
    wq: tf.randomNormal([d, dk], 0, 0.1), wk: tf.randomNormal([d, dk], 0, 0.1), wv: tf.randomNormal([d, dk], 0, 0.1),
  }));
  const wo = tf.randomNormal([d, d], 0, 0.1);
  for (const causal of [false, true]) {
    const mask = causal ? tf.tidy(() => tf.mul(tf.sub(tf.linalg.bandPart(tf.ones([n, n]), -1, 0), 1), 1e30)) : null;  // 0 or -1e30
    const scale = 1 / Math.sqrt(dk);
    const forward = () => {
      const weights = [];
      const out = tf.tidy(() => {
        const outs = heads.map(({ wq, wk, wv }) => {
          const q = tf.matMul(x, wq), k = tf.matMul(x, wk), v = tf.matMul(x, wv);
          let s = tf.mul(tf.matMul(q, k, false, true), scale);
          if (mask) s = tf.add(s, mask);
          const w = tf.softmax(s);
          weights.push(tf.keep(w));
          return tf.matMul(w, v);
        });
        return tf.matMul(tf.concat(outs, 1), wo);
      });
      for (const w of weights) { w.dataSync(); w.dispose(); }  // the weights are materialised and read, as the lab does
      out.dataSync();
      out.dispose();
    };
    forward();
    const times = [];
    const start = performance.now();
    while (times.length < 3 || (performance.now() - start < 250 && times.length < 50)) {
      const t0 = performance.now();
      forward();
      times.push(performance.now() - t0);
    }
    const ms = median(times);
    const gflops = (8 * n * d * d + 4 * n * n * d) / (ms * 1e6);
    const ours = engine.get(`${n}/${d}/${h}/${causal}`);
    const line = { impl: 'tfjs-wasm', isa: 'xnnpack-simd', n, d_model: d, heads: h, causal, ms: +ms.toFixed(4), gflops: +gflops.toFixed(2) };
    if (ours) line.engine_speedup = +(ms / ours).toFixed(2);
    console.log(JSON.stringify(line));
    mask?.dispose();
  }
  tf.dispose([x, wo, ...heads.flatMap((w) => [w.wq, w.wk, w.wv])]);
}
