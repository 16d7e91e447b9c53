// The ES module entry of `quiverdb/langchain`: it re-exports the CommonJS module (index.ts), so
// both entries share one instance of each class.
export * from './index.js';
