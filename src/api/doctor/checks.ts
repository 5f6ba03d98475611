import { LOCKSTEP_NS3_MODULES } from '../../channel/ns3/engine-choice.js';
import { CAVSIM_IMAGES, DEFAULT_BASE_IMAGE } from '../../host/docker/images.js';
import { asRoot } from '../../host/exec/as-root.js';
import { tapCreatorPathsIn } from './tap-creator.js';
import type { CheckResult, DoctorOptions, DoctorPorts } from './types.js';

const setupDocker = (uid: number) => asRoot('scripts/setup-docker.sh', uid);
const aptInstall = (packages: string, uid: number) => asRoot(`apt-get install -y ${packages}`, uid);
const NS3_PACKAGES = 'libns3-dev ns3 libgsl-dev g++ pkg-config';
/** Where Debian installs the ns-3 helper programs. */
export const NS3_HELPER_DIR = '/usr/libexec/ns3';

export type Check = (ports: DoctorPorts, options: DoctorOptions) => Promise<CheckResult>;

export const checkDockerEngine: Check = async ({ docker, uid }) => {
  try {
    await docker.ping();
    return { name: 'Docker engine', ok: true, detail: 'engine answers' };
  } catch (err) {
    return { name: 'Docker engine', ok: false, detail: messageOf(err), fix: setupDocker(uid) };
  }
};

export const checkBaseImage: Check = async ({ docker, uid }, { baseImage = DEFAULT_BASE_IMAGE }) => {
  const name = 'Base image';
  const image = await docker.inspectImage(baseImage);
  if (image) return { name, ok: true, detail: `${baseImage} (${image.id.slice(0, 19)})` };
  if (baseImage !== DEFAULT_BASE_IMAGE) {
    return {
      name,
      ok: false,
      advisory: true,
      detail: `${baseImage} not pulled yet`,
      fix: 'The first image build pulls it (needs a registry).',
    };
  }
  return {
    name,
    ok: false,
    detail: `${baseImage} missing`,
    fix: `${asRoot('scripts/build-base-image.sh', uid)}   (about 40 s, no registry needed)`,
  };
};

export const checkCavsimImages: Check = async ({ docker }, { images = CAVSIM_IMAGES }) => {
  const missing: string[] = [];
  for (const tag of Object.values(images)) if (!(await docker.inspectImage(tag))) missing.push(tag);
  if (missing.length === 0) return { name: 'cavsim images', ok: true, detail: Object.values(images).join(', ') };
  return {
    name: 'cavsim images',
    ok: false,
    advisory: true,
    detail: `not built yet: ${missing.join(', ')}`,
    fix: '`cavsim up` builds them (and rebuilds them whenever the code changes).',
  };
};

export const checkNs3: Check = async ({ commands, uid }) => {
  const name = 'ns-3 development files';
  // Every module a channel program links: the lock-step one (csma, latency, wifi-80211p) and the real-time one (TapBridge).
  const ns3 = await commands.run(['pkg-config', '--modversion', ...new Set([...LOCKSTEP_NS3_MODULES, 'ns3-tap-bridge'])], {
    allowFailure: true,
  });
  if (ns3.exitCode !== 0)
    return { name, ok: false, detail: tail(ns3.stderr) || 'pkg-config found no ns3-core', fix: aptInstall(NS3_PACKAGES, uid) };
  const gsl = await commands.run(['pkg-config', '--exists', 'gsl'], { allowFailure: true });
  if (gsl.exitCode !== 0) {
    return {
      name,
      ok: false,
      detail: `ns-3 ${firstLine(ns3.stdout)}, but libgsl (named by ns-3's .pc files) is missing`,
      fix: aptInstall('libgsl-dev', uid),
    };
  }
  const compiler = await commands.run(['g++', '--version'], { allowFailure: true });
  if (compiler.exitCode !== 0) return { name, ok: false, detail: `ns-3 ${firstLine(ns3.stdout)}, but no g++`, fix: aptInstall('g++', uid) };
  return { name, ok: true, detail: `ns-3 ${firstLine(ns3.stdout)}, gsl, ${firstLine(compiler.stdout)}` };
};

