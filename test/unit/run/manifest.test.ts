import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildManifest, mapHash, resolvedHash } from '../../../src/run/manifest.js';
import type { ResolvedScenario } from '../../../src/scenario/resolved.js';
import { scratchDir } from '../../support/scratch-dir.js';

const facts = {
  cavsim: { version: '0.1.0', commit: 'a'.repeat(40), modified: false },
  node: 'v20.0.0',
  kernel: '6.1.0',
  platform: 'linux',
  ns3: '3.37',
};

function scenarioIn(dir: string): ResolvedScenario {
  writeFileSync(join(dir, 'scenario.yaml'), 'name: t\n');
  writeFileSync(join(dir, 'map.yaml'), 'image: map.pgm\nresolution: 0.1\norigin: [0, 0, 0]\n');
  writeFileSync(join(dir, 'map.pgm'), 'P2\n1 1\n255\n0\n');
  return {
    name: 't',
    sourceFile: join(dir, 'scenario.yaml'),
    mapFile: join(dir, 'map.yaml'),
    seed: 7,
    network: { channel: 'csma', engine: 'ns3' },
  } as unknown as ResolvedScenario;
}

describe('run manifest', () => {
  it('records the scenario, its hashes, seed, engine, command and host facts', () => {
    const dir = scratchDir('cavsim-manifest-');
    const scenario = scenarioIn(dir);
    const m = buildManifest({
      runId: 'r1',
      runtime: 'sim',
      scenario,
      facts,
      command: ['up', 'x.yaml'],
      overrides: ['seed=7'],
      now: new Date('2026-11-25T00:00:00Z'),
    });
    expect(m).toMatchObject({
      manifest_version: 1,
      run_id: 'r1',
      created_at: '2026-11-25T00:00:00.000Z',
      runtime: 'sim',
      command: ['up', 'x.yaml'],
      seed: 7,
      engine: 'ns3',
      images: {},
      ...facts,
    });
    expect(m.scenario).toMatchObject({ name: 't', overrides: ['seed=7'], resolved_sha256: resolvedHash(scenario) });
    expect(m.scenario.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(m.map).toEqual({ file: scenario.mapFile, sha256: mapHash(scenario.mapFile!) });
    expect(buildManifest({ runId: 'r2', runtime: 'sim', scenario, facts }).command).toBeNull();
  });

  it("changes the map's hash when its image changes, not only its YAML", () => {
    const dir = scratchDir('cavsim-manifest-');
    const scenario = scenarioIn(dir);
    const before = mapHash(scenario.mapFile!);
    writeFileSync(join(dir, 'map.pgm'), 'P2\n1 1\n255\n254\n');
    expect(mapHash(scenario.mapFile!)).not.toBe(before);
    expect(mapHash(join(dir, 'missing.yaml'))).toBeNull();
  });
});
