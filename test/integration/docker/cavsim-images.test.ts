/**
 * Builds the real simulator and vehicle images from a freshly compiled copy of this repository
 * (needs root, a running dockerd and the base image from scripts/build-base-image.sh), and checks
 * the code and its production dependencies load on the image's Node 18, and `node` there is the host's own.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { computeContextHash, DOCKERFILES, portableNode, repoBuildContext } from '../../../src/host/docker/build-context.js';
import { connectDocker } from '../../../src/host/docker/dockerode-port.js';
import { DEFAULT_BASE_IMAGE, ensureImages, type ImageEvent } from '../../../src/host/docker/images.js';
import { createJournaledDocker, dockerUndoers } from '../../../src/host/docker/journaled.js';
import { runLabels } from '../../../src/host/docker/labels.js';
import { createCommandRunner } from '../../../src/host/exec/command-runner.js';
import { Journal } from '../../../src/host/journal/journal.js';
import { dockerProblem, requireReal } from '../../support/real-components.js';
import { scratchDir } from '../../support/scratch-dir.js';

const REPO = resolve(import.meta.dirname, '../../..');
const RUN_ID = `itest-images-${process.pid}`;
const IMAGES = { simulator: `cavsim/itest-simulator-real:${process.pid}`, vehicle: `cavsim/itest-vehicle-real:${process.pid}` };
const docker = connectDocker();
const real = requireReal('docker/cavsim-images.test.ts', await dockerProblem(docker));

/** A copy of the repository with only what an image build reads, and dist/ compiled fresh. */
async function compiledRepoCopy(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'cavsim-itest-repo-'));
  for (const file of ['package.json', 'package-lock.json', ...Object.values(DOCKERFILES)]) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    cpSync(join(REPO, file), join(root, file));
  }
  symlinkSync(join(REPO, 'node_modules'), join(root, 'node_modules'));
  // Type errors elsewhere in a tree under development must not stop emitting JavaScript.
  await createCommandRunner().run(
    [join(REPO, 'node_modules/.bin/tsc'), '-p', join(REPO, 'tsconfig.json'), '--outDir', join(root, 'dist')],
    {
      allowFailure: true,
    },
  );
  return root;
}

describe.skipIf(real.skip)('cavsim images (real build)', () => {
  const journal = Journal.open(join(scratchDir('cavsim-itest-run-'), 'journal.jsonl'));
  let repo = '';

  beforeAll(async () => {
    real.assertPresent();
    if (!(await docker.inspectImage(DEFAULT_BASE_IMAGE))) await createCommandRunner().run([join(REPO, 'scripts/build-base-image.sh')]);
    repo = await compiledRepoCopy();
  });

  afterAll(async () => {
    await journal.teardown(dockerUndoers(docker));
    await createCommandRunner().run(['docker', 'image', 'rm', '--force', IMAGES.simulator, IMAGES.vehicle], { allowFailure: true });
    if (repo) rmSync(repo, { recursive: true, force: true });
  });

  it('builds both images from the repository and runs the code on Node 18', async () => {
    const events: ImageEvent[] = [];
    const contextHash = await computeContextHash(repo);
    const result = await ensureImages({ docker, context: repoBuildContext(repo) }, { contextHash, images: IMAGES }, (e) => events.push(e));
    expect(result.built).toEqual(['simulator', 'vehicle']);
    const done = events.filter((e) => e.type === 'image-build-done');
    console.log(`[cavsim images] builds: ${done.map((e) => `${e.role} ${e.elapsedMs} ms`).join(', ')}`);

    const run = createJournaledDocker(docker, journal, RUN_ID);
    const name = `cavsim-${RUN_ID}-car1`;
    // The image's own CMD needs an entry file written elsewhere; this one only keeps it alive.
    await run.createContainer({
      name,
      image: IMAGES.vehicle,
      labels: runLabels(RUN_ID, 'vehicle', 'car1'),
      cmd: ['sleep', 'infinity'],
      init: true,
    });
    await docker.startContainer(name);

    // Debian's Node 18 stays in the image, for hosts whose Node.js cannot travel: the code must load on it.
    const probe = await docker.exec(name, [
      '/usr/bin/node',
      '--input-type=module',
      '-e',
      "import 'yaml'; import 'zod'; import 'dockerode'; import 'execa'; " +
        "const e = await import('/opt/cavsim/dist/errors.js'); console.log(process.version, typeof e.CavsimError);",
    ]);
    expect(probe.exitCode, probe.stderr).toBe(0);
    expect(probe.stdout.trim()).toMatch(/^v18\.\d+\.\d+ function$/);

    // `node` on the images' PATH is the host's own when it is a self-contained build (this machine's is).
    const onPath = await docker.exec(name, ['node', '-p', 'process.version']);
    expect(onPath.exitCode, onPath.stderr).toBe(0);
    expect(onPath.stdout.trim()).toBe(portableNode() ? process.version : expect.stringMatching(/^v18\./));

    const layout = await docker.exec(name, [
      'sh',
      '-c',
      'ls /opt/cavsim; ls /opt/cavsim/node_modules | grep -c . ; test ! -e /opt/cavsim/node_modules/vitest && echo no-dev-deps',
    ]);
    expect(layout.stdout.split('\n').slice(0, 4)).toEqual(['dist', 'node_modules', 'package.json', 'runtime']);
    expect(layout.stdout).toContain('no-dev-deps');

    const image = await docker.inspectImage(IMAGES.simulator);
    expect(image?.labels['cavsim.context-hash']).toBe(contextHash);
  });
});
