export * from './endpoints.js';
export * from './query/index.js';
