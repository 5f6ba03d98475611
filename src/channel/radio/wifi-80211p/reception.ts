import { type Coding, chunkSuccess, SIGNAL_FIELD_CODING } from './error-model.js';
import { PHY_HEADER_END_S, SIGNAL_FIELD_BITS, SIGNAL_FIELD_S } from './ofdm-timing.js';

/**
 * A frame a receiver has locked on, decoded stretch by stretch as ns-3's interference helper does:
 * whenever another signal starts or ends, the stretch since the last change is scored at its SINR
 * (the SIGNAL field at 3 Mb/s, the data at the frame's rate) and the success probabilities multiply.
 * A receiver locks on one frame at a time, so each keeps one Reception and `begin`s it anew: a new
 * object per lock, with its numbers boxed, was much of a run's garbage.
 */
export class Reception<F> {
  frame!: F;
  /** When the frame's first bit reached the receiver, and its last [s]. */
  start = 0;
  end = 0;
  powerMw = 0;
  powerDbm = 0;
  lineOfSight: boolean | undefined;
  distance = 0;
  private lastChange = 0;
  private success = 1;

  constructor(
    private readonly coding: Coding,
    private readonly rate: number,
    private readonly noiseMw: number,
  ) {}

  /**
   * Locks on `frame`, with nothing scored yet: its numbers (`start`, `end`, `powerMw`, `powerDbm`,
   * `lineOfSight`, `distance`) are set by the caller first. Numbers passed to a call that the
   * compiler does not inline are boxed, per frame and receiver; fields take them in place.
   */
  begin(frame: F): this {
    this.frame = frame;
    this.lastChange = this.start;
    this.success = 1;
    return this;
  }

  /** Where the stretch `score` scores ends [s], and every signal on the air at the receiver over it [mW]: set by the caller, as `begin`'s numbers are. */
  scoreTo = 0;
  energyMw = 0;

  /**
   * Scores the stretch up to `scoreTo` at the interference it had, before that interference changes:
   * every signal on the air at the receiver (`energyMw`, this frame's included) but this frame.
   */
  score(): void {
    const to = Math.min(this.scoreTo, this.end);
    if (to <= this.lastChange) return;
    const interferenceMw = this.energyMw - this.powerMw;
    this.success *= this.stretchSuccess(this.lastChange, to, this.powerMw / (this.noiseMw + Math.max(0, interferenceMw)));
    this.lastChange = to;
  }

  /** Whether the frame decodes (a draw `u` in [0, 1)), and if not, whether it would have with no other signal on the air. */
  outcome(u: number): 'decoded' | 'collision' | 'propagation' {
    if (u < this.success) return 'decoded';
    return u < this.stretchSuccess(this.start, this.end, this.powerMw / this.noiseMw) ? 'collision' : 'propagation';
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
