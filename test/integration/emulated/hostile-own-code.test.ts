import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScenarioEmulated } from '../../../src/api/run-emulated.js';
import { REFUSALS_INVALID_AFTER } from '../../../src/measurement/refusal-log.js';
import { listActiveRuns } from '../../../src/run/active-runs.js';
import { dockerProblem, ns3Problem, requireReal, rootProblem } from '../../support/real-components.js';
import { emulatedHostState } from './host-state.js';

/**
 * Issue 52 in the emulated runtime: the hostile program (test/support/own-code/hostile-vehicle.mjs)
 * as car3's own code, in an image, beside the shipped cam-highway cars. Its V2V relay refuses its
 * self- and unknown-addressed sends (never reaching ns-3), marks its malformed CAMs, and every
 * receiver's gate drops them: `malformed` in v2v.csv, counted once in summary.json's refusals, in
 * no CAM figure; the run is invalid for it, never failed. Needs root, Docker and ns-3.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CLI = join(ROOT, 'dist/cli/main.js');
const IMAGE = `cavsim-test/hostile-vehicle:${process.pid}-${randomBytes(3).toString('hex')}`;
const workDir = mkdtempSync(join(tmpdir(), 'cavsim-hostile-emulated-'));
const runsDir = join(workDir, 'runs');
mkdirSync(runsDir);
const stateDir = mkdtempSync(join(tmpdir(), 'cavsim-state-'));
process.env.CAVSIM_STATE_DIR = stateDir;

const real = requireReal('emulated/hostile-own-code.test.ts', rootProblem() ?? ns3Problem() ?? (await dockerProblem()));

function run(argv: string[]) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}):\n${r.stderr}`);
}

/** The program on cavsim's vehicle image, where it finds cavsim's dist/ as it does in the repository. */
function buildImage(): void {
  const context = join(workDir, 'image');
  mkdirSync(context);
  copyFileSync(join(ROOT, 'test/support/own-code/hostile-vehicle.mjs'), join(context, 'hostile-vehicle.mjs'));
  writeFileSync(
    join(context, 'Dockerfile'),
    'FROM cavsim/vehicle:latest\nCOPY hostile-vehicle.mjs /opt/cavsim/test/support/own-code/hostile-vehicle.mjs\n',
  );
  run(['docker', 'build', '-q', '-t', IMAGE, context]);
}

function writeScenario(): string {
  const text = readFileSync(join(ROOT, 'scenarios/cam-highway.yaml'), 'utf8').replaceAll('../maps/', join(ROOT, 'maps/'));
  const car3 = `  - name: car3\n    start: { x: 60, y: 1, yaw: 0, speed: 2 }\n    image: ${IMAGE}\n    command: [node, /opt/cavsim/test/support/own-code/hostile-vehicle.mjs]\n`;
  const file = join(workDir, 'cam-highway-hostile.yaml');
  writeFileSync(file, `${text.trimEnd()}\n${car3}`);
  return file;
}

const rows = (dir: string, file: string) => parse(readFileSync(join(dir, file), 'utf8'), { columns: true }) as Record<string, string>[];

afterAll(() => {
  spawnSync('docker', ['image', 'rm', IMAGE], { encoding: 'utf8' });
  rmSync(workDir, { recursive: true, force: true });
  rmSync(stateDir, { recursive: true, force: true });
});

describe.skipIf(real.skip)('a hostile own-code car in the emulated runtime (Docker + ns-3)', () => {
  let before: ReturnType<typeof emulatedHostState>;
  beforeAll(() => {
    real.assertPresent();
    run(['node', CLI, 'images']);
    buildImage();
    before = emulatedHostState();
  });

  it('refused at its relay, dropped at every receiver’s gate, counted in summary.json, in no CAM figure', async () => {
    const { summary, runDir } = await runScenarioEmulated(writeScenario(), { runsDir });
    expect(summary.status, summary.reason).toBe('invalid');
    expect(summary.reason).toMatch(new RegExp(`car3 sent \\d+ messages the run refused \\(more than ${REFUSALS_INVALID_AFTER}: `));
    const by = summary.refusals!.cars.car3.by_reason;
    // to itself, to "car9", to "car0 car3", to "\u0000": refused before ns-3, with the simulated runtime's reasons
    expect(by['v2v-destination']?.count).toBe(4);
    // every reason is in the relay's log (events keep only the first refusals of a car, whichever came first)
    const relayLog = readdirSync(join(runDir, 'logs')).find((f) => f.endsWith('car3-v2v.log'))!;
    const notSent = readFileSync(join(runDir, 'logs', relayLog), 'utf8')
      .split('\n')
      .map((line) => /not sent: (.*)$/.exec(line)?.[1])
      .filter((reason) => reason !== undefined && !reason.includes('GeoNetworking'));
    expect(notSent).toEqual([
      'addressed to the sending car itself',
      '"car9" is no car of this run',
      `"car0 car3" is not a car's name`,
      `"\\u0000" is not a car's name`,
    ]);
    // stamped from the future (2^53+1 s, 10^12 s), "yesterday", null, a fraction of a nanosecond: refused by the simulator's link, as in sim
    expect(by['drive-stamp']?.count).toBe(5);
    // /sim_control, car0's /drive, car0's received messages, and a receipt for itself on /cavsim/v2v,
    // which only its relay (known by its privileged source port) may report
    expect(by['not-allowed']?.count).toBe(4);
    const v2v = rows(runDir, 'v2v.csv');
    expect(v2v.filter((r) => r.id === 'car0-forged')).toEqual([]);
    expect(v2v.filter((r) => r.from === 'car3' && ['car3', 'car9'].includes(r.to))).toEqual([]);
    // every malformed CAM was on the air, dropped by each receiver that got it, and counted once
    const malformedIds = new Set(v2v.filter((r) => r.outcome === 'malformed').map((r) => r.id));
    expect(malformedIds.size).toBeGreaterThan(20);
    expect([...malformedIds].every((id) => id.startsWith('car3-'))).toBe(true);
    expect(by.malformed!.count).toBeGreaterThanOrEqual(malformedIds.size);
    expect(v2v.filter((r) => r.from === 'car3' && ['cam', 'denm', 'cpm'].includes(r.type) && r.outcome === 'delivered')).toEqual([]);
    expect(summary.v2v.cam?.senders.map((s) => s.vehicle) ?? []).not.toContain('car3');
    expect(summary.v2v.cam?.pairs.filter((p) => p.from === 'car3') ?? []).toEqual([]);
    // the honest cars' CAMs still arrive
    expect(v2v.some((r) => r.from === 'car0' && r.type === 'cam' && r.outcome === 'delivered')).toBe(true);

    expect(emulatedHostState()).toEqual(before);
    expect(listActiveRuns()).toEqual([]);
  });
});
