import { describe, expect, it } from 'vitest';
import { UserInputError } from '../../../../src/errors.js';
import { IFNAME_PATTERN } from '../../../../src/host/network/names.js';
import { type HostNetInput, planHostNetwork } from '../../../../src/host/network/plan.js';

const input = (over: Partial<HostNetInput> = {}): HostNetInput => ({
  runId: 'run-20260101-abc',
  vehicles: Array.from({ length: 12 }, (_, i) => ({ name: `car${i}`, netns: { pid: 1000 + i } })),
  control: { subnet: '172.18.0.0/16', simulatorIp: '172.18.0.2' },
  ...over,
});

describe('planHostNetwork', () => {
  it('names every interface within 15 characters, with recognisable prefixes and the run tag', () => {
    const plan = planHostNetwork(input());
    for (const v of plan.vehicles) {
      for (const name of Object.values(v.links)) {
        expect(name.length).toBeLessThanOrEqual(15);
        expect(name).toMatch(IFNAME_PATTERN);
        expect(name).toContain(plan.tag);
      }
      expect(v.links.bridge).toMatch(/^br-/);
      expect(v.links.tap).toMatch(/^tap-/);
      expect(v.links.vethHost).toMatch(/^cv/);
    }
    const all = plan.vehicles.flatMap((v) => Object.values(v.links));
    expect(new Set(all).size).toBe(all.length);
  });

  it('keeps names of two runs apart and is deterministic for one run', () => {
    const a = planHostNetwork(input());
    const b = planHostNetwork(input({ runId: 'run-20260101-abd' }));
    expect(a).toEqual(planHostNetwork(input()));
    const namesA = new Set(a.vehicles.flatMap((v) => Object.values(v.links)));
    expect(b.vehicles.flatMap((v) => Object.values(v.links)).some((n) => namesA.has(n))).toBe(false);
  });

  it('gives each vehicle a distinct address in one private /24 and a locally administered MAC', () => {
    const plan = planHostNetwork(input());
    expect(plan.subnet).toMatch(/^10\.210\.\d{1,3}\.0\/24$/);
    const prefix = plan.subnet.replace(/\.0\/24$/, '.');
    const ips = plan.vehicles.map((v) => v.ip);
    expect(new Set(ips).size).toBe(ips.length);
    for (const v of plan.vehicles) {
      expect(v.ip.startsWith(prefix)).toBe(true);
      expect(v.cidr).toBe(`${v.ip}/24`);
      expect(v.mac).toMatch(/^02:ca(:[0-9a-f]{2}){4}$/);
      expect(v.neighbours).toHaveLength(plan.vehicles.length - 1);
      expect(v.neighbours.map((n) => n.ip)).not.toContain(v.ip);
    }
    expect(new Set(plan.vehicles.map((v) => v.mac)).size).toBe(plan.vehicles.length);
    expect(planHostNetwork(input({ v2vSubnet: '10.210.7.0/24' })).vehicles[0].ip).toBe('10.210.7.1');
  });

  it('lets eth0 carry only simulator traffic, never a packet for the channel address, and tags every rule with the run id', () => {
    const plan = planHostNetwork(input());
    expect(plan.vehicles[0].rules).toEqual([
      { chain: 'INPUT', in: 'eth0', destination: plan.subnet, jump: 'DROP', comment: 'cavsim:run-20260101-abc' },
      { chain: 'INPUT', in: 'eth0', source: '172.18.0.2/32', jump: 'ACCEPT', comment: 'cavsim:run-20260101-abc' },
      { chain: 'INPUT', in: 'eth0', jump: 'DROP', comment: 'cavsim:run-20260101-abc' },
      { chain: 'OUTPUT', out: 'eth0', destination: '172.18.0.2/32', jump: 'ACCEPT', comment: 'cavsim:run-20260101-abc' },
      { chain: 'OUTPUT', out: 'eth0', jump: 'DROP', comment: 'cavsim:run-20260101-abc' },
    ]);
    expect(plan.hostRules).toHaveLength(12);
    expect(plan.hostRules[3]).toEqual({
      chain: 'DOCKER-USER',
      in: plan.vehicles[3].links.bridge,
      out: plan.vehicles[3].links.bridge,
      jump: 'ACCEPT',
      comment: 'cavsim:run-20260101-abc',
    });
    expect(planHostNetwork(input({ control: undefined })).vehicles[0].rules).toEqual([]);
  });

  it('lists the taps the channel program bridges, in vehicle order', () => {
    const plan = planHostNetwork(
      input({
        vehicles: [
          { name: 'a', netns: { name: 'x' } },
          { name: 'b', netns: { name: 'y' } },
        ],
      }),
    );
    expect(plan.channel).toEqual({ taps: [`tap-${plan.tag}-0`, `tap-${plan.tag}-1`] });
  });

  it('rejects bad input with every problem listed, before anything is named', () => {
    try {
      planHostNetwork(
        input({
          runId: 'bad id; rm -rf /',
          vehicles: [
            { name: 'a', netns: { pid: 1 } },
            { name: 'a', netns: { pid: 2 } },
            { name: '$(x)', netns: { pid: 3 } },
          ],
          control: { subnet: '10.210.0.0/16', simulatorIp: '10.210.0.1' },
          v2vSubnet: '10.210.5.0/24',
        }),
      );
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(UserInputError);
      const details = (err as UserInputError).details.join('\n');
      for (const field of ['runId', 'vehicles.1.name', 'vehicles.2.name', 'overlaps']) expect(details).toContain(field);
    }
  });
});

