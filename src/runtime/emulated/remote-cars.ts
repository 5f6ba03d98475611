import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvironmentError } from '../../errors.js';
import type { DockerPort } from '../../host/docker/docker-port.js';
import { pingProblem } from '../../host/docker/host-engines.js';
import { DEFAULT_BASE_IMAGE } from '../../host/docker/images.js';
import { createJournaledDocker } from '../../host/docker/journaled.js';
import { runLabels } from '../../host/docker/labels.js';
import { routedDocker } from '../../host/docker/routed-port.js';
import { describeShipped, remoteCarImages, shipImages } from '../../host/docker/ship-image.js';
import type { ArchiveFile } from '../../host/docker/tar-archive.js';
import type { Journal } from '../../host/journal/journal.js';
import { HOSTS_FILE_KIND } from '../../host/journal/kinds.js';
import type { HostNetOps } from '../../host/network/hostnet-port.js';
import { plumbingSessionSpec } from '../../host/network/plumbing-ops.js';
import { sourceAddressTo } from '../../host/network/route-source.js';
import { applyTunnelSteps, type TunnelHosts } from '../../host/network/tunnel-apply.js';
import { assertVnisFree } from '../../host/network/tunnel-plan.js';
import { inParallel } from '../../util/in-parallel.js';
import type { ComponentWatch, Death } from './component-watch.js';
import type { EmulatedRunDeps, RemoteHost } from './emulated-deps.js';
import { CONTAINER_RUN_DIR, type EmulatedRunPlan, remoteContainerHosts } from './plan-emulated.js';
import { planRemoteCars, type RemoteCarsPlan, type RemoteEnd, RUN_HOST } from './remote-plan.js';
import { plumbingOf, plumbingSessionName, remoteUndoDeps } from './remote-teardown.js';

/** Remote cars' steps plumbed at once on one host (each step an exec in the run's plumbing container there). */
const CARS_AT_ONCE = 4;

/**
 * The remote hosts of a run that places cars on them: the DockerPort that reaches each car on its
 * host, each host's privileged operations (plumbing containers of its engine), the images shipped,
 * and the tunnels, control links and rules that put the cars on the run's channel and control bridge.
 */
export class RemoteCars {
  /** The run's ports with container calls routed to each car's host, and the tunnels' hosts for the journal's undoers. */
  readonly deps: EmulatedRunDeps;
  readonly tunnelHosts: TunnelHosts;
  private readonly hosts: Map<string, RemoteHost & { plumbing: HostNetOps }>;
  private readonly file: string;

  constructor(
    deps: EmulatedRunDeps,
    private readonly plan: EmulatedRunPlan,
  ) {
    this.file = deps.remote?.file ?? '';
    const used = new Set(plan.vehicles.flatMap((v) => (v.host ? [v.host] : [])));
    this.hosts = new Map(
      (deps.remote?.hosts ?? [])
        .filter((h) => used.has(h.name))
        .map((h) => [
          h.name,
          {
            ...h,
            plumbing: plumbingOf(h.docker, h.name, plan.runId, 'plumb'),
          },
        ]),
    );
    const hostOf = remoteContainerHosts(plan);
    const engineOf = (container: string) => {
      const host = hostOf.get(container);
      return host === undefined ? undefined : this.hosts.get(host)?.docker;
    };
    const docker = routedDocker(deps.docker, engineOf);
    this.tunnelHosts = {
      ops: (host) => (host === RUN_HOST ? deps.hostNet : this.host(host).plumbing),
      pidOf: async (host, container) => {
        const c = await (host === RUN_HOST ? deps.docker : this.host(host).docker).inspectContainer(container);
        return c?.running ? c.pid : undefined;
      },
    };
    this.deps = {
      ...deps,
      docker,
      tunnelHosts: this.tunnelHosts,
      endPorts: async (entries) => {
        const reached = await Promise.all(
          [...this.hosts.values()].map(async (h) => {
            const problem = await pingProblem(h.docker, END_PING_MS);
            return problem === undefined ? { name: h.name, docker: h.docker } : { name: h.name, problem };
          }),
        );
        return remoteUndoDeps(deps, plan.runId, entries, reached);
      },
    };
  }

  private host(name: string) {
    const h = this.hosts.get(name);
    if (!h) throw new EnvironmentError(`${name}: not a host of this run`, 'this is a cavsim bug: report it');
    return h;
  }

  /** Before the first remote resource: which hosts file reaches the run's hosts, for a later `cavsim teardown`. */
  recordHosts(journal: Journal): void {
    journal.record(HOSTS_FILE_KIND, this.file, { file: this.file, hosts: [...this.hosts.keys()] });
  }

  /**
   * Each host with cars is watched for the whole run: an engine that stops answering (a host that
   * died, lost its network or was paused) fails the run naming the host, as a dead car would.
   */
  watchHosts(watch: Pick<ComponentWatch, 'watch' | 'signal'>): void {
    for (const h of this.hosts.values()) watch.watch(`host ${h.name}`, hostDeath(h.docker, watch.signal), { when: 'during the run' });
  }

