import { describe, expect, it } from 'vitest';
import { Float32JsonWriter } from '../../../../src/runtime/rosbridge/float32-json.js';

/** Deterministic float32 values spread over every magnitude a range can take, and the edges between the writer's cases. */
function sampleValues(): Float32Array {
  const edges = [0, -0, 1, 0.125, 0.5, 2, 16, 30, 1e8, 0.0625, 1e-7, 3.4e38, 1.4e-45, -1, -0.2, 29.999998, 123456.789];
  const near = edges.flatMap((e) => {
    const f = new Float32Array([e]);
    const bits = new Uint32Array(f.buffer);
    const out = [e];
    for (const d of [-2, -1, 1, 2]) {
      if (e === 0) continue;
      bits[0] += d;
      out.push(f[0]);
      bits[0] -= d;
    }
    return out;
  });
  let seed = 12345;
  const random = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const spread = Array.from({ length: 20_000 }, () => 10 ** (random() * 9 - 4)); // 1e-4 .. 1e5
  const lidarLike = Array.from({ length: 20_000 }, () => random() * 30);
  return Float32Array.from([...near, ...spread, ...lidarLike].filter(Number.isFinite));
}

describe('Float32JsonWriter', () => {
  const writer = new Float32JsonWriter();

  it('writes JSON whose numbers parse back to the very same float32 values', () => {
    const values = sampleValues();
    const text = writer.encode(values);
    const back = Float32Array.from(JSON.parse(text) as number[]);
    expect(back).toHaveLength(values.length);
    const mismatches = [...values].flatMap((v, i) => (Object.is(back[i], v) || (v === 0 && back[i] === 0) ? [] : [`${v} -> ${back[i]}`]));
    expect(mismatches).toEqual([]);
  });

  it('uses 7 decimals from 1 m, 8 below, and the shortest double text for small values', () => {
    const f = (v: number) => Math.fround(v);
    expect(writer.encode(Float32Array.from([1, 1.5, 30, 0.5, 0.125, 0.1, 0]))).toBe(
      `[1.0000000,1.5000000,30.0000000,0.50000000,0.12500000,${String(f(0.1))},0]`,
    );
    expect(writer.encode(Float32Array.from([f(1.9430496)]))).toBe('[1.9430496]');
  });

  it('writes non-finite values as null, and an empty array as []', () => {
    expect(writer.encode(Float32Array.from([Infinity, NaN, -Infinity, 2]))).toBe('[null,null,null,2.0000000]');
    expect(writer.encode(new Float32Array(0))).toBe('[]');
  });

  it('reuses its buffer across calls of different lengths', () => {
    const long = writer.encode(new Float32Array(2000).fill(3));
    expect(JSON.parse(long)).toHaveLength(2000);
    expect(writer.encode(Float32Array.from([4]))).toBe('[4.0000000]');
  });
});
