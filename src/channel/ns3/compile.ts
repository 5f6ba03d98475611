import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { EnvironmentError } from '../../errors.js';
import type { CommandRunner } from '../../host/exec/command-runner.js';
import { defaultCacheDir } from '../../util/cache-dir.js';
import { packageRoot } from '../../util/package-root.js';

export { defaultCacheDir };

/** What the real-time channel program (and a user's own, by default) links: csma, latency and 802.11p with TapBridge. */
export const NS3_PKG_MODULES = ['ns3-core', 'ns3-network', 'ns3-csma', 'ns3-tap-bridge', 'ns3-wifi', 'ns3-mobility', 'ns3-propagation'];

export const builtinChannelScript = (name = 'channel-tap') => join(packageRoot(), 'ns3-scripts', `${name}.cc`);

/**
 * Compiles a channel program against the system's ns-3 once; the binary is cached under a name
 * made of the source's SHA-256 and the ns-3 version, so an edit or an ns-3 upgrade rebuilds.
 */
export async function compileChannelProgram(
  sourcePath: string,
  deps: { runner: CommandRunner; cacheDir?: string; extraModules?: string[]; modules?: string[]; defines?: string[] },
): Promise<string> {
  const { runner } = deps;
  const version = await runner.run(['pkg-config', '--modversion', 'ns3-core'], { allowFailure: true });
  if (version.exitCode !== 0) {
    throw new EnvironmentError('ns-3 development files not found (pkg-config ns3-core)', 'run scripts/setup-ns3.sh as root');
  }
  const modules = [...(deps.modules ?? NS3_PKG_MODULES), ...(deps.extraModules ?? [])];
  const hash = createHash('sha256');
  const defines = (deps.defines ?? []).map((d) => `-D${d}`);
  hash.update(readFileSync(sourcePath)).update(modules.join(',')).update(defines.join(' '));
  for (const header of sharedHeaders(sourcePath)) hash.update(header).update(readFileSync(header));
  const digest = hash.digest('hex').slice(0, 16);
  const dir = join(deps.cacheDir ?? defaultCacheDir(), 'ns3');
  const binary = join(dir, `${basename(sourcePath).replace(/\.cc$/, '')}-ns${version.stdout.trim()}-${digest}`);
  if (existsSync(binary)) return binary;

  mkdirSync(dir, { recursive: true });
  const flags = await runner.run(['pkg-config', '--cflags', '--libs', ...modules]);
  const tmp = `${binary}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`; // worker threads share the pid
  await runner.run(['g++', '-O2', '-std=c++17', ...defines, '-o', tmp, sourcePath, ...splitFlags(flags.stdout)]);
  renameSync(tmp, binary); // atomic: a concurrent compile of the same source is harmless
  return binary;
}

/** Headers in the `lib/` folder beside a program (the built-in programs share their channel models there). */
function sharedHeaders(sourcePath: string): string[] {
  const lib = join(dirname(sourcePath), 'lib');
  return existsSync(lib)
    ? readdirSync(lib)
        .filter((f) => f.endsWith('.h'))
        .sort()
        .map((f) => join(lib, f))
    : [];
}

/** pkg-config output split on whitespace; Debian's ns-3 .pc files contain a stray `-I/usr\;`. */
export function splitFlags(text: string): string[] {
  return text
    .split(/\s+/)
    .filter(Boolean)
    .filter((f) => !/^-I.*[;\\]$/.test(f));
}
