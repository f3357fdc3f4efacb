// Convoy web view: the overview of the whole frozen history (/api/overview), a strip at the top
// of the page. Drag over it (or type from/to) to pick a window: app.js's pickWindow asks the
// server for it (/api/window), and the timeline, tables, report, flame graph and downloads
// then describe that window. Reloaded on every 'convoy:history' (a new snapshot).
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $('ov-canvas');
  if (!canvas) return;
  const HEIGHT = 64, AXIS_H = 14, MIN_DRAG_PX = 3;
  const COLORS = {};
  for (const i of document.querySelectorAll('.ov-legend i[data-ov]')) {
    COLORS[i.dataset.ov] = getComputedStyle(i).backgroundColor;
  }
  const SERIES = [['unknownNs', 'unknown'], ['blockedNs', 'blocked'], ['waitedNs', 'waited'], ['idleNs', 'idle']];
  let data = null;        // the last answer
  let win = null;         // {from, to, whole}: the window the view shows, ns since the history's start
  let drag = null;        // {x0, x1} while the mouse picks a window
  let requests = 0;

  const convoy = () => window.convoyView;
  const fmt = (ns) => convoy().ms(Math.round(ns));

  function width() { return Math.max(100, Math.floor(canvas.parentElement.clientWidth) - 2); }
  function xOf(ns) { return ns * width() / data.durationNs; }
  function nsAt(x) { return Math.min(data.durationNs, Math.max(0, x * data.durationNs / width())); }

  async function load() {
    const buckets = Math.min(4000, Math.max(50, Math.floor(width() / 3)));
    try {
      data = await (await convoy().api('/api/overview?buckets=' + buckets)).json();
      requests++;
      win = { from: data.window.fromNs, to: data.window.toNs, whole: data.window.whole };
      $('ov-span').textContent = data.startTime + ' to ' + data.endTime + ' (' + fmt(data.durationNs) + ', '
        + data.recordCount + ' records, ' + data.threads + ' threads' + (data.overwritten + data.aged > 0
        ? '; ' + (data.overwritten + data.aged) + ' records lost' : '') + ')';
      draw();
    } catch (e) {
      $('ov-window').textContent = 'overview: ' + e.message;
    }
  }

  function draw() {
    if (!data) return;
    const w = width();
    const dpr = window.devicePixelRatio || 1;
    canvas.style.width = w + 'px';
    canvas.style.height = (HEIGHT + AXIS_H) + 'px';
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round((HEIGHT + AXIS_H) * dpr);
    const c = canvas.getContext('2d');
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.fillStyle = '#fff';
    c.fillRect(0, 0, w, HEIGHT + AXIS_H);
    // stacked thread-time per bucket, scaled to the busiest bucket
    const n = data.buckets;
    let max = 1;
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (const [k] of SERIES) sum += data[k][i];
      max = Math.max(max, sum);
    }
    for (let i = 0; i < n; i++) {
      const x0 = i * w / n, x1 = (i + 1) * w / n;
      let y = HEIGHT;
      for (const [k, colour] of SERIES) {
        const h = data[k][i] * (HEIGHT - 2) / max;
        if (h <= 0) continue;
        c.fillStyle = COLORS[colour] || '#888';
        c.fillRect(x0, y - h, Math.max(1, x1 - x0), h);
        y -= h;
      }
      if (data.lostRecords[i] > 0) { // a mark under each slice with lost records, however few
        c.fillStyle = COLORS.unknown || '#6d4c41';
        c.fillRect(x0, HEIGHT, Math.max(1, x1 - x0), 2);
      }
    }
    // the time axis
    c.fillStyle = '#444';
    c.font = '10px system-ui, sans-serif';
    c.textBaseline = 'middle';
    const step = niceStep(data.durationNs / Math.max(1, w / 100));
    for (let t = 0; t <= data.durationNs; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      c.fillRect(x, HEIGHT, 1, 4);
      const label = fmt(t);
      if (x + 2 + c.measureText(label).width <= w) c.fillText(label, x + 2, HEIGHT + AXIS_H / 2 + 2);
    }
    // the window shown (outside it greyed), and the one being dragged
    const sel = drag ? { from: nsAt(Math.min(drag.x0, drag.x1)), to: nsAt(Math.max(drag.x0, drag.x1)) } : win;
    if (sel && !(win && win.whole && !drag)) {
      const a = xOf(sel.from), b = xOf(sel.to);
      c.fillStyle = 'rgba(0, 0, 0, 0.18)';
      c.fillRect(0, 0, a, HEIGHT);
      c.fillRect(b, 0, w - b, HEIGHT);
      c.strokeStyle = '#000';
      c.lineWidth = 1.5;
      c.strokeRect(a, 0.75, Math.max(1, b - a), HEIGHT - 1.5);
    }
    const text = !win ? '' : win.whole ? 'showing the whole history'
      : 'showing ' + fmt(win.from) + ' to ' + fmt(win.to) + ' (' + (100 * (win.to - win.from) / data.durationNs).toFixed(1)
        + ' % of the history)';
    $('ov-window').textContent = text;
    Object.assign($('ov-summary').dataset, {
      buckets: n, durationNs: data.durationNs, requests: requests, width: w, height: HEIGHT,
      windowFrom: win ? Math.round(win.from) : '', windowTo: win ? Math.round(win.to) : '',
      whole: win ? String(win.whole) : '',
    });
  }

  function niceStep(ns) {
    const p = Math.pow(10, Math.floor(Math.log10(Math.max(1, ns))));
    for (const m of [1, 2, 5, 10]) if (m * p >= ns) return m * p;
    return 10 * p;
  }

  // "1.5s", "200ms", "20us", "2m", "1500ns" or a bare number of seconds, since the history's start.
  function parseTime(text, what) {
    const m = /^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(ns|us|\u00b5s|ms|s|m|h)?\s*$/.exec(text);
    if (!m) throw new Error(what + " '" + text + "' is not a time since the history's start: write 1.5s, 200ms, 2m");
    const unit = { ns: 1, us: 1e3, '\u00b5s': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 }[m[2] || 's'];
    return Math.round(parseFloat(m[1]) * unit);
  }

  function pos(evt) {
    const r = canvas.getBoundingClientRect();
    return Math.min(width(), Math.max(0, evt.clientX - r.left));
  }

  canvas.addEventListener('mousedown', (evt) => {
    if (!data || evt.button !== 0) return;
    const x = pos(evt);
    drag = { x0: x, x1: x };
    evt.preventDefault();
  });
  window.addEventListener('mousemove', (evt) => {
    if (!drag) return;
    drag.x1 = pos(evt);
    draw();
  });
  window.addEventListener('mouseup', (evt) => {
    if (!drag) return;
    drag.x1 = pos(evt);
    const a = Math.min(drag.x0, drag.x1), b = Math.max(drag.x0, drag.x1);
    drag = null;
    if (b - a < MIN_DRAG_PX) {
      draw();
      return;
    }
    pick(Math.floor(nsAt(a)), Math.ceil(nsAt(b)));
  });

  // Asks for a window (null, null: the whole history); on success the overview shows it.
  async function pick(from, to) {
    if (from !== null) {
      $('ov-from').value = fmt(from).replace(/\s/g, '').replace('\u00b5s', 'us');
      $('ov-to').value = fmt(to).replace(/\s/g, '').replace('\u00b5s', 'us');
    }
    const w = await convoy().pickWindow(from, to);
    if (w) win = { from: w.fromNs, to: w.toNs, whole: w.whole };
    draw();
  }

  $('ov-apply').addEventListener('click', () => {
    try {
      const f = $('ov-from').value.trim(), t = $('ov-to').value.trim();
      const from = f ? parseTime(f, 'from') : 0;
      const to = t ? parseTime(t, 'to') : (data ? data.durationNs : 0);
      if (to <= from) throw new Error("the window's end must come after its start");
      pick(from, to);
    } catch (e) {
      $('ov-window').textContent = e.message;
    }
  });
  $('ov-whole').addEventListener('click', () => {
    $('ov-from').value = '';
    $('ov-to').value = '';
    pick(null, null);
  });
  window.addEventListener('resize', () => { if (data) draw(); });
  document.addEventListener('convoy:history', load);
})();
