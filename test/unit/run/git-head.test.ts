import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readHeadCommit } from '../../../src/run/git-head.js';

const SHA_A = 'a'.repeat(40);
const SHA_B = '0123456789abcdef0123456789abcdef01234567';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

/** A folder with a .git holding the given files (paths inside .git). */
function repo(files: Record<string, string>): string {
  root = mkdtempSync(join(tmpdir(), 'cavsim-git-head-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, '.git', path, '..'), { recursive: true });
    writeFileSync(join(root, '.git', path), text);
  }
  return root;
}

describe('readHeadCommit', () => {
  it('follows HEAD to a loose branch ref', () => {
    expect(readHeadCommit(repo({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${SHA_A}\n` }))).toBe(SHA_A);
  });

  it('finds a branch only in packed-refs', () => {
    const packed = `# pack-refs with: peeled fully-peeled sorted\n${SHA_A} refs/heads/other\n${SHA_B} refs/heads/main\n^${SHA_A}\n`;
    expect(readHeadCommit(repo({ HEAD: 'ref: refs/heads/main\n', 'packed-refs': packed }))).toBe(SHA_B);
  });

  it('reads a detached HEAD', () => {
    expect(readHeadCommit(repo({ HEAD: `${SHA_B}\n` }))).toBe(SHA_B);
  });

  it('reads a linked worktree: HEAD in its own git folder, the branch in the common one', () => {
    const main = repo({ HEAD: 'ref: refs/heads/main\n', 'refs/heads/main': `${SHA_A}\n`, 'packed-refs': `${SHA_B} refs/heads/wt\n` });
    const linked = join(main, '.git', 'worktrees', 'wt');
    mkdirSync(linked, { recursive: true });
    writeFileSync(join(linked, 'HEAD'), 'ref: refs/heads/wt\n');
    writeFileSync(join(linked, 'commondir'), '../..\n');
    const checkout = join(main, 'wt');
    mkdirSync(checkout);
    writeFileSync(join(checkout, '.git'), `gitdir: ${linked}\n`);
    expect(readHeadCommit(checkout)).toBe(SHA_B);
    writeFileSync(join(main, '.git', 'refs', 'heads', 'wt'), `${SHA_A}\n`);
    expect(readHeadCommit(checkout)).toBe(SHA_A);
  });

  it('leaves to git what it cannot read: no .git, a .git file naming no folder, an unborn branch', () => {
    root = mkdtempSync(join(tmpdir(), 'cavsim-git-head-'));
    expect(readHeadCommit(root)).toBeUndefined();
    writeFileSync(join(root, '.git'), 'gitdir: /elsewhere/.git/worktrees/x\n');
    expect(readHeadCommit(root)).toBeUndefined();
    rmSync(root, { recursive: true, force: true });
    expect(readHeadCommit(repo({ HEAD: 'ref: refs/heads/main\n' }))).toBeUndefined();
  });
});
