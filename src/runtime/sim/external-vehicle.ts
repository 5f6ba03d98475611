import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { EnvironmentError } from '../../errors.js';
import { ComponentFailedError } from '../../run/outcome.js';
import type { ResolvedExternal, ResolvedScenario, ResolvedVehicle } from '../../scenario/resolved.js';
import type { CollisionReport } from '../rosbridge/control-topics.js';
import type { LinkRefusal, OwnCodeLink, TickAnswer, TickInput } from './own-code/own-code-link.js';
import type { VehicleCode } from './own-code/vehicle-code.js';

/**
 * The external devices of one simulated run. cavsim starts none of them (unlike own code): it
 * listens for each, and the summary's `timing.external` gathers their link figures.
 */
export function openExternalDevices(scenario: ResolvedScenario, runDir: string, say: ExternalContext['say']) {
  const opened: ExternalVehicle[] = [];
  return {
    async open(spec: ResolvedVehicle & { external: ResolvedExternal }, now: () => number): Promise<ExternalVehicle> {
      const vehicle = await ExternalVehicle.open(spec, { runDir, duration: scenario.duration, now, say });
      opened.push(vehicle);
      return vehicle;
    },
    /** `timing.external` of the summary: each external device's connection and tick figures. */
    figures(): Record<string, ExternalFigures> | undefined {
      return opened.length ? Object.fromEntries(opened.map((e) => [e.name, e.figures()])) : undefined;
    },
  };
}

export interface ExternalContext {
  runDir: string;
  duration: number;
  /** The run's virtual time now [s], to say when something failed. */
  now: () => number;
  /** Where the run says what it waits for (the address to connect to). */
  say: (message: string) => void;
}

/** What the summary says about one external device (`timing.external.<car>`). */
export interface ExternalFigures {
  url: string;
  barrier: boolean;
  device: string | null;
  /** From the link listening to the device's connection [ms] (how long the run waited for it). */
  listen_to_connect_ms: number | null;
  /** From the device's connection to its ready message [ms]. */
  connect_to_ready_ms: number | null;
  /** From the device's ready message to the first tick sent [ms]. */
  ready_to_first_step_ms: number | null;
  ticks_sent: number;
  stamped_answers: number;
  refused_clients: number;
}

const PROTOCOL_HINT =
  'the device must connect to the printed ws:// address, publish /cavsim/ready, and answer each odometry with a drive command stamped with it (docs/external-devices.md)';

/**
 * A vehicle whose controller is a device cavsim does not start: the run listens at
 * `external.listen`, waits `connectTimeout` for the device to connect and say ready, then speaks
 * `cavsim.control/1` with it as with own code. One client speaks for the car: another is refused
 * and logged. A device that does not come, stops answering or drops out ends the run `failed`,
 * naming the car and the address; what happened on the link is in `logs/<name>.log`.
 */
export class ExternalVehicle implements VehicleCode {
  private stopped = false;
  private device?: string;
  private readonly lines: string[] = [];
  private readonly opened = performance.now();
  private connectedAt?: number;
  private readyAt?: number;
  private firstTickAt?: number;
  private ticks = 0;
  private answers = 0;
  private refused = 0;
  readonly freeRunning?: VehicleCode['freeRunning'];

  private constructor(
    readonly spec: ResolvedVehicle & { external: ResolvedExternal },
    private readonly link: OwnCodeLink,
    private readonly ctx: ExternalContext,
    private readonly logFile: string,
  ) {
    link.onClient = (event, client, code) => {
      if (event === 'connected') {
        this.device = client.remote;
        this.connectedAt = performance.now();
        this.note(`device connected from ${client.remote}`);
        ctx.say(`${spec.name}: its external controller connected from ${client.remote}`);
      } else if (!this.stopped && client.remote === this.device) {
        this.note(`device ${client.remote} disconnected (WebSocket close ${code ?? 'without a code'})`);
        link.fail(this.failure(`disconnected (WebSocket close ${code ?? 'without a code'})`));
      }
    };
    if (!spec.external.barrier) {
      this.freeRunning = {
        publish: (input) => {
          this.sent();
          link.publish(input);
        },
        collect: () => {
          const got = link.collect();
          this.answers += got.answers.length;
          return got;
        },
      };
    }
  }

  get name(): string {
    return this.spec.name;
  }

  get url(): string {
    return this.link.url;
  }

