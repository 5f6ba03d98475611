import { describe, expect, it } from 'vitest';
import {
  CPM_MESSAGE_ID,
  CPM_PROTOCOL_VERSION,
  type Cpm,
  decodeCpm,
  encodeCpm,
  type PerceivedObject,
} from '../../../../../src/core/v2x/codec/cpm-pdu.js';
import { UperError } from '../../../../../src/core/v2x/codec/uper.js';
import { createRandom } from '../../../../../src/util/random.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Every container and optional field this codec carries, in use, and a second object at its types' limits. */
const FULL: Cpm = {
  stationId: 3559379203,
  generationDeltaTime: 1234,
  stationType: 5,
  referencePosition: {
    latitude: 487757910,
    longitude: 91833136,
    semiMajorConfidence: 1,
    semiMinorConfidence: 1,
    semiMajorOrientation: 900,
    altitudeValue: 0,
    altitudeConfidence: 0,
  },
  originatingVehicle: {
    headingValue: 900,
    headingConfidence: 1,
    speedValue: 500,
    speedConfidence: 1,
    driveDirection: 1,
    longitudinalAcceleration: { value: -12, confidence: 1 },
    yawRate: { value: 100, confidence: 0 },
    vehicleLength: { value: 6, confidenceIndication: 0 },
    vehicleWidth: 3,
  },
  sensors: [
    {
      sensorId: 1,
      type: 2,
      vehicleSensor: {
        refPointId: 3,
        xSensorOffset: 0,
        ySensorOffset: 0,
        zSensorOffset: 10,
        properties: [{ range: 300, horizontalOpeningAngleStart: 2254, horizontalOpeningAngleEnd: 1346 }],
      },
    },
  ],
  objects: [
    {
      objectId: 7,
      sensorIds: [1],
      timeOfMeasurement: -20,
      objectAge: 500,
      objectConfidence: 90,
      xDistance: { value: 1234, confidence: 5 },
      yDistance: { value: -250, confidence: 5 },
      xSpeed: { value: -300, confidence: 10 },
      ySpeed: { value: 40, confidence: 10 },
      planarObjectDimension1: { value: 4, confidence: 10 },
      dynamicStatus: 0,
    },
    {
      objectId: 8,
      timeOfMeasurement: 0,
      objectConfidence: 0,
      xDistance: { value: -132768, confidence: 102 },
      yDistance: { value: 132767, confidence: 0 },
      xSpeed: { value: 16383, confidence: 127 },
      ySpeed: { value: -16383, confidence: 1 },
    },
  ],
  numberOfPerceivedObjects: 2,
};

