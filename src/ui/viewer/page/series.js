// Looking things up in the columnar run data by time. Samples are held, not interpolated: what
// the page draws at t is exactly the last row the CSV has at or before t.

/** Last index whose time is <= t, or -1. */
export function lastIndexAtOrBefore(times, t) {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] <= t + 1e-9) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** Each car's logged state at t (cars with no row yet are left out). */
export function carsAt(data, t) {
  const cars = [];
  for (const [name, s] of Object.entries(data.vehicles)) {
    const i = lastIndexAtOrBefore(s.t, t);
    if (i < 0) continue;
    cars.push({
      name,
      t: s.t[i],
      index: i,
      x: s.x[i],
      y: s.y[i],
      yaw: s.yaw[i],
      v: s.v[i],
      braking: s.braking[i] === 1,
      collided: s.collided[i] === 1,
      goal: s.goal[i],
    });
  }
  return cars;
}

/** The latest time any series reaches. */
export function endTime(data) {
  let end = 0;
  for (const s of Object.values(data.vehicles)) if (s.t.length) end = Math.max(end, s.t[s.t.length - 1]);
  for (const m of data.v2v) end = Math.max(end, m.received);
  return end;
}

const push = (target, source) => {
  for (let i = 0; i < source.length; i++) target.push(source[i]);
};

/** Appends a delta pushed by the server (same shape as the snapshot) to the data in place. */
export function mergeRunData(target, delta) {
  for (const [name, s] of Object.entries(delta.vehicles)) {
    const t = (target.vehicles[name] ??= { t: [], x: [], y: [], yaw: [], v: [], braking: [], collided: [], goal: [] });
    for (const key of Object.keys(t)) push(t[key], s[key]);
  }
  for (const [key, s] of Object.entries(delta.pairs)) {
    const t = (target.pairs[key] ??= { a: s.a, b: s.b, t: [], d: [], ttc: [] });
    push(t.t, s.t);
    push(t.d, s.d);
    push(t.ttc, s.ttc);
  }
  push(target.collisions, delta.collisions);
  push(target.v2v, delta.v2v);
  push(target.events, delta.events);
}

/**
 * Pairs worth a line in the charts: in a platoon each follower and the car it follows (the other
 * pairs mean little there), else the closest ones, so ten cars do not mean 45 lines.
 */
export function chartPairs(data, vehicles, limit) {
  const neighbours = [];
  for (const v of vehicles) {
    if (!v.follows) continue;
    const key = [`${v.follows}|${v.name}`, `${v.name}|${v.follows}`].find((k) => k in data.pairs);
    if (key) neighbours.push(key);
  }
  return neighbours.length ? neighbours.slice(0, limit) : closestPairs(data, limit);
}

/** The closest pairs over the run. */
export function closestPairs(data, limit) {
  const ranked = Object.entries(data.pairs).map(([key, p]) => {
    let min = Infinity;
    for (const d of p.d) if (d < min) min = d;
    return { key, min };
  });
  ranked.sort((a, b) => a.min - b.min);
  return ranked.slice(0, limit).map((r) => r.key);
}
