import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tarArchive } from '../../../../src/host/docker/tar-archive.js';
import { carVni, controlVni } from '../../../../src/host/network/tunnel-plan.js';
import { placeVehicles } from '../../../../src/runtime/emulated/placement.js';
import { planEmulatedRun, REMOTE_CAR_FILES, remoteContainerHosts } from '../../../../src/runtime/emulated/plan-emulated.js';
import { planRemoteCars, RUN_HOST } from '../../../../src/runtime/emulated/remote-plan.js';
import { loadScenario } from '../../../../src/scenario/load-scenario.js';
import { packageRoot } from '../../../../src/util/package-root.js';

const RUN_ID = '20261129-060000-ab53';
const HOSTS = [
  { name: 'h1', tunnelAddress: '10.219.0.11' },
  { name: 'h2', tunnelAddress: '10.219.0.12' },
];
const loadHeadOn = () => loadScenario(join(packageRoot(), 'scenarios/head-on-brake.yaml'), { runtime: 'docker' });

describe('placing vehicles on the hosts of a hosts file', () => {
  const car = (name: string, extra: Record<string, unknown> = {}) => ({ name, ...extra }) as never;

  it("deals cars round-robin over the hosts in file order; a host without a tunnel address (the run's own engine) keeps its cars here", () => {
    const p = placeVehicles({ vehicles: [car('a'), car('b'), car('c'), car('d'), car('e')] }, [...HOSTS, { name: 'here' }]);
    expect(p.remote).toEqual({ a: 'h1', b: 'h2', d: 'h1', e: 'h2' });
    expect(p.local).toEqual([{ vehicle: 'c', why: "here is the run's own engine" }]);
  });

  it('deals a car running its own code like any car in a container; keeps an external device on the run host, and says why', () => {
    const p = placeVehicles({ vehicles: [car('own', { image: 'mine:1' }), car('dev', { external: {} }), car('x')] }, HOSTS);
    expect(p.remote).toEqual({ own: 'h1', x: 'h2' });
    expect(p.local).toEqual([{ vehicle: 'dev', why: 'an external device joins the run on its host' }]);
  });

  it("deals in proportion to the hosts' cores, interleaved; a host without cores counts as the fewest listed", () => {
    const cars = Array.from({ length: 8 }, (_, i) => car(`c${i}`));
    const p = placeVehicles({ vehicles: cars }, [
      { ...HOSTS[0], cores: 2 },
      { ...HOSTS[1], cores: 6 },
    ]);
    expect(Object.values(p.remote)).toEqual(['h2', 'h1', 'h2', 'h2', 'h2', 'h1', 'h2', 'h2']);
    const unlisted = placeVehicles({ vehicles: cars }, [
      { ...HOSTS[0], cores: 4 },
      HOSTS[1],
      { name: 'h3', tunnelAddress: '10.219.0.13', cores: 8 },
    ]);
    const count = (host: string) => Object.values(unlisted.remote).filter((h) => h === host).length;
    expect([count('h1'), count('h2'), count('h3')]).toEqual([2, 2, 4]);
  });

  it('refuses an empty list and more hosts than a run spans', () => {
    expect(() => placeVehicles({ vehicles: [] }, [])).toThrow(/lists no host/);
    expect(() =>
      placeVehicles(
        { vehicles: [] },
        Array.from({ length: 33 }, (_, i) => ({ name: `h${i}`, tunnelAddress: `10.0.0.${i}` })),
      ),
    ).toThrow(/at most 32/);
  });
});

