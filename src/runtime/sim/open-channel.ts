import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createChannel } from '../../channel/builtin/create-channel.js';
import { DeferredChannel } from '../../channel/deferred-channel.js';
import type { V2VChannel } from '../../channel/frames.js';
import { lockstepBinary } from '../../channel/ns3/builtin-programs.js';
import { lockstepArgv } from '../../channel/ns3/lockstep/lockstep-argv.js';
import { LockstepChannel, type NodeMotion } from '../../channel/ns3/lockstep/lockstep-channel.js';
import { writeObstacleGrid } from '../../channel/ns3/lockstep/obstacle-grid-file.js';
import type { LockstepProcessPool } from '../../channel/ns3/lockstep/process-pool.js';
import type { OutcomeTally } from '../../channel/outcome-tally.js';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { channelKind, isRadio } from '../../scenario/channel-kinds.js';
import type { ChannelEngine, ResolvedScenario } from '../../scenario/resolved.js';
import { createRandom, deriveSeed } from '../../util/random.js';
import { actsOnReceivedMessages } from '../../world/create-apps.js';

/** Whether the channel counts a fleet's outcomes in its tally itself (the builtin radio); others hand out every one. */
export const channelTallies = (scenario: ResolvedScenario, engine: ChannelEngine) => engine === 'builtin' && isRadio(scenario.network);

/**
 * The simulated runtime's channel: the builtin model, or ns-3 in lock-step (compiled once per
 * machine and source, started per run). `motion` gives every car's position and velocity.
 * `tally` (fleets): where a channel that tallies (`channelTallies`) counts the outcomes, handing
 * out only deliveries to the cars whose apps act on what they receive.
 */
export async function openChannel<T>(
  scenario: ResolvedScenario,
  engine: ChannelEngine,
  grid: OccupancyGrid,
  motion: () => readonly NodeMotion[],
  pool?: LockstepProcessPool,
  tally?: OutcomeTally,
): Promise<V2VChannel<T>> {
  if (engine === 'builtin') {
    const listeners = () => new Set(scenario.vehicles.filter(actsOnReceivedMessages).map((v) => v.name));
    const radio = isRadio(scenario.network)
      ? {
          names: scenario.vehicles.map((v) => v.name),
          positions: motion,
          grid,
          stackDelay: stackDelay(scenario.seed),
          ...(tally ? { tally: { outcomes: tally, listeners: listeners(), droppedAtReceiver } } : {}),
        }
      : undefined;
    return createChannel<T>(scenario.network, deriveSeed(scenario.seed, 'v2v-bus'), radio);
  }
  const binary = await lockstepBinary(isRadio(scenario.network));
  const start = () => startLockstep<T>(scenario, binary, grid, channelKind(scenario.network.channel).positions ? motion : undefined, pool);
  // ns-3 sets up in ~30 ms: a run whose cars have V2V apps starts it at once, in parallel with the
  // physics; one whose cars have none starts it only if a frame is ever sent.
  return scenario.vehicles.some(mayTransmit) ? start() : new DeferredChannel<T>(start);
}

/** A message that claims to be a CAM, DENM or CPM and is none (V2VMessage.malformed): every receiver drops it. */
const droppedAtReceiver = (payload: unknown) => (payload as { malformed?: string }).malformed !== undefined;

/** A car with V2V apps, or with its own code or device (which may send at any tick). */
const mayTransmit = (v: ResolvedScenario['vehicles'][number]) => v.apps.length > 0 || v.command !== undefined || v.external !== undefined;

/**
 * Starts the ns-3 process a run will need before the run loads its map and opens its folder, so
 * that ns-3's start (tens of ms, most of it library loading and random-stream tables) overlaps them.
 */
export async function prepareChannel(scenario: ResolvedScenario, engine: ChannelEngine, pool: LockstepProcessPool): Promise<void> {
  if (engine !== 'ns3' || !scenario.vehicles.some(mayTransmit)) return;
  pool.prewarm(await lockstepBinary(isRadio(scenario.network)));
}

/**
 * A radio frame leaves its sender's stack and interface up to 0.5 ms after the app sent it (uniform,
 * seeded; the emulation path measured 0.25 ms at the median). Without it, cars whose control ticks
 * coincide would put frames on the air in the same nanosecond, which 802.11's carrier sense cannot
 * separate, and beacons would collide far more than on real (or emulated) cars.
 */
const STACK_DELAY_MAX_S = 0.0005;
const stackDelay = (seed: number) => {
  const draw = createRandom(deriveSeed(seed, 'radio-stack'));
  return () => draw() * STACK_DELAY_MAX_S;
};

function startLockstep<T>(
  scenario: ResolvedScenario,
  binary: string,
  grid: OccupancyGrid,
  motion: (() => readonly NodeMotion[]) | undefined,
  pool: LockstepProcessPool | undefined,
): V2VChannel<T> {
  const network = scenario.network;
  const scratch = isRadio(network) && network.obstacles === 'map' ? mkdtempSync(join(tmpdir(), 'cavsim-obstacles-')) : undefined;
  const removeScratch = () => scratch && rmSync(scratch, { recursive: true, force: true });
  try {
    const obstacleFile = scratch && join(scratch, 'walls.grid');
    if (obstacleFile) writeObstacleGrid(grid, obstacleFile);
    const argv = lockstepArgv({ network, nodes: scenario.vehicles.length, run: scenario.seed, ...(obstacleFile ? { obstacleFile } : {}) });
    const radio = motion ? { motion, stackDelay: stackDelay(scenario.seed) } : {};
    const outcomesOnlyLogged = !scenario.vehicles.some(actsOnReceivedMessages);
    const channel = LockstepChannel.start<T>({
      binary,
      argv,
      names: scenario.vehicles.map((v) => v.name),
      outcomesOnlyLogged,
      ...radio,
      ...(pool ? { pool } : {}),
    });
    // the program has read the walls by the time it is ready
    void channel.ready.finally(removeScratch).catch(() => {});
    return channel;
  } catch (err) {
    removeScratch();
    throw err;
  }
}
