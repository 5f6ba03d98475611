import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('v2x-apps');

/** car0 ahead, car1 behind on the corridor, each with the given apps. */
const platoon = (leaderApps: string, followerApps: string, follower = '') => `name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: 0, y: -1 }
    apps: ${leaderApps}
  - name: car1
    start: { x: -10, y: -1 }
    apps: ${followerApps}
${follower}`;

describe('V2X apps in a scenario', () => {
  it('resolves cacc and scripted-event with their defaults', async () => {
    const s = await loadScenario(
      workspace.write(platoon('[{ type: beacon }, { type: scripted-event, at: 3s, brake: 6 }]', '[{ type: cacc, predecessor: car0 }]')),
    );
    expect(s.vehicles[0].apps[1]).toEqual({ type: 'scripted-event', at: 3, brake: 6 });
    expect(s.vehicles[1].apps[0]).toEqual({
      type: 'cacc',
      predecessor: 'car0',
      leaderWeight: 0,
      timeGap: 0.6,
      standstill: 2,
      kp: 0.5,
      kd: 1,
      maxAge: 0.5,
      gap: 'geometric',
    });
  });

  it("fills cacc's maxAge from what its predecessor sends: beacons 0.5 s, CAMs T_GenCamMax + T_CheckCamGen + 0.1 s", async () => {
    const maxAge = async (leaderApps: string, cacc = '{ type: cacc, predecessor: car0 }') => {
      const s = await loadScenario(workspace.write(platoon(leaderApps, `[${cacc}]`)));
      return (s.vehicles[1].apps[0] as { maxAge?: number }).maxAge;
    };
    expect(await maxAge('[{ type: cam }]')).toBe(1.2);
    expect(await maxAge('[{ type: cam, maxInterval: 500ms, checkInterval: 50ms }]')).toBe(0.65);
    expect(await maxAge('[{ type: cam, rate: 10Hz }]')).toBe(0.5);
    expect(await maxAge('[{ type: cam }, { type: beacon }]')).toBe(0.5);
    expect(await maxAge('[{ type: cam }]', '{ type: cacc, predecessor: car0, maxAge: 2s }')).toBe(2);
  });

  it('refuses what cannot work, naming the field and the fix', async () => {
    expect(await workspace.problems(platoon('[{ type: scripted-event, at: 3s }]', '[]'))).toEqual([
      expect.stringMatching(/vehicles\.car0\.apps\[0\].*give exactly one of brake .* or speed/),
    ]);
    expect(await workspace.problems(platoon('[{ type: scripted-event, at: 3s, brake: 6, speed: 1 }]', '[]'))).toHaveLength(1);
    expect(await workspace.problems(platoon('[]', '[{ type: cacc, predecessor: car7 }]'))).toEqual([
      expect.stringMatching(/predecessor.*no vehicle named "car7"; use one of car0/),
    ]);
    expect(await workspace.problems(platoon('[{ type: beacon }]', '[{ type: cacc, predecessor: car1 }]'))).toEqual([
      expect.stringMatching(/predecessor must be another car, not car1 itself/),
    ]);
    expect(await workspace.problems(platoon('[]', '[{ type: cacc, predecessor: car0 }]'))).toEqual([
      expect.stringMatching(/the gap comes from car0's beacons or CAMs: give it a beacon or cam app, or use gap: lidar/),
    ]);
    expect(await workspace.problems(platoon('[]', '[{ type: ttc-brake-sender, source: neighbours }]'))).toEqual([
      expect.stringMatching(/source: neighbours knows other cars only by their beacons/),
    ]);
    expect(await workspace.problems(platoon('[]', '[{ type: ttc-brake-sender }]'))).toEqual([
      expect.stringMatching(/add them to vehicles\.car1\.observes, or use source: neighbours/),
    ]);
    expect(await workspace.problems(platoon('[{ type: beacon, to: car9 }]', '[]'))).toEqual([
      expect.stringMatching(/to.*no vehicle named "car9"/),
    ]);
    const alone = `name: t\nmap: maps/corridor.yaml\nduration: 2s\nvehicles:\n  - name: car0\n    start: { x: 0, y: -1 }\n    apps: [{ type: cacc, predecessor: car1 }]\n`;
    expect(await workspace.problems(alone)).toEqual([
      expect.stringMatching(/predecessor.*no vehicle named "car1"; car0 is the only car: add the car it names$/),
    ]);
  });

  it('refuses CACC predecessors that form a loop (no car in it leads), once per loop', async () => {
    expect(
      await workspace.problems(
        platoon('[{ type: beacon }, { type: cacc, predecessor: car1 }]', '[{ type: beacon }, { type: cacc, predecessor: car0 }]'),
      ),
    ).toEqual([
      expect.stringMatching(
        /vehicles\.car0\.apps\[1\]\.predecessor.*the CACC predecessors form a loop \(car0 -> car1 -> car0\): no car in it leads/,
      ),
    ]);
  });

  it('refuses payload sizes that are not whole bytes', async () => {
    expect(await workspace.problems(platoon('[{ type: beacon, size: 300.5B }]', '[]'))).toEqual([
      expect.stringMatching(/size.*300\.5 bytes; a message is a whole number of bytes/),
    ]);
  });

  it('a warning starts at a time or on hard braking, not both; slowing needs a speed', async () => {
    expect(
      await workspace.problems(
        platoon('[{ type: warning, at: 1s, every: 200ms, for: 2s }]', '[{ type: warning-receiver, react: slow, speed: 2 }]'),
      ),
    ).toEqual([]);
    expect(await workspace.problems(platoon('[{ type: warning, at: 1s, deceleration: 4 }]', '[]'))).toEqual([
      expect.stringMatching(/give exactly one of at .* or deceleration/),
    ]);
    expect(await workspace.problems(platoon('[{ type: warning, deceleration: 4 }]', '[{ type: warning-receiver, react: slow }]'))).toEqual([
      expect.stringMatching(/react: slow needs speed/),
    ]);
    expect(await workspace.problems(platoon('[{ type: warning, at: 1s, to: car9 }]', '[]'))).toEqual([
      expect.stringMatching(/no vehicle named "car9"/),
    ]);
  });

  it('a ttc-brake-sender may work from beacons alone', async () => {
    expect(
      await workspace.problems(platoon('[{ type: beacon }]', '[{ type: ttc-brake-sender, source: neighbours, maxAge: 300ms }]')),
    ).toEqual([]);
  });

  it('--set reaches app fields by type, for one car or every car (*); cars without that app are left alone', async () => {
    const file = workspace.write(
      platoon(
        '[{ type: beacon }, { type: scripted-event, at: 3s, brake: 6 }]',
        '[{ type: beacon, rate: 20Hz }, { type: cacc, predecessor: car0 }]',
      ),
    );
    const s = await loadScenario(file, {
      overrides: ['vehicles.*.apps.beacon.rate=5Hz', 'vehicles.*.apps.cacc.timeGap=900ms', 'vehicles.car0.apps.scripted-event.brake=4'],
    });
    expect(s.vehicles.map((v) => v.apps.find((a) => a.type === 'beacon'))).toEqual([
      expect.objectContaining({ rate: 5 }),
      expect.objectContaining({ rate: 5 }),
    ]);
    expect(s.vehicles[1].apps[1]).toMatchObject({ type: 'cacc', timeGap: 0.9 });
    expect(s.vehicles[0].apps[1]).toMatchObject({ type: 'scripted-event', brake: 4 });
    expect(await workspace.problems(platoon('[{ type: beacon }]', '[]'), { overrides: ['vehicles.*.apps.becon.rate=5Hz'] })).toEqual([
      expect.stringMatching(/no element named "becon" in vehicles\.\*\.apps; did you mean "beacon"\?/),
    ]);
  });

  it('a platoon block writes its cars: names, places behind the leader at the cacc gap, predecessors', async () => {
    const block = (platoon: string) => `name: t
map: maps/corridor.yaml
duration: 2s
platoon:
${platoon}
`;
    const ok = `  cars: 3
  leader: { start: { x: 20, y: -1, yaw: 0, speed: 5 }, apps: [{ type: beacon }] }
  follower: { apps: [{ type: beacon }, { type: cacc, timeGap: 500ms, standstill: 1 }] }`;
    const s = await loadScenario(workspace.write(block(ok)));
    // spacing: 1 m + 0.5 s * 5 m/s + one 0.58 m car length
    expect(s.vehicles.map((v) => [v.name, +v.start.x.toFixed(6), v.start.speed])).toEqual([
      ['car0', 20, 5],
      ['car1', 15.92, 5],
      ['car2', 11.84, 5],
    ]);
    expect(s.vehicles.map((v) => v.apps.find((a) => a.type === 'cacc'))).toEqual([
      undefined,
      expect.objectContaining({ predecessor: 'car0' }),
      expect.objectContaining({ predecessor: 'car1' }),
    ]);
    expect(
      (await loadScenario(workspace.write(block(ok)), { overrides: ['platoon.cars=5', 'platoon.spacing=3'] })).vehicles.map(
        (v) => v.start.x,
      ),
    ).toEqual([20, 17, 14, 11, 8]);
    expect(await workspace.problems(block(ok.replace('cars: 3', 'cars: 1.5')))).toEqual([
      expect.stringMatching(/^platoon\.cars .*whole number of cars from 2 to 1000/),
    ]);
    expect(await workspace.problems(block(`${ok}\n  size: 3`))).toEqual([expect.stringMatching(/unknown field "size"/)]);
    expect(await workspace.problems(block(ok.replace('follower: {', 'follower: { name: x,')))).toEqual([
      expect.stringMatching(/takes its name and start from its place/),
    ]);
    // what is wrong in a generated car is found as in any car, by its name
    expect(await workspace.problems(block(ok.replace('standstill: 1', 'standstill: -1')))).toEqual([
      expect.stringMatching(/vehicles\.car1\.apps\[1\]\.standstill/),
      expect.stringMatching(/vehicles\.car2\.apps\[1\]\.standstill/),
    ]);
  });
});
