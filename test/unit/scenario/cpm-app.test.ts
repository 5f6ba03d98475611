import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { actsOnReceivedMessages } from '../../../src/world/create-apps.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('cpm-app');

/** car0 ahead, car1 behind on the corridor, each with the given apps (and car0 with the given extra lines). */
const pair = (leaderApps: string, followerApps = '[]', leaderExtra = '') => `name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: 0, y: -1 }${leaderExtra}
    apps: ${leaderApps}
  - name: car1
    start: { x: -10, y: -1 }
    apps: ${followerApps}
`;
const LIDAR = '\n    lidar: {}';

describe('the cpm app in a scenario', () => {
  it('resolves cpm with the TS 103 324 defaults and its clustering defaults; perceived stays opt-in', async () => {
    const s = await loadScenario(
      workspace.write(pair('[{ type: cpm }]', '[{ type: ttc-brake-sender, source: neighbours, perceived: true }]', LIDAR)),
    );
    expect(s.vehicles[0].apps[0]).toEqual({
      type: 'cpm',
      minInterval: 0.1,
      maxInterval: 1,
      positionThreshold: 4,
      speedThreshold: 0.5,
      objectInterval: 1,
      sensorInformationInterval: 1,
      gap: 0.3,
      minPoints: 3,
      maxExtent: 1.5,
      associationDistance: 1.5,
    });
    expect(s.vehicles[1].apps[0]).toMatchObject({ type: 'ttc-brake-sender', source: 'neighbours', perceived: true });
    expect(actsOnReceivedMessages(s.vehicles[0])).toBe(false); // a cpm app only sends
    expect(actsOnReceivedMessages(s.vehicles[1])).toBe(true);
    // without perceived, the TTC sender resolves exactly as before (no new field)
    const plain = await loadScenario(workspace.write(pair('[{ type: cam }]', '[{ type: ttc-brake-sender, source: neighbours }]')));
    expect(Object.keys(plain.vehicles[1].apps[0]).sort()).toEqual(['brakeSelf', 'maxAge', 'source', 'threshold', 'to', 'ttc', 'type']);
    const tuned = await loadScenario(
      workspace.write(pair('[{ type: cpm, minInterval: 200ms, maxInterval: 2s, minPoints: 2, gap: 0.5 }]', '[]', LIDAR)),
    );
    expect(tuned.vehicles[0].apps[0]).toMatchObject({ minInterval: 0.2, maxInterval: 2, minPoints: 2, gap: 0.5 });
  });

  it('refuses what cannot work, naming the field and the fix', async () => {
    expect(await workspace.problems(pair('[{ type: cpm }]'))).toEqual([
      expect.stringMatching(/apps\[0\].*the cpm app reports what the car's lidar perceives: give vehicles\.car0 a lidar/),
    ]);
    expect(await workspace.problems(pair('[{ type: cpm, minInterval: 2s, maxInterval: 1s }]', '[]', LIDAR))).toEqual([
      expect.stringMatching(/minInterval \(T_GenCpmMin\) must not exceed maxInterval/),
    ]);
    expect(await workspace.problems(pair('[{ type: cam }]', '[{ type: ttc-brake-sender, source: neighbours, perceived: true }]'))).toEqual([
      expect.stringMatching(/perceived.*give another car a cpm app/),
    ]);
    expect(await workspace.problems(pair('[{ type: denm, on: hard-braking, perceived: true }]', '[{ type: cpm }]'))).toEqual([
      expect.stringMatching(/perceived.*is for on: collision-risk/),
      expect.stringMatching(/give vehicles\.car1 a lidar/),
    ]);
    expect(
      await workspace.problems(
        pair('[{ type: denm, on: collision-risk, source: neighbours, perceived: true }, { type: cam }]', '[{ type: cpm }]', ''),
      ),
    ).toEqual([expect.stringMatching(/give vehicles\.car1 a lidar/)]);
    // perceived objects alone are enough for source: neighbours
    expect(
      await workspace.problems(pair('[{ type: cpm }]', '[{ type: ttc-brake-sender, source: neighbours, perceived: true }]', LIDAR)),
    ).toEqual([]);
    expect(await workspace.problems(pair('[{ type: cpm }]', '[{ type: ttc-brake-sender, source: neighbours }]', LIDAR))).toEqual([
      expect.stringMatching(/source: neighbours knows other cars only by their beacons or CAMs/),
    ]);
  });
});
