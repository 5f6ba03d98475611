import { execFileSync } from 'node:child_process';

/** Integration and CLI tests run the compiled code (as containers and the privileged helper do): build it once. */
export default function setup(): void {
  execFileSync('npx', ['tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
}
