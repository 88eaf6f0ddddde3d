// The assertion most error tests make: a call rejects with an MsmError of this code and index.

import { MsmContext, MsmError, type MsmErrorCode } from '../../lib';

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
