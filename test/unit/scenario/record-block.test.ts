import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scratchDir } from '../../support/scratch-dir.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function scenarioWith(extra: string): string {
  const dir = scratchDir('cavsim-record-');
  const text = readFileSync(join(ROOT, 'scenarios/head-on-brake.yaml'), 'utf8').replaceAll('../maps/', `${ROOT}maps/`);
  const file = join(dir, 'scenario.yaml');
  writeFileSync(file, `${text}\n${extra}\n`);
  return file;
}

describe('record block', () => {
  it("records nothing extra by default (run.mcap is the command's choice)", async () => {
    expect((await loadScenario(join(ROOT, 'scenarios/head-on-brake.yaml'))).record).toEqual({ scans: false });
  });

  it('records scans only where a car has a lidar, and says how to give one', async () => {
    const err = (await loadScenario(scenarioWith('record: { scans: true }')).catch((e: unknown) => e)) as { details: string[] };
    expect(err.details.join('\n')).toMatch(/record\.scans.*no car has a lidar.*lidar: \{\}/);
    const gapFollow = await loadScenario(join(ROOT, 'scenarios/loop-gap-follow.yaml'), { overrides: ['record.scans=true'] });
    expect(gapFollow.record).toEqual({ scans: true });
  });
});
