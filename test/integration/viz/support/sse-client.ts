import { get, type IncomingMessage } from 'node:http';

export interface SseEvent {
  event: string;
  data: unknown;
}

/** A minimal EventSource for tests: collects events and lets a test wait for a condition on them. */
export class SseClient {
  readonly events: SseEvent[] = [];
  private waiters: (() => void)[] = [];
  private response?: IncomingMessage;

  static open(url: string): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      const req = get(url, (res) => {
        client.response = res;
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            client.accept(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        });
        resolve(client);
      });
      req.on('error', reject);
    });
  }

  private accept(block: string): void {
    let event = 'message';
    let data = '';
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data += line.slice(6);
    }
    if (!data) return;
    this.events.push({ event, data: JSON.parse(data) });
    for (const w of this.waiters.splice(0)) w();
  }

  async waitFor(predicate: (events: SseEvent[]) => boolean): Promise<void> {
    while (!predicate(this.events)) await new Promise<void>((r) => this.waiters.push(r));
  }

  close(): void {
    this.response?.destroy();
  }
}
