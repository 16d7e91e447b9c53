// The ES module entry (`import { Database } from 'graphdb'`). The package's implementation is
// CommonJS (index.ts, built to dist/index.js), so that `require('graphdb')` works on every
// Node >= 20 and in Electron; this module only re-exports it. Both entries therefore share one
// instance of each class and of the loaded addon, whichever way each part of an application
// reaches the package: `instanceof GraphDBError` holds across them. The default export is the
// CommonJS module itself, for `import graphdb from 'graphdb'`.
export * from './index.js';
export { default } from './index.js';
