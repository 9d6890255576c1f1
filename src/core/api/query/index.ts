export * from './advisory.js';
export * from './backup.js';
export * from './common.js';
export * from './cpe-search.js';
export * from './target-intel.js';
export * from './c2-lists.js';
