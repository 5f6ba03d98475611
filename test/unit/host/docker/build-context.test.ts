import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../../../src/errors.js';
import { computeContextHash, portableNode, productionPackagePaths, repoBuildContext } from '../../../../src/host/docker/build-context.js';
import { scratchDir } from '../../../support/scratch-dir.js';

const LOCK = {
  lockfileVersion: 3,
  packages: {
    '': { name: 'cavsim' },
    'node_modules/dockerode': {},
    'node_modules/dockerode/node_modules/tar-fs': {},
    'node_modules/tar-fs': { dev: true },
    'node_modules/vitest': { dev: true },
    'node_modules/yaml': {},
    'node_modules/fsevents': { optional: true },
    'node_modules/esbuild-opt': { devOptional: true },
    'packages/local': { link: true },
  },
};

function fakeRepo(): string {
  const root = scratchDir('cavsim-repo-');
  const files: Record<string, string> = {
    'package.json': '{"name":"cavsim","type":"module"}',
    'package-lock.json': JSON.stringify(LOCK),
    'dist/cli/main.js': 'console.log(1)',
    'dist/runtime/emulated/containers/vehicle-main.js': 'export {}',
    'containers/simulator/Dockerfile': 'FROM x',
    'containers/vehicle/Dockerfile': 'FROM x',
    'node_modules/dockerode/index.js': '',
    'node_modules/dockerode/node_modules/tar-fs/index.js': '',
    'node_modules/yaml/index.js': '',
    'node_modules/vitest/index.js': '',
    'node_modules/esbuild-opt/index.js': '',
    'runs/old-run/journal.jsonl': '',
    'src/cli/main.ts': '',
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe('build context', () => {
  it('selects outermost production packages from the lock file', () => {
    expect(productionPackagePaths(LOCK)).toEqual([
      'node_modules/dockerode',
      'node_modules/esbuild-opt',
      'node_modules/fsevents',
      'node_modules/yaml',
    ]);
  });

  it('copies only dist, package.json, Dockerfiles and production modules', async () => {
    const repo = fakeRepo();
    const node = join(scratchDir('cavsim-node-'), 'node');
    writeFileSync(node, 'a node binary');
    const context = await repoBuildContext(repo, scratchDir('cavsim-ctx-parent-'), { path: node }).prepare();
    try {
      expect(readdirSync(context.dir).sort()).toEqual(['containers', 'dist', 'node_modules', 'package.json', 'runtime']);
      expect(readdirSync(join(context.dir, 'runtime'))).toEqual(['node']);
      expect(readdirSync(join(context.dir, 'node_modules')).sort()).toEqual(['dockerode', 'esbuild-opt', 'yaml']);
      expect(existsSync(join(context.dir, 'node_modules/dockerode/node_modules/tar-fs/index.js'))).toBe(true);
      expect(existsSync(join(context.dir, 'dist/runtime/emulated/containers/vehicle-main.js'))).toBe(true);
      expect(existsSync(join(context.dir, context.dockerfiles.vehicle))).toBe(true);
      expect(context.include.sort()).toEqual(['containers', 'dist', 'node_modules', 'package.json', 'runtime']);
    } finally {
      await context.dispose();
    }
    expect(existsSync(context.dir)).toBe(false);
  });

  it("leaves runtime/ empty when the host has no Node.js that can travel (the image keeps Debian's)", async () => {
    const context = await repoBuildContext(fakeRepo(), scratchDir('cavsim-ctx-parent-'), null).prepare();
    try {
      expect(readdirSync(join(context.dir, 'runtime'))).toEqual([]);
    } finally {
      await context.dispose();
    }
  });

  it('takes the host Node.js only when it links no libraries of its own and has a start-up snapshot', () => {
    const config = (vars: Record<string, unknown>) => ({ variables: vars }) as unknown as typeof process.config;
    const file = join(scratchDir('cavsim-node-'), 'node');
    writeFileSync(file, 'x');
    expect(portableNode(file, config({ node_shared: false, node_shared_libuv: false, node_use_node_snapshot: true }))?.path).toBe(file);
    expect(portableNode(file, config({ node_shared: true, node_use_node_snapshot: true }))).toBeUndefined(); // Debian's: libnode
    expect(portableNode(file, config({ node_shared: false, node_shared_openssl: true, node_use_node_snapshot: true }))).toBeUndefined();
    expect(portableNode(file, config({ node_shared: false, node_use_node_snapshot: false }))).toBeUndefined();
    expect(portableNode(join(file, 'missing'), config({ node_use_node_snapshot: true }))).toBeUndefined();
  });

  it('hash changes with dist/ and Dockerfiles, not with runs/ or sources', async () => {
    const repo = fakeRepo();
    const first = await computeContextHash(repo);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    writeFileSync(join(repo, 'runs/old-run/journal.jsonl'), 'changed');
    writeFileSync(join(repo, 'src/cli/main.ts'), 'changed');
    expect(await computeContextHash(repo)).toBe(first);
    writeFileSync(join(repo, 'dist/cli/main.js'), 'console.log(2)');
    const second = await computeContextHash(repo);
    expect(second).not.toBe(first);
    writeFileSync(join(repo, 'containers/vehicle/Dockerfile'), 'FROM y');
    expect(await computeContextHash(repo)).not.toBe(second);
  });

  it('asks for a build when dist/ is missing', async () => {
    const repo = scratchDir('cavsim-empty-');
    await expect(computeContextHash(repo)).rejects.toBeInstanceOf(EnvironmentError);
    await expect(repoBuildContext(repo).prepare()).rejects.toThrow(/npm run build|no built code/);
  });
});
