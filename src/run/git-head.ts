import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

const SHA = /^[0-9a-f]{40}$/;

/**
 * The commit `git -C root rev-parse HEAD` names, read from root/.git without starting git (a process
 * before every run's first step), in a checkout or a linked worktree (a .git file naming its git
 * folder, whose `commondir` holds the branches). Undefined whenever the layout is another (no .git in
 * root, a symbolic ref that is neither a loose nor a packed ref): the caller then asks git.
 */
export function readHeadCommit(root: string): string | undefined {
  try {
    const dirs = gitDirs(join(root, '.git'));
    if (!dirs) return undefined;
    const head = readFileSync(join(dirs.head, 'HEAD'), 'utf8').trim();
    if (SHA.test(head)) return head;
    const ref = /^ref: (refs\/\S+)$/.exec(head)?.[1];
    if (!ref) return undefined;
    return looseRef(dirs.head, ref) ?? looseRef(dirs.common, ref) ?? packedRef(dirs.common, ref);
  } catch {
    return undefined;
  }
}

/** Where HEAD is, and where the shared refs are: the same folder in a plain checkout. */
function gitDirs(dotGit: string): { head: string; common: string } | undefined {
  if (statSync(dotGit).isDirectory()) return { head: dotGit, common: dotGit };
  const linked = /^gitdir: (.+)$/m.exec(readFileSync(dotGit, 'utf8'))?.[1]?.trim();
  if (!linked) return undefined;
  const head = resolve(dotGit, '..', linked);
  let common = head;
  try {
    common = resolve(head, readFileSync(join(head, 'commondir'), 'utf8').trim());
  } catch {}
  return { head, common };
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
