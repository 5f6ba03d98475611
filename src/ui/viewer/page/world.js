// The map view: occupancy grid, waypoints, trajectories, lidar, goal points, V2V messages and cars,
// drawn on one canvas in world metres (x right, y up) with pan and zoom.
import { lastIndexAtOrBefore } from './series.js';

export const PALETTE = ['#2563eb', '#ea580c', '#16a34a', '#9333ea', '#0891b2', '#ca8a04', '#db2777', '#4d7c0f', '#7c3aed', '#0f766e'];
const COLLISION = '#dc2626';
const V2V = '#0ea5e9';
/** How long a send or receive flash stays on screen [s of run time]. */
const FLASH_S = 0.4;
/** A ring's opacity when new; it fades from there. */
const RING_ALPHA = 0.35;
/** The smallest a car is drawn [screen px of length]. */
const MIN_CAR_PX = 12;

export class WorldView {
  constructor(canvas, meta, mapImage) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.meta = meta;
    this.mapImage = mapImage;
    this.scale = 20; // px per metre
    this.offsetX = 0; // canvas px of world x = 0
    this.offsetY = 0; // canvas px of world y = 0
    this.fitted = null;
    this.width = 0;
    this.height = 0;
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    this.width = rect.width;
    this.height = rect.height;
    this.canvas.width = Math.round(rect.width * dpr);
    this.canvas.height = Math.round(rect.height * dpr);
    this.dpr = dpr;
    if (this.fitted) this.fitTo(this.fitted);
  }

  /** Shows the box {minX, maxX, minY, maxY} [m] as large as the canvas allows. */
  fitTo(box) {
    this.fitted = box;
    const w = Math.max(box.maxX - box.minX, 1);
    const h = Math.max(box.maxY - box.minY, 1);
    this.scale = Math.min(this.width / w, this.height / h);
    this.offsetX = this.width / 2 - ((box.minX + box.maxX) / 2) * this.scale;
    this.offsetY = this.height / 2 + ((box.minY + box.maxY) / 2) * this.scale;
  }

  zoomAt(cx, cy, factor) {
    this.fitted = null;
    const [wx, wy] = this.canvasToWorld(cx, cy);
    this.scale *= factor;
    this.offsetX = cx - wx * this.scale;
    this.offsetY = cy + wy * this.scale;
  }

  panBy(dx, dy) {
    this.fitted = null;
    this.offsetX += dx;
    this.offsetY += dy;
  }

  worldToCanvas(x, y) {
    return [this.offsetX + x * this.scale, this.offsetY - y * this.scale];
  }

  canvasToWorld(cx, cy) {
    return [(cx - this.offsetX) / this.scale, (this.offsetY - cy) / this.scale];
  }

  /** frame: { t, data, cars (from carsAt), colors: Map name -> colour, scans, layers: { trails, waypoints, goals, lidar, v2v, labels } } */
  draw(frame) {
    const on = (layer) => frame.layers?.[layer] !== false;
    this.drawnLayers = ['trails', 'waypoints', 'goals', 'lidar', 'v2v', 'labels'].filter(on);
    this.drawnRings = [];
    const { ctx } = this;
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.fillStyle = '#0b1324';
    ctx.fillRect(0, 0, this.width, this.height);
    this.drawMap();
    // Everything in world metres from here, y up.
    ctx.save();
    ctx.translate(this.offsetX, this.offsetY);
    ctx.scale(this.scale, -this.scale);
    const px = 1 / this.scale; // one screen pixel in metres
    const byName = new Map(frame.cars.map((c) => [c.name, c]));
    if (on('waypoints')) this.drawWaypoints(frame, px);
    if (on('trails')) this.drawTrajectories(frame, px);
    if (on('lidar')) this.drawScans(frame, byName, px);
    if (on('goals')) this.drawGoals(frame, px);
    this.drawCollisions(frame, byName, px);
    if (on('v2v')) this.drawMessages(frame, px);
    for (const car of frame.cars) this.drawCar(car, frame.colors.get(car.name), px);
    ctx.restore();
    if (on('labels')) this.drawLabels(frame);
    this.drawScaleBar();
  }

  drawMap() {
    const m = this.meta.map;
    if (!m || !this.mapImage) return;
    const { ctx } = this;
    ctx.save();
    ctx.translate(this.offsetX, this.offsetY);
    ctx.scale(this.scale, -this.scale);
    ctx.translate(m.origin.x, m.origin.y);
    ctx.rotate(m.origin.yaw);
    // Image row 0 is the top of the map: flip it back upright inside the y-up frame.
    ctx.translate(0, m.height * m.resolution);
    ctx.scale(1, -1);
    ctx.imageSmoothingEnabled = false;
    ctx.drawImage(this.mapImage, 0, 0, m.width * m.resolution, m.height * m.resolution);
    ctx.restore();
  }

  drawWaypoints(frame, px) {
    const { ctx } = this;
    for (const v of this.meta.vehicles) {
      if (!v.waypoints.length) continue;
      ctx.fillStyle = frame.colors.get(v.name);
      ctx.globalAlpha = 0.45;
      const r = 1.6 * px;
      for (const [x, y] of v.waypoints) {
        ctx.beginPath();
        ctx.arc(x, y, r, 0, 2 * Math.PI);
        ctx.fill();
      }
    }
    ctx.globalAlpha = 1;
  }

  drawTrajectories(frame, px) {
    const { ctx } = this;
    ctx.lineJoin = 'round';
    ctx.lineCap = 'round';
    for (const car of frame.cars) {
      const s = frame.data.vehicles[car.name];
      ctx.strokeStyle = frame.colors.get(car.name);
      // The whole path faintly, the part driven so far solid.
      ctx.globalAlpha = 0.16;
      ctx.lineWidth = 1.5 * px;
      polyline(ctx, s.x, s.y, 0, s.t.length - 1);
      ctx.globalAlpha = 0.6;
      ctx.lineWidth = 2.2 * px;
      polyline(ctx, s.x, s.y, 0, car.index);
    }
    ctx.globalAlpha = 1;
  }

  drawScans(frame, byName, px) {
    if (!frame.scans?.length) return;
    const { ctx } = this;
    for (const scan of frame.scans) {
      const car = byName.get(scan.vehicle);
      if (!car) continue;
      const color = frame.colors.get(scan.vehicle);
      // The scan is drawn from the car's pose at the scan's time, which is the pose it was taken at.
      const s = frame.data.vehicles[scan.vehicle];
      const i = lastIndexAtOrBefore(s.t, scan.t);
      const pose = i >= 0 ? { x: s.x[i], y: s.y[i], yaw: s.yaw[i] } : car;
      ctx.strokeStyle = color;
      ctx.lineWidth = 0.8 * px;
      ctx.globalAlpha = 0.13;
      ctx.beginPath();
      const hits = [];
      for (let k = 0; k < scan.ranges.length; k++) {
        const a = pose.yaw + scan.angleMin + k * scan.angleIncrement;
        const hx = pose.x + scan.ranges[k] * Math.cos(a);
        const hy = pose.y + scan.ranges[k] * Math.sin(a);
        ctx.moveTo(pose.x, pose.y);
        ctx.lineTo(hx, hy);
        hits.push(hx, hy);
      }
      ctx.stroke();
      ctx.globalAlpha = 0.9;
      ctx.fillStyle = color;
      for (let k = 0; k < hits.length; k += 2) ctx.fillRect(hits[k] - px, hits[k + 1] - px, 2 * px, 2 * px);
    }
    ctx.globalAlpha = 1;
  }

  drawGoals(frame, px) {
    const { ctx } = this;
    const vehicles = new Map(this.meta.vehicles.map((v) => [v.name, v]));
    for (const car of frame.cars) {
      const wp = vehicles.get(car.name)?.waypoints[car.goal];
      if (!wp) continue;
      const color = frame.colors.get(car.name);
      ctx.strokeStyle = color;
      ctx.lineWidth = 1.2 * px;
      ctx.setLineDash([4 * px, 3 * px]);
      ctx.beginPath();
      ctx.moveTo(car.x, car.y);
      ctx.lineTo(wp[0], wp[1]);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.lineWidth = 2 * px;
      ctx.beginPath();
      ctx.arc(wp[0], wp[1], 5 * px, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.fillStyle = color;
      ctx.beginPath();
      ctx.arc(wp[0], wp[1], 1.8 * px, 0, 2 * Math.PI);
      ctx.fill();
    }
  }

  drawCollisions(frame, byName, px) {
    const { ctx } = this;
    const sizes = new Map(this.meta.vehicles.map((v) => [v.name, v]));
    for (const car of frame.cars) {
      if (!car.collided) continue;
      const r = (sizes.get(car.name)?.length ?? 0.5) * 0.9 + 6 * px;
      ctx.fillStyle = COLLISION;
      ctx.globalAlpha = 0.28;
      ctx.beginPath();
      ctx.arc(car.x, car.y, r, 0, 2 * Math.PI);
      ctx.fill();
      ctx.globalAlpha = 1;
      ctx.strokeStyle = COLLISION;
      ctx.lineWidth = 2 * px;
      ctx.stroke();
    }
    // Where each collision happened, once it has happened: a red cross between the two cars.
    for (const c of frame.data.collisions) {
      if (c.t > frame.t) continue;
      const a = poseAt(frame.data, c.a, c.t);
      const b = poseAt(frame.data, c.b, c.t);
      if (!a || !b) continue;
      const x = (a.x + b.x) / 2;
      const y = (a.y + b.y) / 2;
      const r = 6 * px;
      ctx.strokeStyle = COLLISION;
      ctx.lineWidth = 2.5 * px;
      ctx.beginPath();
      ctx.moveTo(x - r, y - r);
      ctx.lineTo(x + r, y + r);
      ctx.moveTo(x - r, y + r);
      ctx.lineTo(x + r, y - r);
      ctx.stroke();
    }
    void byName;
  }

  /**
   * Messages in flight as a thin dashed line from sender to receiver with the packet on it; a ring
   * when sent and when received. Drawn under the cars, thin and translucent, and at most one send
   * and one receive ring per car (the newest): ten beacons a second to five cars would otherwise
   * pile twenty rings on each car.
   */
  drawMessages(frame, px) {
    const { ctx } = this;
    const t = frame.t;
    const sendRing = new Map();
    const receiveRing = new Map();
    const newest = (rings, name, at) => {
      if (!(rings.get(name) >= at)) rings.set(name, at);
    };
    ctx.lineWidth = 1 * px;
    for (const m of frame.data.v2v) {
      if (t < m.sent || t > m.received + FLASH_S) continue;
      if (t - m.sent <= FLASH_S) newest(sendRing, m.from, m.sent);
      if (t >= m.received) newest(receiveRing, m.to, m.received);
      if (t > m.received) continue;
      const from = poseAt(frame.data, m.from, t);
      const to = poseAt(frame.data, m.to, t);
      if (!from || !to) continue;
      const f = m.received > m.sent ? (t - m.sent) / (m.received - m.sent) : 1;
      ctx.strokeStyle = V2V;
      ctx.globalAlpha = 0.45;
      ctx.setLineDash([5 * px, 5 * px]);
      ctx.beginPath();
      ctx.moveTo(from.x, from.y);
      ctx.lineTo(to.x, to.y);
      ctx.stroke();
      ctx.setLineDash([]);
      ctx.globalAlpha = 0.9;
      ctx.fillStyle = V2V;
      ctx.beginPath();
      ctx.arc(from.x + (to.x - from.x) * f, from.y + (to.y - from.y) * f, 3 * px, 0, 2 * Math.PI);
      ctx.fill();
    }
    ctx.globalAlpha = 1;
    this.drawnRings = [];
    for (const [rings, kind] of [
      [sendRing, 'sent'],
      [receiveRing, 'received'],
    ]) {
      for (const [name, at] of rings) {
        const pose = poseAt(frame.data, name, t);
        if (pose && ring(ctx, pose, t - at, px, kind === 'sent')) this.drawnRings.push({ vehicle: name, kind, age: t - at });
      }
    }
  }

  drawCar(car, color, px) {
    const v = this.meta.vehicles.find((x) => x.name === car.name);
    // Zoomed out (a whole platoon's run), a car keeps at least MIN_CAR_PX of length on screen.
    const grow = Math.max(1, (MIN_CAR_PX * px) / (v?.length ?? 0.58));
    const L = (v?.length ?? 0.58) * grow;
    const W = (v?.width ?? 0.31) * grow;
    const { ctx } = this;
    ctx.save();
    ctx.translate(car.x, car.y);
    ctx.rotate(car.yaw);
    ctx.fillStyle = color;
    ctx.strokeStyle = '#0b1324';
    ctx.lineWidth = 1.2 * px;
    ctx.beginPath();
    ctx.rect(-L / 2, -W / 2, L, W);
    ctx.fill();
    ctx.stroke();
    // Heading: a white wedge in the front half of the body and an arrow out of the bumper.
    ctx.fillStyle = 'rgba(255,255,255,0.9)';
    ctx.beginPath();
    ctx.moveTo(L / 2 - L * 0.06, 0);
    ctx.lineTo(L * 0.14, W * 0.32);
    ctx.lineTo(L * 0.14, -W * 0.32);
    ctx.closePath();
    ctx.fill();
    const arrow = Math.max(L * 0.6, 10 * px);
    ctx.strokeStyle = color;
    ctx.lineWidth = 2 * px;
    ctx.beginPath();
    ctx.moveTo(L / 2, 0);
    ctx.lineTo(L / 2 + arrow, 0);
    ctx.moveTo(L / 2 + arrow - 4 * px, 3 * px);
    ctx.lineTo(L / 2 + arrow, 0);
    ctx.lineTo(L / 2 + arrow - 4 * px, -3 * px);
    ctx.stroke();
    if (car.braking) {
      ctx.fillStyle = '#ff2d2d';
      const bw = Math.max(L * 0.08, 2 * px);
      ctx.fillRect(-L / 2 - bw, W / 2 - W * 0.35, bw, W * 0.3);
      ctx.fillRect(-L / 2 - bw, -W / 2 + W * 0.05, bw, W * 0.3);
    }
    ctx.restore();
  }

  drawLabels(frame) {
    const { ctx } = this;
    ctx.font = '600 12px "DejaVu Sans", sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    const placed = [];
    for (const car of frame.cars) {
      const v = this.meta.vehicles.find((x) => x.name === car.name);
      const [cx, cy] = this.worldToCanvas(car.x, car.y);
      const lift = Math.max(((v?.length ?? 0.6) / 2) * this.scale, 8) + 6;
      const text = `${car.name} ${car.v.toFixed(1)} m/s`;
      const w = ctx.measureText(text).width + 8;
      // Cars that touch (a collision) would stack their labels: lift each above the ones it would cover.
      let top = cy - lift - 16;
      while (placed.some((p) => Math.abs(p.cx - cx) < (p.w + w) / 2 && Math.abs(p.top - top) < 17)) top -= 18;
      placed.push({ cx, top, w });
      ctx.fillStyle = 'rgba(11,19,36,0.78)';
      ctx.fillRect(cx - w / 2, top, w, 16);
      ctx.fillStyle = car.collided ? '#fca5a5' : 'white';
      ctx.fillText(text, cx, top + 14);
    }
    this.labelBoxes = placed;
  }

  drawScaleBar() {
    const { ctx } = this;
    const target = 110 / this.scale; // metres in about 110 px
    const pow = 10 ** Math.floor(Math.log10(target));
    const step =
      [1, 2, 5, 10]
        .map((k) => k * pow)
        .filter((m) => m <= target)
        .pop() ?? pow;
    const len = step * this.scale;
    const x = 14;
    const y = this.height - 16;
    ctx.strokeStyle = 'white';
    ctx.fillStyle = 'white';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(x, y - 5);
    ctx.lineTo(x, y);
    ctx.lineTo(x + len, y);
    ctx.lineTo(x + len, y - 5);
    ctx.stroke();
    ctx.font = '11px "DejaVu Sans", sans-serif';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    ctx.fillText(`${step} m`, x + len / 2, y - 3);
  }
}

