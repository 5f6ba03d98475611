import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Strips block comments and whole-line `//` comments, so commented-out code does not count. */
export function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

/** Every module specifier a file imports: static and type imports, re-exports, `import()`, `require()`, `requireCjs()`. */
export function importedModules(source: string): string[] {
  return specifiersIn(stripComments(source));
}

/** The modules a file loads when it runs: as `importedModules`, without `import type` / `export type` (TypeScript erases them). */
export function loadedModules(source: string): string[] {
  return specifiersIn(
    stripComments(source).replace(/\b(?:import|export)\s+type\s*(?:\{[^}]*\}|\*(?:\s+as\s+\w+)?|\w+)\s*from\s*['"][^'"]+['"]/g, ''),
  );
}

function specifiersIn(code: string): string[] {
  const patterns = [
    /\bfrom\s*['"]([^'"]+)['"]/g, // import ... from 'x' / export ... from 'x' (also across lines)
    /\bimport\s*['"]([^'"]+)['"]/g, // import 'x'
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('x')
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // require('x')
    /\brequireCjs\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // requireCjs('x') (src/util/require-cjs.ts)
  ];
  return patterns.flatMap((re) => [...code.matchAll(re)].map((m) => m[1]));
}

/** The .ts/.tsx files under `dir` (declaration files left out). */
export function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

export interface SourceFile {
  /** Repo-relative, with forward slashes. */
  path: string;
  /** Bare specifiers as written. */
  imports: string[];
  /** Relative imports resolved to repo-relative paths of the .ts source (`x.js` -> `x.ts`). */
  localImports: string[];
}

const toPosix = (p: string) => p.split('\\').join('/');

/** Reads every source file under `root/dir` with its imports. */
export function readSources(root: string, dir: string): SourceFile[] {
  return sourceFiles(join(root, dir)).map((abs) => {
    const imports = importedModules(readFileSync(abs, 'utf8'));
    const localImports = imports
      .filter((s) => s.startsWith('.'))
      .map((s) => toPosix(relative(root, resolve(dirname(abs), s))).replace(/\.js$/, '.ts'));
    return { path: toPosix(relative(root, abs)), imports, localImports };
  });
}
