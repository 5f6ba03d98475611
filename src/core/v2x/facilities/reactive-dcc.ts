/**
 * ETSI reactive decentralized congestion control (TS 102 687 V1.2.1, clause 5.3 and Annex A): the
 * channel busy ratio a car measures puts it in one of five states, and each state allows at most one
 * packet per T_off. Annex A gives two tables by the air time of a packet (T_on): A.1 for up to 1 ms,
 * A.2 for up to 500 us (a 190 B beacon at 6 Mb/s on 10 MHz takes 384 us).
 */
export type DccState = 'relaxed' | 'active-1' | 'active-2' | 'active-3' | 'restrictive';

export const DCC_STATES: readonly DccState[] = ['relaxed', 'active-1', 'active-2', 'active-3', 'restrictive'];

interface DccTable {
  /** The lowest CBR of each state above relaxed, in DCC_STATES order. */
  from: readonly [number, number, number, number];
  /** T_off of each state [s], in DCC_STATES order. */
  offTime: readonly [number, number, number, number, number];
}

/** Annex A, Table A.1 (T_on up to 1 ms): 10, 5, 2.5, 2 and 1 packets per second. */
const TABLE_A1: DccTable = { from: [0.3, 0.4, 0.5, 0.6], offTime: [0.1, 0.2, 0.4, 0.5, 1] };
/** Annex A, Table A.2 (T_on up to 500 us): 20, 10, 5, 4 and 1 packets per second; active 3 reaches to 65 %. */
const TABLE_A2: DccTable = { from: [0.3, 0.4, 0.5, 0.65], offTime: [0.05, 0.1, 0.2, 0.25, 1] };

/** The table for packets of this air time [s]: A.2 up to 500 us, else A.1 (also beyond its 1 ms). */
export const dccTableFor = (airTime: number): DccTable => (airTime <= 500e-6 ? TABLE_A2 : TABLE_A1);

/** The state whose CBR band holds `cbr`. */
export function dccStateFor(table: DccTable, cbr: number): DccState {
  let k = 0;
  while (k < table.from.length && cbr >= table.from[k]) k++;
  return DCC_STATES[k];
}

/**
 * One car's reactive DCC: each CBR sample (one per 100 ms window) moves the state one step towards
 * the state of that CBR, so that one busy window does not throw the car to restrictive (cavsim's
 * choice, as public implementations make it). `offTime` is the state's T_off.
 */
export class ReactiveDcc {
  private index = 0;
  private changes = 0;

  constructor(private readonly table: DccTable) {}

  get state(): DccState {
    return DCC_STATES[this.index];
  }

  /**
   * T_off now [s]: from the end of one of the car's packets to the start of the next. With air times
   * well under T_off, the apps take it as the least interval between two packets.
   */
  get offTime(): number {
    return this.table.offTime[this.index];
  }

  /** How many times the state has changed. */
  get stateChanges(): number {
    return this.changes;
  }

  /** Takes the CBR of the window that just ended; returns the state after it. */
  observe(cbr: number): DccState {
    const target = DCC_STATES.indexOf(dccStateFor(this.table, cbr));
    if (target !== this.index) {
      this.index += target > this.index ? 1 : -1;
      this.changes++;
    }
    return this.state;
  }
}
