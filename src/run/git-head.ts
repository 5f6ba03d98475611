import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

const SHA = /^[0-9a-f]{40}$/;

/**
 * The commit `git -C root rev-parse HEAD` names, read from root/.git without starting git (a process
 * before every run's first step). Undefined whenever the layout is not the plain one (no .git folder
 * in root, a worktree's .git file, a symbolic ref that is neither a loose nor a packed ref): the
 * caller then asks git.
 */
export function readHeadCommit(root: string): string | undefined {
  try {
    const gitDir = join(root, '.git');
    if (!statSync(gitDir).isDirectory()) return undefined;
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    if (SHA.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return undefined;
    return looseRef(gitDir, ref) ?? packedRef(gitDir, ref);
  } catch {
    return undefined;
  }
}

function looseRef(gitDir: string, ref: string): string | undefined {
  try {
    const sha = readFileSync(join(gitDir, ref), 'utf8').trim();
    return SHA.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

function packedRef(gitDir: string, ref: string): string | undefined {
  let packed: string;
  try {
    packed = readFileSync(join(gitDir, 'packed-refs'), 'utf8');
  } catch {
    return undefined;
  }
  for (const line of packed.split('\n')) {
    const [sha, name] = line.trim().split(' ');
    if (name === ref && SHA.test(sha)) return sha;
  }
  return undefined;
}
