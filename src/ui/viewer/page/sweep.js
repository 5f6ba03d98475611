// The sweep page: its points (one combination of swept values, one run per seed), each opening its
// runs and the kinematics figure of those runs; every run with its swept values and outcome,
// sortable by any column; a run's name opens it in the run view (served under runs/<name>/).
import { fetchJson } from './feed.js';

const $ = (id) => document.getElementById(id);
const state = { listing: null, sortBy: null, descending: false, point: null };

/** Numbers compare as numbers, empty cells last, the rest as text. */
function compareCells(a, b) {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const x = Number(a);
  const y = Number(b);
  if (Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a < b ? -1 : 1;
}

function sortedRuns() {
  const runs = [...state.listing.runs];
  if (state.sortBy === null) return runs;
  const key = state.sortBy;
  runs.sort((r, s) => {
    const c = compareCells(r.cells[key] ?? '', s.cells[key] ?? '');
    return state.descending && r.cells[key] !== '' && s.cells[key] !== '' ? -c : c;
  });
  return runs;
}

function columnsShown() {
  const { columns, axisColumns } = state.listing;
  const rest = columns.filter((c) => c !== 'run' && !axisColumns.includes(c));
  return ['run', ...axisColumns, ...rest];
}

function render() {
  const head = document.querySelector('#runs thead tr');
  head.replaceChildren(
    ...columnsShown().map((c) => {
      const th = document.createElement('th');
      th.textContent = c;
      th.dataset.column = c;
      if (state.listing.axisColumns.includes(c)) th.classList.add('axis');
      if (state.sortBy === c) th.setAttribute('aria-sort', state.descending ? 'descending' : 'ascending');
      th.addEventListener('click', () => sortBy(c));
      return th;
    }),
  );
  const body = document.querySelector('#runs tbody');
  body.replaceChildren(
    ...sortedRuns().map((run) => {
      const tr = document.createElement('tr');
      tr.dataset.run = run.run;
      if (run.cells.collision === 'true') tr.classList.add('collided');
      if (state.pointRuns?.has(run.run)) tr.classList.add('in-point');
      for (const c of columnsShown()) {
        const td = document.createElement('td');
        if (c === 'run' && run.openable) {
          const a = document.createElement('a');
          a.href = `runs/${encodeURIComponent(run.run)}/`;
          a.textContent = run.run;
          td.append(a);
        } else {
          td.textContent = run.cells[c] ?? '';
        }
        tr.append(td);
      }
      return tr;
    }),
  );
}

/** The sweep's points in the runs' order by swept value: { key, cells (axis values), runs }. */
function points() {
  const { axisColumns } = state.listing;
  const byKey = new Map();
  const ordered = [...state.listing.runs].sort((r, s) => {
    for (const c of axisColumns) {
      const d = compareCells(r.cells[c] ?? '', s.cells[c] ?? '');
      if (d) return d;
    }
    return 0;
  });
  for (const run of ordered) {
    const key = axisColumns.map((c) => `${c}=${run.cells[c] ?? ''}`).join(', ');
    if (!byKey.has(key)) byKey.set(key, { key, cells: Object.fromEntries(axisColumns.map((c) => [c, run.cells[c] ?? ''])), runs: [] });
    byKey.get(key).runs.push(run);
  }
  return [...byKey.values()];
}

function renderPoints() {
  const { axisColumns } = state.listing;
  const head = document.querySelector('#points thead tr');
  head.replaceChildren(...[...axisColumns, 'runs', 'collided'].map((c) => Object.assign(document.createElement('th'), { textContent: c })));
  document.querySelector('#points tbody').replaceChildren(
    ...points().map((p) => {
      const tr = document.createElement('tr');
      tr.dataset.point = p.key;
      tr.tabIndex = 0;
      const collided = p.runs.filter((r) => r.cells.collision === 'true').length;
      if (collided) tr.classList.add('collided');
      for (const text of [...axisColumns.map((c) => p.cells[c]), String(p.runs.length), String(collided)])
        tr.append(Object.assign(document.createElement('td'), { textContent: text }));
      tr.addEventListener('click', () => openPoint(p.key));
      tr.addEventListener('keydown', (e) => e.key === 'Enter' && openPoint(p.key));
      return tr;
    }),
  );
}

/** Shows a point: its runs (each opens in the run view) and the kinematics figure of those runs. */
function openPoint(key) {
  const p = points().find((x) => x.key === key);
  if (!p) return;
  state.point = key;
  for (const tr of document.querySelectorAll('#points tbody tr')) tr.classList.toggle('selected', tr.dataset.point === key);
  $('point').hidden = false;
  $('point-title').textContent = key;
  $('point-runs').replaceChildren(
    ...p.runs.map((run) => {
      if (!run.openable) return Object.assign(document.createElement('span'), { textContent: `${run.run} ` });
      return Object.assign(document.createElement('a'), { href: `runs/${encodeURIComponent(run.run)}/`, textContent: run.run });
    }),
  );
  const openable = p.runs.filter((r) => r.openable).map((r) => r.run);
  const img = $('point-figure');
  img.hidden = !openable.length;
  if (openable.length) img.src = `api/point-figure.svg?runs=${openable.map(encodeURIComponent).join(',')}`;
  state.pointRuns = new Set(p.runs.map((r) => r.run));
  for (const tr of document.querySelectorAll('#runs tbody tr')) tr.classList.toggle('in-point', state.pointRuns.has(tr.dataset.run));
  history.replaceState(null, '', `#point=${encodeURIComponent(key)}`);
}

function sortBy(column) {
  state.descending = state.sortBy === column ? !state.descending : false;
  state.sortBy = column;
  render();
}

async function main() {
  state.listing = await fetchJson('api/sweep');
  const l = state.listing;
  $('scenario-name').textContent = l.scenario;
  $('sweep-id').textContent = `${l.id} · ${l.runtime}`;
  const collided = l.runs.filter((r) => r.cells.collision === 'true').length;
  $('counts').innerHTML =
    `<span><b>${l.runs.length}</b> runs</span><span class="${collided ? 'bad' : ''}"><b>${collided}</b> collided</span>`;
  $('answer').textContent = l.answer ?? '';
  state.sortBy = l.axisColumns[0] ?? null;
  $('plots').replaceChildren(
    ...(l.plots ?? []).flatMap((name) => [
      Object.assign(document.createElement('a'), { href: `plots/${name}.png`, textContent: `${name} figure`, target: '_blank' }),
    ]),
  );
  render();
  renderPoints();
  const linked = /^#point=(.*)$/.exec(location.hash);
  if (linked) openPoint(decodeURIComponent(linked[1]));
  window.__cavsimSweep = {
    ready: true,
    /** The table as shown: header names and each row's cells. */
    table: () => ({
      columns: [...document.querySelectorAll('#runs thead th')].map((th) => th.dataset.column),
      rows: [...document.querySelectorAll('#runs tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    }),
    sortBy,
    /** The points as listed: their keys, e.g. `network.delay_ms=300`. */
    points: () => points().map((p) => p.key),
    openPoint,
  };
}

main().catch((err) => {
  $('answer').textContent = `could not load the sweep: ${err.message}`;
  console.error(err);
});
