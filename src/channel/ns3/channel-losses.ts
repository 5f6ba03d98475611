import { existsSync, readFileSync } from 'node:fs';
import { CHANNEL_LOSS_REASONS, type LossReason } from '../frames.js';

/** Where the real-time channel program writes, in the run folder, each frame it lost and why (`--outcomes`). */

/** One cavsim datagram that did not reach one intended receiver (a node: the vehicle's index). */
export interface ChannelLoss {
  id: string;
  node: number;
  reason: LossReason;
  rxPowerDbm?: number;
  lineOfSight?: boolean;
}

const REASONS: ReadonlySet<string> = new Set<LossReason>(CHANNEL_LOSS_REASONS);

/** `lost <id> <node> <reason> <rx_dbm|nan> <los:1|0|->` per line; a line cut short by the process's end is skipped. */
export function parseChannelLosses(text: string): ChannelLoss[] {
  const losses: ChannelLoss[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    if (f.length !== 6 || f[0] !== 'lost' || !REASONS.has(f[3]) || !/^\d+$/.test(f[2])) continue;
    const power = Number(f[4]);
    losses.push({
      id: f[1],
      node: Number(f[2]),
      reason: f[3] as LossReason,
      ...(f[4] !== 'nan' && Number.isFinite(power) ? { rxPowerDbm: power } : {}),
      ...(f[5] === '1' || f[5] === '0' ? { lineOfSight: f[5] === '1' } : {}),
    });
  }
  return losses;
}

export function readChannelLosses(file: string): ChannelLoss[] {
  return existsSync(file) ? parseChannelLosses(readFileSync(file, 'utf8')) : [];
}