describe('the plan of a run whose cars are on other hosts', () => {
  it('a remote car: no run-folder bind but the files to copy, its host named; here only its bridge and tap, no veth, no control member', async () => {
    const scenario = await loadHeadOn();
    const placement = placeVehicles(scenario, HOSTS);
    const plan = planEmulatedRun(scenario, RUN_ID, '/tmp/run', { placement });
    const local = planEmulatedRun(scenario, RUN_ID, '/tmp/run');
    expect(plan.vehicles.map((v) => v.host)).toEqual(['h1', 'h2']);
    for (const v of plan.vehicles) {
      expect(v.binds).toBeUndefined();
      expect(v.copyIn).toEqual(REMOTE_CAR_FILES);
    }
    // the same names, addresses, env and rules as on one host
    expect(plan.vehicles.map(({ host, copyIn, ...v }) => v)).toEqual(local.vehicles.map(({ binds, ...v }) => v));
    expect(plan.hostNet.vehicles.map((v) => [v.remote, v.netns, v.rules.length])).toEqual([
      [true, undefined, 5],
      [true, undefined, 5],
    ]);
    expect(plan.hostNet.controlNet!.members.map((m) => m.vehicle)).toEqual([undefined]);
    expect(plan.channel.args).toEqual(local.channel.args);
  });

  it("steps: per host INPUT rules, control bridge and VXLAN; per car rules, eth0 and eth1; here the tunnels' ends and the port rules", async () => {
    const scenario = await loadHeadOn();
    const plan = planEmulatedRun(scenario, RUN_ID, '/tmp/run', { placement: placeVehicles(scenario, HOSTS) });
    const r = planRemoteCars(plan, [
      { name: 'h1', index: 0, address: '10.219.0.11', runAddress: '10.219.0.1' },
      { name: 'h2', index: 1, address: '10.219.0.12', runAddress: '10.219.0.1' },
    ]);
    const t = plan.tag;
    expect(r.runSide.every((s) => s.host === RUN_HOST)).toBe(true);
    expect(
      r.runSide.map((s) => s.apply.op === 'create-vxlan' && [s.apply.name, s.apply.vni, s.apply.remote, s.apply.bridge]).filter(Boolean),
    ).toEqual([
      [`vc-${t}-0`, controlVni(RUN_ID, 0), '10.219.0.11', `br-${t}-c`],
      [`vx-${t}-0`, carVni(RUN_ID, 0), '10.219.0.11', `br-${t}-0`],
      [`vc-${t}-1`, controlVni(RUN_ID, 1), '10.219.0.12', `br-${t}-c`],
      [`vx-${t}-1`, carVni(RUN_ID, 1), '10.219.0.12', `br-${t}-1`],
    ]);
    expect(r.runSide.slice(-2).map((s) => s.apply)).toEqual([
      {
        op: 'iptables-add-all',
        position: 'insert',
        rules: ['10.219.0.12/32', '10.219.0.11/32'].map((source) => ({
          chain: 'INPUT',
          source,
          udpPort: 14789,
          jump: 'ACCEPT',
          comment: `cavsim:${RUN_ID}`,
        })),
      },
      { op: 'iptables-add', position: 'append', rule: { chain: 'INPUT', udpPort: 14789, jump: 'DROP', comment: `cavsim:${RUN_ID}` } },
    ]);
    const [h1] = r.hosts;
    expect(h1.host).toBe('h1');
    expect(h1.vnis).toEqual([controlVni(RUN_ID, 0), carVni(RUN_ID, 0)]);
    expect(h1.setUp.map((s) => s.apply.op)).toEqual([
      'iptables-add',
      'iptables-add',
      'create-bridge',
      'link-up',
      'iptables-add',
      'create-vxlan',
    ]);
    expect(h1.setUp[0].apply).toMatchObject({ rule: { source: '10.219.0.1/32', udpPort: 14789, jump: 'ACCEPT' }, position: 'insert' });
    const [car0] = h1.cars;
    const container = plan.vehicles[0].name;
    expect(car0.steps.map((s) => s.apply.op)).toEqual([
      'iptables-add-all',
      'create-veth',
      'enslave',
      'move-into-netns',
      'create-vxlan',
      'move-into-netns',
    ]);
    expect(car0.steps[0].apply).toMatchObject({ netns: { container }, rules: plan.hostNet.vehicles[0].rules });
    expect(car0.steps[3].apply).toMatchObject({ netns: { container }, newName: 'eth0', cidr: `${plan.vehicles[0].ip}/24`, mtu: 1450 });
    expect(car0.steps[5].apply).toMatchObject({ netns: { container }, newName: 'eth1', mac: plan.hostNet.vehicles[0].mac });
    // every step undoes only what carries the run's alias or comment
    for (const s of [...r.runSide, ...h1.setUp, ...car0.steps]) expect(JSON.stringify(s.inverse)).toMatch(new RegExp(`cavsim:${RUN_ID}`));
  });

  it("a remote car running its own code: its V2V relay on the same host with the files to copy, and the tunnel steps in the relay's namespace", async () => {
    const headOn = await loadHeadOn();
    const scenario = {
      ...headOn,
      vehicles: headOn.vehicles.map((v, i) => (i === 0 ? { ...v, image: 'mine:1', command: ['./drive'] } : v)),
    };
    const plan = planEmulatedRun(scenario, RUN_ID, '/tmp/run', { placement: placeVehicles(scenario, HOSTS) });
    const [own] = plan.vehicles;
    const [relay] = plan.v2vRelays;
    expect([own.host, own.image, own.shareNetworkOf]).toEqual(['h1', 'mine:1', relay.name]);
    expect([relay.host, relay.copyIn, relay.binds]).toEqual(['h1', REMOTE_CAR_FILES, undefined]);
    expect(remoteContainerHosts(plan)).toEqual(
      new Map([own.name, relay.name, plan.vehicles[1].name].map((c, i) => [c, i < 2 ? 'h1' : 'h2'])),
    );
    const r = planRemoteCars(plan, [{ name: 'h1', index: 0, address: '10.219.0.11', runAddress: '10.219.0.1' }]);
    const [car0] = r.hosts[0].cars;
    expect(car0.container).toBe(relay.name);
    const inNamespace = car0.steps.flatMap((s) => ('netns' in s.apply ? [s.apply.netns] : []));
    expect(inNamespace).toEqual([{ container: relay.name }, { container: relay.name }, { container: relay.name }]);
  });
});

describe('tarArchive', () => {
  it('writes ustar headers with a valid checksum, the parent directories, and 512-byte padding', () => {
    const tar = tarArchive([{ path: 'run/cavsim/a.json', content: Buffer.from('{"x":1}') }]);
    expect(tar.length).toBe(512 * 4 + 1024);
    const names = [0, 512, 1024].map((at) =>
      tar
        .subarray(at, at + 100)
        .toString('utf8')
        .replace(/\0+$/, ''),
    );
    expect(names).toEqual(['run/', 'run/cavsim/', 'run/cavsim/a.json']);
    const h = tar.subarray(1024, 1536);
    const sum = [...h].reduce((a, b, i) => a + (i >= 148 && i < 156 ? 32 : b), 0);
    expect(Number.parseInt(h.subarray(148, 154).toString(), 8)).toBe(sum);
    expect(Number.parseInt(h.subarray(124, 135).toString(), 8)).toBe(7);
    expect(tar.subarray(1536, 1543).toString()).toBe('{"x":1}');
    expect(() => tarArchive([{ path: '../x', content: Buffer.alloc(0) }])).toThrow(/short relative path/);
  });
});
