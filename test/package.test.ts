// Packaging: what `npm pack` ships, and that the packed package loads and computes from a clean
// folder (the addon this checkout built stands in for the install step, so no network and no
// rebuild are needed here).

import { execFileSync } from 'child_process';
import fs = require('fs');
import os = require('os');
import path = require('path');
import { CURVES } from '../lib';
import { aff, jacMul, toAff, toJac } from './model/ec';

const root = path.resolve(__dirname, '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let tmp: string;
let tarball: string;
let files: string[];

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'msm-pack-'));
  // `npm pack` runs `prepare` (tsc), so dist/ is fresh
  const out = execFileSync(npm, ['pack', '--json', '--pack-destination', tmp], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
  const info = JSON.parse(out.slice(out.indexOf('[')))[0];
  tarball = path.join(tmp, info.filename);
  files = info.files.map((f: { path: string }) => f.path);
}, 300000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

test('the tarball holds the compiled API with its types, the CLIs, the sources to build from, and no tests', () => {
  for (const f of ['package.json', 'README.md', 'dist/lib/index.js', 'dist/lib/index.d.ts', 'dist/lib/snarkjs.js', 'dist/lib/snarkjs.d.ts', 'dist/lib/snarkjs-register.js', 'dist/lib/cli.js', 'dist/lib/native.js', 'dist/bench/cli.js', 'bin/msm-cuda.js', 'CMakeLists.txt', 'binding.gyp', 'scripts/install.js', 'cuda/engine.hpp']) {
    expect(files).toContain(f);
  }
  expect(files.some((f) => f.startsWith('cuda/cpu/'))).toBe(true);
  expect(files.some((f) => f.startsWith('test/'))).toBe(false);
  expect(files.some((f) => f.startsWith('build/'))).toBe(false);
});

const app = () => path.join(tmp, 'app');

test('the packed package, unpacked into a clean folder, loads and computes', () => {
  const app = path.join(tmp, 'app');
  const pkg = path.join(app, 'node_modules', 'msm-cuda');
  fs.mkdirSync(pkg, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', pkg, '--strip-components=1']);
  // its one runtime dependency for loading, and the addon the install step would have built
  fs.symlinkSync(path.join(root, 'node_modules', 'node-gyp-build'), path.join(app, 'node_modules', 'node-gyp-build'));
  fs.mkdirSync(path.join(pkg, 'build', 'Release'), { recursive: true });
  fs.copyFileSync(path.join(root, 'build', 'Release', 'msm_cuda.node'), path.join(pkg, 'build', 'Release', 'msm_cuda.node'));
  const script = `
    const { msm, CURVES } = require('msm-cuda');
    const G = CURVES.bn254.generator;
    msm('bn254', [G, G], [2n, 3n], { backend: 'cpu' }).then((q) => console.log(JSON.stringify({ x: q.x.toString(), y: q.y.toString() })));
  `;
  const out = execFileSync(process.execPath, ['-e', script], { cwd: app }).toString();
  // 2·G + 3·G = 5·G, on the bigint model
  const { x, y } = JSON.parse(out);
  const c = CURVES.bn254;
  const want = toAff(c, jacMul(c, 5n, toJac(aff(c.generator.x, c.generator.y))));
  expect([BigInt(x), BigInt(y)]).toEqual([want.x, want.y]);
  const infoOut = execFileSync(process.execPath, [path.join(pkg, 'bin', 'msm-cuda.js'), 'info', '--json'], { cwd: app }).toString();
  expect(JSON.parse(infoOut).backends).toContain('cpu');
});

test('its subpaths msm-cuda/snarkjs and msm-cuda/snarkjs/register load (with no snarkjs installed) and install the hook', () => {
  // needs the unpacked package of the previous test
  const script = `
    const hook = require('msm-cuda/snarkjs');
    hook.install({ backend: 'cpu' });
    const on = hook.stats().installed;
    hook.uninstall();
    console.log(JSON.stringify([on, hook.stats().installed, typeof require('msm-cuda').msm]));
  `;
  expect(JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: app() }).toString())).toEqual([true, false, 'function']);
  const env = { ...process.env, MSM_SNARKJS_BACKEND: 'cpu', MSM_SNARKJS_THRESHOLD: '128', MSM_SNARKJS_FFT: '0' };
  const out = execFileSync(process.execPath, ['-r', 'msm-cuda/snarkjs/register', '-e', "console.log(JSON.stringify(require('msm-cuda/snarkjs').stats()))"], { cwd: app(), env }).toString();
  expect(JSON.parse(out)).toMatchObject({ installed: true, backend: 'cpu', threshold: 128, fft: false });
  // the package's files stay behind its exports
  expect(() => execFileSync(process.execPath, ['-e', "require('msm-cuda/dist/lib/native.js')"], { cwd: app(), stdio: 'pipe' })).toThrow(/ERR_PACKAGE_PATH_NOT_EXPORTED/);
});

