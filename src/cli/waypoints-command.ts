import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { recordWaypoints } from '../api/waypoints/record.js';
import { type OrientedWaypoint, resamplePolyline } from '../api/waypoints/resample.js';
import { parseVehicleTrajectory } from '../api/waypoints/trajectory.js';
import { formatWaypointsCsv, parseNumericCsv } from '../core/control/waypoints.js';
import { UserInputError } from '../errors.js';
import { checkRunFolder } from '../run/read-run-folder.js';
import { RUN_FILES } from '../run/run-files.js';
import { decimal } from './flag-values.js';
import { printJson } from './json-output.js';

/** Finer spacing only multiplies the points: a 10 m path at 1 mm is already 10,000 waypoints. */
const MIN_SPACING_M = 0.001;
const spacing = decimal('--spacing', `a distance in metres of at least ${MIN_SPACING_M}, e.g. 0.25`, (n) => n >= MIN_SPACING_M);
const seconds = (flag: string) => decimal(flag, 'a time in seconds, e.g. 2.5');
const minSpeed = decimal('--min-speed', 'a speed in m/s of 0 or more, e.g. 1', (n) => n >= 0);

const JSON_HELP = 'print {output, count} (or, with no output file, {count, waypoints}) as JSON';

/** `cavsim waypoints record|resample`: waypoint CSVs (x,y,yaw,speed) from runs or polylines. */
export function registerWaypointsCommand(program: Command): void {
  const waypoints = program.command('waypoints').description('make waypoint CSVs (x,y,yaw,speed) for pure pursuit and RRT');

  waypoints
    .command('record')
    .description("turn a car's driven trajectory in a run folder into waypoints")
    .argument('<run-dir>', 'run folder (runs/<run-id>) with vehicles.csv')
    .requiredOption('--vehicle <name>', 'the car whose trajectory to record')
    .option('-o, --output <file>', 'write here instead of standard output')
    .option('--spacing <m>', 'distance between waypoints', spacing, 0.25)
    .option('--from <s>', 'start of the time window', seconds('--from'))
    .option('--to <s>', 'end of the time window', seconds('--to'))
    .option('--min-speed <m/s>', 'raise slower recorded speeds to this', minSpeed, 0)
    .option('--json', JSON_HELP)
    .action(
      async (
        dir: string,
        opts: { vehicle: string; output?: string; spacing: number; from?: number; to?: number; minSpeed: number; json?: boolean },
      ) => {
        checkRunFolder(dir);
        const file = join(dir, RUN_FILES.vehicles);
        const text = await readInput(file);
        const points = guard(file, () => recordWaypoints(parseVehicleTrajectory(text, opts.vehicle), opts));
        await emit(points, opts.output, opts.json);
      },
    );

  waypoints
    .command('resample')
    .description('resample a polyline with speeds (CSV x,y,speed) to even spacing')
    .argument('<polyline>', 'CSV file with a header naming x, y and speed')
    .requiredOption('-o, --output <file>', 'the waypoint CSV to write ("-" for standard output)')
    .option('--spacing <m>', 'distance between waypoints', spacing, 0.25)
    .option('--closed', 'the polyline is a loop: connect the last point back to the first')
    .option('--json', JSON_HELP)
    .action(async (file: string, opts: { output: string; spacing: number; closed?: boolean; json?: boolean }) => {
      const { rows, errors } = parseNumericCsv(await readInput(file), ['x', 'y', 'speed']);
      if (errors.length)
        throw new UserInputError(
          `${file} is not a polyline CSV`,
          errors.slice(0, 5).map((e) => `${file} ${e}`),
        );
      const points = guard(file, () => resamplePolyline(rows, { spacing: opts.spacing, closed: opts.closed }));
      await emit(points, opts.output === '-' ? undefined : opts.output, opts.json);
    });
}

async function readInput(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new UserInputError(`cannot read ${file}`, [`${file}: no such file or not readable (check the path)`]);
  }
}

function guard<T>(file: string, make: () => T): T {
  try {
    return make();
  } catch (err) {
    if (err instanceof RangeError) throw new UserInputError(`${file}: ${err.message}`);
    throw err;
  }
}

async function emit(points: readonly OrientedWaypoint[], output: string | undefined, json = false): Promise<void> {
  if (!output) {
    if (json) printJson({ count: points.length, waypoints: points });
    else process.stdout.write(formatWaypointsCsv(points));
    return;
  }
  await writeFile(output, formatWaypointsCsv(points)).catch((err: NodeJS.ErrnoException) => {
    const why =
      err.code === 'EISDIR'
        ? 'is a folder'
        : err.code === 'ENOENT'
          ? 'is in a folder that does not exist'
          : `cannot be written (${err.code ?? err.message})`;
    throw new UserInputError(`--output ${output}: ${why}`, [], 'give a file path in a folder you can write, or - for standard output');
  });
  if (json) printJson({ output: resolve(output), count: points.length });
  else process.stderr.write(`wrote ${points.length} waypoints to ${output}\n`);
}
