import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readSources, type SourceFile } from '../../support/source-imports.js';

/**
 * The floors inside `core/` (docs/architecture.md, "Inside core/"): the V2X stack by ETSI layer on
 * top of the controllers, sensing, maps and physics. Each row names what a folder may import
 * besides itself, `util/` and `errors.ts`, and why.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface CoreFloor {
  folder: string;
  mayImport: string[];
  why: string;
}

const CORE_FLOORS: CoreFloor[] = [
  {
    folder: 'core/v2x/apps',
    mayImport: ['core/v2x/facilities', 'core/v2x/networking', 'core/v2x/codec', 'core/control', 'core/sensing', 'core/map', 'core/physics'],
    why: 'applications (beacon, CACC, warnings, emergency brake) use the facilities and act through the vehicle interface',
  },
  {
    folder: 'core/v2x/facilities',
    mayImport: ['core/v2x/networking', 'core/v2x/codec', 'core/control', 'core/sensing', 'core/map', 'core/physics'],
    why: 'the CA, DEN and CP basic services serve every application and know none of them',
  },
  {
    folder: 'core/v2x/networking',
    mayImport: ['core/v2x/codec'],
    why: 'GeoNetworking and BTP carry any payload: they know no service and no vehicle',
  },
  {
    folder: 'core/v2x/codec',
    mayImport: [],
    why: 'the codec turns PDUs into bytes and back: it knows no service, so a message is tested against the standard alone',
  },
  {
    folder: 'core/control',
    mayImport: ['core/sensing', 'core/map', 'core/physics'],
    why: 'a controller drives from what the car senses; it knows no V2X message, so the same controller runs with any stack',
  },
  { folder: 'core/sensing', mayImport: ['core/map', 'core/physics'], why: 'sensors read the world; they know no controller' },
  { folder: 'core/map', mayImport: [], why: 'a map is data: it stands alone' },
  { folder: 'core/physics', mayImport: [], why: 'the vehicle model is checked against f1tenth_gym alone' },
];

const BASICS = ['util', 'errors.ts'];
const inSrc = (p: string) => (p.startsWith('src/') ? p.slice(4) : undefined);
const under = (p: string, folder: string) => p === folder || p.startsWith(`${folder}/`);
const floorOf = (p: string) => CORE_FLOORS.find((f) => under(p, f.folder));

/** `from imports to`, for each import a core file may not make. */
function coreViolations(files: SourceFile[]): string[] {
  return files.flatMap((f) => {
    const from = inSrc(f.path);
    const floor = from && floorOf(from);
    if (!floor) return [];
    return f.localImports
      .map(inSrc)
      .filter((to): to is string => to !== undefined && under(to, 'core'))
      .filter((to) => !under(to, floor.folder) && !floor.mayImport.some((m) => under(to, m)) && !BASICS.some((b) => under(to, b)))
      .map(
        (to) =>
          `${f.path} imports src/${to}: ${floor.folder}/ may import only ${floor.mayImport.join(', ') || 'itself'}, because ${floor.why}`,
      );
  });
}

const sources = readSources(ROOT, 'src');

describe('inside core/', () => {
  it('every folder of core/ has a row in the table', () => {
    const folders = new Set(
      sources
        .map((f) => inSrc(f.path)!)
        .filter((p) => p.startsWith('core/'))
        .map((p) => p.slice(0, p.lastIndexOf('/'))),
    );
    expect([...folders].filter((d) => !floorOf(d))).toEqual([]);
  });

  for (const floor of CORE_FLOORS) {
    it(`${floor.folder}/ imports only ${floor.mayImport.join(', ') || 'itself'} (and util/, errors.ts)`, () => {
      const own = sources.filter((f) => under(inSrc(f.path)!, floor.folder));
      expect(own.length, `${floor.folder}/ has no files: remove its row`).toBeGreaterThan(0);
      expect(coreViolations(own)).toEqual([]);
    });
  }

  it('no two files of the V2X stack share a base name across its layers', () => {
    const byName = new Map<string, string[]>();
    for (const f of sources.filter((s) => s.path.startsWith('src/core/v2x/'))) {
      byName.set(basename(f.path), [...(byName.get(basename(f.path)) ?? []), f.path]);
    }
    expect([...byName.values()].filter((paths) => paths.length > 1)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const file = (path: string, ...targets: string[]): SourceFile => ({ path, imports: [], localImports: targets });

  it('catch a codec that knows a service, and a controller that knows a message', () => {
    expect(coreViolations([file('src/core/v2x/codec/x.ts', 'src/core/v2x/facilities/ca-service.ts')])).toHaveLength(1);
    expect(coreViolations([file('src/core/control/x.ts', 'src/core/v2x/apps/beacon.ts')])).toHaveLength(1);
    expect(coreViolations([file('src/core/v2x/facilities/x.ts', 'src/core/v2x/apps/neighbour-table.ts')])).toHaveLength(1);
  });

  it('allow the downward imports', () => {
    expect(coreViolations([file('src/core/v2x/apps/x.ts', 'src/core/v2x/codec/uper.ts', 'src/core/control/vehicle-context.ts')])).toEqual(
      [],
    );
    expect(coreViolations([file('src/core/v2x/networking/x.ts', 'src/core/v2x/codec/uper.ts', 'src/util/random.ts')])).toEqual([]);
  });
});
