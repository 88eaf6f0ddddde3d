// The tests' environment: jest's node environment, and in the worker process that runs it a JSON
// form for BigInt. jest's workers send a failed assertion's values to the parent as JSON, which has
// no BigInt: a failing comparison of curve points then reported only "Do not know how to serialize
// a BigInt" (jestjs/jest#11617) and hid which values differed. This module is loaded outside the
// tests' own context, whose BigInt.prototype is another one, so the tests themselves see no change.
// jest's own node environment, resolved from jest (whose dependency it is).
const { TestEnvironment } = require(require.resolve('jest-environment-node', { paths: [require.resolve('jest')] }));

if (!Object.prototype.hasOwnProperty.call(BigInt.prototype, 'toJSON')) {
  Object.defineProperty(BigInt.prototype, 'toJSON', {
    value: function toJSON() {
      return `${this.toString()}n`;
    },
    configurable: true,
    writable: true,
  });
}

module.exports = TestEnvironment;
