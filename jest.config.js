// TypeScript tests and the ESM-only @noble packages are compiled to CommonJS by Babel
// (pure JavaScript: no platform binaries, so `npm ci` works from the lock file everywhere).
const babel = {
  presets: [['@babel/preset-typescript', { allowDeclareFields: true }]],
  plugins: ['@babel/plugin-transform-modules-commonjs', '@babel/plugin-transform-dynamic-import'],
  babelrc: false,
  configFile: false,
};
module.exports = {
  testEnvironment: '<rootDir>/test/support/environment.js', // node, and failed BigInt comparisons reported
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['babel-jest', babel] },
  transformIgnorePatterns: ['/node_modules/(?!(@noble)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  testTimeout: 120000,
};
