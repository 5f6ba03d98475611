import { type Coding, chunkSuccess, SIGNAL_FIELD_CODING } from './error-model.js';
import { PHY_HEADER_END_S, SIGNAL_FIELD_BITS, SIGNAL_FIELD_S } from './ofdm-timing.js';

/**
 * A frame a receiver has locked on, decoded stretch by stretch as ns-3's interference helper does:
 * whenever another signal starts or ends, the stretch since the last change is scored at its SINR
 * (the SIGNAL field at 3 Mb/s, the data at the frame's rate) and the success probabilities multiply.
 */
export class Reception<F> {
  private lastChange: number;
  private success = 1;

  constructor(
    readonly frame: F,
    /** When the frame's first bit reached the receiver, and its last [s]. */
    readonly start: number,
    readonly end: number,
    readonly powerMw: number,
    readonly powerDbm: number,
    readonly lineOfSight: boolean | undefined,
    readonly distance: number,
    private readonly coding: Coding,
    private readonly rate: number,
  ) {
    this.lastChange = start;
  }

  /** Scores the stretch up to `until` at the interference it had, before that interference changes. */
  scoreUntil(until: number, noiseMw: number, interferenceMw: number): void {
    const to = Math.min(until, this.end);
    if (to <= this.lastChange) return;
    this.success *= this.stretchSuccess(this.lastChange, to, this.powerMw / (noiseMw + Math.max(0, interferenceMw)));
    this.lastChange = to;
  }

  /** Whether the frame decodes (a draw `u` in [0, 1)), and if not, whether it would have with no other signal on the air. */
  outcome(u: number, noiseMw: number): 'decoded' | 'collision' | 'propagation' {
    if (u < this.success) return 'decoded';
    return u < this.stretchSuccess(this.start, this.end, this.powerMw / noiseMw) ? 'collision' : 'propagation';
  }

  private stretchSuccess(from: number, to: number, sinr: number): number {
    const headerFrom = this.start + PHY_HEADER_END_S - SIGNAL_FIELD_S;
    const dataFrom = this.start + PHY_HEADER_END_S;
    const header = Math.max(0, Math.min(to, dataFrom) - Math.max(from, headerFrom));
    const data = Math.max(0, to - Math.max(from, dataFrom));
    let p = 1;
    if (header > 0) p *= chunkSuccess(SIGNAL_FIELD_CODING, sinr, (header / SIGNAL_FIELD_S) * SIGNAL_FIELD_BITS);
    if (data > 0) p *= chunkSuccess(this.coding, sinr, data * this.rate);
    return p;
  }
}
