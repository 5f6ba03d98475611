import { createRequire } from 'node:module';

/**
 * `require` for the CommonJS packages on the paths that must start fast (commander, yaml, pngjs,
 * csv-parse, zod). Node 20 imports a CommonJS package into ESM by first scanning its source for the
 * names it exports (and csv-parse's ESM build is ten modules to its CommonJS one): `require`
 * loads commander in about half the time. It is the same module instance that `import` gives,
 * so the two can be mixed (not for a package with an ESM build of its own, as zod: util/zod.ts);
 * and `require` lets a package load on first use in code that is synchronous (the PNG decoder
 * with the first PNG map).
 */
export const requireCjs = createRequire(import.meta.url);
