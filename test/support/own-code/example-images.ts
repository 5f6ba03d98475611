import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../../src/util/package-root.js';

/** The two example vehicle programs as images of their own, tagged for one test process. */
export interface ExampleImages {
  python: string;
  node: string;
}

const ROOT = packageRoot();

function run(argv: string[]): void {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', cwd: ROOT });
  if (r.status !== 0) throw new Error(`${argv.join(' ')} failed (${r.status}):\n${r.stderr}`);
}

/** Builds containers/examples/{python,node}-vehicle as images (the Node.js one on cavsim's vehicle image, brought up to date first). */
export function buildExampleImages(): ExampleImages {
  const unique = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const images = { python: `cavsim-test/python-vehicle:${unique}`, node: `cavsim-test/node-vehicle:${unique}` };
  run(['bash', join(ROOT, 'scripts/build-base-image.sh')]);
  run(['node', join(ROOT, 'dist/cli/main.js'), 'images']);
  run(['docker', 'build', '-q', '-t', images.python, join(ROOT, 'containers/examples/python-vehicle')]);
  run(['docker', 'build', '-q', '-t', images.node, join(ROOT, 'containers/examples/node-vehicle')]);
  return images;
}

export function removeExampleImages(images: ExampleImages): void {
  spawnSync('docker', ['image', 'rm', images.python, images.node], { encoding: 'utf8' });
}

/** scenarios/own-code-head-on.yaml with the examples as images (paths inside the images), written to `file`. */
export function ownCodeImagesScenario(file: string, images: ExampleImages): string {
  const text = readFileSync(join(ROOT, 'scenarios/own-code-head-on.yaml'), 'utf8')
    .replace('map: ../maps/corridor.yaml', `map: ${join(ROOT, 'maps/corridor.yaml')}`)
    .replace(
      'command: [python3, -u, ../containers/examples/python-vehicle/vehicle.py',
      `image: ${images.python}\n    command: [python3, -u, /opt/cavsim-example/vehicle.py`,
    )
    .replace(
      'command: [node, ../containers/examples/node-vehicle/vehicle.mjs',
      `image: ${images.node}\n    command: [node, /opt/cavsim/examples/node-vehicle/vehicle.mjs`,
    );
  writeFileSync(file, text);
  return file;
}
