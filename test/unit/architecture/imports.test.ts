import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importedModules, loadedModules, sourceFiles } from '../../support/source-imports.js';

/**
 * The narrow ports stay narrow: the Docker engine, external commands and child processes are each
 * reached from one named place, and everything else takes the port as a parameter (so tests can
 * pass fakes). A new import of one of these modules elsewhere fails here, naming the file.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Rule {
  /** What the port is about, for the failure message. */
  what: string;
  /** Import specifiers the rule covers (a subpath such as `dockerode/lib/x` counts too). */
  modules: string[];
  /** The files allowed to import them (repo-relative), each with why. */
  allowed: Record<string, string>;
  /** What other code uses instead. */
  instead: string;
}

const RULES: Rule[] = [
  {
    what: 'the Docker engine',
    modules: ['dockerode'],
    allowed: { 'src/host/docker/dockerode-port.ts': 'the one DockerPort implementation' },
    instead: 'take a DockerPort (src/host/docker/docker-port.ts)',
  },
  {
    what: 'external commands',
    modules: ['execa'],
    allowed: { 'src/host/exec/command-runner.ts': 'the one CommandRunner implementation' },
    instead: 'take a CommandRunner (src/host/exec/command-runner.ts)',
  },
  {
    what: 'child processes',
    modules: ['child_process', 'node:child_process'],
    allowed: {
      'src/channel/ns3/realtime-channel.ts':
        'ns-3 runs for the whole run in its own process group, its output streamed to a log; CommandRunner only runs commands to completion',
      'bench/testbed/probe-runner.ts': 'test and bench scaffolding: probes run side by side in namespaces, line-by-line over stdin/stdout',
      'bench/testbed/tap-capture.ts': "bench scaffolding: dumpcap on a run's taps for as long as it goes, then tshark reads the capture",
      'bench/testbed/loopback-control-link.ts':
        "bench scaffolding: a build's simulator and vehicle programs as host processes, their CPU time read from /proc",
      'src/host/exec/node-piped-process.ts':
        'a long-lived program spoken to over pipes (ns-3 in lock-step), where the posix_spawn addon is not built',
      'src/runtime/sim/own-code/host-process.ts':
        "a vehicle's own code for the whole run, in its own process group, its output appended to its log",
      'src/host/exec/command-output.ts':
        "the two short questions a run's manifest asks (git, pkg-config) before its first step, without loading execa's 130 modules",
    },
    instead: 'take a CommandRunner (src/host/exec/command-runner.ts), or add the file here with its reason',
  },
  {
    what: 'zod, whose ESM and CommonJS builds are two zods',
    modules: ['zod'],
    allowed: { 'src/util/zod.ts': 'one zod in the process: its CommonJS build, which the code cache keeps compiled' },
    instead: "import { z } from 'src/util/zod.js'",
  },
];

const matches = (specifier: string, module: string) => specifier === module || specifier.startsWith(`${module}/`);

// src/ and the benchmarks' test beds (bench/), which start probe processes of their own.
const files = [...sourceFiles(join(ROOT, 'src')), ...sourceFiles(join(ROOT, 'bench'))].map((abs) => ({
  path: relative(ROOT, abs).split('\\').join('/'),
  imports: importedModules(readFileSync(abs, 'utf8')),
}));

function importersOf(modules: string[]): string[] {
  return files.filter((f) => f.imports.some((s) => modules.some((m) => matches(s, m)))).map((f) => f.path);
}

describe('the import scanner', () => {
  it('finds every form of import, and not commented-out ones', () => {
    const source = [
      "import Dockerode from 'dockerode';",
      "import type { Container } from 'dockerode';",
      'import {',
      '  spawn,',
      "} from 'node:child_process';",
      "export { execa } from 'execa';",
      "import 'side-effect';",
      "const lazy = await import('lazy-module');",
      "const cjs = require('cjs-module');",
      "// import { hidden } from 'line-comment';",
      "/* import { hidden } from 'block-comment'; */",
      "const text = 'not an import of from-looking-text';",
    ].join('\n');
    expect(importedModules(source).sort()).toEqual(
      ['cjs-module', 'dockerode', 'dockerode', 'execa', 'lazy-module', 'node:child_process', 'side-effect'].sort(),
    );
  });

  it('sees the imports it guards where they are known to be', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(importersOf(['dockerode'])).toContain('src/host/docker/dockerode-port.ts');
    expect(importersOf(['execa'])).toContain('src/host/exec/command-runner.ts');
    expect(importersOf(['node:child_process', 'child_process'])).toContain('src/channel/ns3/realtime-channel.ts');
  });

  it('matches subpaths but not look-alike names', () => {
    expect(matches('dockerode/lib/container', 'dockerode')).toBe(true);
    expect(matches('dockerode-compose', 'dockerode')).toBe(false);
  });
});

describe('narrow ports', () => {
  for (const rule of RULES) {
    it(`${rule.modules.join(' / ')} (${rule.what}) is imported only by ${Object.keys(rule.allowed).join(', ')}`, () => {
      const offenders = importersOf(rule.modules).filter((p) => !(p in rule.allowed));
      expect(offenders, `these files import ${rule.modules.join(' / ')} directly; ${rule.instead}`).toEqual([]);
    });

    it(`every file allowed to import ${rule.modules[0]} still does (no stale allowlist entries)`, () => {
      const importers = importersOf(rule.modules);
      expect(Object.keys(rule.allowed).filter((p) => !importers.includes(p))).toEqual([]);
    });
  }
});

/** Every package a program loads, following its relative imports from `entry` (repo-relative .ts). */
function packagesLoadedBy(entry: string): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const queue = [join(ROOT, entry)];
  for (let file = queue.pop(); file; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const s of loadedModules(readFileSync(file, 'utf8'))) {
      if (s.startsWith('.')) queue.push(resolve(dirname(file), s).replace(/\.js$/, '.ts'));
      else packages.add(s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]);
    }
  }
  return packages;
}

describe('what a vehicle container loads', () => {
  it('sees type-only imports as loading nothing', () => {
    expect(
      loadedModules("import type { A } from 'a';\nexport type { B } from 'b';\nimport { type C, d } from 'c';\nimport e from 'e';"),
    ).toEqual(['c', 'e']);
  });

  // 32 vehicles start at once on 2 cores: zod was half a vehicle's start-up (0.64 -> 0.46 s of CPU without it).
  // Its control link is TextWebSocket on node:net: `ws`'s stream layers cost more CPU per tick than the controller.
  it('the vehicle program starts without zod, ws, Docker, execa or the simulation engines', () => {
    const loaded = packagesLoadedBy('src/runtime/emulated/containers/vehicle-main.ts');
    expect(loaded.has('node:net')).toBe(true);
    expect([...loaded].filter((p) => ['zod', 'ws', 'dockerode', 'execa', 'yaml', 'commander', 'ink', 'react'].includes(p))).toEqual([]);
  });
});
