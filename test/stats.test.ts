// lib/stats.ts: the median the CLI and the benchmarks report.
import { median } from '../lib/stats';

test('median: the middle value of an odd count, the mean of the two middle ones of an even count', () => {
  expect(median([5])).toBe(5);
  expect(median([3, 1, 2])).toBe(2);
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([10, 10, 1, 1000, 10])).toBe(10);
});

test('median: the input is left in its order, and no values is an error', () => {
  const xs = [3, 1, 2];
  median(xs);
  expect(xs).toEqual([3, 1, 2]);
  expect(() => median([])).toThrow('median of no values');
});
