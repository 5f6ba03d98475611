import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The code cache (src/util/code-cache.ts) as the CLI uses it, in processes of their own: each
 * loads a package from node_modules through it and exits, which writes the entries. Runs the
 * compiled code, which the global setup builds.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'cavsim-code-cache-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const driver = join(work, 'driver.mjs');
writeFileSync(
  driver,
  `import { createRequire } from 'node:module';
import { enableCodeCache } from ${JSON.stringify(join(ROOT, 'dist/util/code-cache.js'))};
enableCodeCache();
try {
  console.log(JSON.stringify(createRequire(import.meta.url)(process.argv[2])));
} catch (err) {
  console.log(JSON.stringify({ threw: err.message }));
}
`,
);

let packages = 0;
/** A package under node_modules: index.js requires a file beside it and reports what CommonJS gives a module. */
function makePackage(value: string): string {
  const dir = join(work, `app${packages++}`, 'node_modules', 'pkg');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'other.js'), `module.exports = ${JSON.stringify(value)};\n`);
  writeFileSync(
    join(dir, 'index.js'),
    `const other = require('./other');
module.exports = { other, self: this === exports, file: __filename, dir: __dirname, resolved: require.resolve('./other'), paths: Array.isArray(require.resolve.paths('x')), cached: require.cache[__filename] === module, main: require.main === undefined };
`,
  );
  return dir;
}

const load = (pkg: string, cache: string, env: Record<string, string> = {}) => {
  const r = spawnSync(process.execPath, [driver, join(pkg, 'index.js')], {
    encoding: 'utf8',
    env: { ...process.env, CAVSIM_CACHE_DIR: cache, ...env },
  });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as Record<string, unknown>;
};
/** The time npm gives every file it unpacks (1985-10-26T08:15:00Z). */
const NPM_TIME = 499162500;
const entries = (cache: string) => (existsSync(join(cache, 'code-cache')) ? readdirSync(join(cache, 'code-cache')) : []);
const written = (cache: string) => entries(cache).map((e) => statSync(join(cache, 'code-cache', e)).mtimeMs);

describe('the code cache of CommonJS files under node_modules', () => {
  it('gives a module what Node gives it, writes an entry per file on exit, and the next process uses them unchanged', () => {
    const pkg = makePackage('first');
    const cache = join(work, 'cache-a');
    const uncached = load(pkg, cache, { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(entries(cache)).toEqual([]);
    expect(uncached).toEqual({
      other: 'first',
      self: true,
      file: join(pkg, 'index.js'),
      dir: pkg,
      resolved: join(pkg, 'other.js'),
      paths: true,
      cached: true,
      main: true,
    });

    expect(load(pkg, cache)).toEqual(uncached);
    expect(entries(cache)).toHaveLength(2);
    const first = written(cache);
    expect(load(pkg, cache)).toEqual(uncached);
    expect(written(cache)).toEqual(first);
  });

  it('an edited file runs as edited, even at the same size and modification time (npm gives every file one time)', () => {
    const pkg = makePackage('first');
    const cache = join(work, 'cache-b');
    const other = join(pkg, 'other.js');
    utimesSync(other, NPM_TIME, NPM_TIME);
    expect(load(pkg, cache).other).toBe('first');
    writeFileSync(other, `module.exports = ${JSON.stringify('other')};\n`);
    utimesSync(other, NPM_TIME, NPM_TIME);
    expect(load(pkg, cache).other).toBe('other');
  });

  it("a module's error reaches its require as without the cache", () => {
    const pkg = makePackage('first');
    writeFileSync(join(pkg, 'other.js'), `throw new Error('broken package');\n`);
    const cache = join(work, 'cache-c');
    expect(load(pkg, cache)).toEqual({ threw: 'broken package' });
    expect(load(pkg, cache)).toEqual({ threw: 'broken package' });
  });

  it('is neither read nor written in a folder other users can write', () => {
    const pkg = makePackage('first');
    const cache = join(work, 'cache-d');
    mkdirSync(join(cache, 'code-cache'), { recursive: true });
    chmodSync(join(cache, 'code-cache'), 0o777);
    expect(load(pkg, cache).other).toBe('first');
    expect(entries(cache)).toEqual([]);
  });
});
