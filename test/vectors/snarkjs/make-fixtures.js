#!/usr/bin/env node
// Writes the snarkjs fixtures of test/snarkjs.test.ts into test/vectors/snarkjs/<curve>/:
// poseidon_chain.circom compiled by circom2 (circuit.js; the R1CS's SHA-256 into circuit.json,
// the build itself is not committed), a powers-of-tau ceremony of 2^POWER (in a temporary
// folder, not kept), and from it the Groth16, PLONK and FFLONK proving and verification keys,
// each checked by a proof that snarkjs makes and verifies on its own.
// Deterministic: every contribution is a beacon (snarkjs's random contributions mix in
// crypto.randomBytes), so a rerun writes the same keys. The tests use the committed keys and do
// not redo the ceremony (minutes on two cores).
// Usage: node test/vectors/snarkjs/make-fixtures.js
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const snarkjs = require('snarkjs');
const { compile, dirOf, r1csOf, wasmOf, FLAGS, PRIMES } = require('./circuit');

// The circuit's domain is 2^9 in every protocol; FFLONK needs 9·2^9 + 18 powers of τ in G1,
// and a ceremony of 2^POWER has 2^(POWER+1) − 1 of them.
const POWER = 12;
const BEACON = '0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20';
const INPUT = { a: 3, b: 5 };
// keep: committed; probe: made and checked, to know whether snarkjs runs it on that curve, but
// not kept. snarkjs 0.7.6's FFLONK on BLS12-381 does not: its own prover, without msm-cuda,
// fails with "Polynomial is not divisible".
const CURVES = [
  { curve: 'bn254', keep: ['groth16', 'plonk', 'fflonk'], probe: [] },
  { curve: 'bls12-381', keep: ['groth16', 'plonk'], probe: ['fflonk'] },
];

const log = (...a) => console.log(...a);
// snarkjs reports a setup it cannot do (a ceremony too small) through its logger only
const logger = { debug() {}, info() {}, warn: log, error: (...a) => { throw new Error(a.join(' ')); } };

async function ceremony(curve, tmp) {
  const p0 = path.join(tmp, 'pot_0.ptau');
  const p1 = path.join(tmp, 'pot_1.ptau');
  const pf = path.join(tmp, 'pot_final.ptau');
  await snarkjs.powersOfTau.newAccumulator(await snarkjs.curves.getCurveFromName(PRIMES[curve]), POWER, p0);
  await snarkjs.powersOfTau.beacon(p0, p1, 'fixture beacon', BEACON, 10);
  await snarkjs.powersOfTau.preparePhase2(p1, pf);
  return pf;
}

/** The keys of `proto` into `dir`; whether a proof snarkjs makes with them verifies. */
async function setup(proto, r1cs, ptau, wasm, dir, tmp) {
  const zkey = path.join(dir, `${proto}.zkey`);
  if (proto === 'groth16') {
    const z0 = path.join(tmp, 'groth16_0.zkey');
    await snarkjs.zKey.newZKey(r1cs, ptau, z0, logger);
    await snarkjs.zKey.beacon(z0, zkey, 'fixture beacon', BEACON, 10);
  } else {
    await snarkjs[proto].setup(r1cs, ptau, zkey, logger);
  }
  const vkey = await snarkjs.zKey.exportVerificationKey(zkey);
  fs.writeFileSync(path.join(dir, `${proto}.vkey.json`), JSON.stringify(vkey, null, 1) + '\n');
  try {
    const { proof, publicSignals } = await snarkjs[proto].fullProve(INPUT, wasm, zkey);
    return { ok: await snarkjs[proto].verify(vkey, publicSignals, proof), bytes: fs.statSync(zkey).size };
  } catch (e) {
    return { ok: e, bytes: fs.statSync(zkey).size };
  }
}

async function main() {
  for (const { curve, keep, probe } of CURVES) {
    const t0 = Date.now();
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `msm-snarkjs-${curve}-`));
    const dir = dirOf(curve);
    fs.mkdirSync(dir, { recursive: true });
    const r1csSha256 = compile(curve);
    const ptau = await ceremony(curve, tmp);
    for (const proto of [...keep, ...probe]) {
      const { ok, bytes } = await setup(proto, r1csOf(curve), ptau, wasmOf(curve), keep.includes(proto) ? dir : tmp, tmp);
      const what = ok === true ? 'verifies' : ok === false ? 'does NOT verify' : `fails: ${ok.message}`;
      log(`${curve} ${proto}: ${bytes} bytes of zkey, snarkjs's own proof ${what}${keep.includes(proto) ? '' : ' (not kept)'}`);
      if (ok !== true && keep.includes(proto)) throw new Error(`${curve} ${proto}: no fixture`);
    }
    const circom = require(path.join(path.dirname(require.resolve('circom2')), 'package.json')).version;
    fs.writeFileSync(path.join(dir, 'circuit.json'), JSON.stringify({ circuit: 'poseidon_chain.circom', circom2: circom, flags: FLAGS, prime: PRIMES[curve], r1csSha256, input: INPUT, power: POWER }, null, 1) + '\n');
    fs.rmSync(tmp, { recursive: true, force: true });
    log(`${curve}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  // the curves snarkjs built (cached, with worker threads) would keep the process alive
  for (const k of ['curve_bn128', 'curve_bls12381']) if (globalThis[k]) await globalThis[k].terminate();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
