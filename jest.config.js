// TypeScript tests and the ESM-only @noble packages are compiled to CommonJS by swc.
module.exports = {
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  transform: { '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }] },
  transformIgnorePatterns: ['/node_modules/(?!(@noble)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'node'],
  testTimeout: 120000,
};