export const checkTapCreator: Check = async ({ commands, fileExists, readFile, uid }) => {
  const name = 'TapBridge tap-creator helper';
  const libdir = await commands.run(['pkg-config', '--variable=libdir', 'ns3-tap-bridge'], { allowFailure: true });
  const packages = aptInstall(NS3_PACKAGES, uid);
  if (libdir.exitCode !== 0) return { name, ok: false, detail: 'ns3-tap-bridge not found by pkg-config', fix: packages };
  const library = `${libdir.stdout.trim()}/libns3-tap-bridge.so`;
  if (!(await fileExists(library))) return { name, ok: false, detail: `${library} missing`, fix: packages };
  const expected = tapCreatorPathsIn(await readFile(library));
  if (expected.length === 0) return { name, ok: false, detail: `no tap-creator path found in ${library}`, fix: packages };
  const absent: string[] = [];
  for (const path of expected) if (!(await fileExists(path))) absent.push(path);
  if (absent.length === 0) return { name, ok: true, detail: `${expected.join(', ')} present` };
  const fix = absent
    .map((path) => {
      const helper = `${NS3_HELPER_DIR}/${path.slice(path.lastIndexOf('/') + 1)}`;
      return `${asRoot(`mkdir -p '${path.slice(0, path.lastIndexOf('/'))}'`, uid)} && ${asRoot(`ln -sf '${helper}' '${path}'`, uid)}`;
    })
    .join('\n');
  return { name, ok: false, detail: `libns3-tap-bridge execs ${absent.join(', ')}, which does not exist`, fix };
};

/** Where Debian puts iptables: a normal user's PATH has neither, root's (and sudo's) has both. */
const SBIN_IPTABLES = ['/usr/sbin/iptables', '/sbin/iptables'];

export const checkIptables: Check = async ({ commands, fileExists, uid }) => {
  const result = await commands.run(['iptables', '--version'], { allowFailure: true });
  if (result.exitCode === 0) return { name: 'iptables', ok: true, detail: firstLine(result.stdout) };
  for (const path of SBIN_IPTABLES) {
    if (!(await fileExists(path))) continue;
    const sbin = await commands.run([path, '--version'], { allowFailure: true });
    if (sbin.exitCode === 0)
      return { name: 'iptables', ok: true, detail: `${firstLine(sbin.stdout)} (${path}; not on this user's PATH, on root's)` };
  }
  return { name: 'iptables', ok: false, detail: tail(result.stderr) || 'iptables not found', fix: aptInstall('iptables', uid) };
};

export const checkTun: Check = async ({ fileExists, uid }) =>
  (await fileExists('/dev/net/tun'))
    ? { name: 'TUN device', ok: true, detail: '/dev/net/tun present' }
    : {
        name: 'TUN device',
        ok: false,
        detail: '/dev/net/tun missing',
        fix: `${asRoot('modprobe tun', uid)} (in a container: run it with --device /dev/net/tun)`,
      };

export const checkPrivileges: Check = async ({ uid, commands }) => {
  const name = 'Privileges';
  if (uid === 0) return { name, ok: true, detail: 'running as root' };
  const sudo = await commands.run(['sudo', '-n', 'true'], { allowFailure: true });
  return sudo.exitCode === 0
    ? { name, ok: true, detail: `uid ${uid} with passwordless sudo` }
    : {
        name,
        ok: false,
        detail: `uid ${uid}, and sudo asks for a password`,
        fix: 'Run cavsim as root, or allow passwordless sudo for this user.',
      };
};

export const checkLeftovers: Check = async ({ leftoverRuns }) => {
  const runs = await leftoverRuns();
  if (runs.length === 0) return { name: 'Leftovers from earlier runs', ok: true, detail: 'no run holds host resources' };
  return {
    name: 'Leftovers from earlier runs',
    ok: false,
    detail: runs.map((r) => `${r.runId}: ${r.outstanding} resource(s) not undone`).join('; '),
    fix: runs.map((r) => `cavsim teardown --run ${r.runId}`).join('\n'),
  };
};

export const checkFastProcessStart: Check = async ({ fastProcessStart }) => {
  const name = 'Fast ns-3 start (posix_spawn)';
  const problem = await fastProcessStart();
  if (problem === undefined) return { name, ok: true, detail: 'lock-step ns-3 starts without forking Node' };
  return {
    name,
    ok: false,
    advisory: true,
    detail: `Node's spawn is used instead (each ns-3 start blocks Node 5-17 ms longer): ${problem}`,
    fix: "Install gcc and Node's headers (node_api.h beside Node's binary, under include/node).",
  };
};

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' ');
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
