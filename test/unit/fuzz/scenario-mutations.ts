/** Random edits of a parsed scenario, driven by plain numbers so fast-check can shrink them. */
export interface Mutation {
  at: number;
  action: number;
  value: number;
  scale: number;
}

const NASTY: unknown[] = [
  NaN,
  Infinity,
  -Infinity,
  0,
  -1,
  1e308,
  -1e308,
  1e-300,
  2 ** 53,
  0.5,
  1.5,
  1e6,
  '',
  'x',
  '10ms',
  '-5s',
  '1e999ms',
  '0s',
  '100Hz',
  '5Mbps',
  '256m',
  'ééé',
  'a'.repeat(500),
  '../../etc/passwd',
  '/dev/zero',
  '/proc/self/status',
  '/etc',
  null,
  true,
  [],
  {},
  [1, 2],
  { a: 1 },
  [[[]]],
];

type Node = Record<string | number, unknown>;
type Path = (string | number)[];

function paths(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (prefix.length) out.push(prefix);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) paths(v, [...prefix, Array.isArray(value) ? Number(k) : k], out);
  }
  return out;
}

const parentOf = (root: Node, path: Path) => path.slice(0, -1).reduce<Node>((node, key) => node[key] as Node, root);

/** `numbersOnly` edits numeric fields only, as a researcher tuning parameters would. */
export function mutatedScenario(original: unknown, mutations: readonly Mutation[], numbersOnly = false): unknown {
  const root = structuredClone(original) as Node;
  for (const m of mutations) {
    const all = paths(root).filter((p) => !numbersOnly || typeof parentOf(root, p)[p.at(-1)!] === 'number');
    if (!all.length) break;
    const path = all[m.at % all.length];
    const parent = parentOf(root, path);
    const key = path.at(-1)!;
    const current = parent[key];
    switch (m.action % 6) {
      case 0:
        parent[key] = NASTY[m.value % NASTY.length];
        break;
      case 1:
        if (Array.isArray(parent)) parent.splice(Number(key), 1);
        else delete parent[key];
        break;
      case 2:
        parent[key] = typeof current === 'number' ? current * 10 ** m.scale : NASTY[m.value % NASTY.length];
        break;
      case 3:
        parent[`${String(key)}x`] = NASTY[m.value % NASTY.length];
        break;
      case 4:
        parent[key] =
          typeof current === 'number' ? current * (1 + m.scale / 10) : typeof current === 'string' ? `${current}${m.value % 10}` : current;
        break;
      default:
        parent[key] = typeof current === 'number' ? String(current) : typeof current === 'string' ? [current] : 0;
    }
  }
  return root;
}

/** The newer features (lidar, recording, compute models, channels, walls, resources, platoons): values a user might try, good and bad. */
const FEATURE_VALUES: Record<string, string[]> = {
  'vehicles.car0.lidar.beams': ['2', '1080', '100000', '100001', '0', '1.5'],
  'vehicles.car0.lidar.rangeMax': ['30', '0', '1e300', '-1'],
  'vehicles.car0.lidar.rate': ['40Hz', '1000Hz', '0Hz', '40'],
  'vehicles.car0.lidar.noise': ['0', '0.01', '-1', '1e9'],
  'record.scans': ['true', 'false', '1'],
  'record.mcap': ['true', 'false', 'x'],
  'vehicles.car0.compute.model': ['none', 'fixed', 'measured', 'x'],
  'vehicles.car0.compute.fixed': ['0ms', '300ms', '-1ms', '1e9s'],
  'network.channel': ['csma', 'latency', 'wifi-80211p', 'lte-v2x', 'x'],
  'network.obstacles': ['map', 'none', 'x'],
  'network.script': ['/dev/zero', '/etc/shadow', 'x.cc'],
  'network.txPower': ['20dBm', '-100dBm', '1e9dBm', 'x'],
  'vehicles.car0.resources.cpus': ['0.5', '0', '64', '-1'],
  'vehicles.car0.resources.memory': ['64m', '1k', 'x'],
  'vehicles.car0.observes': ['[car1]', '[car0]', '[car9]', '[]'],
  'vehicles.car0.apps': ['[]', '[{type: beacon}]', 'x'],
  'platoon.cars': ['2', '4', '64', '65', '0'],
  'platoon.spacing': ['2m', '0m', '1000m'],
  'platoon.follower.lidar': ['{}', '{beams: 10}', 'x'],
  'physics.integrator': ['rk4', 'euler', 'x'],
  'vehicles.car0.start.yaw': ['0', '3.14', '1e300', '.nan'],
};
const FEATURE_PATHS = Object.keys(FEATURE_VALUES);

const SET_PATHS = [
  'duration',
  'seed',
  'network.delay',
  'network.dataRate',
  'network.loss',
  'physics.timestep',
  'physics.integrator',
  'map',
  'name',
  'vehicles.car0.start.x',
  'vehicles.car0.start.speed',
  'vehicles.car0.params.mu',
  'vehicles.car0.params.C_Sf',
  'vehicles.car0.params.I',
  'vehicles.car0.params.m',
  'vehicles.car0.params.lf',
  'vehicles.car0.params.v_max',
  'vehicles.car0.controlRate',
  'vehicles.0.controller.type',
  'vehicles.car0.start.x.y',
  'vehicles.car9.start.x',
  'nope.deeper',
  'vehicles.5',
  'vehicles[0].start',
  '',
  '.',
  'a..b',
  ...FEATURE_PATHS,
];
const SET_VALUES = [
  '1',
  '0',
  '-1',
  '1e999',
  '.nan',
  '.inf',
  '10ms',
  'abc',
  '',
  '[1,2]',
  '{a: 1}',
  '1e-300',
  '100000',
  '0.0001',
  '*x',
  '&a 1',
  '"q"',
  '1e9',
  '300ms',
  '- x',
  'true',
  '/dev/zero',
  '300.5B',
  '[car0, car9]',
  '100001',
];

export const randomAssignment = (path: number, value: number) =>
  `${SET_PATHS[path % SET_PATHS.length]}=${SET_VALUES[value % SET_VALUES.length]}`;

/** An assignment to one of the newer features' fields. */
export function randomFeatureAssignment(path: number, value: number): string {
  const field = FEATURE_PATHS[path % FEATURE_PATHS.length];
  const values = FEATURE_VALUES[field];
  return `${field}=${values[value % values.length]}`;
}
