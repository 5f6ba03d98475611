import { lstatSync, mkdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join, sep } from 'node:path';
import { Script } from 'node:vm';
import { defaultCacheDir } from './cache-dir.js';

type Compile = (this: Module, content: string, filename: string, format?: string) => unknown;
type CommonJsWrapper = (
  this: unknown,
  exports: unknown,
  require: NodeJS.Require,
  module: Module,
  filename: string,
  dirname: string,
) => unknown;
type ModuleInternals = {
  _resolveFilename(request: string, parent: Module, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: Module): string[] | null;
  _extensions: NodeJS.RequireExtensions;
  _cache: NodeJS.Require['cache'];
};
type Pending = { script: Script; file: string; header: Buffer };

const NODE_MODULES = `${sep}node_modules${sep}`;
// A script compiled here has no import() of its own (Node's is internal), so such files compile as usual.
const DYNAMIC_IMPORT = /\bimport\s*\(/;
const STICKY = 0o1000;

/**
 * Keeps V8's compiled code of the CommonJS files under node_modules (zod, yaml, commander and
 * csv-parse on `cavsim validate`'s path) in the cache folder, as v8-compile-cache does: Node 20
 * has no module.enableCompileCache. A file's entry is written as the process exits, so it holds
 * the functions the run compiled too, and is used only while the file's size, times and inode
 * and the Node version are those it was made from. NODE_DISABLE_COMPILE_CACHE=1 turns it off.
 */
export function enableCodeCache(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_DISABLE_COMPILE_CACHE) return;
  // Cached code runs as it is, unchecked: only from a folder no other user can write.
  const dir = privateFolder(join(defaultCacheDir(env), 'code-cache'));
  if (!dir) return;
  const pending: Pending[] = [];
  const proto = Module.prototype as unknown as { _compile: Compile };
  const compile = proto._compile;
  proto._compile = function (content, filename, format) {
    if ((format !== undefined && format !== 'commonjs') || !filename.includes(NODE_MODULES) || DYNAMIC_IMPORT.test(content))
      return compile.call(this, content, filename, format);
    let entry: Pending;
    try {
      const file = join(dir, entryName(filename));
      const header = headerOf(filename);
      entry = { file, header, script: new Script(Module.wrap(content), { filename, cachedData: cachedCode(file, header) }) };
    } catch {
      return compile.call(this, content, filename, format);
    }
    if (entry.script.cachedDataRejected !== false) pending.push(entry);
    const wrapper = entry.script.runInThisContext() as CommonJsWrapper;
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, dirname(filename));
  };
  process.once('exit', () => {
    for (const entry of pending) if (!write(entry)) break;
  });
}

/** The `require` a module's code is given, made as Node makes it (makeRequireFunction in lib/internal/modules/helpers.js). */
function requireFor(module: Module): NodeJS.Require {
  const internals = Module as unknown as ModuleInternals;
  const resolve = ((request: string, options?: { paths?: string[] }) =>
    internals._resolveFilename(request, module, false, options)) as NodeJS.RequireResolve;
  resolve.paths = (request: string) => internals._resolveLookupPaths(request, module);
  const require = ((id: string) => module.require(id)) as NodeJS.Require;
  require.resolve = resolve;
  require.main = process.mainModule;
  require.extensions = internals._extensions;
  require.cache = internals._cache;
  return require;
}

/**
 * The folder, made if missing, as its real path, when only this user can change what is in it:
 * it is this user's and no other can write it, and every folder above it is this user's or root's
 * and writable by no other, or sticky (/tmp: no other user can move this user's folder away).
 * Else undefined: no cache.
 */
function privateFolder(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const real = realpathSync(dir);
    const uid = process.getuid?.();
    for (let at = real, leaf = true; ; at = dirname(at), leaf = false) {
      const s = lstatSync(at);
      const othersWrite = (s.mode & 0o022) !== 0 && (leaf || (s.mode & STICKY) === 0);
      if (!s.isDirectory() || (s.uid !== uid && (leaf || s.uid !== 0)) || othersWrite) return undefined;
      if (dirname(at) === at) return real;
    }
  } catch {
    return undefined;
  }
}

/**
 * The entry's file name: a 64-bit cyrb53 hash of the path (importing node:crypto for a digest
 * costs more, ~3 ms). Two paths that meet in a name only replace each other's entry: its header tells them apart.
 */
function entryName(path: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < path.length; i++) {
    h1 = Math.imul(h1 ^ path.charCodeAt(i), 2654435761);
    h2 = Math.imul(h2 ^ path.charCodeAt(i), 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

const headerOf = (filename: string) => {
  const s = statSync(filename);
  return Buffer.from(`${process.version} ${s.size} ${s.mtimeMs} ${s.ctimeMs} ${s.ino} ${filename}\n`);
};

function cachedCode(file: string, header: Buffer): Buffer | undefined {
  let data: Buffer;
  try {
    data = readFileSync(file);
  } catch {
    return undefined;
  }
  return data.length > header.length && data.subarray(0, header.length).equals(header) ? data.subarray(header.length) : undefined;
}

/** Written whole under a temporary name, then renamed: a cavsim starting meanwhile reads the old entry or the new one. */
function write({ script, file, header }: Pending): boolean {
  const temporary = `${file}.${process.pid}`;
  try {
    writeFileSync(temporary, Buffer.concat([header, script.createCachedData()]), { mode: 0o600 });
    renameSync(temporary, file);
    return true;
  } catch {
    try {
      rmSync(temporary, { force: true });
    } catch {
      // nothing to undo
    }
    return false;
  }
}
