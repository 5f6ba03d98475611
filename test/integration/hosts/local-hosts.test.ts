/**
 * scripts/local-hosts.sh on the real Docker engine (needs root and a running dockerd: `sudo
 * scripts/setup-docker.sh`): two local hosts, each a Docker engine in its own container, reached
 * through the hosts file it writes; `stop` leaves the machine as it was. Outside CI a missing
 * engine skips this file with a message; in CI it fails (test/support/real-components.ts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Dockerode from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDocker } from '../../../src/host/docker/dockerode-port.js';
import { DEFAULT_BASE_IMAGE } from '../../../src/host/docker/images.js';
import { engineOptions } from '../../../src/host/hosts-file/engine-options.js';
import { type HostsFile, loadHostsFile } from '../../../src/host/hosts-file/load-hosts-file.js';
import { dockerProblem, requireReal, rootProblem } from '../../support/real-components.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/local-hosts.sh', import.meta.url));
const real = requireReal('hosts/local-hosts.test.ts', rootProblem() ?? (await dockerProblem(connectDocker())));
const script = (...args: string[]) => spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8' });
const run = (file: string, args: string[]) => execFileSync(file, args, { encoding: 'utf8' });

/**
 * What start may change and stop must restore: the machine's containers, networks, volumes,
 * filter and NAT rules, links. Resources of cavsim runs that may come and go meanwhile (the lead's
 * benchmarks on a shared machine: containers and networks labelled cavsim.run, links br-/cv-/tap-
 * with a run tag, rules with a cavsim:<run> comment) and veths of containers on Docker's default
 * bridge (image builds) are left out; link timers and docker0's carrier are Docker's business.
 */
function machineState() {
  const lines = (text: string) => text.split('\n').filter((l) => l.trim());
  /** Names, less those whose cavsim.run label is set. */
  const docker = (what: string[], name = '.Name') =>
    lines(run('docker', [...what, '--format', `{{${name}}}\t{{.Label "cavsim.run"}}`]))
      .filter((l) => l.endsWith('\t'))
      .sort();
  const runLink = /^\d+: (br|cv|tap|vx)-[0-9a-f]{6}-/;
  return {
    containers: docker(['ps', '-a'], '.Names'),
    networks: docker(['network', 'ls']),
    volumes: docker(['volume', 'ls']),
    iptables: lines(run('iptables-save', []))
      .filter((l) => !l.startsWith('#') && !l.includes('cavsim:'))
      .map((l) => l.replace(/\[\d+:\d+\]/g, '[*]')),
    links: lines(run('ip', ['-o', '-d', 'link']))
      .filter((l) => !runLink.test(l) && !/ master docker0 /.test(l))
      .map((l) =>
        l.replace(/\b(\w+_timer)\s+[\d.]+/g, '$1 *').replace(/^(\d+: docker0: <)(?:NO-CARRIER,)?([^>]*>.*? state )(?:UP|DOWN)\b/, '$1$2*'),
      ),
  };
}

/** Loads the machine's base image into a host's engine, as a run will ship its images to a host. */
async function loadBaseImage(to: Dockerode): Promise<void> {
  const tar = await new Dockerode().getImage(DEFAULT_BASE_IMAGE).get();
  const progress = await to.loadImage(tar);
  await new Promise<void>((resolve, reject) => to.modem.followProgress(progress, (err) => (err ? reject(err) : resolve())));
}

