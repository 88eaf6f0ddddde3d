// The two addons over one core: the product addon (what `npm install` builds and prebuilds ship)
// exports the public API and nothing else; the test addon, built with the tests, links the same
// core (same curves, same CUDA choice).

import { info } from '../lib';
import { loadNative } from '../lib/native';
import { testingAddon } from './support/testing';

test('the product addon exports info, createContext, copyBytes, fieldTransform and groth16Qap, nothing else', () => {
  expect(Object.keys(loadNative()).sort()).toEqual(['copyBytes', 'createContext', 'fieldTransform', 'groth16Qap', 'info']);
});

test('the test addon is built from the same core as the product addon', () => {
  const t = testingAddon();
  expect(t.cudaCompiled).toBe(info().cuda.compiled);
  for (const curve of info().curves) expect(t.numWindows(curve, 16)).toBeGreaterThan(0);
});
