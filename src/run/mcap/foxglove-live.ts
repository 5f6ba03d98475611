import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import foxgloveProtocol from '@foxglove/ws-protocol';
import { WebSocketServer } from 'ws';
import type { ResolvedScenario } from '../../scenario/resolved.js';
import { loadScenarioMap } from '../../scenario/scenario-map.js';
import { csvCells } from '../../util/csv-records.js';
import { FileTail } from '../../util/file-tail.js';
import { RUN_FILES } from '../run-files.js';
import { CDR_CHANNEL, CdrEncoders } from './cdr-encoders.js';
import { schemaText } from './ros-message-types.js';
import { mapMessage, RECORDED_FILES, type RecordedFile, RunMessageBuilder, runTopics, type TopicMessage } from './run-topics.js';

const { FoxgloveServer } = foxgloveProtocol;

export interface FoxgloveLive {
  url: string;
  /** Sends whatever the run has written since the last poll (call it when the run has ended). */
  flush(): Promise<void>;
  close(): Promise<void>;
}

interface Following {
  encoders: CdrEncoders;
  builder: RunMessageBuilder;
  channelIds: Map<string, number>;
  tails: Map<RecordedFile, FileTail>;
  map?: TopicMessage;
}

/**
 * Serves a run folder live over the Foxglove WebSocket protocol on 127.0.0.1: the same topics and
 * messages as run.mcap, read from the CSVs as the run appends to them (so both runtimes are served
 * alike). Times are the run's own, from 0; the server's clock follows the newest message.
 */
export async function startFoxgloveLive(p: { runDir: string; port: number; pollMs?: number }): Promise<FoxgloveLive> {
  const server = new FoxgloveServer({ name: 'cavsim', capabilities: ['time'], supportedEncodings: [CDR_CHANNEL.messageEncoding] });
  const wss = new WebSocketServer({ host: '127.0.0.1', port: p.port, handleProtocols: (protocols) => server.handleProtocols(protocols) });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', resolve);
    wss.once('error', reject);
  });
  wss.on('connection', (conn, req) => server.handleConnection(conn, `${req.socket.remoteAddress}:${req.socket.remotePort}`));
  server.on('error', () => {});

  let following: Following | undefined;
  server.on('subscribe', (channelId) => {
    // The map is sent once at the start; a client that subscribes later still gets it.
    if (following?.map && following.channelIds.get('/map') === channelId) send(following, [following.map]);
  });

  const send = (f: Following, messages: readonly TopicMessage[]) => {
    for (const m of messages) server.sendMessage(f.channelIds.get(m.topic)!, m.timeNs, f.encoders.encode(m.topic, m.message));
  };

  const poll = async () => {
    following ??= await follow(p.runDir, server);
    if (!following) return;
    const batch: TopicMessage[] = [];
    for (const [kind, tail] of following.tails) {
      const lines = await tail.readNewLines();
      // a loop, not push(...): catching up on a long run gives more messages than a call takes arguments
      if (lines.length) for (const m of following.builder.messages(kind, csvCells(lines))) batch.push(m);
    }
    if (!batch.length) return;
    batch.sort((a, b) => (a.timeNs < b.timeNs ? -1 : a.timeNs > b.timeNs ? 1 : 0));
    send(following, batch);
    server.broadcastTime(batch[batch.length - 1].timeNs);
  };

  let polling = Promise.resolve();
  const timer = setInterval(() => {
    polling = polling.then(poll).catch(() => {});
  }, p.pollMs ?? 50);

  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}`,
    flush: async () => {
      polling = polling.then(poll).catch(() => {});
      await polling;
    },
    close: async () => {
      clearInterval(timer);
      await polling;
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Once the run has written its scenario: its channels, announced to clients, and tails on its CSVs. */
async function follow(runDir: string, server: InstanceType<typeof FoxgloveServer>): Promise<Following | undefined> {
  let text: string;
  try {
    text = await readFile(join(runDir, RUN_FILES.scenario), 'utf8');
  } catch {
    return undefined;
  }
  const scenario = JSON.parse(text) as ResolvedScenario;
  // loaded before the channels are announced: a client subscribes as soon as it hears of /map
  const grid = await loadScenarioMap(scenario).catch(() => undefined);
  const topics = runTopics(scenario);
  const channelIds = new Map(
    topics.map((t) => [
      t.topic,
      server.addChannel({
        topic: t.topic,
        encoding: CDR_CHANNEL.messageEncoding,
        schemaName: t.type,
        schema: schemaText(t.type),
        schemaEncoding: CDR_CHANNEL.schemaEncoding,
      }),
    ]),
  );
  return {
    encoders: new CdrEncoders(topics),
    builder: new RunMessageBuilder(scenario),
    channelIds,
    tails: new Map(RECORDED_FILES.map((kind) => [kind, new FileTail(join(runDir, `${kind}.csv`))])),
    ...(grid ? { map: mapMessage(grid, 0n) } : {}),
  };
}
