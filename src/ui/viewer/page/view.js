// The replay/live page: loads the run, keeps the current time, and redraws the map view, the
// charts and the side panel whenever the time or the data changes.

import { TimeChart } from './charts.js';
import { fetchJson, fetchMeta, followLive, loadMapImage } from './feed.js';
import { carsAt, chartPairs, endTime, lastIndexAtOrBefore } from './series.js';
import { PALETTE, sceneBounds, WorldView } from './world.js';

const PAIR_COLORS = ['#f8fafc', '#fbbf24', '#34d399', '#f472b6', '#60a5fa', '#a78bfa'];
const $ = (id) => document.getElementById(id);

const state = { t: 0, tEnd: 0, playing: false, speed: 1, follow: true, finished: false, dirty: true, scans: [], scanT: null, layers: {} };
let meta;
let data;
let world;
let colors;
const charts = {};

async function main() {
  meta = await fetchMeta();
  const mapImage = meta.map ? await loadMapImage() : null;
  colors = new Map(meta.vehicles.map((v, i) => [v.name, PALETTE[i % PALETTE.length]]));
  state.finished = !meta.live || meta.summary !== null;
  world = new WorldView($('world'), meta, mapImage);
  charts.speed = new TimeChart($('chart-speed'), { title: 'speed', unit: 'm/s', digits: 2 });
  charts.ttc = new TimeChart($('chart-ttc'), { title: 'time to collision', unit: 's', maxY: 10, digits: 2 });
  charts.distance = new TimeChart($('chart-distance'), { title: 'centre distance', unit: 'm', digits: 2 });
  for (const c of Object.values(charts)) c.onSeek = (t) => seek(t);
  showHeader();
  // a run opened from a sweep's list (served at /runs/<id>/) links back to it
  $('back-to-sweep').hidden = !location.pathname.startsWith('/runs/');
  if (meta.mapProblem) showNotice(meta.mapProblem);
  wireControls();
  layout();
  new ResizeObserver(() => layout()).observe(document.body);

  if (meta.live && !state.finished) {
    await new Promise((resolve) => {
      followLive({
        onData: (d, delta) => {
          data = d;
          dataChanged(delta === null);
          resolve();
        },
        onSummary: (summary) => {
          meta.summary = summary;
          state.finished = true;
          showHeader();
          state.dirty = true;
        },
        onProblem: (message) => showNotice(message),
      });
    });
  } else {
    data = await fetchJson('api/data');
    dataChanged(true);
  }
  const linked = timeFromHash();
  if (linked !== null) seek(linked);
  requestAnimationFrame(frame);
  exposeForTests();
}

