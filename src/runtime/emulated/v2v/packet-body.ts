import { decodeCam } from '../../../core/v2x/codec/cam-pdu.js';
import { CAM_MESSAGE } from '../../../core/v2x/facilities/ca-service.js';
import { denmOf } from '../../../core/v2x/facilities/den-service.js';
import { BTP_PORT_CAM, decodeShb } from '../../../core/v2x/networking/geonetworking.js';

/**
 * The JSON body a vehicle's own code gets for a standard message that arrived as its GN packet:
 * the decoded CAM's fields, or `{denm, area}` for a DENM (as the sending app's body has them,
 * less what is not in the packet: a CAM's `trigger`, a DENM's `kind`); `{}` for a packet that
 * does not decode.
 */
export function bodyOfPacket(type: string, packet: Uint8Array): Record<string, unknown> {
  try {
    if (type === CAM_MESSAGE) {
      const gn = decodeShb(packet);
      return gn.btpPort === BTP_PORT_CAM ? { ...decodeCam(gn.payload) } : {};
    }
    const got = denmOf({ id: '', from: '', to: '', sentAt: 0, type, body: {}, packet });
    return got ? { ...got } : {};
  } catch {
    return {};
  }
}
