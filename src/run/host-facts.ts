import { readFileSync } from 'node:fs';
import { platform, release } from 'node:os';
import { join } from 'node:path';
import { commandOutput } from '../host/exec/command-output.js';
import type { CommandRunner } from '../host/exec/command-runner.js';
import { packageRoot } from '../util/package-root.js';
import { readHeadCommit } from './git-head.js';

/** What a run's result depends on besides its scenario: this cavsim, Node, the kernel, ns-3. */
export interface HostFacts {
  cavsim: { version: string; commit: string | null; modified: boolean | null };
  node: string;
  kernel: string;
  platform: string;
  ns3: string | null;
}

const PACKAGE_ROOT = packageRoot();

let asked: Promise<HostFacts> | undefined;

/**
 * Asked once per process: a sweep writes a manifest for every run without paying for it again.
 * A command that will write a manifest asks early (without waiting), so git and pkg-config run
 * while it loads its scenario. `runner`: run the commands through it instead (tests).
 */
export function hostFacts(runner?: CommandRunner): Promise<HostFacts> {
  asked ??= readHostFacts(runner ? outputThrough(runner) : commandOutput);
  return asked;
}

const outputThrough = (runner: CommandRunner) => async (argv: readonly string[]) => {
  const r = await runner.run(argv, { allowFailure: true }).catch(() => undefined);
  return r?.exitCode === 0 ? r.stdout.trim() : null;
};

async function readHostFacts(output: (argv: readonly string[]) => Promise<string | null>): Promise<HostFacts> {
  const [commit, changes, ns3] = await Promise.all([
    readHeadCommit(PACKAGE_ROOT) ?? output(['git', '-C', PACKAGE_ROOT, 'rev-parse', 'HEAD']),
    output(['git', '-C', PACKAGE_ROOT, 'status', '--porcelain', '--untracked-files=no']),
    output(['pkg-config', '--modversion', 'ns3-core']),
  ]);
  return {
    cavsim: { version: packageVersion(), commit, modified: commit === null || changes === null ? null : changes.length > 0 },
    node: process.version,
    kernel: release(),
    platform: platform(),
    ns3: ns3 || null,
  };
}

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}
