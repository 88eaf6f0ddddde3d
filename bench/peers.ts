// The peers the benchmarks compare against, behind one shape: prepare(points) once per size
// (not timed), then run(scalars) → affine result (timed).
//   ffjavascript: snarkjs's engine (WASM in worker threads), G1.multiExpAffine(bases LEM,
//                 scalars 32-byte little-endian canonical): the call snarkjs makes for proofs.
//   @noble/curves: pippenger() over its projective points, single-threaded JS.

import type { AffinePoint, CurveName } from '../lib';
import { CURVES } from '../lib/curves';
import { encodePoints, encodeScalars } from '../lib/encoding';

export type PeerName = 'ffjavascript' | 'noble';
export const PEER_NAMES: PeerName[] = ['ffjavascript', 'noble'];

export interface Prepared {
  run(scalars: bigint[]): Promise<AffinePoint>;
}

export interface Peer {
  name: PeerName;
  curves: CurveName[];
  prepare(curve: CurveName, points: AffinePoint[]): Promise<Prepared>;
  close(): Promise<void>;
}

export function ffjavascriptPeer(): Peer {
  const engines = new Map<CurveName, Promise<import('ffjavascript').WasmCurve>>();
  const engine = (curve: CurveName) => {
    let e = engines.get(curve);
    if (!e) {
      const ff = require('ffjavascript') as typeof import('ffjavascript');
      e = curve === 'bn254' ? ff.buildBn128() : ff.buildBls12381();
      engines.set(curve, e);
    }
    return e;
  };
  return {
    name: 'ffjavascript',
    curves: ['bn254', 'bls12-381'],
    async prepare(curve, points) {
      const ff = await engine(curve);
      const c = CURVES[curve];
      const bases = encodePoints(c, points, 'montgomery'); // LEM: what snarkjs keeps in its zkeys
      return {
        async run(scalars) {
          const res = await ff.G1.multiExpAffine(bases, encodeScalars(c, scalars));
          if (ff.G1.isZero(res)) return { x: 0n, y: 0n };
          const [x, y] = ff.G1.toObject(ff.G1.toAffine(res));
          return { x, y };
        },
      };
    },
    async close() {
      for (const e of engines.values()) await (await e).terminate();
      engines.clear();
    },
  };
}

export function noblePeer(): Peer {
  return {
    name: 'noble',
    curves: ['bn254', 'bls12-381'],
    async prepare(curve, points) {
      const { pippenger } = await import('@noble/curves/abstract/curve.js');
      const P = curve === 'bn254' ? (await import('@noble/curves/bn254.js')).bn254.G1.Point : (await import('@noble/curves/bls12-381.js')).bls12_381.G1.Point;
      const pts = points.map((p) => P.fromAffine(p));
      return {
        async run(scalars) {
          return pippenger(P, pts, scalars).toAffine();
        },
      };
    },
    async close() {},
  };
}
