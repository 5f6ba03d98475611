import { join } from 'node:path';
import type { OccupancyGrid } from '../../core/map/occupancy-grid.js';
import { UserInputError } from '../../errors.js';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { readCsvRecords } from '../../util/csv-records.js';
import { readRunFile } from '../read-run-file.js';
import { RUN_FILES } from '../run-files.js';
import { CDR_CHANNEL, CdrEncoders } from './cdr-encoders.js';
import { McapStreamWriter } from './mcap-stream-writer.js';
import { schemaText } from './ros-message-types.js';
import { mapMessage, RECORDED_FILES, RunMessageBuilder, type RunTopic, runTopics, type TopicMessage } from './run-topics.js';

export const MCAP_FILE = RUN_FILES.mcap;

export interface McapRecordingInput {
  runDir: string;
  scenario: Pick<ResolvedScenario, 'vehicles' | 'record' | 'name'>;
  grid?: OccupancyGrid;
  /** 0 for virtual time; the wall clock at the run's t = 0 for an emulated run [ns since the epoch]. */
  timeBaseNs?: bigint;
  runtime: 'sim' | 'docker';
  runId: string;
  library: string;
}

export interface McapRecordingFigures {
  file: string;
  messages: number;
  channels: number;
}

/** A run's MCAP file with its schemas, channels (in runTopics order) and metadata written. */
export interface OpenRunMcap {
  writer: McapStreamWriter;
  topics: RunTopic[];
  channelIds: Map<string, number>;
  encoders: CdrEncoders;
  /** Encodes and writes one message of the run. */
  write(m: TopicMessage): void;
}

export function openRunMcap(p: McapRecordingInput): OpenRunMcap {
  const base = p.timeBaseNs ?? 0n;
  const writer = new McapStreamWriter(join(p.runDir, MCAP_FILE), { profile: 'ros2', library: p.library }, base);
  const topics = runTopics(p.scenario);
  const schemaIds = new Map<string, number>();
  const channelIds = new Map<string, number>();
  for (const t of topics) {
    let schemaId = schemaIds.get(t.type);
    if (schemaId === undefined)
      schemaIds.set(t.type, (schemaId = writer.addSchema(t.type, CDR_CHANNEL.schemaEncoding, schemaText(t.type))));
    channelIds.set(t.topic, writer.addChannel(t.topic, schemaId, CDR_CHANNEL.messageEncoding));
  }
  writer.addMetadata(
    'cavsim',
    new Map([
      ['run_id', p.runId],
      ['scenario', p.scenario.name],
      ['runtime', p.runtime],
      ['time', p.runtime === 'sim' ? 'virtual time from 0' : 'wall clock'],
    ]),
  );
  const encoders = new CdrEncoders(topics);
  return {
    writer,
    topics,
    channelIds,
    encoders,
    write: (m) => writer.addMessage(channelIds.get(m.topic)!, Number(m.timeNs - base), encoders.encode(m.topic, m.message)),
  };
}

/**
 * run.mcap from a run folder's CSVs once they are complete: the emulated runtime's recording, and
 * `cavsim mcap` for any run. The simulated runtime records as it runs (sim-recording.ts) and gives
 * the same messages. A run.mcap is always a whole file (written under another name, then renamed).
 */
export async function writeRunMcap(p: McapRecordingInput): Promise<McapRecordingFigures> {
  const mcap = openRunMcap(p);
  const messages = collectMessages(p);
  for (const m of messages) mcap.write(m);
  mcap.writer.end();
  return { file: join(p.runDir, MCAP_FILE), messages: messages.length, channels: mcap.topics.length };
}

/** Every message of the run, in time order (ties keep file order). */
function collectMessages(p: McapRecordingInput): TopicMessage[] {
  const builder = new RunMessageBuilder(p.scenario, p.timeBaseNs ?? 0n);
  const messages: TopicMessage[] = p.grid ? [mapMessage(p.grid, p.timeBaseNs ?? 0n)] : [];
  const channels = new Set(runTopics(p.scenario).map((t) => t.topic));
  for (const kind of RECORDED_FILES) {
    const text = readRunFile(join(p.runDir, RUN_FILES[kind]));
    if (text === undefined) continue;
    const rows = csvRows(RUN_FILES[kind], text);
    // a loop, not push(...): a long run has more messages than a call has room for arguments
    for (const m of builder.messages(kind, rows)) {
      if (!channels.has(m.topic))
        throw new UserInputError(
          `${RUN_FILES[kind]} does not match ${RUN_FILES.scenario}: it has a message for ${m.topic}, a topic of no vehicle the run's scenario names`,
          [],
          'restore the run folder as the run wrote it, or run the scenario again',
        );
      messages.push(m);
    }
  }
  return messages.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
}

/** A CSV cavsim wrote parses; one that does not was damaged outside cavsim, which the user must hear. */
function csvRows(file: string, text: string): string[][] {
  try {
    return readCsvRecords(text).map((r) => r.cells);
  } catch (err) {
    throw new UserInputError(
      `${file} is damaged: ${err instanceof Error ? err.message : String(err)}`,
      [],
      'restore it, or run the scenario again',
    );
  }
}
