/** Style sheets are bundled by esbuild (scripts/build-portal.mjs). */
declare module '*.css';
