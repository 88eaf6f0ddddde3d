// @noble/curves as a second reference (BN254 and BLS12-381; noble has no BLS12-377 or BLS24-315).

import { pippenger } from '@noble/curves/abstract/curve.js';
import { bls12_381 } from '@noble/curves/bls12-381.js';
import { bn254 } from '@noble/curves/bn254.js';
import type { AffinePoint, CurveName } from '../../lib';

const POINT = { bn254: bn254.G1.Point, 'bls12-381': bls12_381.G1.Point } as const;

export const NOBLE_CURVES = Object.keys(POINT) as ('bn254' | 'bls12-381')[];

export function nobleCons(curve: CurveName) {
  const P = (POINT as Record<string, (typeof POINT)['bn254']>)[curve];
  if (!P) throw new Error(`noble has no ${curve}`);
  return P;
}

export function nobleMsm(curve: CurveName, points: readonly AffinePoint[], scalars: readonly bigint[]): AffinePoint {
  const P = nobleCons(curve);
  if (points.length === 0) return { x: 0n, y: 0n };
  return pippenger(P, points.map((p) => P.fromAffine(p)), [...scalars]).toAffine();
}
