import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DockerPort } from '../../../host/docker/docker-port.js';
import type { JournaledDocker } from '../../../host/docker/journaled.js';
import { ComponentFailedError, type FailedComponent } from '../../../run/outcome.js';
import type { ResolvedVehicle } from '../../../scenario/resolved.js';
import type { CollisionReport } from '../../rosbridge/control-topics.js';
import { startContainerRunner } from './container-runner.js';
import { CpuClock } from './cpu-time.js';
import { type CodeExit, type OwnCodeRunner, startHostProcess } from './host-process.js';
import type { LinkRefusal, OwnCodeLink, TickAnswer, TickInput } from './own-code-link.js';
import type { VehicleCode } from './vehicle-code.js';

export interface OwnCodeContext {
  runDir: string;
  /** Where a host command runs: the scenario file's folder, as relative paths in a scenario are. */
  scenarioDir: string;
  duration: number;
  /** The run's virtual time now [s], to say when something failed. */
  now: () => number;
  /** For vehicles with an `image:`: the engine, journaled, and the run's id for labels. */
  containers?: { docker: DockerPort; journaled: JournaledDocker; runId: string };
}

const PROTOCOL_HINT =
  'it must connect to $CAVSIM_SIM_URL, publish /cavsim/ready, and answer each odometry with a drive command stamped with it (docs/control-protocol.md, "Virtual time")';

/**
 * A vehicle whose `command:` the simulated runtime runs on this host, behind its own control link.
 * Whatever goes wrong with the code (it exits, cannot start, stops answering) ends the run as
 * `failed`, naming the vehicle, with the last lines of its log (`logs/<name>.log`).
 */
export class OwnCodeVehicle implements VehicleCode {
  private stopped = false;
  private readonly cpu?: CpuClock;

  private constructor(
    readonly spec: ResolvedVehicle,
    private readonly link: OwnCodeLink,
    private readonly runner: OwnCodeRunner,
    private readonly ctx: OwnCodeContext,
  ) {
    if (runner.pid !== undefined) {
      const cpu = new CpuClock(runner.pid);
      this.cpu = cpu;
      link.cpuSeconds = () => cpu.seconds();
    }
    void runner.exited.then(async (exit) => {
      if (!this.stopped) link.fail(await this.failure(exit));
    });
  }

  get name(): string {
    return this.spec.name;
  }

  static async start(spec: ResolvedVehicle, ctx: OwnCodeContext): Promise<OwnCodeVehicle> {
    // the link (a WebSocket server) is loaded by the runs that have own code, not at every command's start
    const { OwnCodeLink } = await import('./own-code-link.js');
    const link = await OwnCodeLink.open(spec, ctx.duration);
    const logs = join(ctx.runDir, 'logs');
    mkdirSync(logs, { recursive: true });
    const env = {
      CAVSIM_VEHICLE: spec.name,
      CAVSIM_SIM_URL: link.url,
      CAVSIM_RUN_DIR: ctx.runDir,
      CAVSIM_RUNTIME: 'sim',
      CAVSIM_CONNECT_TIMEOUT_MS: String(Math.round(spec.compute.timeout * 1000)),
    };
    const logFile = join(logs, `${spec.name}.log`);
    let runner: OwnCodeRunner;
    try {
      if (!spec.image) runner = startHostProcess(spec.command!, { cwd: ctx.scenarioDir, env, logFile });
      else if (ctx.containers) runner = await startContainerRunner(spec, { ...ctx.containers, runDir: ctx.runDir, env, logFile });
      else throw new Error(`${spec.name} has an image and this run has no Docker engine to run it`);
    } catch (err) {
      await link.close();
      throw err;
    }
    return new OwnCodeVehicle(spec, link, runner, ctx);
  }

  /** Waits until the code is subscribed and said so, at most its tick timeout. */
  whenReady(): Promise<void> {
    return this.withTimeout(this.link.whenReady(), `did not publish /cavsim/ready within ${this.spec.compute.timeout} s of starting`);
  }

  start(): void {
    this.link.start();
  }

  tick(input: TickInput): Promise<TickAnswer> {
    return this.withTimeout(
      this.link.tick(input),
      `did not answer tick ${input.step} within ${this.spec.compute.timeout} s of wall-clock time`,
    );
  }

  collided(report: CollisionReport): void {
    this.link.collided(report);
  }

  takeRefusals(): LinkRefusal[] {
    return this.link.takeRefusals();
  }

  /** Tells the code to stop, gives it a moment to exit, then ends it and the link. Harmless twice. */
  async close(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.link.stop(reason, this.ctx.now());
    await this.runner.stop(2000);
    this.cpu?.close();
    await this.link.close();
  }

  private withTimeout<T>(work: Promise<T>, how: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        void this.failure(undefined, how).then((err) => {
          this.link.fail(err);
          reject(err);
        });
      }, this.spec.compute.timeout * 1000);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  private async failure(exit: CodeExit | undefined, how?: string): Promise<ComponentFailedError> {
    const what = [
      ...(this.spec.image ? [`image ${this.spec.image}`] : []),
      ...(this.spec.command ? [this.spec.command.join(' ')] : []),
    ].join(': ');
    const failed: FailedComponent = {
      component: `vehicle ${this.spec.name} (own code, ${what})`,
      exit_status: exit?.code ?? null,
      signal: exit?.signal ?? null,
      last_log_lines: await this.runner.logTail(),
      ...(how ? { how } : exit?.error ? { how: `could not be started (${exit.error})` } : {}),
    };
    return new ComponentFailedError(failed, `at t=${this.ctx.now().toFixed(2)} s`, PROTOCOL_HINT);
  }
}
