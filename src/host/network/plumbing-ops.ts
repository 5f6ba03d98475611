import { EnvironmentError, ExternalProcessError } from '../../errors.js';
import type { ContainerSpec, DockerPort } from '../docker/docker-port.js';
import type { CommandRunner } from '../exec/command-runner.js';
import { executeOperation } from './execute.js';
import type { HostNetOps } from './hostnet-port.js';
import { type HostNetOperation, hostNetOperationSchema } from './operation-schema.js';

/**
 * What a plumbing container may do on a remote host: the host's links, its VXLAN devices, and links
 * inside a container's namespace by pid. Operations that look at this machine's /proc or /run/netns
 * (named namespaces, a namespace's existence) would see the wrong machine and are refused.
 */
const REMOTE_OPS = new Set<HostNetOperation['op']>([
  'create-vxlan',
  'vxlan-list',
  'move-into-netns',
  'delete-link',
  'link-list',
  'enslave',
  'link-up',
  'create-bridge',
  'create-veth',
  'chain-exists',
  'iptables-add',
  'iptables-add-all',
  'iptables-delete',
  'iptables-delete-all',
]);

/**
 * A plumbing container's rights (docs/multi-host.md): the host's network and pid namespaces, the
 * three capabilities `ip`, `nsenter` and `sysctl` need, no seccomp or AppArmor filter and a writable
 * /proc/sys (IPv6 off on a car's eth1). Not `--privileged`: it asks for every capability and fails on
 * an engine that lacks one.
 */
export const PLUMBING_CAPS = ['NET_ADMIN', 'SYS_ADMIN', 'SYS_PTRACE'] as const;
export const PLUMBING_SECURITY = ['seccomp=unconfined', 'apparmor=unconfined'] as const;

export interface PlumbingOptions {
  host: string;
  /** An image on the host with iproute2, util-linux's nsenter and procps' sysctl (cavsim's base image has them). */
  image: string;
  /** Names each short-lived container (unique on the host). */
  name: () => string;
  labels?: Record<string, string>;
  /**
   * The run's long-lived plumbing container on the host (`plumbingSessionSpec`): while it runs,
   * commands are `docker exec`s in it (a tenth of a second, not the half second a new container
   * takes); when it is gone or stopped (a later teardown, a host restarted), short-lived ones again.
   */
  session?: string;
}

/** A plumbing container's rights and image, running `cmd`. */
function plumbingSpec(options: Pick<PlumbingOptions, 'image' | 'labels'>, name: string, cmd: readonly string[]): ContainerSpec {
  return {
    name,
    image: options.image,
    labels: { 'cavsim.role': 'plumbing', ...options.labels },
    cmd,
    hostNetwork: true,
    hostPid: true,
    capAdd: PLUMBING_CAPS,
    securityOpt: PLUMBING_SECURITY,
    unmaskedPaths: true,
  };
}

/** The run's plumbing container on a host: it only waits (its init ends it when removed), and commands run in it by exec. */
export function plumbingSessionSpec(options: Pick<PlumbingOptions, 'image' | 'labels'>, name: string): ContainerSpec {
  return { ...plumbingSpec(options, name, ['sleep', 'infinity']), init: true };
}

type PlumbingDocker = Pick<DockerPort, 'runToCompletion' | 'exec' | 'inspectContainer'>;

/**
 * The privileged operations of a remote host, each command run by the host's own engine: in the
 * run's plumbing container when it runs, else in a short-lived one (`--network host --pid host`),
 * fed its input on stdin and removed. cavsim runs nothing of its own on the host beyond what its
 * engine runs.
 */
export function createPlumbingOps(docker: PlumbingDocker, options: PlumbingOptions): HostNetOps {
  let sessionRuns: Promise<boolean> | undefined;
  const inSession = () =>
    options.session === undefined
      ? Promise.resolve(false)
      : (sessionRuns ??= docker.inspectContainer(options.session).then(
          (c) => c?.running === true,
          () => false,
        ));
  const runner: CommandRunner = {
    async run(argv, opts = {}) {
      const command = withoutSysctl(argv, opts.input);
      const input = command.input !== undefined ? { input: command.input } : {};
      const r = await ((await inSession())
        ? docker.exec(options.session!, command.argv, input)
        : docker.runToCompletion(plumbingSpec(options, options.name(), command.argv), input)
      ).catch((err: Error) => {
        // The engine refuses to start a program the image lacks: the command's failure, not the engine's.
        if (/executable file not found/.test(err.message)) return { exitCode: 127, stdout: '', stderr: err.message };
        throw err;
      });
      if (r.exitCode !== 0 && !opts.allowFailure)
        throw new ExternalProcessError(argv, r.exitCode, `on ${options.host}: ${r.stderr.trim().split('\n').slice(-8).join('\n')}`);
      return r;
    },
  };
  return {
    async run(op) {
      const valid = hostNetOperationSchema.parse(op);
      if (!REMOTE_OPS.has(valid.op))
        throw new EnvironmentError(`${options.host}: ${valid.op} is not done on a remote host`, 'this is a cavsim bug: report it');
      return executeOperation(valid, runner);
    },
  };
}

/**
 * `sysctl -q -w net/.../x=1 ...` (optionally after `nsenter --net=...`) as `tee` of the same files
 * under /proc/sys with the value on stdin: cavsim's base image has coreutils but not procps. A
 * /proc/sys/net file is the namespace of the process that opens it, so nsenter still applies.
 */
export function withoutSysctl(argv: readonly string[], input?: string): { argv: readonly string[]; input?: string } {
  const at = argv.indexOf('sysctl');
  const settings = argv.slice(at + 1).filter((a) => a !== '-q' && a !== '-w');
  const values = new Set(settings.map((a) => a.split('=')[1]));
  if (
    at < 0 ||
    argv.slice(0, at).some((a) => a !== 'nsenter' && !a.startsWith('--net=')) ||
    values.size !== 1 ||
    settings.some((a) => !a.includes('='))
  )
    return input !== undefined ? { argv, input } : { argv };
  return { argv: [...argv.slice(0, at), 'tee', ...settings.map((a) => `/proc/sys/${a.split('=')[0]}`)], input: `${[...values][0]}\n` };
}
