import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Document, LineCounter } from 'yaml';
import { UserInputError } from '../../errors.js';
import { didYouMean } from '../../util/closest-word.js';
import { readInputFile } from '../../util/read-input-file.js';
import { requireCjs } from '../../util/require-cjs.js';
import type { z } from '../../util/zod.js';
import { type EngineEndpoint, engineKey, isIpv4, parseEngineUrl } from './engine-endpoint.js';
import { HOST_FIELDS, type HostsFileWritten, hostsFileSchema, TLS_FIELDS } from './hosts-schema.js';

const { isMap, isScalar, LineCounter: LineCounterClass, parseDocument } = requireCjs('yaml') as typeof import('yaml');

/** One host of a checked hosts file: where its engine is and how the run's host reaches it. */
export interface HostEntry {
  name: string;
  /** The `engine:` URL as written. */
  engineUrl: string;
  engine: EngineEndpoint;
  /** Absolute paths of the client's TLS files (tcp:// only). */
  tls?: { ca: string; cert: string; key: string };
  /** Where the run's host sends this host's VXLAN traffic; none for the run's own engine (unix://). */
  tunnelAddress?: string;
  cores?: number;
}

export interface HostsFile {
  /** Absolute path of the file. */
  file: string;
  hosts: HostEntry[];
}

/** A hosts file of a few hosts is a few hundred bytes; anything near this is not one. */
const MAX_BYTES = 1024 * 1024;
/** The environment variable that names the hosts file when no flag does. */
export const HOSTS_ENV = 'CAVSIM_HOSTS';
const EXAMPLE = 'hosts:\n  - name: lab-pc-1\n    engine: tcp://10.0.0.11:2376\n    tls: { ca: ca.pem, cert: cert.pem, key: key.pem }';

type Path = (string | number)[];
interface Problem {
  path: Path;
  message: string;
}

export const formatHostsPath = (path: Path) =>
  path.reduce<string>((acc, seg) => (typeof seg === 'number' ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), '');

/**
 * The hosts file a command uses: the one given explicitly (a flag), else the one `CAVSIM_HOSTS`
 * names, else none (the run stays on one host). Loaded and checked as `loadHostsFile` does.
 */
