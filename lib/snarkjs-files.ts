// snarkjs's binary files as groth16Prove (lib/groth16.ts) reads them: the Groth16 .zkey and the
// .wtns, from a file name or from bytes. Both are @iden3/binfileutils containers (readBinFile): a
// 4-byte magic ("zkey", "wtns"), u32 version, u32 section count, then sections of u32 id, u64
// byte length, data; all little-endian. A file is read section by section, as needed: the point
// sections (5..9) only when the bases are not resident already (lib/groth16.ts).
//
// The sections used (snarkjs zkey_utils.js readHeader / readHeaderGroth16, wtns_utils.js readHeader):
//   zkey 1: u32 protocol (1 Groth16, 2 PLONK, 10 FFLONK: zkey_constants.js)
//   zkey 2: u32 n8q, q, u32 n8r, r, u32 nVars, u32 nPublic, u32 domainSize, then the points
//           alpha1, beta1, beta2, gamma2, delta1, delta2 (G1 2·n8q, G2 4·n8q bytes, LEM)
//   zkey 4: u32 count, then per entry u32 matrix, u32 constraint, u32 signal, n8r-byte coefficient
//   zkey 5, 6, 7: nVars points A (G1), B1 (G1), B2 (G2); 8: C, the nVars − nPublic − 1 private
//           signals' points (G1); 9: H, domainSize points (G1)
//   wtns 1: u32 n8, q (the scalar field), u32 nWitness; wtns 2: nWitness elements, standard form

import { createHash } from 'crypto';
import fs = require('fs');
import { CURVES, type Curve } from './curves';
import { readLE } from './encoding';
import { MsmError } from './errors';

const PROTOCOLS: Record<number, string> = { 1: 'groth16', 2: 'plonk', 10: 'fflonk' };
// the curves snarkjs proves on, by their base field
const SNARK_CURVES: readonly Curve[] = [CURVES.bn254, CURVES['bls12-381']];
const MAX_VERSION = 2; // binfileutils readBinFile(…, 2) in groth16_prove.js
const CHUNK = 1 << 30; // bytes per read (fs reads stop below 2 GiB)

/** Where a container's bytes are: in memory, or an open file read section by section. */
export type Source = { kind: 'bytes'; bytes: Uint8Array } | { kind: 'file'; name: string; fh: fs.promises.FileHandle; stat: fs.BigIntStats };

export interface BinFile {
  readonly what: string; // 'zkey' or 'wtns', for messages
  readonly source: Source;
  /** Byte offset and length of each section, by id (the first of a repeated id). */
  readonly sections: Map<number, { at: number; size: number }>;
}

const malformed = (what: string, msg: string) => new MsmError('ERR_INVALID_ARGUMENT', `malformed ${what}: ${msg}`);

async function readAt(src: Source, at: number, size: number): Promise<Uint8Array> {
  if (src.kind === 'bytes') {
    if (at + size > src.bytes.byteLength) throw new RangeError('past the end');
    return src.bytes.subarray(at, at + size);
  }
  const out = new Uint8Array(size);
  for (let done = 0; done < size; ) {
    const { bytesRead } = await src.fh.read(out, done, Math.min(CHUNK, size - done), at + done);
    if (bytesRead === 0) throw new RangeError('past the end');
    done += bytesRead;
  }
  return out;
}

/** Open a container (a file name or its bytes) and list its sections; checks magic and version. */
export async function openBinFile(input: string | Uint8Array, what: 'zkey' | 'wtns'): Promise<BinFile> {
  let source: Source;
  if (typeof input === 'string') {
    let fh: fs.promises.FileHandle;
    try {
      fh = await fs.promises.open(input, 'r');
    } catch (e) {
      throw new MsmError('ERR_INVALID_ARGUMENT', `cannot open the ${what} file ${input}: ${(e as Error).message}`);
    }
    source = { kind: 'file', name: input, fh, stat: await fh.stat({ bigint: true }) };
  } else if (input instanceof Uint8Array) {
    source = { kind: 'bytes', bytes: input };
  } else {
    throw new MsmError('ERR_INVALID_ARGUMENT', `the ${what} must be a file name or a Uint8Array`);
  }
  const file: BinFile = { what, source, sections: new Map() };
  try {
    const total = source.kind === 'bytes' ? source.bytes.byteLength : Number(source.stat.size);
    if (total < 12) throw malformed(what, 'shorter than its 12-byte header');
    const head = view(await readAt(source, 0, 12));
    const magic = String.fromCharCode(head.getUint8(0), head.getUint8(1), head.getUint8(2), head.getUint8(3));
    if (magic !== what) throw malformed(what, `starts with "${magic}", not "${what}"`);
    const version = head.getUint32(4, true);
    if (version > MAX_VERSION) throw malformed(what, `version ${version} (snarkjs reads up to ${MAX_VERSION})`);
    let at = 12;
    for (let i = 0, n = head.getUint32(8, true); i < n; i++) {
      if (at + 12 > total) throw malformed(what, `section ${i} of ${n}: header past the end of the file`);
      const h = view(await readAt(source, at, 12));
      const id = h.getUint32(0, true);
      const size = Number(h.getBigUint64(4, true));
      if (at + 12 + size > total) throw malformed(what, `section ${id}: ${size} bytes, past the end of the file`);
      if (!file.sections.has(id)) file.sections.set(id, { at: at + 12, size });
      at += 12 + size;
    }
  } catch (e) {
    await closeBinFile(file);
    throw e;
  }
  return file;
}

export async function closeBinFile(f: BinFile): Promise<void> {
  if (f.source.kind === 'file') await f.source.fh.close();
}

