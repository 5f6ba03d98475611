import { McapWriter } from '@mcap/core';
import type { IWritable } from '@mcap/core';
import { closeSync, existsSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { OccupancyGrid } from '../map/occupancy-grid.js';
import type { ResolvedScenario } from '../scenario/resolved.js';
import { readCsvRecords } from '../util/csv-records.js';
import { CDR_CHANNEL, CdrEncoders } from './cdr-encoders.js';
import { RECORDED_FILES, RunMessageBuilder, mapMessage, runTopics, type TopicMessage } from './run-topics.js';

export const MCAP_FILE = 'run.mcap';
const TEXT = new TextEncoder();

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

/**
 * run.mcap: the run as ROS 2 messages (CDR), written from the run folder's CSVs once they are
 * complete, so both runtimes (and a run that failed part-way) get the same recording of what was
 * measured. Written to a temporary name and renamed: a run.mcap is always a whole file.
 */
export async function writeRunMcap(p: McapRecordingInput): Promise<McapRecordingFigures> {
  const topics = runTopics(p.scenario);
  const encoders = new CdrEncoders(topics);
  const messages = collectMessages(p);
  const file = join(p.runDir, MCAP_FILE);
  const partial = `${file}.partial`;
  const fd = openSync(partial, 'w');
  try {
    const writer = new McapWriter({ writable: fileWritable(fd), chunkSize: 256 * 1024 });
    await writer.start({ profile: 'ros2', library: p.library });
    const channelIds = new Map<string, number>();
    const schemaIds = new Map<string, number>();
    for (const t of topics) {
      let schemaId = schemaIds.get(t.type);
      if (schemaId === undefined) {
        const schema = CdrEncoders.schema(t.type);
        schemaId = await writer.registerSchema({ name: schema.name, encoding: schema.encoding, data: TEXT.encode(schema.text) });
        schemaIds.set(t.type, schemaId);
      }
      channelIds.set(t.topic, await writer.registerChannel({ topic: t.topic, schemaId, messageEncoding: CDR_CHANNEL.messageEncoding, metadata: new Map() }));
    }
    await writer.addMetadata({
      name: 'cavsim',
      metadata: new Map([
        ['run_id', p.runId],
        ['scenario', p.scenario.name],
        ['runtime', p.runtime],
        ['time', p.runtime === 'sim' ? 'virtual time from 0' : 'wall clock'],
      ]),
    });
    const sequence = new Map<string, number>();
    for (const m of messages) {
      const seq = (sequence.get(m.topic) ?? 0) + 1;
      sequence.set(m.topic, seq);
      await writer.addMessage({ channelId: channelIds.get(m.topic)!, sequence: seq, logTime: m.timeNs, publishTime: m.timeNs, data: encoders.encode(m.topic, m.message) });
    }
    await writer.end();
  } finally {
    closeSync(fd);
  }
  renameSync(partial, file);
  return { file, messages: messages.length, channels: topics.length };
}

/** Every message of the run, in time order (ties keep file order). */
function collectMessages(p: McapRecordingInput): TopicMessage[] {
  const builder = new RunMessageBuilder(p.scenario, p.timeBaseNs ?? 0n);
  const messages: TopicMessage[] = p.grid ? [mapMessage(p.grid, p.timeBaseNs ?? 0n)] : [];
  for (const kind of RECORDED_FILES) {
    const path = join(p.runDir, `${kind}.csv`);
    if (!existsSync(path)) continue;
    const rows = readCsvRecords(readFileSync(path, 'utf8')).map((r) => r.cells);
    messages.push(...builder.messages(kind, rows));
  }
  return messages.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
}

/** McapWriter's output, written through at once: it hands over whole chunks, so writes are few. */
function fileWritable(fd: number): IWritable {
  let position = 0n;
  return {
    position: () => position,
    write: async (buffer) => {
      let done = 0;
      while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
      position += BigInt(buffer.length);
    },
  };
}
