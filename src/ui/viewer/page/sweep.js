// The sweep page: every run with its swept values and outcome, sortable by any column; a run's
// name opens it in the run view (served under runs/<name>/).
import { fetchJson } from './feed.js';

const $ = (id) => document.getElementById(id);
const state = { listing: null, sortBy: null, descending: false };

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
  $('counts').innerHTML = `<span><b>${l.runs.length}</b> runs</span><span class="${collided ? 'bad' : ''}"><b>${collided}</b> collided</span>`;
  $('answer').textContent = l.answer ?? '';
  state.sortBy = l.axisColumns[0] ?? null;
  render();
  window.__cavsimSweep = {
    ready: true,
    /** The table as shown: header names and each row's cells. */
    table: () => ({
      columns: [...document.querySelectorAll('#runs thead th')].map((th) => th.dataset.column),
      rows: [...document.querySelectorAll('#runs tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent)),
    }),
    sortBy,
  };
}

main().catch((err) => {
  $('answer').textContent = `could not load the sweep: ${err.message}`;
  console.error(err);
});
