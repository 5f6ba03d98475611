// Time charts (speed, TTC, distance): the lines are drawn once into an offscreen canvas, each frame
// only copies them and draws the cursor, so playback stays cheap however long the run.
import { lastIndexAtOrBefore } from './series.js';

const MARGIN = { left: 44, right: 12, top: 24, bottom: 22 };
const LEGEND_ROW = 14;

export class TimeChart {
  /** opts: { title, unit, maxY (a ceiling for the axis, e.g. TTC), digits } */
  constructor(canvas, opts) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.opts = opts;
    this.series = [];
    this.marks = [];
    this.tEnd = 1;
    this.cache = document.createElement('canvas');
    this.dirty = true;
    canvas.addEventListener('click', (e) => {
      const rect = canvas.getBoundingClientRect();
      const t = this.timeAtX(e.clientX - rect.left);
      if (t !== null && this.onSeek) this.onSeek(t);
    });
  }

  /** series: [{ label, color, t: number[], y: (number|null)[] }]; marks: times drawn as red lines. */
  setSeries(series, marks = []) {
    this.series = series;
    this.marks = marks;
    this.dirty = true;
  }

  setTimeRange(tEnd) {
    if (tEnd !== this.tEnd) {
      this.tEnd = Math.max(tEnd, 1e-3);
      this.dirty = true;
    }
  }

  resize() {
    const rect = this.canvas.getBoundingClientRect();
    this.dpr = window.devicePixelRatio || 1;
    this.width = rect.width;
    this.height = rect.height;
    for (const c of [this.canvas, this.cache]) {
      c.width = Math.round(rect.width * this.dpr);
      c.height = Math.round(rect.height * this.dpr);
    }
    this.dirty = true;
  }

  plotBox() {
    return { x0: MARGIN.left, x1: this.width - MARGIN.right, y0: MARGIN.top, y1: this.height - MARGIN.bottom };
  }

  timeAtX(x) {
    const b = this.plotBox();
    if (x < b.x0 - 4 || x > b.x1 + 4) return null;
    return Math.min(this.tEnd, Math.max(0, ((x - b.x0) / (b.x1 - b.x0)) * this.tEnd));
  }

  yRange() {
    let max = 0;
    let min = 0;
    for (const s of this.series) {
      for (const v of s.y) {
        if (v === null) continue;
        if (v > max) max = v;
        if (v < min) min = v;
      }
    }
    if (this.opts.maxY !== undefined) max = Math.min(max, this.opts.maxY);
    if (max <= min) max = min + 1;
    const step = niceStep((max - min) / 4);
    return { min: Math.floor(min / step) * step, max: Math.ceil(max / step) * step, step };
  }

  render() {
    const ctx = this.cache.getContext('2d');
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    const b = this.plotBox();
    const yr = this.yRange();
    this.yr = yr;
    const X = (t) => b.x0 + (t / this.tEnd) * (b.x1 - b.x0);
    const Y = (v) => b.y1 - ((Math.min(v, yr.max) - yr.min) / (yr.max - yr.min)) * (b.y1 - b.y0);
    ctx.font = '11px "DejaVu Sans", sans-serif';
    ctx.fillStyle = '#8394b0';
    ctx.strokeStyle = '#23314f';
    ctx.lineWidth = 1;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (let v = yr.min; v <= yr.max + 1e-9; v += yr.step) {
      const y = Math.round(Y(v)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(b.x0, y);
      ctx.lineTo(b.x1, y);
      ctx.stroke();
      ctx.fillText(formatTick(v, yr.step), b.x0 - 6, y);
    }
    const tStep = niceStep(this.tEnd / 6);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (let t = 0; t <= this.tEnd + 1e-9; t += tStep) ctx.fillText(`${formatTick(t, tStep)} s`, X(t), b.y1 + 5);
    ctx.strokeStyle = 'rgba(220,38,38,0.7)';
    ctx.setLineDash([3, 3]);
    for (const m of this.marks) {
      ctx.beginPath();
      ctx.moveTo(X(m), b.y0);
      ctx.lineTo(X(m), b.y1);
      ctx.stroke();
    }
    ctx.setLineDash([]);
    ctx.save();
    ctx.beginPath();
    ctx.rect(b.x0, b.y0 - 1, b.x1 - b.x0, b.y1 - b.y0 + 2);
    ctx.clip();
    ctx.lineWidth = 1.6;
    ctx.lineJoin = 'round';
    for (const s of this.series) {
      ctx.strokeStyle = s.color;
      ctx.beginPath();
      let pen = false;
      for (let i = 0; i < s.t.length; i++) {
        const v = s.y[i];
        if (v === null || !Number.isFinite(v)) {
          pen = false;
          continue;
        }
        if (pen) ctx.lineTo(X(s.t[i]), Y(v));
        else ctx.moveTo(X(s.t[i]), Y(v));
        pen = true;
      }
      ctx.stroke();
    }
    ctx.restore();
    ctx.fillStyle = '#e2e8f0';
    ctx.font = '600 12px "DejaVu Sans", sans-serif';
    ctx.textAlign = 'left';
    ctx.textBaseline = 'alphabetic';
    ctx.fillText(this.title(), 10, 16);
    this.dirty = false;
  }

  title() {
    return `${this.opts.title} [${this.opts.unit}]`;
  }

  draw(t) {
    if (!this.width) return;
    if (this.dirty) this.render();
    const ctx = this.ctx;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, this.canvas.width, this.canvas.height);
    ctx.drawImage(this.cache, 0, 0);
    ctx.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const b = this.plotBox();
    const yr = this.yr;
    const x = b.x0 + (Math.min(t, this.tEnd) / this.tEnd) * (b.x1 - b.x0);
    ctx.strokeStyle = '#f8fafc';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(Math.round(x) + 0.5, b.y0);
    ctx.lineTo(Math.round(x) + 0.5, b.y1);
    ctx.stroke();
    // The value of each line under the cursor, as a dot, and in the title row when few enough.
    const readout = [];
    for (const s of this.series) {
      const i = lastIndexAtOrBefore(s.t, t);
      const v = i >= 0 ? s.y[i] : null;
      readout.push({ s, v });
      if (v === null || v === undefined) continue;
      const y = b.y1 - ((Math.min(v, yr.max) - yr.min) / (yr.max - yr.min)) * (b.y1 - b.y0);
      ctx.fillStyle = s.color;
      ctx.strokeStyle = '#0b1324';
      ctx.beginPath();
      ctx.arc(x, y, 3.5, 0, 2 * Math.PI);
      ctx.fill();
      ctx.stroke();
    }
    this.drawLegend(readout);
  }

  /**
   * Every line named with its value under the cursor: right of the title while they fit, then in
   * further rows over the top of the plot, on a backing so the lines beneath do not hide them.
   */
  drawLegend(readout) {
    const ctx = this.ctx;
    ctx.font = '600 12px "DejaVu Sans", sans-serif';
    const titleEnd = 10 + ctx.measureText(this.title()).width + 14;
    ctx.font = '11px "DejaVu Sans", sans-serif';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'alphabetic';
    const rightEdge = this.width - MARGIN.right;
    let row = 0;
    let left = titleEnd;
    let right = rightEdge;
    this.legend = [];
    for (const { s, v } of readout) {
      const text = `${s.label} ${v === null || v === undefined ? '–' : v.toFixed(this.opts.digits ?? 2)}`;
      const w = ctx.measureText(text).width;
      if (right - w < left && right < rightEdge) {
        row++;
        left = MARGIN.left;
        right = rightEdge;
      }
      const y = 16 + row * LEGEND_ROW;
      if (row > 0) {
        ctx.fillStyle = 'rgba(11, 19, 36, 0.85)';
        ctx.fillRect(right - w - 4, y - 11, w + 8, LEGEND_ROW);
      }
      ctx.fillStyle = lighten(s.color);
      ctx.fillText(text, right, y);
      this.legend.push({ label: s.label, row });
      right -= w + 12;
    }
  }
}

function niceStep(raw) {
  const pow = 10 ** Math.floor(Math.log10(raw || 1));
  for (const k of [1, 2, 5, 10]) if (k * pow >= raw) return k * pow;
  return 10 * pow;
}

function formatTick(v, step) {
  const digits = step >= 1 ? 0 : Math.min(3, Math.ceil(-Math.log10(step)));
  return v.toFixed(digits);
}

/** Line colours are chosen for the light map; text on the dark panel reads better a bit lighter. */
function lighten(hex) {
  const n = parseInt(hex.slice(1), 16);
  const mix = (c) => Math.round(c + (255 - c) * 0.35);
  return `rgb(${mix(n >> 16)}, ${mix((n >> 8) & 255)}, ${mix(n & 255)})`;
}
