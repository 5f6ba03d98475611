import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nodesInCycles } from '../../support/cycles.js';
import { readSources, type SourceFile } from '../../support/source-imports.js';

/** src/ file by file: no import circles, and no file that holds more than one job. */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Files in import cycles, counting every import (type-only ones too: they still tie the files together). */
function filesInCycles(files: SourceFile[]): string[] {
  const known = new Set(files.map((f) => f.path));
  const edges = new Map(files.map((f) => [f.path, new Set(f.localImports.filter((t) => known.has(t)))]));
  return nodesInCycles(edges);
}

const sources = readSources(ROOT, 'src');

/** A file longer than this holds more than one job: split it by what it holds. */
const MAX_LINES = 450;

describe('src/ as files', () => {
  it(`no file over ${MAX_LINES} lines`, () => {
    const lines = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n').length - 1;
    expect(sources.filter((f) => lines(f.path) > MAX_LINES).map((f) => `${f.path}: ${lines(f.path)} lines`)).toEqual([]);
  });

  it('no file-level import cycle', () => {
    expect(filesInCycles(sources), 'these files import each other in a circle: move what closes it to a file of its own').toEqual([]);
  });
});

describe('the cycle check', () => {
  const file = (path: string, ...targets: string[]): SourceFile => ({ path, imports: [], localImports: targets });

  it('find a file cycle', () => {
    expect(filesInCycles([file('src/a.ts', 'src/b.ts'), file('src/b.ts', 'src/a.ts'), file('src/c.ts', 'src/a.ts')])).toEqual([
      'src/a.ts',
      'src/b.ts',
    ]);
  });
});
