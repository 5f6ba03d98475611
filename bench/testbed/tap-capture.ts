/**
 * Captures UDP frames on a run's taps for the delay split (bench/delay-split.ts): dumpcap for as
 * long as the run goes, then tshark reads each frame's capture time, destination and payload.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import type { TapFrame } from '../delay-split.js';

export interface TapCapture {
  /** Ends the capture and reads what it holds. */
  stop(): Promise<TapFrame[]>;
}

/** Starts dumpcap on `taps`, writing to `file` (pcapng, nanosecond stamps). */
export function captureTaps(taps: readonly string[], file: string): TapCapture {
  const child: ChildProcess = spawn('dumpcap', ['-q', ...taps.flatMap((t) => ['-i', t]), '-f', 'udp', '-w', file], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      const read = spawnSync(
        'tshark',
        ['-r', file, '-Y', 'udp', '-T', 'fields', '-e', 'frame.time_epoch', '-e', 'ip.dst', '-e', 'udp.payload'],
        {
          encoding: 'utf8',
          maxBuffer: 256 * 1024 * 1024,
        },
      );
      if (read.status !== 0) throw new Error(`tshark could not read ${file}: ${read.stderr.trim() || stderr.trim()}`);
      return read.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [time, dst, hex] = line.split('\t');
          const [sec, frac = ''] = time.split('.');
          return {
            tNs: BigInt(sec) * 1_000_000_000n + BigInt(frac.padEnd(9, '0').slice(0, 9)),
            dst,
            payload: Buffer.from(hex ?? '', 'hex'),
          };
        });
    },
  };
}
