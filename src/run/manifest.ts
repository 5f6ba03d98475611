import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseMapMetadata } from '../core/map/map-metadata.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import type { HostFacts } from './host-facts.js';
import { RUN_FILES } from './run-files.js';

export const MANIFEST_FILE = RUN_FILES.manifest;
export const MANIFEST_VERSION = 1;

/** What a run was, and on what: enough to trace a result and to run it again (`cavsim replay`). */
export interface RunManifest extends HostFacts {
  manifest_version: typeof MANIFEST_VERSION;
  run_id: string;
  created_at: string;
  runtime: 'sim' | 'docker';
  /** The command line that started it; null when a program called the API (a sweep, a test). */
  command: string[] | null;
  scenario: {
    name: string;
    file: string;
    /** Of the file as it was read; null if it cannot be read now. */
    sha256: string | null;
    overrides: string[];
    /** Of scenario.resolved.json: what actually ran, after overrides and defaults. */
    resolved_sha256: string;
  };
  /** file null: the map was generated from the scenario's traffic road (the resolved scenario's hash covers it). */
  map: { file: string | null; sha256: string | null };
  seed: number;
  engine: string | null;
  /** Tag to image id, for every image the run used. */
  images: Record<string, string>;
}

export interface ManifestInput {
  runId: string;
  runtime: RunManifest['runtime'];
  scenario: ResolvedScenario;
  facts: HostFacts;
  command?: readonly string[];
  overrides?: readonly string[];
  images?: Record<string, string>;
  now?: Date;
}

export function buildManifest(p: ManifestInput): RunManifest {
  const s = p.scenario;
  return {
    manifest_version: MANIFEST_VERSION,
    run_id: p.runId,
    created_at: (p.now ?? new Date()).toISOString(),
    runtime: p.runtime,
    command: p.command ? [...p.command] : null,
    scenario: {
      name: s.name,
      file: s.sourceFile,
      sha256: fileHash([s.sourceFile]),
      overrides: [...(p.overrides ?? [])],
      resolved_sha256: resolvedHash(s),
    },
    map: s.mapFile === undefined ? { file: null, sha256: null } : { file: s.mapFile, sha256: mapHash(s.mapFile) },
    seed: s.seed,
    engine: s.network.engine ?? null,
    images: { ...(p.images ?? {}) },
    ...p.facts,
  };
}

/** The hash of the resolved scenario as the run folder stores it (2-space JSON and a newline). */
export function resolvedHash(scenario: ResolvedScenario): string {
  return sha256(`${JSON.stringify(scenario, null, 2)}\n`);
}

/** The map's YAML and its image together: either changing changes the experiment. */
export function mapHash(mapFile: string): string | null {
  // The YAML is parsed only when it changed: a sweep hashes the same map for every run.
  const stamp = fileStamp(mapFile);
  if (stamp === null) return null;
  let image = mapImages.get(mapFile);
  if (image?.stamp !== stamp) {
    let name: string | undefined;
    try {
      name = parseMapMetadata(readFileSync(mapFile, 'utf8')).image;
    } catch {
      return null;
    }
    image = { stamp, file: name ? resolve(dirname(mapFile), name) : undefined };
    mapImages.set(mapFile, image);
  }
  return fileHash(image.file ? [mapFile, image.file] : [mapFile]);
}

const mapImages = new Map<string, { stamp: string; file: string | undefined }>();

function fileStamp(file: string): string | null {
  try {
    const st = statSync(file);
    return `${st.size}:${st.mtimeMs}`;
  } catch {
    return null;
  }
}

const hashes = new Map<string, { key: string; hash: string }>();

/** Files are hashed again only when their size or time changed (a sweep reads the same map for every run). */
function fileHash(files: string[]): string | null {
  try {
    const key = files
      .map((f) => {
        const st = statSync(f);
        return `${f}:${st.size}:${st.mtimeMs}`;
      })
      .join('|');
    const id = files.join('|');
    const known = hashes.get(id);
    if (known?.key === key) return known.hash;
    const h = createHash('sha256');
    for (const f of files) h.update(readFileSync(f));
    const hash = h.digest('hex');
    hashes.set(id, { key, hash });
    return hash;
  } catch {
    return null;
  }
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
