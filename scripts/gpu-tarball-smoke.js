// GPU smoke test of an installed tarball (issue: packaging). On a CUDA host:
//   npm install ./msm-cuda-<version>.tgz --prefix APP      (or, without npm, unpack the tarball
//   into APP/node_modules/msm-cuda and copy node-gyp-build beside it)
//   node scripts/gpu-tarball-smoke.js APP
// Checks that the prebuilt binary is what loads, that CUDA is available from it, and that
// cuda = cpu = (Σk)·G on every curve.
const path = require('path');
const app = path.resolve(process.argv[2] || '.');
const pkg = path.join(app, 'node_modules', 'msm-cuda');
console.log('addon loaded from', require(path.join(app, 'node_modules', 'node-gyp-build')).path(pkg));
const { msm, info, CURVES } = require(pkg);
(async () => {
  const i = info();
  console.log('cuda', JSON.stringify({ compiled: i.cuda.compiled, available: i.cuda.available, reason: i.cuda.reason, devices: i.cuda.devices.map((d) => d.name) }));
  if (!i.cuda.available) throw new Error('CUDA backend not available from the tarball');
  for (const curve of Object.keys(CURVES)) {
    const c = CURVES[curve];
    const n = 5000;
    let seed = 12345n, sum = 0n;
    const ks = [];
    for (let j = 0; j < n; j++) { seed = (seed * 6364136223846793005n + 1442695040888963407n) % (1n << 64n); const k = (seed * seed * seed) % c.r; ks.push(k); sum += k; }
    const pts = Array(n).fill(c.generator);
    const gpu = await msm(curve, pts, ks, { backend: 'cuda' });
    const cpu = await msm(curve, pts, ks, { backend: 'cpu' });
    const one = await msm(curve, [c.generator], [sum % c.r], { backend: 'cpu' });
    const ok = gpu.x === cpu.x && gpu.y === cpu.y && gpu.x === one.x && gpu.y === one.y;
    console.log(curve, 'cuda = cpu = (Σk)·G:', ok);
    if (!ok) process.exitCode = 1;
  }
})().catch((e) => { console.error(e); process.exitCode = 1; });
