// The ES module entry (`import { Database } from 'quiverdb'`). The package's implementation is
// CommonJS (index.ts, built to dist/index.js), so that `require('quiverdb')` works on every
// Node >= 20 and in Electron; this module only re-exports it. Both entries therefore share one
// instance of each class and of the loaded addon, whichever way each part of an application
// reaches the package: `instanceof GraphDBError` holds across them. The default export is the
// CommonJS module itself, for `import quiverdb from 'quiverdb'`.
export * from './index.js';
export { default } from './index.js';
