import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/**
 * Compiles the programs that must run as separate processes (inside namespaces, or to be killed)
 * into node_modules/.cache, so the tests work from a clean clone without `npm run build` and do
 * not depend on other areas of the tree compiling.
 */
export function buildEntryPoints(): { probe: string; setupChild: string; helper: string } {
  const outDir = join(repoRoot, 'node_modules/.cache/cavsim-hostnet-it');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const entries = [
    'bench/testbed/probe-main.ts',
    'src/host/network/privileged-helper.ts',
    'test/integration/hostnet/fixtures/setup-child.ts',
  ];
  execFileSync(
    process.execPath,
    [
      tsc,
      '--outDir',
      outDir,
      '--rootDir',
      repoRoot,
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--target',
      'ES2022',
      '--lib',
      'ES2023',
      '--types',
      'node',
      '--strict',
      '--skipLibCheck',
      '--esModuleInterop',
      ...entries,
    ],
    { cwd: repoRoot, stdio: 'pipe' },
  );
  const probe = join(outDir, 'bench/testbed/probe-main.js');
  const setupChild = join(outDir, 'test/integration/hostnet/fixtures/setup-child.js');
  const helper = join(outDir, 'src/host/network/privileged-helper.js');
  for (const f of [probe, setupChild, helper]) if (!existsSync(f)) throw new Error(`build did not produce ${f}`);
  return { probe, setupChild, helper };
}
