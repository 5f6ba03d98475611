/**
 * The built-in channel program's `--frameLog` (ns3-scripts/csma-tap.cc): wall-clock timings of
 * every frame, so a run can say where its latency went. Times are epoch ns; `simNs` is simulated.
 */
export interface FrameLog {
  /** Epoch time of simulated time 0 (the realtime scheduler's origin). */
  originNs: number;
  /** A frame read from a tap, handed to the CSMA device of `node`. */
  sent: Array<{ wallNs: number; simNs: number; node: number; label: string }>;
  /** A frame written to the tap of `node`: wall time just before and after write(). */
  delivered: Array<{ beforeNs: number; afterNs: number; simNs: number; node: number; label: string }>;
}

/** Labels of frames that carry no cavsim datagram start with this. */
export const OTHER_FRAME = 'other/';

export function parseFrameLog(text: string): FrameLog {
  const log: FrameLog = { originNs: NaN, sent: [], delivered: [] };
  for (const line of text.split('\n')) {
    const f = line.trim().split(' ');
    if (f[0] === 'origin' && f.length === 2) log.originNs = Number(f[1]);
    else if (f[0] === 'tx' && f.length === 5) log.sent.push({ wallNs: Number(f[1]), simNs: Number(f[2]), node: Number(f[3]), label: f[4] });
    else if (f[0] === 'rx' && f.length === 6)
      log.delivered.push({ beforeNs: Number(f[1]), afterNs: Number(f[2]), simNs: Number(f[3]), node: Number(f[4]), label: f[5] });
  }
  return log;
}

/**
 * Where one message's one-way latency went, in ms. `toSimulator + model + lateDelivery + tapWrite
 * + egress = total`. The simulator stamps a frame with the wall-clock time its tap reader thread
 * took it, so the reader-to-simulator-thread hand-off is not on the path unless it exceeds the
 * delay; it is reported on its own.
 */
export interface LatencyBreakdown {
  id: string;
  /** Receive time minus send time minus the configured delay. */
  total: number;
  /** Sender's send call until the tap reader thread took the frame (sender stack, veth, bridge, tap, reader wake-up). */
  toSimulator: number;
  /** The channel model beyond the configured delay: the frame's transmission time at the data rate, plus any backoff. */
  model: number;
  /** How late the simulator wrote the frame to the receiver's tap, relative to the model's delivery time. */
  lateDelivery: number;
  /** write() to the receiver's tap: the host bridge and veth into the receiver's namespace. */
  tapWrite: number;
  /** After write() returned until the receiver's socket callback ran (the receiver's wake-up). */
  egress: number;
  /** Reader thread to simulator thread hand-off (not part of `total`, see above). */
  handOff: number;
}

/**
 * Joins a frame log with the receipts of the messages that crossed it. `nodeOf` maps a receiver
 * name to its ns-3 node (vehicle index). Messages with no matching frames are left out.
 */
export function breakDownLatency(
  log: FrameLog,
  receipts: ReadonlyArray<{ id: string; to: string; sent_s: number; received_s: number }>,
  delayMs: number,
  nodeOf: (name: string) => number,
): LatencyBreakdown[] {
  const sentById = new Map(log.sent.filter((s) => !s.label.startsWith(OTHER_FRAME)).map((s) => [s.label, s]));
  const deliveredAt = new Map(log.delivered.map((d) => [`${d.node}\u0000${d.label}`, d]));
  const ms = (ns: number) => ns / 1e6;
  const out: LatencyBreakdown[] = [];
  for (const r of receipts) {
    const tx = sentById.get(r.id);
    const rx = deliveredAt.get(`${nodeOf(r.to)}\u0000${r.id}`);
    if (!tx || !rx) continue;
    const sentNs = r.sent_s * 1e9;
    const receivedNs = r.received_s * 1e9;
    out.push({
      id: r.id,
      total: ms(receivedNs - sentNs) - delayMs,
      toSimulator: ms(log.originNs + tx.simNs - sentNs),
      model: ms(rx.simNs - tx.simNs) - delayMs,
      lateDelivery: ms(rx.beforeNs - (log.originNs + rx.simNs)),
      tapWrite: ms(rx.afterNs - rx.beforeNs),
      egress: ms(receivedNs - rx.afterNs),
      handOff: ms(tx.wallNs - (log.originNs + tx.simNs)),
    });
  }
  return out;
}
