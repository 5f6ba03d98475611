import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder holding cavsim's package.json: the repository in a checkout, /opt/cavsim in an image.
 * Found by walking up from this module, so it holds wherever the compiled code sits (dist/, or
 * the benchmarks' dist-bench/src/), and files tsc does not copy (ns3-scripts/, the viewer page,
 * the posix_spawn source) are read from the package, not from beside the compiled module.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
}
