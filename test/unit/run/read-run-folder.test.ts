import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { checkRunFolder, readRunScenario, readRunSummary } from '../../../src/run/read-run-folder.js';

const root = mkdtempSync(join(tmpdir(), 'cavsim-read-run-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A run folder holding the given files. */
function runFolder(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
  return dir;
}

const SUMMARY = {
  schema: 'cavsim.summary/1',
  run_id: 'r',
  status: 'completed',
  sim_time_s: 5,
  wall_time_s: 0.1,
  collision: false,
  v2v: {},
  events: [],
  collisions: [],
};
const message = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(UserInputError);
    return (err as UserInputError).message;
  }
  throw new Error('not refused');
};

describe('reading a run folder', () => {
  it('names a folder that does not exist, or is a file, with how to find run folders', () => {
    const file = join(root, 'a-file');
    writeFileSync(file, 'x');
    expect(message(() => checkRunFolder(join(root, 'nope')))).toBe(`${join(root, 'nope')}: no such run folder`);
    expect(message(() => checkRunFolder(join(file, 'deeper')))).toMatch(/no such run folder/);
    expect(message(() => checkRunFolder(file))).toBe(`${file} is a file, not a run folder`);
    expect(message(() => readRunSummary(file))).toMatch(/is a file, not a run folder/);
  });

  it('names a missing, damaged or foreign summary.json', () => {
    expect(message(() => readRunSummary(runFolder('empty', {})))).toMatch(/empty has no summary.json: the run has not finished/);
    expect(message(() => readRunSummary(runFolder('damaged', { 'summary.json': '{not json' })))).toMatch(
      /damaged\/summary.json is damaged: not valid JSON/,
    );
    for (const [name, text] of [
      ['null', 'null'],
      ['array', '[]'],
      ['bare', '{"schema":"cavsim.summary/1"}'],
      ['other', JSON.stringify({ ...SUMMARY, schema: 'x' })],
    ]) {
      expect(
        message(() => readRunSummary(runFolder(name, { 'summary.json': text }))),
        name,
      ).toMatch(/summary.json is not a cavsim run summary/);
    }
  });

  it('says a run folder without a summary did not finish, how far its CSVs go, and what reads them', () => {
    const header = 't_s,vehicle,x_m\n';
    const killed = runFolder('killed', {
      'scenario.resolved.json': '{}',
      'vehicles.csv': `${header}126.48,car0,1\n126.49,car0,2\n126.5,car`,
    });
    const text = (dir: string) => {
      try {
        readRunSummary(dir);
      } catch (err) {
        return `${(err as UserInputError).message} ${(err as UserInputError).details.join(' ')} ${(err as UserInputError).hint}`;
      }
      throw new Error('not refused');
    };
    expect(text(killed)).toMatch(
      /killed has no summary.json: the run did not finish .*vehicles.csv up to t=126.49 s .*cavsim mcap .*killed/,
    );
    expect(text(runFolder('killed-at-start', { 'scenario.resolved.json': '{}', 'vehicles.csv': header }))).not.toMatch(/up to t=/);
    const long = Array.from({ length: 5000 }, (_, i) => `${i / 100},car0,${i}`).join('\n');
    expect(text(runFolder('killed-long', { 'scenario.resolved.json': '{}', 'vehicles.csv': `${header}${long}\n` }))).toMatch(
      /up to t=49.99 s/,
    );
  });

  it('returns a summary that has what its readers use', () => {
    expect(readRunSummary(runFolder('good', { 'summary.json': JSON.stringify(SUMMARY) })).run_id).toBe('r');
  });

  it('refuses a scenario.resolved.json that is damaged or lacks what a viewer reads', () => {
    const missing = new UserInputError('no scenario');
    expect(message(() => readRunScenario(runFolder('no-scenario', {}), missing))).toBe('no scenario');
    expect(message(() => readRunScenario(runFolder('bad-scenario', { 'scenario.resolved.json': '{' }), missing))).toMatch(/is damaged/);
    for (const text of ['null', '{}', '{"mapFile":"m.yaml","network":{},"physics":{},"vehicles":[{"name":"car0"}]}']) {
      expect(
        message(() => readRunScenario(runFolder('foreign', { 'scenario.resolved.json': text }), missing)),
        text,
      ).toMatch(/is not a resolved cavsim scenario/);
    }
    const scenario = {
      mapFile: 'm.yaml',
      network: { delay: 0.01 },
      physics: { timestep: 0.01 },
      vehicles: [{ name: 'car0', params: {}, controller: { type: 'pure-pursuit', waypoints: [] } }],
    };
    expect(readRunScenario(runFolder('ok', { 'scenario.resolved.json': JSON.stringify(scenario) }), missing).mapFile).toBe('m.yaml');
  });
});
