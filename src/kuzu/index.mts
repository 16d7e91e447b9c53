// The ES module entry of `quiverdb/kuzu` (`import kuzu from 'quiverdb/kuzu'` or `import {
// Database } from 'quiverdb/kuzu'`): it re-exports the CommonJS module (index.ts), so both
// entries share one instance of each class.
export * from './index.js';
export { default } from './index.js';