  static async open(spec: ResolvedVehicle & { external: ResolvedExternal }, ctx: ExternalContext): Promise<ExternalVehicle> {
    const logs = join(ctx.runDir, 'logs');
    mkdirSync(logs, { recursive: true });
    const logFile = join(logs, `${spec.name}.log`);
    // The link logs only about clients, which cannot come before the vehicle below exists.
    let vehicle: ExternalVehicle | undefined;
    const { host, port } = spec.external.listen;
    // loaded by the runs that have an external device, not at every command's start
    const { OwnCodeLink } = await import('./own-code/own-code-link.js');
    const link = await OwnCodeLink.open(spec, ctx.duration, {
      listen: { host, port },
      oneClient: true,
      freeRunning: !spec.external.barrier,
      log: (line) => vehicle?.note(line),
    }).catch((err: unknown) => {
      throw new EnvironmentError(
        `vehicles.${spec.name}.external.listen: cannot listen on ${host}:${port} (${err instanceof Error ? err.message : String(err)})`,
        'choose another port or address of this host, or leave listen out for a free port on 127.0.0.1',
      );
    });
    vehicle = new ExternalVehicle(spec, link, ctx, logFile);
    const wait = `${spec.external.connectTimeout} s`;
    vehicle.note(
      `listening at ${link.url} for ${spec.name}'s controller (barrier ${spec.external.barrier ? 'on' : 'off'}); waiting up to ${wait}`,
    );
    ctx.say(`${spec.name}: waiting up to ${wait} for its external controller at ${link.url}`);
    return vehicle;
  }

  whenReady(): Promise<void> {
    const { connectTimeout } = this.spec.external;
    return this.withTimeout(this.link.whenReady(), connectTimeout, () =>
      this.device
        ? `connected from ${this.device} but did not publish /cavsim/ready within ${connectTimeout} s`
        : `did not connect within ${connectTimeout} s`,
    ).then(() => {
      this.readyAt = performance.now();
      this.note(`device ready after ${((this.readyAt - this.opened) / 1000).toFixed(3)} s`);
    });
  }

  start(): void {
    this.link.start();
  }

  tick(input: TickInput): Promise<TickAnswer> {
    this.sent();
    return this.withTimeout(
      this.link.tick(input),
      this.spec.compute.timeout,
      () => `did not answer tick ${input.step} within ${this.spec.compute.timeout} s of wall-clock time`,
    ).then((answer) => {
      this.answers++;
      return answer;
    });
  }

  collided(report: CollisionReport): void {
    this.link.collided(report);
  }

  takeRefusals(): LinkRefusal[] {
    return this.link.takeRefusals();
  }

  async close(reason: string): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.link.stop(reason, this.ctx.now());
    this.note(`stop (${reason}) after ${this.ticks} ticks and ${this.answers} stamped answers`);
    await this.link.close();
  }

  figures(): ExternalFigures {
    const ms = (a?: number, b?: number) => (a === undefined || b === undefined ? null : +(b - a).toFixed(3));
    return {
      url: this.url,
      barrier: this.spec.external.barrier,
      device: this.device ?? null,
      listen_to_connect_ms: ms(this.opened, this.connectedAt),
      connect_to_ready_ms: ms(this.connectedAt, this.readyAt),
      ready_to_first_step_ms: ms(this.readyAt, this.firstTickAt),
      ticks_sent: this.ticks,
      stamped_answers: this.answers,
      refused_clients: this.refused,
    };
  }

  private sent(): void {
    this.ticks++;
    this.firstTickAt ??= performance.now();
  }

  private note(line: string): void {
    if (line.startsWith('bridge: refused')) this.refused++;
    this.lines.push(line);
    try {
      appendFileSync(this.logFile, `${new Date().toISOString()} ${line}\n`);
    } catch {
      // the log is a help, never a reason to fail the run
    }
  }

  private withTimeout<T>(work: Promise<T>, seconds: number, how: () => string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = this.failure(how());
        this.link.fail(err);
        reject(err);
      }, seconds * 1000);
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  private failure(how: string): ComponentFailedError {
    return new ComponentFailedError(
      {
        component: `vehicle ${this.spec.name} (external controller at ${this.url})`,
        exit_status: null,
        signal: null,
        last_log_lines: this.lines.slice(-3),
        how,
      },
      `at t=${this.ctx.now().toFixed(2)} s`,
      PROTOCOL_HINT,
    );
  }
}
