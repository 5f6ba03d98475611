import { describe, expect, it } from 'vitest';
import { fleetNotice, V2V_ROWS_MAX_CARS, v2vRecording } from '../../../src/run/fleet-mode.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const cars = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `car${i}` })) as never[];

describe('v2vRecording: rows or fleet', () => {
  it('writes rows up to 100 cars and counts outcomes above, when the scenario does not say', () => {
    expect(V2V_ROWS_MAX_CARS).toBe(100);
    expect(v2vRecording({ vehicles: cars(1) })).toEqual({ mode: 'rows' });
    expect(v2vRecording({ vehicles: cars(100) })).toEqual({ mode: 'rows' });
    expect(v2vRecording({ vehicles: cars(101) })).toEqual({
      mode: 'fleet',
      reason: 'v2v.csv not written: 101 cars; record.v2v: true writes one row per frame and receiver',
    });
  });

  it('record.v2v decides over the car count either way', () => {
    expect(v2vRecording({ vehicles: cars(500), record: { v2v: true } })).toEqual({ mode: 'rows' });
    expect(v2vRecording({ vehicles: cars(2), record: { scans: false, v2v: false } })).toEqual({
      mode: 'fleet',
      reason: 'v2v.csv not written: record.v2v is false; record.v2v: true writes one row per frame and receiver',
    });
    expect(v2vRecording({ vehicles: cars(500), record: { scans: true } }).mode).toBe('fleet');
  });

  it("the run's notice names the files left out, run.mcap only when it is not written", () => {
    const fleet = {
      mode: 'fleet',
      reason: 'v2v.csv not written: 500 cars; record.v2v: true writes one row per frame and receiver',
    } as const;
    expect(fleetNotice(fleet, false)).toBe(
      'v2v.csv not written: 500 cars; record.v2v: true writes one row per frame and receiver; no v2v.pcap, run.mcap (record.mcap: true writes it) ' +
        'or per-pair V2V figures; outcomes counted by distance in delivery-distance.csv',
    );
    expect(fleetNotice(fleet, true)).toMatch(/; no v2v\.pcap or per-pair V2V figures;/);
  });
});

describe('record.v2v in a scenario', () => {
  const { write } = scenarioWorkspace('record-v2v');
  const yaml = (record: string) => `name: t
map: maps/corridor.yaml
duration: 1s
${record}
vehicles:
  - { name: car0, start: { x: 0, y: -1, yaw: 0, speed: 0 } }
`;

  it('is kept as given, and decides the recording of two cars', async () => {
    const off = await loadScenario(write(yaml('record: { v2v: false }')));
    expect(off.record).toEqual({ scans: false, v2v: false });
    expect(v2vRecording(off).mode).toBe('fleet');
    const unset = await loadScenario(write(yaml('')));
    expect(unset.record?.v2v).toBeUndefined();
    expect(v2vRecording(unset).mode).toBe('rows');
  });

  it('the emulated runtime ignores it, and says so', async () => {
    const s = await loadScenario(write(yaml('record: { v2v: false }')), { runtime: 'docker' });
    expect(s.warnings).toEqual([
      expect.stringMatching(/^record\.v2v \(line 4\): ignored: the emulated runtime writes v2v\.csv for every run/),
    ]);
  });
});
