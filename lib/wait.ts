// The JS thread's wait for a CUDA call's result. The addon's worker thread hands the result to
// JavaScript through the event loop, and a loop asleep in epoll took 45–240 µs to wake for it on
// the GPU machines' host (BN254 2^20: worker done → promise settled, bench/gpu-notes.md), 1–6 % of
// a call at the sizes provers use. A loop kept turning by setImmediate sees the completion within
// microseconds. So a call's wait keeps the loop turning from a little before its result is due
// (the context's previous call, per scalar set, sets when) until it settles: one core busy for the
// end of each call; timers, I/O and other callbacks run meanwhile as usual.

/** From this share of the previous call's wait on, less EARLY_MS, the loop turns. */
const SHARE = 0.85;
const EARLY_MS = 0.3;

/** The wait for a CUDA call's promise `p`, keeping the event loop turning from `fromMs` on (0: at once). */
export function turning<T>(p: Promise<T>, fromMs: number): Promise<T> {
  let settled = false;
  const turn = (): void => {
    if (!settled) setImmediate(turn);
  };
  const timer = fromMs >= 1 ? setTimeout(turn, Math.floor(fromMs)) : (turn(), undefined);
  return p.finally(() => {
    settled = true;
    if (timer) clearTimeout(timer);
  });
}

/** Waits of one context's CUDA calls: each turns the loop from when the previous one suggests. */
export class CallWaits {
  #msPerSet = 0; // the last call's wait per scalar set; 0: none yet

  async wait<T>(p: Promise<T>, sets: number): Promise<T> {
    const t0 = performance.now();
    const v = await turning(p, this.#msPerSet > 0 ? SHARE * this.#msPerSet * sets - EARLY_MS : 0);
    this.#msPerSet = (performance.now() - t0) / Math.max(sets, 1);
    return v;
  }
}
