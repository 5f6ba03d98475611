import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planEmulatedRun } from '../../../../src/runtime/emulated/plan-emulated.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../../src/util/package-root.js';

const dir = mkdtempSync(join(tmpdir(), 'cavsim-plan-external-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function plan(role = 'controller') {
  const file = join(dir, 's.yaml');
  writeFileSync(
    file,
    `name: external-plan
map: ${join(packageRoot(), 'maps/corridor.yaml')}
duration: 2s
vehicles:
  - name: car0
    start: { x: 10, y: -1 }
  - name: car1
    start: { x: -20, y: -1 }
    external: { role: ${role}, listen: "10.213.5.1:9091", from: 10.213.5.2, v2v: { interface: enp3s0, mac: "02:de:00:00:00:01" } }
`,
  );
  return planEmulatedRun(await loadScenario(file, { runtime: 'docker' }), '20261127-000000-abcd', join(dir, 'run'));
}

describe('the plan of an emulated run with an external device', () => {
  it('starts no container for the device, relays it from its own source port, and joins its interface to the channel', async () => {
    const p = await plan();
    expect(p.vehicles.map((v) => v.vehicle)).toEqual(['car0']);
    const clients = JSON.parse(p.simulator.env!.CAVSIM_CLIENTS) as Record<string, string>;
    const [device] = p.externals;
    expect(device).toMatchObject({
      vehicle: 'car1',
      listen: { host: '10.213.5.1', port: 9091 },
      from: '10.213.5.2',
      v2vIp: p.hostNet.vehicles[1].ip,
    });
    expect(clients[`${device.relayFrom.host}:${device.relayFrom.port}`]).toBe('car1');
    expect(`${device.relayFrom.host}/24`).toBe(p.hostNet.controlNet?.hostCidr);
    expect(p.hostNet.vehicles.map((v) => v.name)).toEqual(['car0', 'car1']);
    expect(p.hostNet.vehicles[1].device).toEqual({ interface: 'enp3s0', mac: '02:de:00:00:00:01' });
    // car0 reaches the device over the channel by the device's own MAC
    expect(p.hostNet.vehicles[0].neighbours).toContainEqual({ ip: p.hostNet.vehicles[1].ip, mac: '02:de:00:00:00:01' });
    expect(JSON.parse(p.vehicles[0].env!.CAVSIM_V2V_PEERS)).toEqual({
      car1: `${p.hostNet.vehicles[1].ip}:${p.vehicles[0].env!.CAVSIM_V2V_BIND.split(':')[1]}`,
    });
  });

  it('plans a physical car (role: body) as a controller device: relayed, no container, its interface on the channel', async () => {
    const p = await plan('body');
    expect(p.vehicles.map((v) => v.vehicle)).toEqual(['car0']);
    expect(p.externals.map((d) => d.vehicle)).toEqual(['car1']);
    expect(p.hostNet.vehicles[1].device).toEqual({ interface: 'enp3s0', mac: '02:de:00:00:00:01' });
  });

  it('lets the device reach only its relay port on this host', async () => {
    const p = await plan();
    expect(p.hostNet.hostInputRules.map(({ comment: _, ...r }) => r)).toEqual([
      { chain: 'INPUT', source: '10.213.5.2/32', tcpPort: 9091, jump: 'ACCEPT' },
      { chain: 'INPUT', source: '10.213.5.2/32', jump: 'DROP' },
    ]);
  });
});
