// poseidon_chain.circom compiled by circom2 for one curve, into <curve>/build/ (not committed:
// its witness generator is 1.6 MB of WASM, mostly circomlib's Poseidon constants for every
// width). The committed keys were made from the R1CS of the same compilation: circuit.json
// records its SHA-256, and ensureCircuit() recompiles where the build is missing or differs.
'use strict';

const { execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const HERE = __dirname;
const ROOT = path.resolve(HERE, '..', '..', '..');
// snarkjs's curve names and circom's --prime names, by msm-cuda's curve name
const PRIMES = { bn254: 'bn128', 'bls12-381': 'bls12381' };
// --O1: --O2 would substitute the linear constraints into the others, which shrinks the R1CS
// (Groth16) but turns their long linear combinations into PLONK addition gates: 2072 PLONK
// constraints for one Poseidon(1) against 417 with --O1.
const FLAGS = ['--r1cs', '--wasm', '--O1'];

const dirOf = (curve) => path.join(HERE, curve);
const buildOf = (curve) => path.join(dirOf(curve), 'build');
const r1csOf = (curve) => path.join(buildOf(curve), 'poseidon_chain.r1cs');
const wasmOf = (curve) => path.join(buildOf(curve), 'poseidon_chain_js', 'poseidon_chain.wasm');
const sha256 = (file) => crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** Compile for `curve` into <curve>/build/ (or `out`); returns the SHA-256 of the R1CS. */
function compile(curve, out = buildOf(curve)) {
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  const circom = path.join(ROOT, 'node_modules', 'circom2', 'cli.js');
  // from the repository root: circom2 (WASI) run from another folder did not find circomlib
  execFileSync(process.execPath, [circom, path.join(HERE, 'poseidon_chain.circom'), ...FLAGS, '--prime', PRIMES[curve], '-l', path.join(ROOT, 'node_modules'), '-o', out], { cwd: ROOT, stdio: 'pipe' });
  return sha256(path.join(out, 'poseidon_chain.r1cs'));
}

/** The compiled circuit of `curve` as the committed keys expect it: { wasm, r1cs }. */
function ensureCircuit(curve) {
  const want = JSON.parse(fs.readFileSync(path.join(dirOf(curve), 'circuit.json'), 'utf8')).r1csSha256;
  const have = fs.existsSync(r1csOf(curve)) && fs.existsSync(wasmOf(curve)) ? sha256(r1csOf(curve)) : null;
  if (have !== want && compile(curve) !== want) {
    throw new Error(`circom2 compiled ${curve}'s poseidon_chain.circom into another R1CS than the committed keys were made from: rerun test/vectors/snarkjs/make-fixtures.js`);
  }
  return { wasm: wasmOf(curve), r1cs: r1csOf(curve) };
}

module.exports = { PRIMES, FLAGS, compile, ensureCircuit, dirOf, r1csOf, wasmOf };
