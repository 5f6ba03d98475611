import { createSocket, type Socket } from 'node:dgram';
import { gnSourceOf } from '../../../core/v2x/networking/geonetworking.js';
import { stationIdOf, stationMac } from '../../../core/v2x/networking/station-id.js';
import { decodeDatagram, encodeDatagram, epochNs, messageBytes, padTo, V2V_PORT, type V2VDatagram } from './wire.js';

const WARM_UP_TYPE = 'warm-up';
/** About a CAM's GN packet. */
const WARM_UP_PACKET_BYTES = 90;

/**
 * A datagram whose body names another sender than the peer whose address it came from, or whose
 * GeoNetworking packet's source is another station than that peer's.
 */
export interface ForgedArrival {
  /** The sender its body claims (for a GN packet from another station: `station <id>`). */
  claimed: string;
  /** The peer whose channel address it came from. */
  sender: string;
  id: string;
}

export interface Arrival {
  datagram: V2VDatagram;
  receivedNs: bigint;
  /** Bytes of the message: its GN packet's for a standard message, else the datagram's. */
  size: number;
}

/** The station a GN packet says it came from, when that is not `sender`'s: `station <id>`. */
function otherStation(packet: Uint8Array, sender: string): string | undefined {
  const mac = gnSourceOf(packet)?.mac;
  const expected = stationMac(stationIdOf(sender));
  if (mac?.every((b, i) => b === expected[i])) return undefined;
  return mac ? `station ${new DataView(mac.buffer, mac.byteOffset, 6).getUint32(2)}` : 'station unknown (not a GN packet)';
}

/**
 * One vehicle's V2V endpoint: a UDP socket bound to its eth1 address. Sends stamp `sentAtNs` at the
 * last moment; arrivals are stamped on receipt, before any parsing.
 */
export class V2VEndpoint {
  private readonly senders = new Map<string, Promise<Socket>>();

  private constructor(
    private readonly socket: Socket,
    readonly name: string,
    private readonly bindAddress: string,
  ) {}

