// node-gyp-build ships no type declarations.
declare module 'node-gyp-build' {
  function nodeGypBuild(dir: string): unknown;
  export = nodeGypBuild;
}
