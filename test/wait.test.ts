// lib/wait.ts: a CUDA call's wait keeps the event loop turning (setImmediate) from a given time
// until the call settles, then stops; its value and its error pass through. The calls are
// promises settled by hand, so that nothing here races the machine's load.
import { CallWaits, turning } from '../lib/wait';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function deferred<T>() {
  let resolve!: (v: T) => void, reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('wait', () => {
  let immediates: jest.SpyInstance;
  // No setImmediate over 10 ms, once the call's settling has gone through the loop.
  const expectStopped = async () => {
    await sleep(10);
    const after = immediates.mock.calls.length;
    await sleep(10);
    expect(immediates.mock.calls.length).toBe(after);
  };
  beforeEach(() => {
    immediates = jest.spyOn(global, 'setImmediate');
  });
  afterEach(() => jest.restoreAllMocks());

  test('from 0 the loop turns at once, and stops when the call settles', async () => {
    const call = deferred<string>();
    const w = turning(call.promise, 0);
    await sleep(10);
    const turned = immediates.mock.calls.length;
    expect(turned).toBeGreaterThan(1);
    call.resolve('done');
    await expect(w).resolves.toBe('done');
    await expectStopped();
  });

  test('from a later time: a timer first, the turning only once it fires', async () => {
    const timeouts = jest.spyOn(global, 'setTimeout');
    const clears = jest.spyOn(global, 'clearTimeout');
    const call = deferred<number>();
    const w = turning(call.promise, 150.7);
    expect(timeouts.mock.calls.some((c) => c[1] === 150)).toBe(true);
    await sleep(10);
    expect(immediates).not.toHaveBeenCalled();
    await sleep(200);
    expect(immediates.mock.calls.length).toBeGreaterThan(1);
    call.resolve(7);
    await expect(w).resolves.toBe(7);
    expect(clears).toHaveBeenCalled();
  });

  test('a call that settles before the timer clears it; an error passes through', async () => {
    const clears = jest.spyOn(global, 'clearTimeout');
    const call = deferred<number>();
    const w = turning(call.promise, 5000);
    call.resolve(1);
    await expect(w).resolves.toBe(1);
    expect(clears).toHaveBeenCalled();
    expect(immediates).not.toHaveBeenCalled();
    const failing = deferred<number>();
    const f = turning(failing.promise, 0);
    failing.reject(new Error('native failure'));
    await expect(f).rejects.toThrow('native failure');
    await expectStopped();
  });

  test("a context's waits: the first turns at once, a later one from its share of the previous wait", async () => {
    const waits = new CallWaits();
    const first = deferred<string>();
    const a = waits.wait(first.promise, 1);
    await sleep(5);
    expect(immediates.mock.calls.length).toBeGreaterThan(0); // no estimate yet
    await sleep(300);
    first.resolve('a');
    await a;
    await sleep(10);
    // ≥ 300 ms per set before: a batch of two waits ≥ 0.85·600 − 0.3 ms before it turns
    const timeouts = jest.spyOn(global, 'setTimeout');
    immediates.mockClear();
    const second = deferred<string>();
    const b = waits.wait(second.promise, 2);
    const delay = timeouts.mock.calls.map((c) => c[1] ?? 0).find((ms) => ms >= 500);
    expect(delay).toBeDefined();
    await sleep(20);
    expect(immediates).not.toHaveBeenCalled();
    second.resolve('b');
    await expect(b).resolves.toBe('b');
  });
});
