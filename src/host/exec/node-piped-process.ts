import { spawn } from 'node:child_process';
import type { ProcessExit, StartPipedProcess } from './piped-process.js';

type Handle = { ref(): void; unref(): void };

/** Node's own spawn: works everywhere, but forks Node (milliseconds per start with a large heap). */
export const startWithNodeSpawn: StartPipedProcess = (binary, args) => {
  const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'pipe'] });
  child.on('error', () => {}); // a failed start is thrown below; a started process reports through 'exit'
  if (child.pid === undefined) throw new Error(`could not start the program ${binary}`);
  let ended = false;
  const exit = new Promise<ProcessExit>((resolve) =>
    child.once('exit', (code, signal) => {
      ended = true;
      resolve({ code, signal });
    }),
  );
  return {
    pid: child.pid,
    stdin: child.stdin,
    stdout: child.stdout,
    stderr: child.stderr,
    exit,
    kill: (signal = 'SIGTERM') => void (ended || child.kill(signal)),
    hold(yes) {
      const method = yes ? 'ref' : 'unref';
      for (const h of [child, child.stdin, child.stdout, child.stderr] as unknown as Handle[]) h[method]();
    },
  };
};