describe.skipIf(real.skip)('scripts/local-hosts.sh: two local hosts', () => {
  let before: ReturnType<typeof machineState>;
  let hostsFile: HostsFile;
  let started = false;

  beforeAll(() => {
    real.assertPresent();
    expect(script('list').stdout, 'local hosts are already started: run scripts/local-hosts.sh stop first').toBe('');
    before = machineState();
  });

  afterAll(() => {
    if (started) script('stop');
  });

  it('start 2 prints the hosts file to export, which the loader accepts', async () => {
    const t0 = Date.now();
    const start = script('start', '2');
    started = true;
    console.log(`[local hosts] start 2 took ${Date.now() - t0} ms`);
    expect(start.status, start.stderr).toBe(0);
    const exported = /^export CAVSIM_HOSTS=(\S+)\n$/.exec(start.stdout);
    expect(exported, start.stdout).not.toBeNull();
    expect(start.stderr).toContain('cavsim-host-2: engine answering on tcp://10.219.0.12:2376 (TLS)');

    const during = machineState();
    expect(during.containers).toEqual(expect.arrayContaining(['cavsim-host-1\t', 'cavsim-host-2\t']));
    expect(during.networks).toContain('cavsim-hosts\t');
    expect(during.volumes).toEqual(expect.arrayContaining(['cavsim-host-1-docker\t', 'cavsim-host-2-docker\t']));
    expect(during.iptables.filter((l) => l.includes('cavsim-hosts')).length).toBeGreaterThan(0);
    expect(during.links.some((l) => /^\d+: cavsim-hosts: /.test(l))).toBe(true);

    hostsFile = await loadHostsFile(exported![1]);
    expect(hostsFile.hosts.map((h) => [h.name, h.engineUrl, h.tunnelAddress])).toEqual([
      ['cavsim-host-1', 'tcp://10.219.0.11:2376', '10.219.0.11'],
      ['cavsim-host-2', 'tcp://10.219.0.12:2376', '10.219.0.12'],
    ]);
    for (const h of hostsFile.hosts) for (const f of Object.values(h.tls!)) expect(existsSync(f)).toBe(true);
  });

  it('start again says it is started and prints the same export', () => {
    const again = script('start', '2');
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toBe(`export CAVSIM_HOSTS=${hostsFile.file}\n`);
    expect(again.stderr).toMatch(/already started: 2 hosts \(cavsim-host-1 cavsim-host-2\)/);
  });

  it("each host's engine answers over TLS through the file's endpoint and runs a container from an image loaded into it", async () => {
    const t0 = Date.now();
    await Promise.all(
      hostsFile.hosts.map(async (h) => {
        const port = connectDocker(engineOptions(h));
        await port.ping();
        const engine = new Dockerode(engineOptions(h));
        expect((await engine.info()).Name).toBe(h.name);
        await loadBaseImage(engine);
        const name = `cavsim-host-itest-${process.pid}`;
        await port.createContainer({ name, image: DEFAULT_BASE_IMAGE, labels: {}, cmd: ['sleep', '60'], plumbedByHost: true, init: true });
        try {
          await port.startContainer(name);
          const r = await port.exec(name, ['sh', '-c', 'node --version && ip -o link']);
          expect(r.exitCode, r.stderr).toBe(0);
          expect(r.stdout).toMatch(/^v\d+\.\d+\.\d+\n1: lo: /);
          expect(r.stdout.trim().split('\n')).toHaveLength(2); // only loopback: networking left to the host, as cavsim's cars
        } finally {
          await port.removeContainer(name, { force: true });
        }
        expect(await port.listContainers({})).toEqual([]);
      }),
    );
    console.log(`[local hosts] base image loaded into both hosts and a container run on each in ${Date.now() - t0} ms`);
  });

  it('the engine is not reachable without the client certificate', async () => {
    const h = hostsFile.hosts[0];
    const { cert: _c, key: _k, ...noClientCert } = engineOptions(h);
    await expect(new Dockerode(noClientCert).ping()).rejects.toThrow();
  });

  it('exec runs a command in a host (its links), list names both, and exec refuses a name that is not one', () => {
    const links = script('exec', 'cavsim-host-1', 'ip', '-br', 'link');
    expect(links.status, links.stderr).toBe(0);
    expect(links.stdout).toMatch(/^lo\s/m);
    expect(links.stdout).toMatch(/^docker0\s/m);
    expect(links.stdout).toMatch(/^eth0@\S+\s+UP\s/m);

    const list = script('list');
    expect(list.status).toBe(0);
    expect(list.stdout).toMatch(/^cavsim-host-1\ttcp:\/\/10\.219\.0\.11:2376\tUp .*\ncavsim-host-2\ttcp:\/\/10\.219\.0\.12:2376\tUp .*\n$/);

    const nope = script('exec', 'cavsim-host-9', 'true');
    expect(nope.status).toBe(1);
    expect(nope.stderr).toContain('cavsim-host-9 is not a local host; these are: cavsim-host-1 cavsim-host-2');
  });

  it('stop leaves containers, networks, volumes, rules and links as they were; stop again is fine', () => {
    const stop = script('stop');
    expect(stop.status, stop.stderr).toBe(0);
    started = false;
    expect(machineState()).toEqual(before);
    expect(existsSync(hostsFile.file)).toBe(false);
    const again = script('stop');
    expect(again.status).toBe(0);
    expect(again.stderr).toContain('not started');
  });
});
