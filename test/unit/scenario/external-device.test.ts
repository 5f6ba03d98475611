import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../src/errors.js';
import { refuseUnsupportedExternal } from '../../../src/scenario/external-device.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';
import { scenarioWorkspace } from '../../support/scenario-workspace.js';

const { write, problems } = scenarioWorkspace('external');

const scenario = (external: string, extra = '') => `name: t
map: maps/corridor.yaml
duration: 2s
vehicles:
  - name: car0
    start: { x: -20, y: -1, yaw: 0, speed: 10 }
    observes: [car1]
    external: ${external}${extra}
  - name: car1
    start: { x: 20, y: -1, yaw: 3.14159, speed: 10 }
`;

describe('scenario: a vehicle with an external device', () => {
  it('fills the defaults: loopback on a free port, 30 s to connect, behind the barrier', async () => {
    const s = await loadScenario(write(scenario('{ role: controller }')), { runtime: 'sim' });
    expect(s.vehicles[0].external).toEqual({
      role: 'controller',
      listen: { host: '127.0.0.1', port: 0 },
      connectTimeout: 30,
      barrier: true,
    });
    expect(s.warnings).toBeUndefined();
  });

  it('resolves the address, the timeout and the switch as given (localhost is 127.0.0.1)', async () => {
    const s = await loadScenario(write(scenario('{ role: controller, listen: "localhost:9091", connectTimeout: 2min, barrier: false }')), {
      runtime: 'sim',
    });
    expect(s.vehicles[0].external).toEqual({
      role: 'controller',
      listen: { host: '127.0.0.1', port: 9091 },
      connectTimeout: 120,
      barrier: false,
    });
  });

  it('says in the warnings that a run without the barrier is not reproducible, and that the compute model is not applied', async () => {
    const s = await loadScenario(write(scenario('{ role: controller, barrier: false }', '\n    compute: { model: measured }')), {
      runtime: 'sim',
    });
    expect(s.warnings).toEqual([
      "vehicles.car0.external.barrier (line 8): false: car0's device runs without the barrier, at real-time pace, and its car takes the last command received when each tick is due; the result depends on this host's and the device's timing and is not reproducible",
      "vehicles.car0.compute.model (line 9): ignored without the barrier: the device's real answer time is its compute time (its commands act when they arrive)",
    ]);
  });

  const table: [string, string, string[]][] = [
    [
      'no role',
      scenario('{ listen: "127.0.0.1:9091" }'),
      ['vehicles.car0.external.role (line 8): is required; use one of controller, body'],
    ],
    [
      'an unknown role',
      scenario('{ role: pilot }'),
      ['vehicles.car0.external.role (line 8): "pilot" is not allowed; use one of controller, body'],
    ],
    [
      'an address without a port',
      scenario('{ role: controller, listen: "127.0.0.1" }'),
      [
        'vehicles.car0.external.listen (line 8): "127.0.0.1" is not allowed; write ADDRESS:PORT with an IPv4 address, e.g. 127.0.0.1:9091 or 0.0.0.0:9091 (port 0: a free one)',
      ],
    ],
    [
      'a host name',
      scenario('{ role: controller, listen: "pi.local:9091" }'),
      [
        'vehicles.car0.external.listen (line 8): "pi.local:9091" is not allowed; write ADDRESS:PORT with an IPv4 address, e.g. 127.0.0.1:9091 or 0.0.0.0:9091 (port 0: a free one)',
      ],
    ],
    [
      'an address out of range',
      scenario('{ role: controller, listen: "10.0.0.300:9091" }'),
      ['vehicles.car0.external.listen (line 8): 10.0.0.300 is not an IPv4 address (each part 0-255), e.g. 127.0.0.1 or 0.0.0.0'],
    ],
    [
      'a port out of range',
      scenario('{ role: controller, listen: "127.0.0.1:70000" }'),
      ['vehicles.car0.external.listen (line 8): port 70000 is above 65535; use 1024-65535, or 0 for a free one'],
    ],
    [
      'a timeout without unit',
      scenario('{ role: controller, connectTimeout: 30 }'),
      ['vehicles.car0.external.connectTimeout (line 8): "30" has no unit; write it like "10ms" (units: ns, us, ms, s, min)'],
    ],
    [
      'an unknown field',
      scenario('{ role: controller, address: "127.0.0.1:1" }'),
      [
        'vehicles.car0.external.address (line 8): unknown field "address"; remove it or check the spelling (fields here: role, listen, connectTimeout, from, v2v, barrier, maxClockOffset, maxPoseLag, maxReportGap)',
      ],
    ],
    [
      'a command as well',
      scenario('{ role: controller }', '\n    command: [python3, v.py]'),
      ["vehicles.car0.command (line 9): car0's controller is the external device; drop command (the code cavsim starts), or drop external"],
    ],
    [
      "cavsim's controller as well",
      scenario('{ role: controller }', '\n    controller: { type: gap-follow }'),
      ["vehicles.car0.controller (line 9): car0 is driven by its external device, not by cavsim's gap-follow controller; drop controller"],
    ],
    [
      'apps as well',
      scenario('{ role: controller }', '\n    apps: [{ type: brake-receiver }]'),
      ["vehicles.car0.apps (line 9): car0's V2V is its external device's (/car0/v2v/send), not cavsim's apps; drop apps"],
    ],
  ];

  it.each(table)('reports %s, naming the field and the fix', async (_name, yaml, expected) => {
    expect(await problems(yaml)).toEqual(expected);
  });

  it('refuses two devices on one port (also 0.0.0.0 against a single address)', async () => {
    const two = scenario('{ role: controller, listen: "0.0.0.0:9091" }').replace(
      'start: { x: 20, y: -1, yaw: 3.14159, speed: 10 }',
      'start: { x: 20, y: -1, yaw: 3.14159, speed: 10 }\n    external: { role: controller, listen: "127.0.0.1:9091" }',
    );
    expect(await problems(two)).toEqual([
      'vehicles.car1.external.listen (line 11): 127.0.0.1:9091 is already vehicles.car0.external.listen; give each device its own port',
    ]);
    expect(await problems(two.replace('127.0.0.1:9091', '127.0.0.1:0'))).toEqual([]);
  });

  it('refuses role body in the simulated runtime, and in the emulated one a device without its address, port and V2V interface; validation without a runtime accepts both', async () => {
    const body = scenario('{ role: body }');
    expect(await problems(body)).toEqual([]);
    expect(await problems(body, { runtime: 'sim' })).toEqual([
      'vehicles.car0.external.role (line 8): role: body (a physical car mirrored in the world) needs real time: run it with --runtime docker (the emulated runtime); with --runtime sim use role: controller',
    ]);
    expect(await problems(scenario('{ role: controller }'), { runtime: 'docker' })).toEqual([
      'vehicles.car0.external.listen (line 8): the emulated runtime needs the address and port the device connects to, e.g. listen: "10.213.0.1:9091" (an address of this host the device reaches)',
      'vehicles.car0.external.v2v (line 8): every car of an emulated run is on the channel: name the host interface the device\'s V2V is on and its MAC, e.g. v2v: { interface: enp3s0, mac: "02:de:00:00:00:01" }',
      "vehicles.car0.external.from (line 8): the emulated runtime needs the device's own address, e.g. from: 10.213.0.2: only connections from it speak for this car",
    ]);
    const complete =
      '{ role: controller, listen: "10.213.0.1:9091", from: 10.213.0.2, v2v: { interface: dvh0, mac: "02:de:00:00:00:01" } }';
    expect(await problems(scenario(complete), { runtime: 'docker' })).toEqual([]);
    expect(await problems(scenario(complete.replace('10.213.0.2', '127.0.0.1')), { runtime: 'docker' })).toEqual([
      "vehicles.car0.external.from (line 8): a device is another computer (or a network namespace), not this host's loopback: give its own address, e.g. 10.213.0.2",
    ]);
    expect(await problems(scenario(complete.replace('role: controller', 'role: body')), { runtime: 'docker' })).toEqual([]);
  });

  it("fills role body's gates (20 ms clock offset, 50 ms p99 pose lag, 250 ms without a report) and takes them as given", async () => {
    const complete = '{ role: body, listen: "10.213.0.1:9091", from: 10.213.0.2, v2v: { interface: dvh0, mac: "02:de:00:00:00:01" } }';
    const s = await loadScenario(write(scenario(complete)), { runtime: 'docker' });
    expect(s.vehicles[0].external!.body).toEqual({ maxClockOffset: 0.02, maxPoseLag: 0.05, maxReportGap: 0.25 });
    const given = await loadScenario(
      write(scenario(complete.replace('role: body', 'role: body, maxClockOffset: 5ms, maxPoseLag: 100ms, maxReportGap: 1s'))),
      { runtime: 'docker' },
    );
    expect(given.vehicles[0].external!.body).toEqual({ maxClockOffset: 0.005, maxPoseLag: 0.1, maxReportGap: 1 });
    const controller = await loadScenario(write(scenario('{ role: controller }')), { runtime: 'sim' });
    expect(controller.vehicles[0].external!.body).toBeUndefined();
  });

  it("refuses body gates on a controller device, and cavsim's controller, apps or code on a physical car", async () => {
    expect(await problems(scenario('{ role: controller, maxPoseLag: 10ms }'))).toEqual([
      "vehicles.car0.external.maxPoseLag (line 8): maxPoseLag is a gate on a physical car's pose reports (role: body); a controller device has none: drop it",
    ]);
    expect(
      await problems(scenario('{ role: body }', '\n    controller: { type: gap-follow }\n    apps: [{ type: brake-receiver }]')),
    ).toEqual([
      'vehicles.car0.controller (line 9): car0 is a physical car (role: body) that moves itself: cavsim never drives it; drop controller',
      "vehicles.car0.apps (line 10): car0's V2V is the physical car's own (its V2V interface), not cavsim's apps; drop apps",
    ]);
  });

  it('refuses a resolved scenario (a replay) the runtime cannot run, as one user error', async () => {
    const s = await loadScenario(write(scenario('{ role: body }')));
    const error = (() => {
      try {
        refuseUnsupportedExternal(s, 'sim');
      } catch (err) {
        return err;
      }
    })();
    expect(error).toBeInstanceOf(UserInputError);
    expect((error as Error).message).toMatch(/^vehicles\.car0\.external\.role: role: body/);
    expect(error).toMatchObject({ hint: 'run it with --runtime docker, or use role: controller' });
    expect(() => refuseUnsupportedExternal(s, 'docker')).toThrow(
      /^vehicles\.car0\.external\.listen: the emulated runtime needs the address/,
    );
  });
});