/** The bytes of section `id` (a view for bytes in memory); checks its length when given. */
export async function readSection(f: BinFile, id: number, name: string, size?: number): Promise<Uint8Array> {
  const s = f.sections.get(id);
  if (!s) throw malformed(f.what, `section ${id} (${name}) is missing`);
  if (size !== undefined && s.size !== size) throw malformed(f.what, `section ${id} (${name}) has ${s.size} bytes, not ${size}`);
  return readAt(f.source, s.at, s.size);
}

export function sectionSize(f: BinFile, id: number): number | undefined {
  return f.sections.get(id)?.size;
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
// readLE for a length read from the file: whole 64-bit limbs, or no curve's
const readBig = (v: DataView, at: number, n: number): bigint => (n % 8 === 0 && n <= 64 ? readLE(v, at, n) : -1n);

/** What groth16Prove needs of a Groth16 zkey's header (sections 1 and 2). */
export interface ZkeyHeader {
  curve: Curve;
  nVars: number;
  nPublic: number;
  domainSize: number;
  /** The header's points, LEM: alpha1, beta1, delta1 (G1), beta2, delta2 (G2). */
  points: { alpha1: Uint8Array; beta1: Uint8Array; delta1: Uint8Array; beta2: Uint8Array; delta2: Uint8Array };
  /** SHA-256 of section 2: it changes with every phase-2 contribution (delta). */
  digest: string;
}

export async function readZkeyHeader(f: BinFile): Promise<ZkeyHeader> {
  const s1 = await readSection(f, 1, 'header', 4);
  const protocol = view(s1).getUint32(0, true);
  if (protocol !== 1) {
    const name = PROTOCOLS[protocol];
    throw new MsmError('ERR_INVALID_ARGUMENT', name ? `the zkey is a ${name} key, not a groth16 one` : `the zkey's protocol id is ${protocol}, not 1 (groth16)`);
  }
  const s2 = await readSection(f, 2, 'groth16 header');
  const v = view(s2);
  const fail = () => malformed('zkey', `section 2 (groth16 header) has ${s2.byteLength} bytes, too few for its field sizes`);
  if (s2.byteLength < 4) throw fail();
  const n8q = v.getUint32(0, true);
  if (s2.byteLength < 8 + n8q) throw fail();
  const q = readBig(v, 4, n8q);
  const n8r = v.getUint32(4 + n8q, true);
  const curve = SNARK_CURVES.find((c) => c.p === q);
  if (!curve) throw new MsmError('ERR_UNKNOWN_CURVE', `the zkey's curve (base field q = ${q}) is not supported: groth16Prove proves on bn254 (snarkjs's bn128) and bls12-381`);
  if (n8q !== curve.fieldBytes || n8r !== curve.scalarBytes) throw malformed('zkey', `section 2 (groth16 header): field sizes ${n8q} and ${n8r} bytes, not ${curve.fieldBytes} and ${curve.scalarBytes} for ${curve.name}`);
  const size = 4 + n8q + 4 + n8r + 12 + 18 * n8q;
  if (s2.byteLength !== size) throw malformed('zkey', `section 2 (groth16 header) has ${s2.byteLength} bytes, not ${size}`);
  const r = readBig(v, 8 + n8q, n8r);
  if (r !== curve.r) throw malformed('zkey', `section 2 (groth16 header): r is not ${curve.name}'s group order`);
  let at = 8 + n8q + n8r;
  const nVars = v.getUint32(at, true);
  const nPublic = v.getUint32(at + 4, true);
  const domainSize = v.getUint32(at + 8, true);
  at += 12;
  if (nPublic >= nVars) throw malformed('zkey', `section 2 (groth16 header): ${nPublic} public signals of ${nVars}`);
  if (domainSize < 1 || (domainSize & (domainSize - 1)) !== 0) throw malformed('zkey', `section 2 (groth16 header): domain size ${domainSize} is not a power of two`);
  const take = (k: number) => s2.slice(at, (at += k * n8q));
  const alpha1 = take(2);
  const beta1 = take(2);
  const beta2 = take(4);
  take(4); // gamma2: the verifier's
  const delta1 = take(2);
  const delta2 = take(4);
  return { curve, nVars, nPublic, domainSize, points: { alpha1, beta1, delta1, beta2, delta2 }, digest: createHash('sha256').update(s2).digest('hex') };
}

/** The witness's header (section 1), checked against the zkey's. */
export async function readWtnsHeader(f: BinFile, zkey: ZkeyHeader): Promise<void> {
  const s1 = await readSection(f, 1, 'header');
  const v = view(s1);
  if (s1.byteLength < 4) throw malformed('wtns', `section 1 (header) has ${s1.byteLength} bytes`);
  const n8 = v.getUint32(0, true);
  if (n8 !== zkey.curve.scalarBytes) throw malformed('wtns', `section 1 (header): elements of ${n8} bytes, not ${zkey.curve.scalarBytes}`);
  if (s1.byteLength !== 8 + n8) throw malformed('wtns', `section 1 (header) has ${s1.byteLength} bytes, not ${8 + n8}`);
  if (readBig(v, 4, n8) !== zkey.curve.r) throw new MsmError('ERR_INVALID_ARGUMENT', `the witness is over another field than the zkey's (${zkey.curve.name}'s r)`);
  const n = v.getUint32(4 + n8, true);
  if (n !== zkey.nVars) throw new MsmError('ERR_LENGTH_MISMATCH', `invalid witness length: the circuit has ${zkey.nVars} signals, the witness ${n}`);
}
