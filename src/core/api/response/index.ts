export * from './advisory.js';
export * from './backup.js';
export { Benchmark, ExportEnd, FilterMatch } from './common.js';
export * from './cpe-search.js';
export * from './error.js';
export * from './service.js';
export * from './target-intel.js';
export * from './c2-lists.js';