export async function resolveHostsFile(explicit: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<HostsFile | undefined> {
  if (explicit !== undefined) return loadHostsFile(explicit);
  const fromEnv = env[HOSTS_ENV]?.trim();
  return fromEnv ? loadHostsFile(fromEnv, `${HOSTS_ENV}=${fromEnv}`) : undefined;
}

/**
 * Reads and checks a hosts file in three steps: YAML (or JSON), the shape (unknown fields refused),
 * then the rules across hosts (unique names, engines and tunnel addresses; TLS files that exist).
 * Every problem is reported together in one UserInputError naming its field and line; nothing on
 * any host is touched.
 */
export async function loadHostsFile(file: string, named = file): Promise<HostsFile> {
  const absolute = resolve(file);
  const fail = (details: string[]) =>
    new UserInputError(`${named} is not a valid hosts file`, details, 'fix the fields listed (docs/multi-host.md, "The hosts file")');
  const read = await readInputFile(absolute, MAX_BYTES);
  if (!read.ok)
    throw new UserInputError(`${named}: the hosts file ${read.problem}`, [], `give the path of a hosts file, e.g. one with:\n${EXAMPLE}`);

  const lines = new LineCounterClass();
  const doc = parseDocument(read.text, { lineCounter: lines, uniqueKeys: true });
  if (doc.errors.length)
    throw fail(doc.errors.map((e) => `${e.linePos ? `line ${e.linePos[0].line}` : 'YAML'}: ${e.message.split('\n')[0]}`));
  const located = (p: Problem) => {
    const line = lineOf(doc, lines, p.path);
    return `${formatHostsPath(p.path) || '(top level)'}${line ? ` (line ${line})` : ''}: ${p.message}`;
  };

  const data = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (data === null || typeof data !== 'object' || Array.isArray(data))
    throw fail([`the file holds no hosts: list? it is a mapping with hosts:, e.g.\n${EXAMPLE}`]);
  const parsed = hostsFileSchema.safeParse(data);
  if (!parsed.success) throw fail(parsed.error.issues.flatMap(issueProblems).map(located));

  const { hosts, problems } = checkHosts(parsed.data, dirname(absolute));
  if (problems.length) throw fail(problems.map(located));
  return { file: absolute, hosts };
}

function issueProblems(issue: z.core.$ZodIssue): Problem[] {
  const path = issue.path.filter((s): s is string | number => typeof s !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = path.length === 0 ? ['hosts'] : path.at(-1) === 'tls' ? TLS_FIELDS : HOST_FIELDS;
    return issue.keys.map((key) => ({
      path: [...path, key],
      message: `unknown field "${key}"; ${didYouMean(key, known) ?? `remove it (fields here: ${known.join(', ')})`}`,
    }));
  }
  return [{ path, message: issue.message }];
}

/** Step 3: the rules that span fields and hosts, and the TLS files on disk. */
function checkHosts(written: HostsFileWritten, folder: string): { hosts: HostEntry[]; problems: Problem[] } {
  const problems: Problem[] = [];
  const firstOf = new Map<string, number>();
  const duplicate = (kind: string, key: string, index: number, path: Path, what: string) => {
    const first = firstOf.get(`${kind}:${key}`);
    if (first === undefined) firstOf.set(`${kind}:${key}`, index);
    else problems.push({ path, message: `${what} is also hosts[${first}]'s; ${kindFix[kind]}` });
  };
  const hosts: HostEntry[] = [];
  written.hosts.forEach((h, i) => {
    const at = (...rest: Path): Path => ['hosts', i, ...rest];
    duplicate('name', h.name.toLowerCase(), i, at('name'), `the name "${h.name}"`);
    const engine = parseEngineUrl(h.engine);
    if (typeof engine === 'string') {
      problems.push({ path: at('engine'), message: engine });
      return;
    }
    duplicate('engine', engineKey(engine), i, at('engine'), `the engine ${h.engine}`);
    if (engine.scheme === 'tcp' && !h.tls)
      problems.push({
        path: at('tls'),
        message: `${h.engine} is plain TCP: anyone on that network would be root on ${h.name}; give tls: { ca, cert, key } (dockerd --tlsverify), or reach it over ssh://USER@HOST`,
      });
    if (engine.scheme !== 'tcp' && h.tls)
      problems.push({ path: at('tls'), message: `TLS is for tcp:// engines; ${engine.scheme}:// needs none, remove tls:` });
    if (engine.scheme === 'unix' && h.tunnelAddress)
      problems.push({
        path: at('tunnelAddress'),
        message:
          "a unix:// engine is the run's own host, which needs no tunnel; remove tunnelAddress, or reach the engine over tcp:// or ssh://",
      });
    const tunnelAddress = h.tunnelAddress ?? (engine.scheme !== 'unix' && isIpv4(engine.host) ? engine.host : undefined);
    if (engine.scheme !== 'unix' && !tunnelAddress)
      problems.push({
        path: at('tunnelAddress'),
        message: `the engine's host "${engine.host}" is not an IPv4 address and names are not looked up here; give tunnelAddress: the IPv4 address the run's host sends VXLAN to`,
      });
    if (tunnelAddress)
      duplicate('tunnel', tunnelAddress, i, at(h.tunnelAddress ? 'tunnelAddress' : 'engine'), `the tunnel address ${tunnelAddress}`);
    const tls = h.tls && {
      ca: tlsFile(h.tls.ca, folder, at('tls', 'ca'), problems),
      cert: tlsFile(h.tls.cert, folder, at('tls', 'cert'), problems),
      key: tlsFile(h.tls.key, folder, at('tls', 'key'), problems),
    };
    hosts.push({
      name: h.name,
      engineUrl: h.engine,
      engine,
      ...(tls && { tls }),
      ...(tunnelAddress && { tunnelAddress }),
      ...(h.cores !== undefined && { cores: h.cores }),
    });
  });
  const local = hosts.filter((h) => h.engine.scheme === 'unix');
  if (local.length > 1)
    problems.push({
      path: ['hosts', written.hosts.findIndex((h) => h.name === local[1].name), 'engine'],
      message: `${local[0].name} and ${local[1].name} are both unix:// engines, both the run's own host; keep one`,
    });
  return { hosts, problems };
}

const kindFix: Record<string, string> = {
  name: 'give every host its own name',
  engine: 'one host, one entry: remove the repeated one',
  tunnel: "two hosts cannot share the address the run's host sends their VXLAN to; give each its own tunnelAddress",
};

function tlsFile(written: string, folder: string, path: Path, problems: Problem[]): string {
  const absolute = resolve(folder, written);
  let problem: string | undefined;
  try {
    if (!statSync(absolute).isFile()) problem = 'is not a file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    problem = code === 'ENOENT' || code === 'ENOTDIR' ? 'does not exist' : `cannot be read (${code})`;
  }
  if (problem) problems.push({ path, message: `${absolute} ${problem}; give a PEM file's path, relative to the hosts file` });
  return absolute;
}

/** Line of the key at `path` (a field's name, where an unknown field is), else of the nearest node that has one. */
function lineOf(doc: Document, lines: LineCounter, path: Path): number | undefined {
  const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
  if (isMap(parent)) {
    const key = parent.items.find((p) => isScalar(p.key) && p.key.value === path.at(-1))?.key as { range?: [number, number] } | undefined;
    if (key?.range) return lines.linePos(key.range[0]).line;
  }
  for (let n = path.length; n >= 0; n--) {
    const range = (doc.getIn(path.slice(0, n), true) as { range?: [number, number] } | undefined)?.range;
    if (range) return lines.linePos(range[0]).line;
  }
  return undefined;
}
