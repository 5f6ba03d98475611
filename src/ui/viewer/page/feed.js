// Where the page's data comes from: one fetch for a replay, a server-sent event stream (first a
// snapshot, then appended rows, then the summary) while a run is live.
import { mergeRunData } from './series.js';

export async function fetchJson(path) {
  const res = await fetch(path, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
  return res.json();
}

/** Waits for the run's scenario (a live run may not have written it yet). */
export async function fetchMeta() {
  for (;;) {
    const res = await fetch('api/meta', { cache: 'no-store' });
    if (res.ok) return res.json();
    if (res.status !== 503) throw new Error(`api/meta: HTTP ${res.status}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export function loadMapImage() {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => resolve(null);
    img.src = 'api/map.png';
  });
}

/**
 * Calls onData(data, delta) for the first snapshot (delta = null) and for every append; onSummary
 * once the run has finished.
 */
export function followLive({ onData, onSummary, onProblem }) {
  const source = new EventSource('api/live');
  let data = null;
  source.addEventListener('snapshot', (e) => {
    data = JSON.parse(e.data);
    onData(data, null);
  });
  source.addEventListener('append', (e) => {
    if (!data) return;
    const delta = JSON.parse(e.data);
    mergeRunData(data, delta);
    onData(data, delta);
  });
  source.addEventListener('summary', (e) => {
    onSummary(JSON.parse(e.data));
    source.close();
  });
  source.addEventListener('problem', (e) => onProblem(JSON.parse(e.data).message));
  return () => source.close();
}
