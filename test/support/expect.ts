// Shared assertions: a call rejects with an MsmError of a code and index; a native self-test passed.

import { MsmContext, MsmError, type MsmErrorCode } from '../../lib';
import type { SelftestResult } from './testing';

/**
 * p rejects with an MsmError of `code` and `index` (undefined: none), its message matching
 * `message` where given; a context it resolved to is closed.
 */
export async function rejects(p: Promise<unknown>, code: MsmErrorCode, index?: number, message?: RegExp): Promise<MsmError> {
  const e = await p.then(
    (v) => {
      if (v instanceof MsmContext) v.close();
      throw new Error(`expected ${code}, but it resolved`);
    },
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(MsmError);
  expect({ code: (e as MsmError).code, index: (e as MsmError).index }).toEqual({ code, index });
  if (message) expect((e as MsmError).message).toMatch(message);
  return e as MsmError;
}

/**
 * A native self-test's result (test/native): returned, no mismatch (the first one's description
 * shown), and `checked` exactly `count` or, with 'at least', no fewer.
 */
export function expectSelftest(r: SelftestResult | undefined, count: number, how: 'exactly' | 'at least' = 'exactly'): void {
  expect(r).toBeDefined();
  expect(r!.first).toBe('');
  expect(r!.mismatches).toBe(0);
  if (how === 'exactly') expect(r!.checked).toBe(count);
  else expect(r!.checked).toBeGreaterThanOrEqual(count);
}