describe('CPM UPER codec (TR 103 562 V2.1.1, as Wireshark 4.0 decodes it)', () => {
  // Bytes that Wireshark 4.0.17 (tshark -V, over GN SHB + BTP-B 2009) decodes field by field as
  // FULL, with no malformed packet: protocolVersion 1, messageID cpm (14), stationID 3559379203,
  // generationDeltaTime 1234, stationType passengerCar (5), latitude 487757910, longitude
  // 91833136, semiMajorOrientation wgs84East (900); originatingVehicleContainer: headingValue 900,
  // speedValue 500, driveDirection backward (1), longitudinalAccelerationValue -12, yawRateValue
  // 100, vehicleLengthValue 6 noTrailerPresent, vehicleWidth 3; sensorInformationContainer 1 item:
  // sensorID 1, type lidar (2), vehicleSensor refPointId 3, x/ySensorOffset 0, zSensorOffset 10,
  // range 300, horizontalOpeningAngleStart 2254, horizontalOpeningAngleEnd 1346;
  // perceivedObjectContainer 2 items: objectID 7 (sensorIDList 1, timeOfMeasurement -20,
  // objectAge 500, objectConfidence 90, xDistance 1234/5, yDistance -250/5, xSpeed -300/10,
  // ySpeed 40/10, planarObjectDimension1 4/10, dynamicStatus dynamic) and objectID 8
  // (timeOfMeasurement 0, xDistance -132768/102, yDistance 132767/0, xSpeed 16383/127, ySpeed
  // -16383/1); numberOfPerceivedObjects 2. The same bytes with protocolVersion 2 get "No
  // subdissector found for this Message id/protocol version combination".
  it('encodes the bytes Wireshark decodes', () => {
    expect(hex(encodeCpm(FULL))).toBe(
      '010ed427d10304d2700b4ade0559c30c54c0004004e1061a8003261c20007d002940300c40028080001206073887d0050004b233950805c0880e0002b907d2d20b720a816982bed313009c4808280000042ee00000cd034fc07ffefc00000010',
    );
    expect(decodeCpm(encodeCpm(FULL))).toEqual(FULL);
  });

  it('a CPM with the management container only is 27 octets (210 bits)', () => {
    const bare: Cpm = { ...FULL, originatingVehicle: undefined, sensors: undefined, objects: undefined, numberOfPerceivedObjects: 0 };
    delete bare.originatingVehicle;
    delete bare.sensors;
    delete bare.objects;
    const bytes = encodeCpm(bare);
    expect([bytes[0], bytes[1]]).toEqual([CPM_PROTOCOL_VERSION, CPM_MESSAGE_ID]);
    expect(bytes.length).toBe(27);
    expect(decodeCpm(bytes)).toEqual(bare);
  });

  it('round-trips random valid CPMs', () => {
    const draw = createRandom(103562);
    const int = (lo: number, hi: number) => lo + Math.floor(draw() * (hi - lo + 1));
    const maybe = <T>(make: () => T): T | undefined => (draw() < 0.5 ? make() : undefined);
    const strip = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
    for (let i = 0; i < 300; i++) {
      const objects: PerceivedObject[] = Array.from({ length: int(1, 20) }, () =>
        strip({
          objectId: int(0, 255),
          sensorIds: maybe(() => Array.from({ length: int(1, 4) }, () => int(0, 255))),
          timeOfMeasurement: int(-1500, 1500),
          objectAge: maybe(() => int(0, 1500)),
          objectConfidence: draw() < 0.5 ? 0 : int(1, 101),
          xDistance: { value: int(-132768, 132767), confidence: int(0, 102) },
          yDistance: { value: int(-132768, 132767), confidence: int(0, 102) },
          xSpeed: { value: int(-16383, 16383), confidence: int(1, 127) },
          ySpeed: { value: int(-16383, 16383), confidence: int(1, 127) },
          planarObjectDimension1: maybe(() => ({ value: int(0, 1023), confidence: int(0, 102) })),
          planarObjectDimension2: maybe(() => ({ value: int(0, 1023), confidence: int(0, 102) })),
          dynamicStatus: maybe(() => int(0, 2)),
        }),
      );
      const cpm: Cpm = strip({
        stationId: int(0, 4294967295),
        generationDeltaTime: int(0, 65535),
        stationType: int(0, 255),
        segment: maybe(() => ({ total: int(1, 127), index: int(1, 127) })),
        referencePosition: {
          latitude: int(-900000000, 900000001),
          longitude: int(-1800000000, 1800000001),
          semiMajorConfidence: int(0, 4095),
          semiMinorConfidence: int(0, 4095),
          semiMajorOrientation: int(0, 3601),
          altitudeValue: int(-100000, 800001),
          altitudeConfidence: int(0, 15),
        },
        originatingVehicle: maybe(() =>
          strip({
            headingValue: int(0, 3601),
            headingConfidence: int(1, 127),
            speedValue: int(0, 16383),
            speedConfidence: int(1, 127),
            driveDirection: maybe(() => int(1, 2)),
            longitudinalAcceleration: maybe(() => ({ value: int(-160, 161), confidence: int(0, 102) })),
            yawRate: maybe(() => ({ value: int(-32766, 32767), confidence: int(0, 8) })),
            vehicleLength: maybe(() => ({ value: int(1, 1023), confidenceIndication: int(0, 4) })),
            vehicleWidth: maybe(() => int(1, 62)),
          }),
        ),
        sensors: maybe(() => [
          {
            sensorId: int(0, 255),
            type: int(0, 15),
            vehicleSensor: strip({
              refPointId: maybe(() => int(1, 255)),
              xSensorOffset: int(-5000, 0),
              ySensorOffset: int(-1000, 1000),
              zSensorOffset: maybe(() => int(0, 1000)),
              properties: [{ range: int(0, 10000), horizontalOpeningAngleStart: int(0, 3601), horizontalOpeningAngleEnd: int(0, 3601) }],
            }),
          },
        ]),
        objects: maybe(() => objects),
        numberOfPerceivedObjects: int(0, 255),
      });
      expect(decodeCpm(encodeCpm(cpm))).toEqual(cpm);
    }
  });

  it('refuses out-of-range values and other messages', () => {
    expect(() => encodeCpm({ ...FULL, generationDeltaTime: 65536 })).toThrow(UperError);
    expect(() => encodeCpm({ ...FULL, objects: [{ ...FULL.objects![0], timeOfMeasurement: -1501 }] })).toThrow(/timeOfMeasurement/);
    const v2 = encodeCpm(FULL);
    v2[0] = 2;
    expect(() => decodeCpm(v2)).toThrow(/protocolVersion 2/);
    const cam = encodeCpm(FULL);
    cam[1] = 2;
    expect(() => decodeCpm(cam)).toThrow(/not a CPM/);
  });
});
