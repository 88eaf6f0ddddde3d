// Fixed vectors (test/vectors/msm.json, written by test/vectors/make.js with its own bigint
// arithmetic): each is re-checked on the bigint model, then computed by the CPU backend from
// objects and from packed LEM bytes.

import fs = require('fs');
import path = require('path');
import { CURVES, msm, type AffinePoint, type CurveName } from '../lib';
import { encodePoints, encodeScalars } from '../lib/encoding';
import { onCurve } from './model/ec';
import { msmNaive } from './model/msm';
import { fieldOf, fromModel, toModel } from './support/data';

interface Vector {
  curve: CurveName;
  label: string;
  points: { x: string; y: string }[];
  scalars: string[];
  result: { x: string; y: string };
}

const file = JSON.parse(fs.readFileSync(path.join(__dirname, 'vectors', 'msm.json'), 'utf8')) as { vectors: Vector[] };
const pt = (o: { x: string; y: string }): AffinePoint => ({ x: BigInt(o.x), y: BigInt(o.y) });
const cases = file.vectors.map((v) => [`${v.curve}: ${v.label}`, v] as const);

test('the vector file covers every curve', () => {
  expect(new Set(file.vectors.map((v) => v.curve))).toEqual(new Set(Object.keys(CURVES)));
});

test.each(cases)('%s', async (_name, v) => {
  const c = CURVES[v.curve];
  const F = fieldOf(c);
  const points = v.points.map(pt);
  const scalars = v.scalars.map((s) => BigInt(s));
  const want = pt(v.result);
  expect(points.every((P) => onCurve(F, toModel(P)))).toBe(true);
  expect(fromModel(msmNaive(F, points.map(toModel), scalars))).toEqual(want);
  expect(await msm(v.curve, points, scalars, { backend: 'cpu' })).toEqual(want);
  const lem = encodePoints(c, points, 'montgomery');
  expect(await msm(v.curve, lem, encodeScalars(c, scalars, 'montgomery'), { backend: 'cpu', pointFormat: 'lem', scalarFormat: 'montgomery' })).toEqual(want);
});