/** `#t=12.34` in the address: the page opens at that time (a link to a moment of the run). */
function timeFromHash() {
  const m = /(?:^#|&)t=([0-9.]+)/.exec(location.hash);
  const t = m ? Number(m[1]) : NaN;
  return Number.isFinite(t) ? t : null;
}

function updateTimeLink(t) {
  const hash = `#t=${t.toFixed(2)}`;
  $('time-link').href = hash;
  // The address follows a paused view only: rewriting it 60 times a second while playing would flood the history API.
  if (!state.playing && location.hash !== hash) history.replaceState(null, '', hash);
}

/** New rows: extend the timeline, refresh the charts, keep following the live edge if we were. */
function dataChanged(first) {
  const atEnd = state.t >= state.tEnd - 1e-6;
  state.tEnd = endTime(data);
  $('slider').max = String(state.tEnd);
  if (first) world.fitTo(sceneBounds(meta, data, { live: meta.live && !state.finished }));
  if (meta.live && state.follow && atEnd) state.t = state.tEnd;
  refreshCharts();
  drawMarkers();
  state.listKey = null;
  state.dirty = true;
}

function refreshCharts() {
  const speed = Object.entries(data.vehicles).map(([name, s]) => ({ label: name, color: colors.get(name), t: s.t, y: s.v }));
  const pairs = chartPairs(data, meta.vehicles, PAIR_COLORS.length).map((key, i) => {
    const p = data.pairs[key];
    return { key, label: `${p.a}–${p.b}`, color: PAIR_COLORS[i], p };
  });
  const marks = data.collisions.map((c) => c.t);
  charts.speed.setSeries(speed, marks);
  charts.ttc.setSeries(
    pairs.map((x) => ({ label: x.label, color: x.color, t: x.p.t, y: x.p.ttc })),
    marks,
  );
  charts.distance.setSeries(
    pairs.map((x) => ({ label: x.label, color: x.color, t: x.p.t, y: x.p.d })),
    marks,
  );
  for (const c of Object.values(charts)) c.setTimeRange(state.tEnd);
}

function layout() {
  world.resize();
  for (const c of Object.values(charts)) c.resize();
  drawMarkers();
  state.dirty = true;
}

let lastFrameAt = null;
function frame(now) {
  if (state.playing && lastFrameAt !== null) {
    state.t += ((now - lastFrameAt) / 1000) * state.speed;
    if (state.t >= state.tEnd) {
      state.t = state.tEnd;
      // A live run is still growing: wait at its edge. A finished one stops at its end.
      if (state.finished) setPlaying(false);
    }
    state.dirty = true;
  }
  lastFrameAt = now;
  if (state.dirty && data) render();
  requestAnimationFrame(frame);
}

let drawn = { t: 0, cars: [] };
const drawnWaiters = [];
function render() {
  state.dirty = false;
  const t = state.t;
  const cars = carsAt(data, t);
  requestScans(t);
  world.draw({ t, data, cars, colors, scans: state.scans, layers: state.layers });
  drawn = { t, cars };
  for (const c of Object.values(charts)) c.draw(t);
  $('slider').value = String(t);
  $('clock').textContent = `${t.toFixed(2)} s`;
  updateTimeLink(t);
  $('world').dataset.time = t.toFixed(3);
  updateCarTable(cars);
  updateLogs(t);
  for (const resolve of drawnWaiters.splice(0)) resolve();
}

/** Lidar scans are fetched for the time on screen only, one request at a time. */
let scanRequest = null;
function requestScans(t) {
  if (!(meta.hasScans || (meta.live && !state.finished)) || scanRequest || state.scanT === t) return;
  scanRequest = fetchJson(`api/scans?t=${t}`)
    .then((scans) => {
      state.scans = scans;
      state.scanT = t;
      if (scans.length) meta.hasScans = true;
      state.dirty = state.dirty || state.t !== t || scans.length > 0;
    })
    .catch(() => {})
    .finally(() => {
      scanRequest = null;
      if (state.t !== state.scanT) state.dirty = true;
    });
}

function updateCarTable(cars) {
  const body = $('cars').tBodies[0];
  if (body.rows.length !== cars.length) {
    body.innerHTML = '';
    for (const car of cars) {
      const row = body.insertRow();
      row.innerHTML = `<td><span class="swatch" style="background:${colors.get(car.name)}"></span></td><td>${escapeHtml(car.name)}</td><td class="v"></td><td class="s"></td>`;
    }
  }
  cars.forEach((car, i) => {
    const row = body.rows[i];
    row.querySelector('.v').textContent = `${car.v.toFixed(2)} m/s`;
    const s = row.querySelector('.s');
    s.textContent = car.collided ? 'COLLIDED' : car.braking ? 'braking' : 'driving';
    s.className = `s ${car.collided ? 'state-collided' : car.braking ? 'state-braking' : ''}`;
  });
}

/** Events and collisions in one list, by time: the collision is what a reader looks for. */
function eventItems() {
  const n = data.events.length + data.collisions.length;
  if (state.eventItems?.n !== n) {
    const items = [
      ...data.events.map((e) => ({ t: e.t, text: `${e.t.toFixed(2)} s  ${e.vehicle}  ${e.event}`, title: e.detail })),
      ...data.collisions.map((c) => ({ t: c.t, text: `${c.t.toFixed(2)} s  collision ${c.a}–${c.b}`, collision: true })),
    ].sort((a, b) => a.t - b.t);
    state.eventItems = { n, items };
  }
  return state.eventItems.items;
}

/** The logs list the messages and events near the current time (a long run can have thousands). */
function updateLogs(t) {
  const messages = (state.sortedV2V ??= []);
  if (messages.length !== data.v2v.length) state.sortedV2V = [...data.v2v].sort((a, b) => a.sent - b.sent);
  const items = eventItems();
  const v2v = windowAround(state.sortedV2V, (m) => m.sent, t);
  const events = windowAround(items, (e) => e.t, t);
  const key = `${v2v.from}:${v2v.to}:${events.from}:${events.to}:${items.length}`;
  if (key !== state.listKey) {
    state.listKey = key;
    fillList(
      $('v2v-log'),
      state.sortedV2V.slice(v2v.from, v2v.to),
      (m) => [`${m.sent.toFixed(2)} s  ${m.type}  ${m.from}→${m.to}  +${Math.round((m.received - m.sent) * 1000)} ms`, m.sent],
      'no V2V messages received',
    );
    fillList(
      $('event-log'),
      items.slice(events.from, events.to),
      (e) => [e.text, e.t, e.title, e.collision ? 'collision' : ''],
      'no events',
    );
  }
  for (const li of $('v2v-log').children) {
    const m = li.item;
    if (!m) continue;
    li.classList.toggle('active', t >= m.sent && t <= m.received);
    li.classList.toggle('past', t > m.received);
  }
  for (const li of $('event-log').children) {
    if (!li.item) continue;
    li.classList.toggle('past', t >= li.item.t);
  }
  followCursor($('v2v-log'), t, (m) => m.sent);
  followCursor($('event-log'), t, (e) => e.t);
}

/**
 * Marks the entry nearest the current time (the later one on a tie) and, when that entry changes,
 * scrolls the list (not the page) to show it in the middle: seeking to the collision shows it.
 */
function followCursor(list, t, timeOf) {
  let nearest = null;
  for (const li of list.children) {
    if (!li.item) continue;
    if (!nearest || Math.abs(timeOf(li.item) - t) <= Math.abs(timeOf(nearest.item) - t)) nearest = li;
  }
  for (const li of list.children) li.classList.toggle('current', li === nearest);
  if (!nearest || list.followed === nearest.item) return;
  list.followed = nearest.item;
  list.scrollTop = nearest.offsetTop - list.clientHeight / 2 + nearest.offsetHeight / 2;
}

function windowAround(sorted, timeOf, t, maxItems = 40) {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (timeOf(sorted[mid]) < t) lo = mid + 1;
    else hi = mid;
  }
  const from = Math.max(0, Math.min(lo - maxItems / 2, sorted.length - maxItems));
  return { from, to: Math.min(sorted.length, from + maxItems) };
}

