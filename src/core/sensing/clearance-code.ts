/**
 * A cell's clearance [cells] in one byte: code q reads as CLEARANCE_OF_CODE[q], quarter cells up to
 * 16 cells, then 3 % more per code (up to about 4400 cells). Encoding rounds down, so a code never
 * reads as more than the clearance it stands for. OCCUPIED_CODE reads as −1.
 */

export const OCCUPIED_CODE = 255;
const LINEAR_CODES = 64;
const GROWTH = 1.03;

export const CLEARANCE_OF_CODE: Float64Array = (() => {
  const table = new Float64Array(256);
  for (let q = 0; q <= LINEAR_CODES; q++) table[q] = q / 4;
  for (let q = LINEAR_CODES + 1; q < OCCUPIED_CODE; q++) table[q] = table[q - 1] * GROWTH;
  table[OCCUPIED_CODE] = -1;
  return table;
})();

/** The largest code that reads as at most `cells` (≥ 0). */
export function clearanceCode(cells: number): number {
  let lo = 0;
  let hi = OCCUPIED_CODE - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (CLEARANCE_OF_CODE[mid] <= cells) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
