import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findLastScenario } from '../../../src/run/last-scenario.js';

const root = mkdtempSync(join(tmpdir(), 'cavsim-last-scenario-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const scenarioFile = join(root, 'head-on.yaml');
writeFileSync(scenarioFile, 'name: head-on\n');

function run(runsDir: string, id: string, record?: string): void {
  mkdirSync(join(runsDir, id), { recursive: true });
  if (record !== undefined) writeFileSync(join(runsDir, id, 'scenario.resolved.json'), record);
}

describe('the scenario of the last run', () => {
  it('is the newest run whose record names a file that exists', () => {
    const runs = join(root, 'plain');
    run(runs, '20260101-000000-aaaa', JSON.stringify({ sourceFile: scenarioFile }));
    run(runs, '20260102-000000-bbbb');
    expect(findLastScenario(runs)).toEqual({ found: { file: scenarioFile, runId: '20260101-000000-aaaa' }, skipped: [] });
  });

  it('passes over a newer run whose record is damaged or foreign, naming each file', () => {
    const runs = join(root, 'broken');
    run(runs, '20260101-000000-aaaa', JSON.stringify({ sourceFile: scenarioFile }));
    run(runs, '20260102-000000-bbbb', JSON.stringify({ sourceFile: join(root, 'deleted.yaml') }));
    run(runs, '20260103-000000-cccc', 'null');
    run(runs, '20260104-000000-dddd', '{not json');
    const last = findLastScenario(runs);
    expect(last.found).toEqual({ file: scenarioFile, runId: '20260101-000000-aaaa' });
    expect(last.skipped).toEqual([
      expect.stringMatching(/20260104-000000-dddd\/scenario.resolved.json is damaged: not valid JSON/),
      expect.stringMatching(/20260103-000000-cccc\/scenario.resolved.json names no scenario file/),
      expect.stringMatching(/20260102-000000-bbbb\/scenario.resolved.json names .*deleted.yaml, which no longer exists/),
    ]);
  });

  it('finds none in a runs folder that is missing or is a file', () => {
    const file = join(root, 'runs-file');
    writeFileSync(file, '');
    expect(findLastScenario(join(root, 'missing'))).toEqual({ skipped: [] });
    expect(findLastScenario(file)).toEqual({ skipped: [] });
  });
});
