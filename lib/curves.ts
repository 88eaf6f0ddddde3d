// Parameters of the supported curves, all of the form y² = x³ + b over F_p, with G1 of prime
// order r. The values are checked by test/curves.test.ts: against @noble/curves (BN254,
// BLS12-381), against the curve families' defining polynomials in the parameter u or x, and
// (BLS12-377, BLS24-315) by G on the curve and r·G = O in the bigint model of test/model/.

export type CurveName = 'bn254' | 'bls12-381' | 'bls12-377' | 'bls24-315';

/**
 * The group of the points: 'g1' ⊂ E(F_p), or 'g2' ⊂ E'(F_p²), the sextic twist over
 * F_p² = F_p[u]/(u² + 1) (BN254 and BLS12-381; `Curve.groups`). Scalars are mod r for both.
 */
export type Group = 'g1' | 'g2';
export const GROUPS: readonly Group[] = Object.freeze(['g1', 'g2'] as Group[]);

export interface Curve {
  readonly name: CurveName;
  /** Base-field modulus. */
  readonly p: bigint;
  /** Order of G1 (the scalar field modulus). */
  readonly r: bigint;
  /** Curve coefficient: y² = x³ + b. */
  readonly b: bigint;
  /** Cofactor: #E(F_p) = h·r. */
  readonly h: bigint;
  /** The standard generator of G1. */
  readonly generator: { readonly x: bigint; readonly y: bigint };
  /** Bytes of one base-field element in the packed formats: 8 per 64-bit limb (32, 40 or 48). */
  readonly fieldBytes: number;
  /** Bytes of one scalar in the packed formats (32 for every curve here). */
  readonly scalarBytes: number;
  /** Bit length of r. */
  readonly scalarBits: number;
  /** The groups MSMs run in: 'g1' always, 'g2' for BN254 and BLS12-381. */
  readonly groups: readonly Group[];
}

const G1: readonly Group[] = Object.freeze(['g1'] as Group[]);
const G1_G2: readonly Group[] = GROUPS;

const BN254: Curve = {
  name: 'bn254',
  p: 21888242871839275222246405745257275088696311157297823662689037894645226208583n,
  r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
  b: 3n,
  h: 1n,
  generator: { x: 1n, y: 2n },
  fieldBytes: 32,
  scalarBytes: 32,
  scalarBits: 254,
  groups: G1_G2,
};

const BLS12_381: Curve = {
  name: 'bls12-381',
  p: 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaabn,
  r: 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001n,
  b: 4n,
  h: 0x396c8c005555e1568c00aaab0000aaabn,
  generator: {
    x: 0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bbn,
    y: 0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1n,
  },
  fieldBytes: 48,
  scalarBytes: 32,
  scalarBits: 255,
  groups: G1_G2,
};

const BLS12_377: Curve = {
  name: 'bls12-377',
  p: 0x01ae3a4617c510eac63b05c06ca1493b1a22d9f300f5138f1ef3622fba094800170b5d44300000008508c00000000001n,
  r: 0x12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001n,
  b: 1n,
  h: 0x170b5d44300000000000000000000000n,
  generator: {
    x: 0x008848defe740a67c8fc6225bf87ff5485951e2caa9d41bb188282c8bd37cb5cd5481512ffcd394eeab9b16eb21be9efn,
    y: 0x01914a69c5102eff1f674f5d30afeec4bd7fb348ca3e52d96d182ad44fb82305c2fe3d3634a9591afd82de55559c8ea6n,
  },
  fieldBytes: 48,
  scalarBytes: 32,
  scalarBits: 253,
  groups: G1,
};

// BLS24-315 (El Housni–Guillevic, ePrint 2021/1359; gnark-crypto ecc/bls24-315), seed
// x = −0xbfcfffff: a 315-bit p in five 64-bit limbs, so 40-byte field elements (ffjavascript's
// n64·8 for this p, and its Montgomery R = 2^320).
const BLS24_315: Curve = {
  name: 'bls24-315',
  p: 0x04c23a02b586d650d3f7498be97c5eafdec1d01aa27a1ae0421ee5da52bde5026fe802ff40300001n,
  r: 0x196deac24a9da12b25fc7ec9cf927a98c8c480ece644e36419d0c5fd00c00001n,
  b: 1n,
  h: 0x2fe8030000000000n,
  generator: {
    x: 0x041a0a424393988da1b2b117076ef6e4f54b344cc46dde3c983603a832cb638dbf4b721710866097n,
    y: 0x02e6f83c55deff20227ecdf0db2bb2ebb5d72c8a29010871d3cce9059e83dfb96f2922d5da4e4e5fn,
  },
  fieldBytes: 40,
  scalarBytes: 32,
  scalarBits: 253,
  groups: G1,
};

export const CURVES: Readonly<Record<CurveName, Curve>> = Object.freeze({
  bn254: BN254,
  'bls12-381': BLS12_381,
  'bls12-377': BLS12_377,
  'bls24-315': BLS24_315,
});

export const CURVE_NAMES = Object.keys(CURVES) as CurveName[];

export function isCurveName(name: unknown): name is CurveName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(CURVES, name);
}
