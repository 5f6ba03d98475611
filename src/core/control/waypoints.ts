import { readCsvRecords } from '../../util/csv-records.js';

/** A point of a global path with the speed to drive there. */
export interface Waypoint {
  x: number;
  y: number;
  speed: number;
}

/** One entry of an open-loop command schedule. */
export interface CommandStep {
  t: number;
  speed: number;
  steer: number;
}

/**
 * Reads a numeric CSV with a header line naming its columns. Returns rows keyed by the wanted
 * columns, or a list of problems naming line and column.
 */
export function parseNumericCsv<K extends string>(text: string, columns: readonly K[]): { rows: Record<K, number>[]; errors: string[] } {
  const errors: string[] = [];
  const rows: Record<K, number>[] = [];
  let records;
  try {
    records = readCsvRecords(text, { comments: true });
  } catch (err) {
    return { rows, errors: [(err as Error).message] };
  }
  if (!records.length) return { rows, errors: [`the file is empty; it needs a header line such as ${columns.join(',')}`] };
  const [head, ...body] = records;
  const header = head.cells.map((h) => h.toLowerCase());
  const positions = columns.map((c) => header.indexOf(c));
  const missing = columns.filter((_, i) => positions[i] < 0);
  if (missing.length) {
    return {
      rows,
      errors: [`line ${head.line}: header "${head.cells.join(',')}" lacks column(s) ${missing.join(', ')}; expected ${columns.join(',')}`],
    };
  }
  for (const { cells, line } of body) {
    const row = {} as Record<K, number>;
    for (let c = 0; c < columns.length; c++) {
      const cell = cells[positions[c]];
      const value = Number(cell);
      if (cell === undefined || cell === '' || !Number.isFinite(value))
        errors.push(`line ${line}: column ${columns[c]} is "${cell ?? ''}", not a number`);
      row[columns[c]] = value;
    }
    rows.push(row);
  }
  if (!rows.length && !errors.length) errors.push('the file has a header but no rows');
  return { rows, errors };
}

export function formatWaypointsCsv(points: readonly (Waypoint & { yaw?: number })[]): string {
  const withYaw = points.some((p) => p.yaw !== undefined);
  const header = withYaw ? 'x,y,yaw,speed' : 'x,y,speed';
  const body = points.map((p) => (withYaw ? [p.x, p.y, p.yaw ?? 0, p.speed] : [p.x, p.y, p.speed]).map((v) => +v.toFixed(4)).join(','));
  return `${[header, ...body].join('\n')}\n`;
}
