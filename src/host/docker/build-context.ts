import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { EnvironmentError } from '../../errors.js';
import type { ContainerRole } from './labels.js';

/** Dockerfiles inside the repository and inside the prepared context (same relative paths). */
export const DOCKERFILES: Record<ContainerRole, string> = {
  simulator: 'containers/simulator/Dockerfile',
  vehicle: 'containers/vehicle/Dockerfile',
};

export interface PreparedBuildContext {
  dir: string;
  /** Top-level entries of `dir` to send to the engine. */
  include: string[];
  dockerfiles: Record<ContainerRole, string>;
  dispose(): Promise<void>;
}

/** Produces a build context on demand, so nothing is copied when the images are up to date. */
export interface BuildContextSource {
  prepare(): Promise<PreparedBuildContext>;
}

/**
 * Copies only what the images need out of the repository into a fresh temporary directory:
 * dist/, package.json, the Dockerfiles, the production subset of node_modules and runtime/ (the
 * host's Node.js binary, when `portableNode` found one; never runs/, sources or dev tools).
 */
export function repoBuildContext(
  repoRoot: string,
  tmpParent: string = tmpdir(),
  node: { path: string } | null = portableNode() ?? null,
): BuildContextSource {
  return {
    async prepare() {
      await requireBuiltCode(repoRoot);
      const dir = await mkdtemp(join(tmpParent, 'cavsim-build-'));
      const dispose = () => rm(dir, { recursive: true, force: true });
      try {
        await cp(join(repoRoot, 'dist'), join(dir, 'dist'), { recursive: true });
        await cp(join(repoRoot, 'package.json'), join(dir, 'package.json'));
        for (const file of Object.values(DOCKERFILES)) {
          await mkdir(dirname(join(dir, file)), { recursive: true });
          await cp(join(repoRoot, file), join(dir, file));
        }
        // The Dockerfiles put runtime/ first on PATH: the host's Node.js when it can travel, else Debian's stays.
        await mkdir(join(dir, 'runtime'));
        if (node) await cp(node.path, join(dir, 'runtime', 'node'));
        await mkdir(join(dir, 'node_modules'));
        const lock = JSON.parse(await readFile(join(repoRoot, 'package-lock.json'), 'utf8'));
        for (const pkg of productionPackagePaths(lock)) {
          // Optional packages for other platforms are in the lock file but not on disk.
          if (!(await exists(join(repoRoot, pkg)))) continue;
          await cp(join(repoRoot, pkg), join(dir, pkg), { recursive: true, verbatimSymlinks: true });
        }
        return { dir, include: ['containers', 'dist', 'node_modules', 'package.json', 'runtime'], dockerfiles: DOCKERFILES, dispose };
      } catch (err) {
        await dispose();
        throw err;
      }
    },
  };
}

/**
 * The Node.js running cavsim, when it is one file that runs in the Debian base as it is (a build
 * with its libraries linked in, like nodejs.org's and NodeSource's: only libc, libstdc++ and libm
 * outside it). Debian's own `nodejs` links libnode and libuv and has no start-up snapshot or code
 * cache: a vehicle started on it took 0.45-0.5 s of CPU to load its program, 0.32 s on Node 20 from
 * the host, and `node -e ''` 0.2 s against 0.08 s (2-core VM, 2026-11-27).
 */
export function portableNode(execPath = process.execPath, config = process.config): { path: string; identity: string } | undefined {
  const vars = config.variables as Record<string, unknown>;
  const linksLibraries = Object.entries(vars).some(([key, value]) => key.startsWith('node_shared') && value === true);
  if (linksLibraries || vars.node_use_node_snapshot !== true) return undefined;
  try {
    const st = statSync(execPath);
    return { path: execPath, identity: `${process.version} ${st.size} ${Math.round(st.mtimeMs)}` };
  } catch {
    return undefined;
  }
}

/**
 * The node_modules paths a production install needs, from package-lock.json (v2/v3), outermost
 * only: a package nested inside another copied package comes along with it.
 */
export function productionPackagePaths(lock: unknown): string[] {
  const packages = (lock as { packages?: Record<string, { dev?: boolean; link?: boolean }> })?.packages;
  if (!packages) throw new EnvironmentError('package-lock.json has no "packages" map', 'Run `npm install` with npm 7 or newer.');
  const wanted = Object.entries(packages)
    .filter(([path, meta]) => path.startsWith('node_modules/') && !meta.dev && !meta.link)
    .map(([path]) => path)
    .sort();
  const kept: string[] = [];
  for (const path of wanted) {
    if (!kept.some((parent) => path.startsWith(`${parent}/`))) kept.push(path);
  }
  return kept;
}

/**
 * Identifies the code an image carries: every file under dist/, the Dockerfiles, the
 * dependency lock and which Node.js goes along (version, size and time of the binary, not its 95 MB). Equal hashes mean the image does not need rebuilding.
 */
export async function computeContextHash(repoRoot: string): Promise<string> {
  await requireBuiltCode(repoRoot);
  const files = [
    ...(await listFiles(join(repoRoot, 'dist'))).map((f) => relative(repoRoot, f).split(sep).join('/')),
    ...Object.values(DOCKERFILES),
    'package.json',
    'package-lock.json',
  ].sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash.update(`${file}\0`);
    hash.update(await readFile(join(repoRoot, file)));
    hash.update('\0');
  }
  hash.update(`runtime/node\0${portableNode()?.identity ?? 'none'}`);
  return hash.digest('hex');
}

async function requireBuiltCode(repoRoot: string): Promise<void> {
  if (!(await exists(join(repoRoot, 'dist')))) {
    throw new EnvironmentError(`no built code in ${join(repoRoot, 'dist')}`, 'Run `npm run build` first.');
  }
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? listFiles(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]))),
  );
  return nested.flat();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