function fillList(list, items, describe, emptyText) {
  list.innerHTML = '';
  if (!items.length) {
    const li = document.createElement('li');
    li.className = 'empty';
    li.textContent = emptyText;
    list.append(li);
    return;
  }
  for (const item of items) {
    const [text, t, title, className] = describe(item);
    const li = document.createElement('li');
    li.textContent = text;
    if (className) li.className = className;
    if (title) li.title = title;
    li.item = item;
    li.addEventListener('click', () => seek(t));
    list.append(li);
  }
}

function drawMarkers() {
  const canvas = $('markers');
  if (!data) return;
  const rect = canvas.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(rect.width * dpr);
  canvas.height = Math.round(rect.height * dpr);
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  // The slider's thumb travels over the width minus its own size; marks line up with its centre.
  const inset = 8;
  // biome-ignore lint/correctness/noComponentHookFactories: a plain drawing helper, not a React component
  const X = (t) => inset + (t / Math.max(state.tEnd, 1e-3)) * (rect.width - 2 * inset);
  const mark = (t, color, h) => {
    ctx.fillStyle = color;
    ctx.fillRect(Math.round(X(t)) - 1, 0, 2, h);
  };
  for (const e of data.events) mark(e.t, '#fbbf24', 5);
  for (const m of data.v2v) mark(m.sent, '#0ea5e9', 8);
  for (const c of data.collisions) mark(c.t, '#ef4444', 8);
}