function polyline(ctx, xs, ys, from, to) {
  if (to <= from) return;
  ctx.beginPath();
  ctx.moveTo(xs[from], ys[from]);
  for (let i = from + 1; i <= to; i++) ctx.lineTo(xs[i], ys[i]);
  ctx.stroke();
}

/** A fading ring around a car, 1 px wide and at most 35 % opaque; a send ring grows, a receive ring shrinks. */
function ring(ctx, at, age, px, growing) {
  if (age < 0 || age > FLASH_S) return false;
  const f = age / FLASH_S;
  ctx.strokeStyle = V2V;
  ctx.globalAlpha = RING_ALPHA * (1 - f);
  ctx.lineWidth = 1 * px;
  ctx.beginPath();
  ctx.arc(at.x, at.y, (growing ? 8 + 14 * f : 14 - 6 * f) * px, 0, 2 * Math.PI);
  ctx.stroke();
  ctx.globalAlpha = 1;
  return true;
}

function poseAt(data, name, t) {
  const s = data.vehicles[name];
  if (!s) return null;
  const i = lastIndexAtOrBefore(s.t, t);
  return i < 0 ? null : { x: s.x[i], y: s.y[i], yaw: s.yaw[i] };
}

/**
 * What the view fits at start (and on double-click): the cars, over the whole run, padded by a few
 * car lengths, not the map or the waypoints (a platoon on a 200 m highway would be specks on a
 * strip). A live run's future is unknown, so there its waypoints count too. With no car rows yet,
 * the waypoints, else the map.
 */