  /**
   * Each remote host gets the base and vehicle images as built here, and the own image of each car
   * placed there (the same image id on both engines), shipped by save -> load when not.
   */
  async shipImages(vehicleImage: string, report: (line: string) => void): Promise<void> {
    await Promise.all(
      [...this.hosts.values()].map(async (h) => {
        const own = this.plan.vehicles.filter((v) => v.host === h.name).map((v) => v.image);
        const tags = [...new Set([...remoteCarImages(vehicleImage, DEFAULT_BASE_IMAGE), ...own])];
        const shipped = await shipImages(this.deps.docker, h.docker, h.name, tags);
        for (const line of describeShipped(h.name, shipped)) report(line);
      }),
    );
  }

  /** The run files a remote car reads, copied into its container (created, not started) where a local car has the run folder. */
  async copyRunFiles(spec: EmulatedRunPlan['vehicles'][number]): Promise<void> {
    const files: ArchiveFile[] = (spec.copyIn ?? []).flatMap((name) => {
      try {
        return [{ path: `${CONTAINER_RUN_DIR.slice(1)}/${name}`, content: readFileSync(join(this.plan.runDir, name)) }];
      } catch {
        return []; // a file the run did not write (no map): the car does not read it either
      }
    });
    if (files.length) await this.deps.docker.putFiles!(spec.name, '/', files);
  }

  /**
   * The run's plumbing container on a host, journaled before it exists: every later command there
   * is an exec in it. Journaled before the first tunnel step, it is removed after the last inverse.
   */
  private async startPlumbing(h: RemoteHost, journal: Journal): Promise<void> {
    const spec = plumbingSessionSpec(
      { image: DEFAULT_BASE_IMAGE, labels: runLabels(this.plan.runId) },
      plumbingSessionName(this.plan.runId, h.name),
    );
    await createJournaledDocker(h.docker, journal, this.plan.runId, () => h.name).createContainer(spec);
    await h.docker.startContainer(spec.name);
  }

  /**
   * Once the cars run and the run's bridges exist: per host, the tunnel port's rules and the control
   * bridge, then each car's rules, eth0 and eth1 tunnel; here, each tunnel's end on its bridge. VNIs
   * are checked free on every host first. Each step is journaled (host and inverse) before it runs.
   */
  async plumb(journal: Journal, runner: EmulatedRunDeps['runner']): Promise<RemoteCarsPlan> {
    await Promise.all([...this.hosts.values()].map((h) => this.startPlumbing(h, journal)));
    const ends: RemoteEnd[] = await Promise.all(
      [...this.hosts.values()].map(async (h) => ({
        name: h.name,
        index: h.index,
        address: h.tunnelAddress!,
        runAddress: await sourceAddressTo(runner, h.tunnelAddress!, h.name),
      })),
    );
    const remote = planRemoteCars(this.plan, ends);
    const vnis = (host: string, list: number[]) => async () => {
      const existing = (await this.tunnelHosts.ops(host).run({ op: 'vxlan-list' })).vxlans ?? [];
      assertVnisFree(
        host === RUN_HOST ? "the run's host" : host,
        list.map((vni) => ({ vni, port: remote.port })),
        existing,
      );
    };
    await Promise.all([
      vnis(
        RUN_HOST,
        remote.hosts.flatMap((h) => h.vnis),
      )(),
      ...remote.hosts.map((h) => vnis(h.host, h.vnis)()),
    ]);
    await Promise.all([
      applyTunnelSteps(remote.runSide, journal, this.tunnelHosts),
      ...remote.hosts.map(async (h) => {
        await applyTunnelSteps(h.setUp, journal, this.tunnelHosts);
        await inParallel(h.cars, CARS_AT_ONCE, (car) => applyTunnelSteps(car.steps, journal, this.tunnelHosts));
      }),
    ]);
    return remote;
  }
}

/** At the run's end each host's engine has this long to answer before its entries are kept for a later teardown. */
const END_PING_MS = 3000;
/** A host's engine is asked this often whether it still answers. */
const HOST_PING_MS = 1000;
/** It is named as gone once it has not answered for this long. */
export const HOST_SILENT_MS = 5000;

/** Resolves when the host's engine has not answered for HOST_SILENT_MS; `undefined` once the watch ends. */
export async function hostDeath(
  docker: Pick<DockerPort, 'ping'>,
  signal: AbortSignal,
  timing = { pingMs: HOST_PING_MS, silentMs: HOST_SILENT_MS },
): Promise<Death | undefined> {
  let lastAnswer = Date.now();
  let lastError = '';
  while (!signal.aborted) {
    const problem = await pingProblem(docker, timing.pingMs);
    const answered = problem === undefined;
    if (!answered) lastError = problem;
    if (signal.aborted) return undefined;
    if (answered) lastAnswer = Date.now();
    else if (Date.now() - lastAnswer >= timing.silentMs)
      return {
        exit_status: null,
        signal: null,
        how: `stopped answering: its Docker engine was silent for ${(timing.silentMs / 1000).toFixed(0)} s${lastError ? ` (${lastError})` : ''}; the host or its network went away, with the cars on it`,
        last_log_lines: [],
      };
    await new Promise((r) => setTimeout(r, answered ? timing.pingMs : 0));
  }
  return undefined;
}
