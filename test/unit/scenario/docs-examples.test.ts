import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { validateMapFile } from '../../../src/core/map/load-map.js';
import { loadHostsFile } from '../../../src/host/hosts-file/load-hosts-file.js';
import { loadScenario } from '../../../src/scenario/load-scenario.js';

/**
 * Every ```yaml block of README.md and docs/*.md is checked. The line before a block may say what
 * it is: `<!-- example: part of a scenario [on MAP] -->` (top-level fields, added to a small
 * scenario), `<!-- example: part of a vehicle -->`, `<!-- example: vehicles -->` (list items),
 * `<!-- example: map -->`, `<!-- example: hosts file -->`, `<!-- example: comment -->`, or `<!-- example: invalid -->` (must be
 * refused). Without a marker a block is a whole scenario, its paths relative to the docs folder.
 */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const files = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const examples = files.flatMap((file) => {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => {
    const before = text.slice(0, m.index).trimEnd().split('\n').pop()!;
    const kind = /^<!-- example: (.*?) -->$/.exec(before)?.[1] ?? 'scenario';
    return { where: `${file}:${text.slice(0, m.index).split('\n').length}`, kind, yaml: m[1] };
  });
});

// a copy of the repository's layout, so `../maps/...` in an example resolves as it does from docs/
const sandbox = mkdtempSync(join(tmpdir(), 'cavsim-docs-examples-'));
for (const d of ['maps', 'scenarios', 'containers']) symlinkSync(join(ROOT, d), join(sandbox, d));
mkdirSync(join(sandbox, 'docs'));
afterAll(() => rmSync(sandbox, { recursive: true, force: true }));

const baseVehicle = { name: 'base', start: { x: -20, y: 1, yaw: 0 }, controller: { type: 'idle' } };
const base = (map = '../maps/corridor.yaml') => ({ name: 'docs-example', map, duration: '1s' });
let n = 0;
const validate = (scenario: unknown) => {
  const file = join(sandbox, 'docs', `example-${n++}.yaml`);
  writeFileSync(file, typeof scenario === 'string' ? scenario : stringify(scenario));
  return loadScenario(file);
};

function check(kind: string, yaml: string): Promise<unknown> {
  const data = parse(yaml);
  const part = /^part of a scenario(?: on (\S+))?$/.exec(kind);
  if (kind === 'scenario' || kind === 'invalid') return validate(yaml);
  if (part) return validate({ ...base(part[1]), ...(data.vehicles || data.platoon ? {} : { vehicles: [baseVehicle] }), ...data });
  if (kind === 'part of a vehicle') return validate({ ...base(), vehicles: [{ ...baseVehicle, ...data }] });
  if (kind === 'vehicles') return validate({ ...base(), vehicles: [baseVehicle, ...data] });
  if (kind === 'map') {
    const dir = mkdtempSync(join(sandbox, 'map-'));
    copyFileSync(join(ROOT, 'maps', data.image), join(dir, data.image));
    writeFileSync(join(dir, 'map.yaml'), yaml);
    return validateMapFile(join(dir, 'map.yaml')).then((problems) => expect(problems).toEqual([]));
  }
  if (kind === 'comment') return Promise.resolve(expect(data).toBeNull());
  if (kind === 'hosts file') {
    // its TLS files, relative to it, as the loader wants them there
    const dir = mkdtempSync(join(sandbox, 'hosts-'));
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(dir, f), 'not read by the loader\n');
    writeFileSync(join(dir, 'hosts.yaml'), yaml);
    return loadHostsFile(join(dir, 'hosts.yaml')).then((hosts) => expect(hosts.hosts.length).toBeGreaterThan(0));
  }
  throw new Error(`unknown example kind "${kind}"`);
}

describe('the YAML examples of the README and docs', () => {
  it('are found (a change of fence or marker would silently check nothing)', () => {
    expect(examples.length).toBeGreaterThanOrEqual(6);
    expect(examples.filter((e) => e.kind === 'scenario').length).toBeGreaterThanOrEqual(1);
  });

  it.each(examples.map((e) => [e.where, e.kind, e.yaml] as const))('%s (%s)', async (_where, kind, yaml) => {
    if (kind === 'invalid') await expect(check(kind, yaml)).rejects.toThrow(/not a valid scenario/);
    else await check(kind, yaml);
  });
});