export function sceneBounds(meta, data, { live = false } = {}) {
  const box = { minX: Infinity, maxX: -Infinity, minY: Infinity, maxY: -Infinity };
  const add = (x, y) => {
    if (x < box.minX) box.minX = x;
    if (x > box.maxX) box.maxX = x;
    if (y < box.minY) box.minY = y;
    if (y > box.maxY) box.maxY = y;
  };
  for (const s of Object.values(data.vehicles)) for (let i = 0; i < s.x.length; i++) add(s.x[i], s.y[i]);
  if (live || !Number.isFinite(box.minX)) for (const v of meta.vehicles) for (const [x, y] of v.waypoints) add(x, y);
  if (!Number.isFinite(box.minX) && meta.map) {
    const m = meta.map;
    add(m.origin.x, m.origin.y);
    add(m.origin.x + m.width * m.resolution, m.origin.y + m.height * m.resolution);
  }
  if (!Number.isFinite(box.minX)) return { minX: -10, maxX: 10, minY: -10, maxY: 10 };
  const carLength = Math.max(0.3, ...meta.vehicles.map((v) => v.length ?? 0.58));
  const pad = Math.max(3 * carLength, 0.08 * Math.max(box.maxX - box.minX, box.maxY - box.minY));
  return { minX: box.minX - pad, maxX: box.maxX + pad, minY: box.minY - pad, maxY: box.maxY + pad };
}
