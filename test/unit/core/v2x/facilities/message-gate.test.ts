import { describe, expect, it } from 'vitest';
import { encodeCam } from '../../../../../src/core/v2x/codec/cam-pdu.js';
import { standardMessageProblem } from '../../../../../src/core/v2x/facilities/message-gate.js';
import { camOf, positionVectorOf } from '../../../../../src/core/v2x/facilities/vehicle-state.js';
import { BTP_PORT_CAM, encodeShb, GN_BTP_HEADER_BYTES } from '../../../../../src/core/v2x/networking/geonetworking.js';
import { stationIdOf } from '../../../../../src/core/v2x/networking/station-id.js';

const REF = { lat: 48.7758, lon: 9.1829 };
const state = { t: 1.5, x: 10, y: -1, yaw: 0.1, v: 8, yawRate: 0.01, acceleration: 0.5 };
const facts = { stationId: stationIdOf('car3'), stationType: 5, length: 0.58, width: 0.31 };
const camPacket = (lowFrequency = false) =>
  encodeShb({
    source: positionVectorOf(state, facts, REF),
    btpPort: BTP_PORT_CAM,
    trafficClass: 2,
    payload: encodeCam(camOf(state, facts, REF, lowFrequency)),
  });

/** `good`'s GN header with `payload` behind it, the GN length field made to match (or `claimed`). */
function withPayload(good: Uint8Array, payload: Uint8Array, claimed?: number): Uint8Array {
  const out = new Uint8Array(GN_BTP_HEADER_BYTES + payload.length);
  out.set(good.subarray(0, GN_BTP_HEADER_BYTES));
  out.set(payload, GN_BTP_HEADER_BYTES);
  new DataView(out.buffer).setUint16(8, claimed ?? payload.length + 4);
  return out;
}

describe('the receive-side gate for standard messages', () => {
  it('lets a well-formed CAM through, with and without its low-frequency container, and any message that claims no standard type', () => {
    expect(standardMessageProblem('cam', camPacket())).toBeUndefined();
    expect(standardMessageProblem('cam', camPacket(true))).toBeUndefined();
    expect(standardMessageProblem('emergency-brake', undefined)).toBeUndefined();
  });

  it('calls malformed what is not a complete, in-range message of the type it claims', () => {
    const good = camPacket();
    const payload = good.subarray(GN_BTP_HEADER_BYTES);
    const cases: [string, string, Uint8Array | undefined, RegExp][] = [
      [
        'garbage UPER',
        'cam',
        withPayload(
          good,
          payload.map((_, i) => (i * 73 + 5) & 0xff),
        ),
        /^cam: /,
      ],
      ['truncated', 'cam', withPayload(good, payload.subarray(0, payload.length - 3)), /^cam: truncated/],
      ['trailing octets', 'cam', withPayload(good, Uint8Array.from([...payload, 0, 0])), /octets where the message it decodes to has/],
      ['a length field that lies', 'cam', withPayload(good, payload, 65535), /^GeoNetworking: GN payload length 65535/],
      ['no packet', 'cam', undefined, /travels as its GeoNetworking packet/],
      ['another type', 'denm', good, /sent as "denm", the packet is a cam/],
      ['not GN at all', 'cam', Uint8Array.from([1, 2, 3]), /^GeoNetworking: /],
    ];
    for (const [what, type, packet, why] of cases) expect(standardMessageProblem(type, packet), what).toMatch(why);
    // a field outside its range: headingValue (12 bits at bit 208 of the CAM) set to 4095 > 3601
    const heading = Uint8Array.from(payload);
    heading[26] = 0xff;
    heading[27] |= 0xf0;
    expect(standardMessageProblem('cam', withPayload(good, heading))).toMatch(/headingValue = 4095 is outside 0\.\.3601/);
    const port = Uint8Array.from(good);
    new DataView(port.buffer).setUint16(40, 9999);
    expect(standardMessageProblem('cam', port)).toBe('BTP port 9999 carries no CAM, DENM or CPM');
  });
});
