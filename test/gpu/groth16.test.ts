// groth16Prove (lib/groth16.ts) with its MSMs on the CUDA backend: proofs from the committed keys
// of test/vectors/snarkjs/ (BN254, BLS12-381) that snarkjs's groth16.verify accepts, the second
// one on the resident contexts. The CPU path and the error cases: test/groth16.test.ts.
// Runs only where a CUDA device is usable; skipped with the reason otherwise.

import fs = require('fs');
import path = require('path');
import { info } from '../../lib';
import { clearGroth16Cache, groth16CacheStats, groth16Prove } from '../../lib/snarkjs';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const snarkjs = require('snarkjs');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ensureCircuit } = require('../vectors/snarkjs/circuit');

const inf = info();
if (!inf.cuda.available) process.stdout.write(`[skip] test/gpu/groth16: CUDA unavailable: ${inf.cuda.reason}\n`);
const d = inf.cuda.available ? describe : describe.skip;
const FX = path.join(__dirname, '..', 'vectors', 'snarkjs');

afterAll(async () => {
  clearGroth16Cache();
  for (const g of ['curve_bn128', 'curve_bls12381']) await (globalThis as Record<string, { terminate(): Promise<void> } | null>)[g]?.terminate();
});

d.each(['bn254', 'bls12-381'])('groth16Prove on %s, backend cuda', (c) => {
  it('proves twice (the second on resident bases), and snarkjs verifies both', async () => {
    const out = { type: 'mem' } as { type: string; data?: Uint8Array };
    await snarkjs.wtns.calculate({ a: 3, b: 5 }, ensureCircuit(c).wasm, out);
    const vkey = JSON.parse(fs.readFileSync(path.join(FX, c, 'groth16.vkey.json'), 'utf8'));
    const zkey = path.join(FX, c, 'groth16.zkey');
    const first = await groth16Prove(zkey, out.data!, { backend: 'cuda' });
    const created = groth16CacheStats().created;
    const second = await groth16Prove(zkey, out.data!, { backend: 'cuda' });
    expect(groth16CacheStats().created).toBe(created);
    for (const r of [first, second]) expect(await snarkjs.groth16.verify(vkey, r.publicSignals, r.proof)).toBe(true);
  });
});
