// Workload for scripts/gpu-sanitize.sh: every curve's G1, and G2 of BN254 and BLS12-381, at
// n = 2^12 through the addon directly (no TypeScript build needed): context creation (upload +
// 2^h·P table), msm with random, identical and 32 distinct scalars (the block-wide Alg. 5 path,
// whole blocks and groups of one), msmBatch, each checked against the CPU backend; points from the
// test addon's generator; in each accumulation mode (default, constant time §5, homogeneous §3.2).
// Then BN254 at 2^15 (1 MiB of scalars, where contexts lend pinned buffers): the uploads started at
// call time, their reuse and the staged uploads of a batch larger than the lent buffers. Then
// BN254 at c = 18 and 20. MSM_SANITIZE_TAU=t gives the contexts of the default and homogeneous
// modes τ = t (the constant-time mode takes only τ = c − 1): every entry beyond τ then takes Alg. 4's
// doubled path (cuda/msm/accumulate.cu add_doubled, doubled_from).
'use strict';
const path = require('path');
const root = path.resolve(__dirname, '..');
const addon = require('node-gyp-build')(root);
const testing = require(path.join(root, 'build', 'Release', 'msm_cuda_testing.node'));

const N = Number(process.env.MSM_SANITIZE_N || 4096);
const TAU = Number(process.env.MSM_SANITIZE_TAU || -1);
const opts = (backend, extra = {}) => ({ backend, device: 0, windowBits: 0, tau: -1, accumulation: 'xyzz', threads: 0, ...extra });
const MODES = [['default', { tau: TAU }], ['constant-time', { accumulation: 'constant-time' }], ['homogeneous', { accumulation: 'homogeneous', tau: TAU }]];
let seed = 12345;
const byte = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24) & 0xff;
const le = (v, bytes = 32) => {
  const b = new Uint8Array(bytes);
  for (let i = 0; i < bytes; i++) b[i] = Number((v >> BigInt(8 * i)) & 0xffn);
  return b;
};

async function main() {
  let bad = 0;
  const targets = [...addon.info().curves.map((c) => [c, 'g1']), ['bn254', 'g2'], ['bls12-381', 'g2']];
  for (const [curve, group] of targets) {
    const pts = testing.generatePoints(curve, N, le(12345n), le(67890n), group);
    const random = new Uint8Array(32 * N);
    for (let i = 0; i < random.length; i++) random[i] = (i % 32) === 31 ? byte() & 0x0f : byte();
    const same = new Uint8Array(32 * N);
    for (let i = 0; i < N; i++) same.set(random.subarray(0, 32), 32 * i);
    // 32 distinct values: heavy buckets. With MSM_CUDA_BUCKETS=shared (one set of 2^15 buckets,
    // 16 digits) ~500 are queued, more than heavy_kernel's resident blocks at the 6-limb curves, so
    // a block sums several at once (aggregate.cuh heavy_groups); per-window sets queue fewer.
    const distinct = new Uint8Array(32 * N);
    for (let i = 0; i < N; i++) distinct.set(random.subarray(32 * (i % 32), 32 * (i % 32) + 32), 32 * i);
    const cpu = await addon.createContext(curve, pts, 0, 0, opts('cpu', { group }));
    for (const [mode, extra] of MODES) {
      const gpu = await addon.createContext(curve, pts, 0, 0, opts('cuda', { ...extra, group }));
      for (const [name, ks] of [['random', random], ['identical', same], ['distinct32', distinct]]) {
        const a = Buffer.from(await gpu.msm(ks, 0, true));
        const b = Buffer.from(await cpu.msm(ks, 0, true));
        const ok = a.equals(b);
        if (!ok) bad++;
        console.log(`${curve} ${group} n=${N} ${mode} ${name}: ${ok ? 'ok' : 'MISMATCH'}`);
      }
      const batch = await gpu.msmBatch([random, same], 0, true);
      const okb = Buffer.from(batch[1]).equals(Buffer.from(await cpu.msm(same, 0, true)));
      if (!okb) bad++;
      console.log(`${curve} ${group} n=${N} ${mode} batch: ${okb ? 'ok' : 'MISMATCH'}`);
      gpu.close();
    }
    cpu.close();
  }
  const M = Number(process.env.MSM_SANITIZE_UPLOAD_N || 32768);
  const pts = testing.generatePoints('bn254', M, le(777n), le(999n));
  const sets = [0, 1, 2].map(() => {
    const k = new Uint8Array(32 * M);
    for (let i = 0; i < k.length; i++) k[i] = (i % 32) === 31 ? byte() & 0x0f : byte();
    return k;
  });
  const cpu = await addon.createContext('bn254', pts, 0, 0, opts('cpu'));
  const gpu = await addon.createContext('bn254', pts, 0, 0, opts('cuda'));
  const want = await Promise.all(sets.map((k) => cpu.msm(k, 0, true)));
  const got = [await gpu.msm(sets[0], 0, true), await gpu.msm(sets[1], 0, true), ...(await gpu.msmBatch(sets, 0, true)), ...(await Promise.all(sets.map((k) => gpu.msm(k, 0, true))))];
  got.forEach((g, i) => {
    const ok = Buffer.from(g).equals(Buffer.from(want[i < 2 ? i : (i - 2) % 3]));
    if (!ok) bad++;
    console.log(`bn254 n=${M} uploads ${i}: ${ok ? 'ok' : 'MISMATCH'}`);
  });
  gpu.close();
  cpu.close();
  // BN254 at c = 18 and 20 (with MSM_CUDA_BUCKETS=shared: the recode's partition by the sort's
  // first digit, 2 and 4 bits, recode.cu), random scalars and scalars nine in ten zero.
  const random = sets[0].subarray(0, 32 * N);
  const sparse = new Uint8Array(32 * N);
  for (let i = 0; i < N; i += 10) sparse.set(random.subarray(32 * i, 32 * i + 32), 32 * i);
  const ptsC = testing.generatePoints('bn254', N, le(4242n), le(4343n));
  const cpuC = await addon.createContext('bn254', ptsC, 0, 0, opts('cpu'));
  for (const c of [18, 20]) {
    const g = await addon.createContext('bn254', ptsC, 0, 0, opts('cuda', { windowBits: c }));
    for (const [name, ks] of [['random', random], ['sparse', sparse]]) {
      const ok = Buffer.from(await g.msm(ks, 0, true)).equals(Buffer.from(await cpuC.msm(ks, 0, true)));
      if (!ok) bad++;
      console.log(`bn254 n=${N} c=${c} ${name}: ${ok ? 'ok' : 'MISMATCH'}`);
    }
    g.close();
  }
  cpuC.close();
  if (bad) process.exitCode = 1;
}
main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