function wireControls() {
  for (const box of document.querySelectorAll('#layers input[data-layer]')) {
    state.layers[box.dataset.layer] = box.checked;
    box.addEventListener('change', () => {
      state.layers[box.dataset.layer] = box.checked;
      state.dirty = true;
    });
  }
  // No lidar in this run: say so rather than offer a switch that does nothing.
  if (!meta.hasScans && !meta.live) {
    const lidar = document.querySelector('#layers input[data-layer="lidar"]');
    lidar.disabled = true;
    lidar.parentElement.title = 'this run recorded no scans: set record: { scans: true } in the scenario';
  }
  window.addEventListener('hashchange', () => {
    const t = timeFromHash();
    if (t !== null) seek(t);
  });
  $('play').addEventListener('click', () => setPlaying(!state.playing));
  $('slider').addEventListener('input', (e) => seek(Number(e.target.value)));
  $('speed').addEventListener('change', (e) => {
    state.speed = Number(e.target.value);
  });
  $('slider').step = String(meta.scenario.timestep || 0.01);
  window.addEventListener('keydown', (e) => {
    if (e.target instanceof HTMLSelectElement) return;
    if (e.code === 'Space') {
      e.preventDefault();
      setPlaying(!state.playing);
    } else if (e.code === 'ArrowRight' || e.code === 'ArrowLeft') {
      e.preventDefault();
      const step = (meta.scenario.timestep || 0.01) * (e.shiftKey ? 10 : 1);
      seek(state.t + (e.code === 'ArrowRight' ? step : -step));
    }
  });
  const canvas = $('world');
  canvas.addEventListener(
    'wheel',
    (e) => {
      e.preventDefault();
      const rect = canvas.getBoundingClientRect();
      world.zoomAt(e.clientX - rect.left, e.clientY - rect.top, Math.exp(-e.deltaY * 0.0015));
      state.dirty = true;
    },
    { passive: false },
  );
  let drag = null;
  canvas.addEventListener('pointerdown', (e) => {
    drag = { x: e.clientX, y: e.clientY };
    canvas.setPointerCapture(e.pointerId);
    canvas.classList.add('dragging');
  });
  canvas.addEventListener('pointermove', (e) => {
    if (!drag) return;
    world.panBy(e.clientX - drag.x, e.clientY - drag.y);
    drag = { x: e.clientX, y: e.clientY };
    state.dirty = true;
  });
  const endDrag = () => {
    drag = null;
    canvas.classList.remove('dragging');
  };
  canvas.addEventListener('pointerup', endDrag);
  canvas.addEventListener('pointercancel', endDrag);
  canvas.addEventListener('dblclick', () => {
    world.fitTo(sceneBounds(meta, data, { live: meta.live && !state.finished }));
    state.dirty = true;
  });
}

function seek(t) {
  state.t = Math.min(Math.max(0, t), state.tEnd);
  state.follow = state.t >= state.tEnd - 1e-6;
  state.dirty = true;
}

function setPlaying(playing) {
  if (playing && state.t >= state.tEnd && state.finished) state.t = 0;
  state.playing = playing;
  $('play').textContent = playing ? '❚❚' : '▶';
}