  /**
   * `acceptFrom`: the only source addresses whose datagrams count (the peers' channel addresses);
   * anything else is dropped unread. `bindTimeoutMs`: how long to retry while the bind address does
   * not exist yet (in emulation the host adds eth1 after the container starts).
   */
  static async open(p: {
    name: string;
    bindAddress: string;
    port?: number;
    acceptFrom?: ReadonlySet<string>;
    /**
     * Each peer's name by its channel address: a datagram is from the peer whose address it came
     * from, whatever its body claims; one that claims another sender is dropped and told to `onForged`.
     */
    peerNames?: ReadonlyMap<string, string>;
    onForged?: (f: ForgedArrival) => void;
    bindTimeoutMs?: number;
    onWaitingForAddress?: () => void;
    onArrival: (a: Arrival) => void;
  }): Promise<V2VEndpoint> {
    const deadline = Date.now() + (p.bindTimeoutMs ?? 0);
    let waiting = false;
    for (;;) {
      const socket = createSocket({ type: 'udp4', reuseAddr: false });
      socket.on('message', (buf, from) => {
        const receivedNs = epochNs();
        const fromSelf = from.address === p.bindAddress || from.address === '127.0.0.1';
        if (!fromSelf && p.acceptFrom && !p.acceptFrom.has(from.address)) return;
        // Our own warm-up datagrams are decoded, so the first real arrival finds that path compiled, and go no further.
        const datagram = decodeDatagram(buf);
        if (!datagram || (fromSelf && datagram.type === WARM_UP_TYPE && datagram.from === p.name)) return;
        if (fromSelf && p.acceptFrom && !p.acceptFrom.has(from.address)) return;
        const sender = p.peerNames?.get(from.address);
        if (sender !== undefined && datagram.from !== sender) return p.onForged?.({ claimed: datagram.from, sender, id: datagram.id });
        const station = sender !== undefined && datagram.packet ? otherStation(datagram.packet, sender) : undefined;
        if (station !== undefined) return p.onForged?.({ claimed: station, sender: sender!, id: datagram.id });
        p.onArrival({ datagram, receivedNs, size: messageBytes(datagram, buf.length) });
      });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('error', reject);
          socket.bind(p.port ?? V2V_PORT, p.bindAddress, () => {
            socket.off('error', reject);
            resolve();
          });
        });
        return new V2VEndpoint(socket, p.name, p.bindAddress);
      } catch (err) {
        socket.close();
        if ((err as NodeJS.ErrnoException).code !== 'EADDRNOTAVAIL' || Date.now() >= deadline) throw err;
        if (!waiting) p.onWaitingForAddress?.();
        waiting = true;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  /**
   * Stamps and sends one datagram. Each destination gets its own connected socket: Node sends on a
   * connected socket at once, where an unconnected one first takes an address-lookup hop through
   * the event loop, so the stamp would precede the real send by whatever else the loop does first.
   * With a `packet` (a standard V2X message's GeoNetworking packet) the datagram carries the packet
   * itself (wire.ts) and is never padded. Resolves with the message's bytes (the packet's, else
   * the datagram's) and the send stamp.
   */
  async send(p: {
    id: string;
    to: string;
    address: string;
    type: string;
    body: Record<string, unknown>;
    port?: number;
    sizeBytes?: number;
    packet?: Uint8Array;
  }): Promise<number> {
    return (await this.sendStamped(p)).size;
  }

  /** As send, also telling the epoch time the datagram was stamped with. */
  async sendStamped(p: {
    id: string;
    to: string;
    address: string;
    type: string;
    body: Record<string, unknown>;
    port?: number;
    sizeBytes?: number;
    packet?: Uint8Array;
  }): Promise<{ size: number; sentAtNs: bigint }> {
    const socket = await this.senderTo(p.address, p.port ?? V2V_PORT);
    const sentAtNs = epochNs();
    const datagram: V2VDatagram = {
      id: p.id,
      from: this.name,
      to: p.to,
      type: p.type,
      sentAtNs: sentAtNs.toString(),
      body: p.body,
      ...(p.packet ? { packet: p.packet } : {}),
    };
    const payload = p.packet ? encodeDatagram(datagram) : padTo(encodeDatagram(datagram), p.sizeBytes);
    const size = messageBytes(datagram, payload.length);
    return new Promise((resolve, reject) => socket.send(payload, (err) => (err ? reject(err) : resolve({ size, sentAtNs }))));
  }

  /** Opens the sockets to these peers now, so the first real send does not pay for them. */
  async connect(peers: readonly { address: string; port?: number }[]): Promise<void> {
    await Promise.all(peers.map((p) => this.senderTo(p.address, p.port ?? V2V_PORT)));
  }

  private senderTo(address: string, port: number): Promise<Socket> {
    const key = `${address}:${port}`;
    let sender = this.senders.get(key);
    if (!sender) {
      sender = connectedSocket(this.bindAddress, address, port);
      this.senders.set(key, sender);
      sender.catch(() => this.senders.delete(key));
    }
    return sender;
  }

  /** The bound UDP port (useful when opened with port 0). */
  get localPort(): number {
    return this.socket.address().port;
  }

  /**
   * Node compiles its UDP send and receive paths on first use, about 2 ms that would otherwise land
   * on the run's first real message. A few datagrams to this socket's own address pay for it; they
   * route over loopback, never reach the channel, and are decoded but not delivered. Gives up
   * quietly after `timeoutMs`; returns how many came back.
   */
  async warmUp(rounds = 3, timeoutMs = 500): Promise<number> {
    const { address, port } = this.socket.address();
    const self = address === '0.0.0.0' ? '127.0.0.1' : address;
    let returned = 0;
    for (let i = 0; i < rounds; i++) {
      let onMessage!: () => void;
      const arrived = new Promise<boolean>((resolve) => this.socket.once('message', (onMessage = () => resolve(true))));
      let timer: NodeJS.Timeout | undefined;
      const gaveUp = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
      try {
        // the last round in the GN datagram's form (a standard message's), whose decoding differs
        const packet = i === rounds - 1 ? { packet: new Uint8Array(WARM_UP_PACKET_BYTES) } : {};
        await this.send({ id: `${this.name}-warm-up-${i}`, to: this.name, address: self, port, type: WARM_UP_TYPE, body: {}, ...packet });
        if (await Promise.race([arrived, gaveUp])) returned++;
      } finally {
        clearTimeout(timer);
        this.socket.off('message', onMessage);
      }
    }
    return returned;
  }

  async close(): Promise<void> {
    const senders = await Promise.allSettled(this.senders.values());
    this.senders.clear();
    const sockets = [this.socket, ...senders.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []))];
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
}

/** A send-only UDP socket from `bindAddress` (any port) connected to one destination. */
function connectedSocket(bindAddress: string, address: string, port: number): Promise<Socket> {
  const socket = createSocket({ type: 'udp4' });
  // An ICMP error from a closed peer port surfaces on the next send's callback; never crash on it.
  socket.on('error', () => {});
  return new Promise<Socket>((resolve, reject) => {
    socket.bind(0, bindAddress, () => socket.connect(port, address, (err?: Error) => (err ? reject(err) : resolve(socket))));
  }).catch((err: unknown) => {
    socket.close();
    throw err;
  });
}
