// Reference MSMs on the bigint model: plain double-and-add per term, and an unsigned-window
// Pippenger (buckets, running sums), both in Jacobian coordinates.

import { JAC_INF, jacAdd, jacDbl, jacMul, toAff, toJac, type Aff, type Field, type Jac } from './ec';

export function msmNaive(F: Field, points: Aff[], scalars: bigint[]): Aff {
  let acc = JAC_INF;
  for (let i = 0; i < points.length; i++) acc = jacAdd(F, acc, jacMul(F, scalars[i], toJac(points[i])));
  return toAff(F, acc);
}

export function msmPippenger(F: Field, points: Aff[], scalars: bigint[], scalarBits = 256): Aff {
  const n = points.length;
  if (n === 0) return toAff(F, JAC_INF);
  const c = Math.max(2, Math.min(12, Math.round(Math.log2(n)) - 2));
  const windows = Math.ceil(scalarBits / c);
  const mask = (1n << BigInt(c)) - 1n;
  const jp = points.map(toJac);
  let result = JAC_INF;
  for (let w = windows - 1; w >= 0; w--) {
    for (let i = 0; i < c; i++) result = jacDbl(F, result);
    const buckets: Jac[] = new Array(1 << c).fill(JAC_INF);
    const shift = BigInt(w * c);
    for (let i = 0; i < n; i++) {
      const d = Number((scalars[i] >> shift) & mask);
      if (d !== 0) buckets[d] = jacAdd(F, buckets[d], jp[i]);
    }
    // Σ d·bucket[d] by running sums from the top
    let running = JAC_INF;
    let sum = JAC_INF;
    for (let d = buckets.length - 1; d >= 1; d--) {
      running = jacAdd(F, running, buckets[d]);
      sum = jacAdd(F, sum, running);
    }
    result = jacAdd(F, result, sum);
  }
  return toAff(F, result);
}
