// The part of ffjavascript (snarkjs's engine; no type declarations of its own) the benchmarks,
// test/encoding.test.ts and test/g2-msm.test.ts use.
declare module 'ffjavascript' {
  interface WasmField {
    n8: number;
    one: Uint8Array;
    e(v: bigint | number | string): Uint8Array;
  }
  interface WasmG1 {
    F: WasmField;
    multiExpAffine(bases: Uint8Array, scalars: Uint8Array): Promise<Uint8Array>;
    toAffine(p: Uint8Array): Uint8Array;
    toObject(p: Uint8Array): bigint[];
    fromObject(o: bigint[]): Uint8Array;
    isZero(p: Uint8Array): boolean;
    toRprLEM(buff: Uint8Array, offset: number, p: Uint8Array): void;
  }
  // G2: points over F_p² (coordinates [c0, c1]; LEM x.c0‖x.c1‖y.c0‖y.c1).
  interface WasmG2 {
    multiExpAffine(bases: Uint8Array, scalars: Uint8Array): Promise<Uint8Array>;
    toAffine(p: Uint8Array): Uint8Array;
    toObject(p: Uint8Array): bigint[][];
    fromObject(o: bigint[][]): Uint8Array;
    isZero(p: Uint8Array): boolean;
    toRprLEM(buff: Uint8Array, offset: number, p: Uint8Array): void;
  }
  export interface WasmCurve {
    name: string;
    G1: WasmG1;
    G2: WasmG2;
    F1: WasmField;
    Fr: WasmField;
    terminate(): Promise<void>;
  }
  /** Its generic prime field: n64 = ⌈bits(p)/64⌉ limbs, n8 = 8·n64 bytes, R = 2^(64·n64). */
  export class F1Field {
    constructor(p: bigint);
    n8: number;
    e(v: bigint): bigint;
    toRprLEM(buff: Uint8Array, offset: number, v: bigint): void;
  }
  export function buildBn128(singleThread?: boolean): Promise<WasmCurve>;
  export function buildBls12381(singleThread?: boolean): Promise<WasmCurve>;
}