test('its type declarations serve a strict TypeScript consumer', () => {
  // needs the unpacked package of the previous test
  fs.mkdirSync(path.join(app(), 'node_modules', '@types'), { recursive: true });
  fs.symlinkSync(path.join(root, 'node_modules', '@types', 'node'), path.join(app(), 'node_modules', '@types', 'node'));
  fs.writeFileSync(
    path.join(app(), 'consumer.ts'),
    `import { msm, MsmContext, MsmError, info, type AffinePoint, type G2AffinePoint, type MsmOptions } from 'msm-cuda';
     const opts: MsmOptions = { backend: 'cpu', validate: 'subgroup', pointFormat: 'lem' };
     export async function f(points: Uint8Array, scalars: bigint[]): Promise<AffinePoint> {
       const ctx = await MsmContext.create('bls12-381', points, opts);
       try { return await ctx.msm(scalars); } catch (e) { if (e instanceof MsmError) console.log(e.code, e.index); throw e; } finally { ctx.close(); }
     }
     export const g = (p: AffinePoint[]) => msm('bn254', p, p.map(() => 1n));
     // G2: the option group types the points and the result
     export const h = (p: G2AffinePoint[]): Promise<G2AffinePoint> => msm('bn254', p, p.map(() => 1n), { group: 'g2' });
     export const lem: MsmOptions<'g2'> = { group: 'g2', pointFormat: 'lem' };
     // @ts-expect-error: G1 points to a G2 call
     msm('bn254', [{ x: 1n, y: 2n }], [1n], { group: 'g2' });
     // @ts-expect-error: a G2 result is not a G1 point
     export const wrong: Promise<AffinePoint> = msm('bn254', new Uint8Array(0), [], { group: 'g2' });
     export const cuda: boolean = info().cuda.available;
     export const most: number | undefined = info().limits?.cpu.windowBits[1];
     import { install, uninstall, stats, type SnarkjsOptions } from 'msm-cuda/snarkjs';
     const hookOptions: SnarkjsOptions = { backend: 'cpu', threshold: 256, memoryBudget: { host: 2 ** 30 } };
     install(hookOptions);
     export const accelerated: number = stats().accelerated.g1;
     uninstall();
     import { groth16Prove } from 'msm-cuda/snarkjs';
     export const piA: Promise<string> = groth16Prove('circuit.zkey', new Uint8Array(0), { backend: 'cpu', logger: console }).then((r) => r.proof.pi_a[0]);
     // @ts-expect-error: not a curve
     msm('secp256k1', [], []);
     // @ts-expect-error: not a backend
     msm('bn254', [], [], { backend: 'gpu' });
    `,
  );
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'node16', '--moduleResolution', 'node16', '--target', 'es2022', '--types', 'node', 'consumer.ts'], { cwd: app() });
  // and one whose resolution predates package.json "exports" (typesVersions maps the subpath)
  execFileSync(process.execPath, [tsc, '--noEmit', '--strict', '--module', 'commonjs', '--moduleResolution', 'node10', '--target', 'es2022', '--types', 'node', 'consumer.ts'], { cwd: app() });
});

// The README states the minimum (the ESM-only @noble/curves, which the tests and the CLI's check
// load, declares Node ≥ 20.19; cmake-js, which builds from source, ^20.17 || ≥ 22.9).
test("the README's Node.js minimum is package.json's engines.node, and this Node meets it", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const stated = [...readme.matchAll(/Node(?:\.js)? ≥ (\d+(?:\.\d+)*)/g)].map((m) => m[1]);
  expect(stated.length).toBeGreaterThan(0);
  expect(new Set(stated).size).toBe(1);
  expect(pkg.engines.node).toBe(`>=${stated[0]}`);
  const want = stated[0].split('.').map(Number);
  const have = process.versions.node.split('.').map(Number);
  const cmp = want.map((w, i) => Math.sign((have[i] ?? 0) - w)).find((d) => d !== 0) ?? 0;
  expect({ node: process.versions.node, meets: cmp >= 0 }).toEqual({ node: process.versions.node, meets: true });
});
