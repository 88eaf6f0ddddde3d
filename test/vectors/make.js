#!/usr/bin/env node
// Writes test/vectors/msm.json: fixed MSM vectors for every curve, computed here with plain
// bigint affine arithmetic (textbook chord-and-tangent, inverse by extended Euclid,
// double-and-add), independent of lib/, cuda/ and test/model/. test/vectors.test.ts re-checks
// every vector on the bigint model and runs it through the CPU backend.
// Usage: node test/vectors/make.js > test/vectors/msm.json
'use strict';

const CURVES = {
  bn254: {
    p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
    G: [1n, 2n],
  },
  'bls12-381': {
    p: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
    r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
    G: [
      0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bbn,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1n,
    ],
  },
  'bls12-377': {
    p: 0x01ae3a4617c510eac63b05c06ca1493b1a22d9f300f5138f1ef3622fba094800170b5d44300000008508c00000000001n,
    r: 0x12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001n,
    G: [
      0x008848defe740a67c8fc6225bf87ff5485951e2caa9d41bb188282c8bd37cb5cd5481512ffcd394eeab9b16eb21be9efn,
      0x01914a69c5102eff1f674f5d30afeec4bd7fb348ca3e52d96d182ad44fb82305c2fe3d3634a9591afd82de55559c8ea6n,
    ],
  },
  'bls24-315': {
    p: 0x04c23a02b586d650d3f7498be97c5eafdec1d01aa27a1ae0421ee5da52bde5026fe802ff40300001n,
    r: 0x196deac24a9da12b25fc7ec9cf927a98c8c480ece644e36419d0c5fd00c00001n,
    G: [
      0x041a0a424393988da1b2b117076ef6e4f54b344cc46dde3c983603a832cb638dbf4b721710866097n,
      0x02e6f83c55deff20227ecdf0db2bb2ebb5d72c8a29010871d3cce9059e83dfb96f2922d5da4e4e5fn,
    ],
  },
};

const mod = (a, m) => ((a % m) + m) % m;
function inv(a, m) {
  let [r0, r1, s0, s1] = [mod(a, m), m, 1n, 0n];
  while (r1) {
    const q = r0 / r1;
    [r0, r1, s0, s1] = [r1, r0 - q * r1, s1, s0 - q * s1];
  }
  return mod(s0, m);
}
// points: null = infinity, [x, y] otherwise
function add(P, Q, p) {
  if (!P) return Q;
  if (!Q) return P;
  if (P[0] === Q[0] && mod(P[1] + Q[1], p) === 0n) return null;
  const l = P[0] === Q[0] ? mod(3n * P[0] * P[0] * inv(2n * P[1], p), p) : mod((Q[1] - P[1]) * inv(Q[0] - P[0], p), p);
  const x = mod(l * l - P[0] - Q[0], p);
  return [x, mod(l * (P[0] - x) - P[1], p)];
}
function mul(k, P, p) {
  let R = null;
  for (; k > 0n; k >>= 1n, P = add(P, P, p)) if (k & 1n) R = add(R, P, p);
  return R;
}

// A fixed linear congruential sequence of 64-bit values: reproducible without any library.
let state = 0x243f6a8885a308d3n;
const next64 = () => (state = (state * 6364136223846793005n + 1442695040888963407n) & ((1n << 64n) - 1n));
const below = (m) => {
  let v = 0n;
  for (let i = 0; i < 5; i++) v = (v << 64n) | next64();
  return v % m;
};

const hex = (v) => '0x' + v.toString(16);
const pt = (P) => (P ? { x: hex(P[0]), y: hex(P[1]) } : { x: '0x0', y: '0x0' });

const out = {
  about:
    'MSM vectors Σ k_i·P_i computed by test/vectors/make.js with plain bigint affine arithmetic, independent of the package; ' +
    'points and the result are affine hex, {0x0, 0x0} is infinity; scalars are hex integers in [0, r).',
  vectors: [],
};
for (const [name, c] of Object.entries(CURVES)) {
  const { p, r, G } = c;
  const cases = [
    { label: 'one point, scalar 1', dlogs: [1n], scalars: [1n] },
    { label: 'G, 2G, 3G with 0, 1, r−1', dlogs: [1n, 2n, 3n], scalars: [0n, 1n, r - 1n] },
    { label: 'P and −P with equal scalars: infinity', dlogs: [5n, r - 5n], scalars: [7n, 7n] },
    { label: 'infinity among the points, duplicates', dlogs: [0n, 9n, 9n, 11n], scalars: [3n, below(r), below(r), 1n << 200n] },
    (() => {
      const dlogs = Array.from({ length: 16 }, () => below(r));
      dlogs[4] = 0n;
      dlogs[9] = dlogs[2];
      return { label: '16 random points and scalars', dlogs, scalars: Array.from({ length: 16 }, (_, i) => (i === 3 ? 0n : below(r))) };
    })(),
  ];
  for (const k of cases) {
    const points = k.dlogs.map((d) => (d === 0n ? null : mul(d, G, p)));
    let acc = null;
    points.forEach((P, i) => (acc = add(acc, P ? mul(k.scalars[i], P, p) : null, p)));
    out.vectors.push({ curve: name, label: k.label, points: points.map(pt), scalars: k.scalars.map(hex), result: pt(acc) });
  }
}
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
