/**
 * The cars one transmission reached in a subframe and what each got, in flat arrays reused from
 * subframe to subframe (a subframe's transmissions are decided before the next one starts), so
 * that a transmission allocates nothing per receiver.
 */
export class ReachedCars {
  count = 0;
  readonly cars: Int32Array;
  readonly powersMw: Float64Array;
  readonly dbms: Float64Array;
  readonly distances: Float64Array;
  /** 1 clear, 0 blocked by the map's walls, -1 not traced (no walls). */
  private readonly sight: Int8Array;

  constructor(capacity: number) {
    this.cars = new Int32Array(capacity);
    this.powersMw = new Float64Array(capacity);
    this.dbms = new Float64Array(capacity);
    this.distances = new Float64Array(capacity);
    this.sight = new Int8Array(capacity);
  }

  add(car: number, powerMw: number, dbm: number, distance: number, lineOfSight: boolean | undefined): void {
    const k = this.count++;
    this.cars[k] = car;
    this.powersMw[k] = powerMw;
    this.dbms[k] = dbm;
    this.distances[k] = distance;
    this.sight[k] = lineOfSight === undefined ? -1 : lineOfSight ? 1 : 0;
  }

  lineOfSight(k: number): boolean | undefined {
    return this.sight[k] < 0 ? undefined : this.sight[k] === 1;
  }
}
