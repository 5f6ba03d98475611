import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

/**
 * A simulated run whose channel ns-3 does not run (the builtin engine) starts no process: not git,
 * pkg-config or g++ for its manifest or an engine it does not use, not ns-3. Every way src/ starts
 * one is spied on: node:child_process, execa (CommandRunner) and the posix_spawn addon.
 */
const started = vi.hoisted(() => [] as string[]);

vi.mock('node:child_process', async (original) => {
  const real = (await original()) as Record<string, unknown>;
  const spied = Object.fromEntries(
    Object.entries(real).map(([name, value]) => [
      name,
      typeof value === 'function' && /^(spawn|exec|fork)/.test(name)
        ? (...args: unknown[]) => {
            started.push(`child_process.${name} ${JSON.stringify(args[0])} ${JSON.stringify(args[1])}`);
            return (value as (...a: unknown[]) => unknown)(...args);
          }
        : value,
    ]),
  );
  return { ...spied, default: spied };
});
vi.mock('execa', async (original) => {
  const real = (await original()) as { execa: (...a: unknown[]) => unknown };
  return {
    ...real,
    execa: (...args: unknown[]) => {
      started.push(`execa ${JSON.stringify(args[0])} ${JSON.stringify(args[1])}`);
      return real.execa(...args);
    },
  };
});
vi.mock('../../../src/host/exec/start-piped-process.js', async (original) => {
  const real = (await original()) as typeof import('../../../src/host/exec/start-piped-process.js');
  return {
    ...real,
    startPipedProcess: (binary: string, args: readonly string[]) => {
      started.push(`piped ${binary} ${args.join(' ')}`);
      return real.startPipedProcess(binary, args);
    },
  };
});

const { runScenarioSimulated } = await import('../../../src/api/run-simulated.js');
const { hostFacts } = await import('../../../src/run/host-facts.js');
const { scratchDir } = await import('../../support/scratch-dir.js');

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

describe('a simulated run on the builtin engine', () => {
  it('starts no child process, from loading the scenario to the summary; its manifest says what it did not ask', async () => {
    const runsDir = scratchDir('cavsim-no-process-');
    started.length = 0;
    const run = await runScenarioSimulated(join(ROOT, 'scenarios/cpm-hidden-obstacle.yaml'), {
      runsDir,
      overrides: ['network.engine=builtin'],
      mcapByDefault: false,
    });
    expect(run.summary.status).toBe('completed');
    expect(started).toEqual([]);
    const manifest = (await import(join(run.runDir, 'manifest.json'), { with: { type: 'json' } })).default;
    expect([manifest.engine, manifest.ns3, manifest.cavsim.modified]).toEqual(['builtin', null, null]);
  });

  it('the spies see what a run that may use ns-3 asks of the host (git, pkg-config)', async () => {
    started.length = 0;
    await hostFacts({ processes: true });
    expect(started.some((s) => s.includes('"pkg-config"') && s.includes('ns3-core'))).toBe(true);
    expect(started.some((s) => s.includes('"git"') && s.includes('status'))).toBe(true);
  });
});
