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
  const lines = text.split(/\r?\n/);
  const errors: string[] = [];
  const rows: Record<K, number>[] = [];
  const headerIndex = lines.findIndex((l) => l.trim() && !l.trim().startsWith('#'));
  if (headerIndex < 0) return { rows, errors: ['the file is empty; it needs a header line such as ' + columns.join(',')] };
  const header = lines[headerIndex].split(',').map((h) => h.trim().toLowerCase());
  const positions = columns.map((c) => header.indexOf(c));
  const missing = columns.filter((_, i) => positions[i] < 0);
  if (missing.length) {
    return { rows, errors: [`line ${headerIndex + 1}: header "${lines[headerIndex].trim()}" lacks column(s) ${missing.join(', ')}; expected ${columns.join(',')}`] };
  }
  for (let i = headerIndex + 1; i < lines.length; i++) {
    const line = lines[i].trim();
    if (!line || line.startsWith('#')) continue;
    const cells = line.split(',');
    const row = {} as Record<K, number>;
    for (let c = 0; c < columns.length; c++) {
      const value = Number(cells[positions[c]]);
      if (cells[positions[c]] === undefined || cells[positions[c]].trim() === '' || !Number.isFinite(value)) {
        errors.push(`line ${i + 1}: column ${columns[c]} is "${cells[positions[c]] ?? ''}", not a number`);
      }
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
  return [header, ...body].join('\n') + '\n';
}
