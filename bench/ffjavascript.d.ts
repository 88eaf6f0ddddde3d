// The part of ffjavascript (snarkjs's engine; no type declarations of its own) the benchmarks use.
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
  export interface WasmCurve {
    name: string;
    G1: WasmG1;
    F1: WasmField;
    Fr: WasmField;
    terminate(): Promise<void>;
  }
  export function buildBn128(singleThread?: boolean): Promise<WasmCurve>;
  export function buildBls12381(singleThread?: boolean): Promise<WasmCurve>;
}
