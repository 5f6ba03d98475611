import { spawnSync } from 'node:child_process';

/**
 * Integration and CLI tests run the compiled code (as containers and the privileged helper do):
 * build it once. Type errors do not stop the build here (tsc still emits); scripts/test.sh runs
 * the type check on its own before the tests.
 */
export default function setup(): void {
  const r = spawnSync('npx', ['tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  if (r.status !== 0) console.warn('global-setup: tsc reported errors (see above); running tests on what it emitted');
}
