export * from './endpoints.js';
export * from './query/index.js';
export * from './response/index.js';
