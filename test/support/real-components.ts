import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connectDocker } from '../../src/host/docker/dockerode-port.js';

/**
 * The one place that decides whether a test needing a real component (root, ns-3, Docker,
 * Chromium) runs. On a workstation a missing component skips the file with a printed warning; in
 * CI nothing is ever skipped: the file runs and `assertPresent()` fails it with the problem, so a
 * misconfigured runner can never report green without having exercised the real thing.
 *
 *   const real = requireReal('hostnet/teardown.test.ts', rootProblem() ?? ns3Problem());
 *   describe.skipIf(real.skip)('…', () => { beforeAll(() => real.assertPresent()); … });
 *
 * A problem is `undefined` when the component is there, otherwise a sentence ending in "; fix: …".
 */

/** True when CI is set to anything but '', '0' or 'false' (any case). */
export function inCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI;
  return ci !== undefined && !['', '0', 'false'].includes(ci.trim().toLowerCase());
}

export interface RealGate {
  /** True only outside CI, and only when something is missing. */
  readonly skip: boolean;
  /** Throws with the problem if something is missing; call it first thing in the file's beforeAll. */
  assertPresent(): void;
}

export function requireReal(what: string, problem: string | undefined): RealGate {
  const skip = problem !== undefined && !inCi();
  if (skip) console.warn(`SKIPPED: ${what}: ${problem}`);
  return {
    skip,
    assertPresent() {
      if (problem !== undefined) throw new Error(`${what} needs a real component that is missing (CI never skips): ${problem}`);
    },
  };
}

const succeeds = (command: string, args: string[]) => {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};

export function rootProblem(): string | undefined {
  if (process.getuid?.() === 0) return undefined;
  return 'not running as root; fix: run the tests as root (sudo scripts/test.sh)';
}

export function ns3Problem(): string | undefined {
  if (!succeeds('pkg-config', ['--exists', 'ns3-core', 'ns3-csma', 'ns3-tap-bridge'])) {
    return 'pkg-config finds no ns3-core, ns3-csma or ns3-tap-bridge; fix: sudo scripts/setup-ns3.sh';
  }
  if (!succeeds('iptables', ['-V'])) return 'iptables missing; fix: sudo scripts/setup-ns3.sh';
  return undefined;
}

/** ns-3's modules for the lock-step channel program, and a compiler to build it. */
export function ns3LockstepProblem(): string | undefined {
  if (!succeeds('pkg-config', ['--exists', 'ns3-core', 'ns3-network', 'ns3-csma', 'ns3-wifi', 'ns3-mobility', 'ns3-propagation', 'gsl'])) {
    return 'pkg-config finds no ns-3 csma, wifi, mobility or propagation module (or no gsl); fix: sudo scripts/setup-ns3.sh';
  }
  if (!succeeds('g++', ['--version'])) return 'no g++ to compile the channel program; fix: sudo scripts/setup-ns3.sh';
  return undefined;
}

/** Pings the engine; pass the client the test will use, or a fake. */
export async function dockerProblem(docker: { ping(): Promise<unknown> } = connectDocker()): Promise<string | undefined> {
  return docker.ping().then(
    () => undefined,
    (err: unknown) => `${err instanceof Error ? err.message : String(err)}; fix: sudo scripts/setup-docker.sh`,
  );
}

/** Debian's chromium, which the view's browser tests drive. */
export const CHROMIUM = '/usr/bin/chromium';

export function chromiumProblem(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return `${CHROMIUM} missing; fix: sudo scripts/setup-browser.sh (apt-get install chromium)`;
}

/** Debian's tshark, an independent decoder of the ITS messages cavsim writes to v2v.pcap. */
export function tsharkProblem(): string | undefined {
  if (succeeds('tshark', ['--version'])) return undefined;
  return 'tshark missing; fix: sudo scripts/setup-tshark.sh (apt-get install tshark)';
}
