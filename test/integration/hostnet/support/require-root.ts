import { execFileSync } from 'node:child_process';

/**
 * These tests need root and ns-3. Without them they are skipped on a developer machine and FAIL in
 * CI (CI=true), so a misconfigured runner can never report them green.
 */
export function missingPrerequisite(): string | undefined {
  if (process.getuid?.() !== 0) return 'host-network integration tests need root (run as root or via sudo)';
  try {
    execFileSync('pkg-config', ['--exists', 'ns3-core', 'ns3-csma', 'ns3-tap-bridge']);
    execFileSync('iptables', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'ns-3 or iptables missing: run scripts/setup-ns3.sh as root';
  }
  return undefined;
}

export const mustRun = () => Boolean(process.env.CI);
