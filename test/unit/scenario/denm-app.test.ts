import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const workspace = scenarioWorkspace('denm-app');

/** car0 ahead, car1 behind on the corridor, each with the given apps. */
const pair = (leaderApps: string, followerApps = '[]') => `name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: 0, y: -1 }
    apps: ${leaderApps}
  - name: car1
    start: { x: -10, y: -1 }
    apps: ${followerApps}
`;

describe('DENM apps in a scenario', () => {
  it('resolves denm with its defaults, leaving the per-event ones to the app', async () => {
    const s = await loadScenario(
      workspace.write(
        pair(
          '[{ type: denm, on: hard-braking }, { type: warning, deceleration: 4, format: denm }]',
          '[{ type: warning-receiver, events: [hard-braking] }]',
        ),
      ),
    );
    expect(s.vehicles[0].apps[0]).toEqual({
      type: 'denm',
      on: 'hard-braking',
      deceleration: 4,
      ttc: 2,
      source: 'infrastructure',
      maxAge: 1,
      ttcMethod: 'geometric',
      stationaryAfter: 1,
      cancel: true,
      scope: 'geo-broadcast',
      hops: 10,
    });
    expect(s.vehicles[0].apps[1]).toMatchObject({ type: 'warning', format: 'denm', event: 'hard-braking', to: '*' });
    expect(s.vehicles[1].apps[0]).toEqual({ type: 'warning-receiver', react: 'brake', events: ['hard-braking'] });
    const tuned = await loadScenario(
      workspace.write(
        pair(
          '[{ type: denm, on: stationary, validity: 30s, repetitionInterval: 500ms, repetitionDuration: 10s, updateInterval: 5s, cancel: false, relevanceDistance: 1000, trafficDirection: opposite, scope: topological, hops: 3 }]',
        ),
      ),
    );
    expect(tuned.vehicles[0].apps[0]).toMatchObject({
      validity: 30,
      repetitionInterval: 0.5,
      repetitionDuration: 10,
      updateInterval: 5,
      cancel: false,
      relevanceDistance: 1000,
      trafficDirection: 'opposite',
      scope: 'topological',
      hops: 3,
    });
  });

  it('refuses what cannot work, naming the field and the fix', async () => {
    expect(await workspace.problems(pair('[{ type: denm }]'))).toEqual([
      expect.stringMatching(/apps\[0\]\.on .*is required; use one of hard-braking, emergency-brake, collision-risk, stationary/),
    ]);
    expect(await workspace.problems(pair('[{ type: denm, on: fog }]'))).toEqual([
      expect.stringMatching(/apps\[0\]\.on .*"fog" is not allowed; use one of hard-braking/),
    ]);
    expect(await workspace.problems(pair('[{ type: denm, on: hard-braking, repetitionInterval: 2s, repetitionDuration: 1s }]'))).toEqual([
      expect.stringMatching(/repetitionInterval must not exceed repetitionDuration/),
    ]);
    expect(await workspace.problems(pair('[{ type: warning, at: 1s, event: fog, format: denm }]'))).toEqual([
      expect.stringMatching(
        /event.*format: denm needs an event with a DENM cause code: hard-braking, emergency-brake, collision-risk, stationary/,
      ),
    ]);
    expect(await workspace.problems(pair('[{ type: warning, at: 1s, to: car1, format: denm }]'))).toEqual([
      expect.stringMatching(/to.*format: denm is broadcast/),
    ]);
    // the JSON warning keeps taking any event name and a single receiver
    expect(await workspace.problems(pair('[{ type: warning, at: 1s, event: fog, to: car1 }]'))).toEqual([]);
  });
});