describe('planHostNetwork with the control network cavsim plumbs', () => {
  const control = { subnet: '10.211.7.0/24', simulatorIp: '10.211.7.2', hostIp: '10.211.7.1' };
  const members = [
    { ip: '10.211.7.2', netns: { pid: 500 } },
    { vehicle: 'car0', ip: '10.211.7.10', netns: { pid: 1000 } },
    { vehicle: 'car11', ip: '10.211.7.21', netns: { pid: 1011 } },
  ];

  it('gives the host an address on its own bridge and each member a veth named by the simulator or the vehicle index', () => {
    const plan = planHostNetwork(input({ control: { ...control, members } }));
    const t = plan.tag;
    expect(plan.controlNet).toEqual({
      bridge: `br-${t}-c`,
      hostCidr: '10.211.7.1/24',
      members: [
        { ip: '10.211.7.2', netns: { pid: 500 }, vethHost: `cv-${t}-csh`, vethPeer: `cv-${t}-csv`, cidr: '10.211.7.2/24' },
        {
          vehicle: 'car0',
          ip: '10.211.7.10',
          netns: { pid: 1000 },
          vethHost: `cv-${t}-c0h`,
          vethPeer: `cv-${t}-c0v`,
          cidr: '10.211.7.10/24',
        },
        {
          vehicle: 'car11',
          ip: '10.211.7.21',
          netns: { pid: 1011 },
          vethHost: `cv-${t}-c11h`,
          vethPeer: `cv-${t}-c11v`,
          cidr: '10.211.7.21/24',
        },
      ],
    });
    // bridged frames between vehicles and the simulator pass Docker's FORWARD DROP like the V2V bridges'
    expect(plan.hostRules.at(-1)).toMatchObject({ chain: 'DOCKER-USER', in: `br-${t}-c`, out: `br-${t}-c`, jump: 'ACCEPT' });
    expect(plan.hostRules).toHaveLength(13);
    expect(planHostNetwork(input()).controlNet).toBeUndefined();
  });

  it('refuses addresses outside the control subnet and members that are not vehicles, naming the field', () => {
    expect(() =>
      planHostNetwork(
        input({ control: { ...control, hostIp: '10.211.8.1', members: [{ vehicle: 'nobody', ip: '10.211.9.3', netns: { pid: 1 } }] } }),
      ),
    ).toThrow(
      expect.objectContaining({
        details: [
          'control.hostIp: "10.211.8.1" is not an address in 10.211.7.0/24',
          'control.members.0.ip: "10.211.9.3" is not an address in 10.211.7.0/24',
          'control.members.0.vehicle: "nobody" is not one of the vehicles',
        ],
      }),
    );
  });
});

describe('planHostNetwork with a device', () => {
  it('names a bad interface or MAC by its field', () => {
    expect(() =>
      planHostNetwork({ runId: 'unit-dev', vehicles: [{ name: 'rc', device: { interface: 'no/slash', mac: '02:00:00:00:00:09' } }] }),
    ).toThrow(expect.objectContaining({ details: expect.arrayContaining([expect.stringMatching(/^vehicles\.0\.device\.interface: /)]) }));
    expect(() =>
      planHostNetwork({ runId: 'unit-dev', vehicles: [{ name: 'rc', device: { interface: 'enp3s0', mac: '03:00:00:00:00:09' } }] }),
    ).toThrow(
      expect.objectContaining({ details: expect.arrayContaining([expect.stringMatching(/^vehicles\.0\.device\.mac: .*unicast/)]) }),
    );
  });
});