function showHeader() {
  $('scenario-name').textContent = meta.scenario.name;
  $('run-id').textContent = `run ${meta.runId} · ${meta.scenario.channel}`;
  $('live-badge').hidden = !(meta.live && !state.finished);
  const s = meta.summary;
  const box = $('summary');
  if (!s) {
    box.innerHTML = meta.live ? '<span>running…</span>' : '<span>no summary.json (run did not finish)</span>';
    return;
  }
  const fmt = (v, unit, digits = 2) => (v === null || v === undefined ? '–' : `${Number(v).toFixed(digits)} ${unit}`);
  const parts = [
    ['status', s.status, s.status !== 'completed'],
    ['min TTC', fmt(s.min_ttc_s, 's'), false],
    ['min distance', fmt(s.min_distance_m, 'm'), false],
    ['collision', s.collision ? `yes at ${fmt(s.first_collision_t_s, 's')}` : 'no', s.collision],
    ['V2V p50', fmt(s.v2v?.p50_ms, 'ms', 0), false],
  ];
  box.innerHTML = parts.map(([k, v, bad]) => `<span class="${bad ? 'bad' : ''}">${k} <b>${escapeHtml(String(v))}</b></span>`).join('');
}

function showNotice(text) {
  const n = $('notice');
  n.textContent = text;
  n.hidden = false;
}

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What tests (and the curious, from the console) can ask the page. Positions are page CSS pixels. */
function exposeForTests() {
  const toPage = (x, y) => {
    const rect = $('world').getBoundingClientRect();
    const [cx, cy] = world.worldToCanvas(x, y);
    return { px: rect.left + cx, py: rect.top + cy };
  };
  window.__cavsimView = {
    ready: true,
    meta,
    tEnd: () => state.tEnd,
    time: () => state.t,
    setTime: (t) => {
      seek(t);
      render();
    },
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    playing: () => state.playing,
    /** Where each car would be drawn at t with the current zoom: the same lookup the renderer uses. */
    carsAt: (t) => carsAt(data, t).map((c) => ({ ...c, ...toPage(c.x, c.y), color: colors.get(c.name) })),
    /** Resolves once everything asked for so far (seek, zoom, new rows) is on screen. */
    whenDrawn: () => (state.dirty ? new Promise((resolve) => drawnWaiters.push(resolve)) : Promise.resolve()),
    /** The cars of the frame last drawn, as drawn. */
    drawnCars: () => ({ t: drawn.t, cars: drawn.cars.map((c) => ({ ...c, ...toPage(c.x, c.y), color: colors.get(c.name) })) }),
    worldToPage: toPage,
    /** Lidar scans on screen: [{ vehicle, t, rays }]. */
    drawnScans: () => state.scans.map((s) => ({ vehicle: s.vehicle, t: s.t, rays: s.ranges.length })),
    rowCounts: () => Object.fromEntries(Object.entries(data.vehicles).map(([n, s]) => [n, s.t.length])),
    lastIndexAtOrBefore,
    /** Turns a map layer on or off, as its checkbox does. */
    setLayer: (layer, on) => {
      const box = document.querySelector(`#layers input[data-layer="${layer}"]`);
      box.checked = on;
      box.dispatchEvent(new Event('change'));
    },
    /** V2V rings of the frame last drawn: [{ vehicle, kind: 'sent' | 'received', age }]. */
    drawnRings: () => world.drawnRings ?? [],
    /** The box the view fits at start, in world metres. */
    fittedBox: () => sceneBounds(meta, data, { live: meta.live && !state.finished }),
    /** The layers the last frame drew. */
    drawnLayers: () => world.drawnLayers ?? [],
    /** Car labels of the frame last drawn, in canvas pixels: { cx, top, w }. */
    labelBoxes: () => world.labelBoxes ?? [],
    /** The lines a chart (speed, ttc, distance) names in its legend, and the row each is in. */
    chartLegend: (name) => charts[name].legend ?? [],
    /** The lines a chart draws. */
    chartSeries: (name) => charts[name].series.map((s) => s.label),
  };
  document.body.dataset.ready = 'true';
}

main().catch((err) => {
  showNotice(`could not load the run: ${err.message}`);
  console.error(err);
});
