import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('dcc');

const withDcc = (network: string) => `name: t
map: maps/corridor.yaml
duration: 2s
network: ${network}
vehicles:
  - name: car0
    start: { x: -20, y: -1 }
    apps: [ { type: beacon, rate: 10Hz, size: 190B, dcc: reactive } ]
  - name: car1
    start: { x: 20, y: -1 }
    apps: [ { type: cam, dcc: reactive } ]
`;

describe('dcc: reactive on the beacon and CAM apps', () => {
  it('is taken on an 802.11p channel in the simulated runtime', async () => {
    const s = await loadScenario(workspace.write(withDcc('{ channel: wifi-80211p, engine: builtin }')), { runtime: 'sim' });
    expect(s.vehicles.map((v) => v.apps[0])).toMatchObject([{ dcc: 'reactive' }, { dcc: 'reactive' }]);
  });

  it('is refused on a channel that measures no busy ratio, naming the field and the fix', async () => {
    const problems = await workspace.problems(withDcc('{ channel: csma, delay: 10ms }'));
    expect(problems).toEqual([
      expect.stringMatching(/^vehicles\.car0\.apps\[0\]\.dcc .*a csma channel has none: use network\.channel: wifi-80211p, or drop dcc$/),
      expect.stringMatching(/^vehicles\.car1\.apps\[0\]\.dcc /),
    ]);
  });

  it('is refused in the emulated runtime, whose channel reports no busy ratio to the cars yet', async () => {
    const problems = await workspace.problems(withDcc('{ channel: wifi-80211p }'), { runtime: 'docker' });
    expect(problems).toContainEqual(expect.stringMatching(/^vehicles\.car0\.apps\[0\]\.dcc .*run with --runtime sim, or drop dcc$/));
  });
});
