// Convoy web view: the timeline. Threads as rows, time across, drawn on a canvas from
// /api/timeline, which sends only what the window and the canvas's width can show.
// Uses app.js's window.convoyView (api, showStacks, ms); redrawn on every 'convoy:snapshot'.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const canvas = $('tl-canvas');
  if (!canvas) return;
  const NAME_W = 220, AXIS_H = 22, TOP = 2, ROW_H = 16, DEBOUNCE_MS = 150, MIN_WINDOW_NS = 100;
  // Colours per state and of the critical path, as app.css gives them to the legend's entries.
  const COLORS = {};
  for (const i of document.querySelectorAll('.tl-legend i[data-state]')) {
    COLORS[i.dataset.state] = getComputedStyle(i).backgroundColor;
  }
  const PATH_COLOR = COLORS.PATH, ARROW_COLOR = '#111', SELECT_COLOR = '#000';
  const summary = $('tl-summary');
  let data = null;          // the last answer
  let view = null;          // {from, to}: ns since the recording start
  let duration = 0;
  let selected = null;      // {row, span}
  let hovered = null;
  let requests = 0, latest = 0, timer = 0;
  let drag = null;

  const convoy = () => window.convoyView;
  const fmt = (ns) => convoy().ms(Math.round(ns));
  // Times are shown since the history's start: the answer's are since the window's.
  const offset = () => (convoy().window && convoy().window.fromNs) || 0;
  const at = (ns) => fmt(ns + offset());

  function plotWidth() { return Math.max(50, Math.floor(canvas.parentElement.clientWidth) - NAME_W); }
  function xOf(ns) { return NAME_W + (ns - view.from) * plotWidth() / (view.to - view.from); }
  function nsAt(x) { return view.from + (x - NAME_W) * (view.to - view.from) / plotWidth(); }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(load, DEBOUNCE_MS);
  }

  // Asks for the current window (the whole recording when there is none yet) at the canvas's width.
  let loadMs = '';
  async function load() {
    const seq = ++latest;
    const began = performance.now();
    let query = '/api/timeline?width=' + plotWidth();
    if (view) {
      const from = Math.max(0, Math.floor(view.from));
      query += '&from=' + from + '&to=' + Math.max(from + 1, Math.ceil(view.to));
    }
    try {
      const d = await (await convoy().api(query)).json();
      if (seq !== latest) return; // a newer window was asked for meanwhile
      requests++;
      loadMs = (performance.now() - began).toFixed(1); // request, answer and parse
      data = d;
      dataSeq++;
      duration = d.durationNs;
      if (!view) view = { from: d.from, to: d.to };
      if (selected && !sameSpan(selected)) selected = null;
      draw();
    } catch (e) {
      $('tl-window').textContent = 'timeline: ' + e.message;
    }
  }

  // A selection survives a re-query when a span with the same bounds is still there.
  function sameSpan(sel) {
    const row = data.rows[sel.row];
    return row && row.spans.some((s) => s[0] === sel.span[0] && s[1] === sel.span[1]);
  }

  // Draws at the next frame, once however many changes came before it (drag, hover).
  let frame = 0;
  function redraw() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  }

  function niceStep(ns) {
    const p = Math.pow(10, Math.floor(Math.log10(ns)));
    for (const m of [1, 2, 5, 10]) if (m * p >= ns) return m * p;
    return 10 * p;
  }

  // A canvas of CSS size w x h for the device's pixel ratio; its 2D context, cleared white.
  function sized(cv, w, h) {
    const dpr = window.devicePixelRatio || 1;
    cv.style.width = w + 'px';
    cv.style.height = h + 'px';
    cv.width = Math.round(w * dpr);
    cv.height = Math.round(h * dpr);
    const c = cv.getContext('2d');
    c.setTransform(dpr, 0, 0, dpr, 0, 0);
    c.fillStyle = '#fff';
    c.fillRect(0, 0, w, h);
    c.font = '11px system-ui, sans-serif';
    c.textBaseline = 'middle';
    return c;
  }

  // The layer that changes only with the answer, the window or the size (axis, names, spans, path),
  // kept in an offscreen canvas so that hovering and selecting only copy it and draw on top.
  const base = document.createElement('canvas');
  let baseKey = '', baseDrawn = 0, dataSeq = 0, baseView = null;

  // The time axis: labels above the rows' box (it stays in view when the rows scroll), and, on
  // the context given, lines across the rows. Returns nothing.
  function drawAxis(w, c, h) {
    const ax = sized($('tl-axis'), w, AXIS_H);
    const step = niceStep((view.to - view.from) / Math.max(1, plotWidth() / 110));
    ax.strokeStyle = '#e4e4e4';
    ax.fillStyle = '#444';
    ax.beginPath();
    if (c) {
      c.strokeStyle = '#e4e4e4';
      c.beginPath();
    }
    for (let t = Math.ceil(view.from / step) * step; t <= view.to; t += step) {
      const x = Math.round(xOf(t)) + 0.5;
      ax.moveTo(x, AXIS_H - 6);
      ax.lineTo(x, AXIS_H);
      if (c) {
        c.moveTo(x, 0);
        c.lineTo(x, h);
      }
      const label = at(t);
      if (x + 3 + ax.measureText(label).width <= w) ax.fillText(label, x + 3, AXIS_H / 2 - 2);
    }
    ax.stroke();
    if (c) c.stroke();
  }

  // The time of lost records: hatched in the legend's colour, unlike every state's plain fill.
  let hatchPattern = null;
  function hatch(c) {
    if (!hatchPattern) {
      const p = document.createElement('canvas');
      p.width = 6;
      p.height = 6;
      const g = p.getContext('2d');
      g.fillStyle = '#f4f4f4';
      g.fillRect(0, 0, 6, 6);
      g.strokeStyle = COLORS.UNKNOWN || '#6d4c41';
      g.lineWidth = 1.5;
      g.beginPath();
      g.moveTo(0, 6); g.lineTo(6, 0);
      g.moveTo(-1, 1); g.lineTo(1, -1);
      g.moveTo(5, 7); g.lineTo(7, 5);
      g.stroke();
      hatchPattern = c.createPattern(p, 'repeat');
    }
    return hatchPattern;
  }

  // "500 records lost (overwritten)": of the row's losses that the span [a, b] overlaps.
  function lostText(row, a, b) {
    const kinds = new Map();
    let n = 0;
    for (const l of row.losses || []) {
      if (l[0] < b && a < l[1]) {
        n += l[3];
        kinds.set(l[2], (kinds.get(l[2]) || 0) + l[3]);
      }
    }
    if (!n) return '';
    return n + ' records lost (' + [...kinds].map(([k, v]) => kinds.size > 1 ? v + ' ' + k : k).join(', ') + ')';
  }

  function drawBase(w, h) {
    const c = sized(base, w, h);
    drawAxis(w, c, h);

    // rows: name, spans (grouped by colour: one change of fill style per colour, not per span)
    const rows = data.rows, states = data.states;
    for (let r = 0; r < rows.length; r++) {
      const y = TOP + r * ROW_H;
      c.fillStyle = r % 2 ? '#fafafa' : '#f2f2f6';
      c.fillRect(0, y, NAME_W - 4, ROW_H);
      c.fillStyle = '#222';
      c.fillText(clip(c, rows[r].name, NAME_W - 10), 4, y + ROW_H / 2);
    }
    c.save();
    c.beginPath();
    c.rect(NAME_W, 0, plotWidth(), h);
    c.clip();
    const groups = new Map(); // state * 2 + merged -> [x, y, width, ...]
    let drawn = 0;
    for (let r = 0; r < rows.length; r++) {
      const y = TOP + r * ROW_H + 2;
      for (const s of rows[r].spans) {
        const x0 = xOf(s[0]), x1 = xOf(s[1]);
        if (x1 < NAME_W || x0 > w) continue;
        const k = s[2] * 2 + (s[3] > 1 ? 1 : 0);
        if (!groups.has(k)) groups.set(k, []);
        groups.get(k).push(x0, y, Math.max(1, x1 - x0));
        drawn++;
      }
    }
    for (const [k, g] of groups) {
      c.globalAlpha = k % 2 ? 0.6 : 1;
      c.fillStyle = states[k >> 1] === 'UNKNOWN' ? hatch(c) : COLORS[states[k >> 1]] || '#888';
      for (let i = 0; i < g.length; i += 3) c.fillRect(g[i], g[i + 1], g[i + 2], ROW_H - 5);
    }
    c.globalAlpha = 1;

    // GC pauses: a band across every row, and a mark on the time axis
    const ax = $('tl-axis').getContext('2d');
    c.fillStyle = COLORS.GC || '#546e7a';
    ax.fillStyle = c.fillStyle;
    c.globalAlpha = 0.22;
    for (const p of data.gc) {
      const x0 = xOf(p[0]), x1 = xOf(p[1]);
      if (x1 < NAME_W || x0 > w) continue;
      c.fillRect(x0, 0, Math.max(1, x1 - x0), h);
      ax.fillRect(Math.max(NAME_W, x0), AXIS_H - 4, Math.max(1, x1 - Math.max(NAME_W, x0)), 4);
    }
    c.globalAlpha = 1;

    // the critical path: a bar under the spans of the row it is on, a line where it jumps
    c.fillStyle = PATH_COLOR;
    c.strokeStyle = PATH_COLOR;
    c.lineWidth = 1;
    let prev = null;
    c.beginPath();
    for (const p of data.path) {
      const y = TOP + p[0] * ROW_H + ROW_H - 3;
      const x0 = xOf(p[1]);
      c.fillRect(x0, y, Math.max(1, xOf(p[2]) - x0), 3);
      if (prev && prev[0] !== p[0] && prev[2] === p[1]) {
        c.moveTo(Math.round(x0) + 0.5, TOP + prev[0] * ROW_H + ROW_H - 2);
        c.lineTo(Math.round(x0) + 0.5, y + 1);
      }
      prev = p;
    }
    c.stroke();
    c.restore();
    return drawn;
  }

  function draw() {
    if (!data || !view) return;
    const began = performance.now();
    const rows = data.rows;
    const w = NAME_W + plotWidth();
    const h = TOP + rows.length * ROW_H + 4;
    const key = [dataSeq, view.from, view.to, w, h].join(':');
    const c = sized(canvas, w, h);
    if (key !== baseKey && drag && drag.moved && baseView && baseKey.startsWith(dataSeq + ':')
        && baseView.to - baseView.from === view.to - view.from) {
      // panning: the layer drawn for the window the drag started from, moved; the names stay
      drawAxis(w);
      c.save();
      c.beginPath();
      c.rect(NAME_W, 0, plotWidth(), h);
      c.clip();
      c.drawImage(base, (baseView.from - view.from) * plotWidth() / (view.to - view.from), 0, w, h);
      c.restore();
      const dpr = window.devicePixelRatio || 1;
      c.drawImage(base, 0, 0, NAME_W * dpr, base.height, 0, 0, NAME_W, h);
    } else {
      if (key !== baseKey) {
        baseDrawn = drawBase(w, h);
        baseKey = key;
        baseView = { from: view.from, to: view.to };
      }
      c.drawImage(base, 0, 0, w, h);
    }
    const drawn = baseDrawn;
    c.save();
    c.beginPath();
    c.rect(NAME_W, 0, plotWidth(), h);
    c.clip();

    // the selected and the hovered span: outline, and the arrows of their interactions
    let arrows = 0;
    for (const sel of [selected, hovered]) {
      if (!sel) continue;
      const x0 = xOf(sel.span[0]), x1 = xOf(sel.span[1]);
      c.strokeStyle = SELECT_COLOR;
      c.lineWidth = sel === selected ? 2 : 1;
      c.strokeRect(x0, TOP + sel.row * ROW_H + 1, Math.max(2, x1 - x0), ROW_H - 3);
      for (const a of arrowsOf(sel)) {
        arrow(c, xOf(a[2]), TOP + a[1] * ROW_H + ROW_H / 2, xOf(a[4]), TOP + a[3] * ROW_H + ROW_H / 2);
        arrows++;
      }
    }
    c.restore();

    const whole = !convoy().window || convoy().window.whole;
    $('tl-window').textContent = at(view.from) + ' to ' + at(view.to) + ' of ' + (whole ? 'the history, ' : 'the window, ')
      + fmt(duration)
      + ' \u00b7 ' + rows.length + ' threads, ' + data.spanCount + ' spans'
      + (data.mergedSpans ? ' (' + data.mergedSpans + ' narrower than a pixel merged)' : '')
      + (data.arrowCount > data.arrows.length ? ' \u00b7 ' + data.arrows.length + ' of ' + data.arrowCount + ' interactions' : '')
      + (data.gcCount ? ' \u00b7 ' + data.gcCount + ' GC pause' + (data.gcCount > 1 ? 's' : '') : '');
    const names = $('tl-rows');
    if (names.childElementCount !== rows.length || names.dataset.requests !== String(requests)) {
      names.textContent = '';
      for (const row of rows) {
        const li = document.createElement('li');
        li.textContent = row.name;
        names.appendChild(li);
      }
      names.dataset.requests = String(requests);
    }
    Object.assign(summary.dataset, {
      rows: rows.length, spans: drawn, from: data.from, to: data.to, viewFrom: Math.round(view.from),
      viewTo: Math.round(view.to), width: data.width, requests: requests, plotLeft: NAME_W, plotWidth: plotWidth(),
      rowsTop: TOP, rowHeight: ROW_H, drawMs: (performance.now() - began).toFixed(1), loadMs: loadMs, pathSegments: data.path.length, arrows: arrows, gc: data.gc.length,
      selected: selected ? selected.row + ':' + selected.span[0] + '-' + selected.span[1] : '',
    });
  }

  function clip(c, text, max) {
    if (c.measureText(text).width <= max) return text;
    let n = text.length;
    while (n > 1 && c.measureText(text.slice(0, n) + '\u2026').width > max) n--;
    return text.slice(0, n) + '\u2026';
  }

  // The interactions drawn for a span: the ones that end in it (what woke it) and start in it.
  function arrowsOf(sel) {
    return data.arrows.filter((a) => (a[3] === sel.row && a[4] >= sel.span[0] && a[4] <= sel.span[1])
      || (a[1] === sel.row && a[2] >= sel.span[0] && a[2] <= sel.span[1]));
  }

  function arrow(c, x0, y0, x1, y1) {
    c.strokeStyle = ARROW_COLOR;
    c.fillStyle = ARROW_COLOR;
    c.lineWidth = 1.5;
    c.beginPath();
    c.moveTo(x0, y0);
    c.lineTo(x1, y1);
    c.stroke();
    const a = Math.atan2(y1 - y0, x1 - x0);
    c.beginPath();
    c.moveTo(x1, y1);
    c.lineTo(x1 - 8 * Math.cos(a - 0.4), y1 - 8 * Math.sin(a - 0.4));
    c.lineTo(x1 - 8 * Math.cos(a + 0.4), y1 - 8 * Math.sin(a + 0.4));
    c.closePath();
    c.fill();
  }

  // The span under a point of the canvas (within 2 px for narrow ones), or null.
  function hit(x, y) {
    if (!data || x < NAME_W) return null;
    const row = Math.floor((y - TOP) / ROW_H);
    if (row < 0 || row >= data.rows.length) return null;
    const t = nsAt(x), slack = 2 * (view.to - view.from) / plotWidth();
    let best = null;
    for (const s of data.rows[row].spans) {
      if (s[0] - slack <= t && t <= s[1] + slack) {
        if (s[0] <= t && t <= s[1]) return { row: row, span: s };
        if (!best) best = { row: row, span: s };
      }
    }
    return best;
  }

  function describe(sel) {
    const s = sel.span, state = data.states[s[2]];
    const row = data.rows[sel.row];
    let text = row.name + ': ';
    if (s[3] > 1) {
      text += s[3] + ' spans merged (mostly ' + state.toLowerCase() + '), zoom in to see them';
      if (s[7]) text += ', ' + lostText(row, s[0], s[1]);
    } else if (state === 'UNKNOWN') {
      text += 'unknown: ' + (lostText(row, s[0], s[1]) || s[7] + ' records lost')
        + ', what the thread did then is not known';
    } else {
      text += state.toLowerCase();
      if (s[5]) text += (state === 'JOINING' ? ' on thread object ' : ' on ') + (data.monitors[s[5]] || '?') + ' #' + s[5];
    }
    text += ', ' + fmt(s[1] - s[0]) + ' from ' + at(s[0]);
    if (s[6]) text += ', timed out';
    const o = ownerOf(s);
    if (o) {
      text += ', held by ' + o.owner + (o.frame ? ' in ' + o.frame + (o.frameExact ? '' : ' (probably)') : '')
        + ', ' + o.state + (o.on ? ' on ' + o.on : '');
    }
    const n = arrowsOf(sel).map((a) => data.kinds[a[0]].toLowerCase() + ' '
      + (a[3] === sel.row ? 'from ' + data.rows[a[1]].name : 'to ' + data.rows[a[3]].name));
    return n.length ? text + ' (' + n.join(', ') + ')' : text;
  }

  // The owner's side of a blocked span (OWNER_SAMPLE), or null.
  function ownerOf(s) {
    return s[8] && data.owners ? data.owners[s[8] - 1] : null;
  }

  function pos(evt) {
    const r = canvas.getBoundingClientRect();
    return { x: evt.clientX - r.left, y: evt.clientY - r.top };
  }

  function setView(from, to) {
    let w = Math.max(MIN_WINDOW_NS, Math.min(to - from, duration));
    from = Math.min(Math.max(0, from), duration - w);
    view = { from: from, to: from + w };
    redraw();
    schedule();
  }

  function zoom(factor, atNs) {
    if (!view) return;
    const c = atNs === undefined ? (view.from + view.to) / 2 : atNs;
    setView(c - (c - view.from) * factor, c + (view.to - c) * factor);
  }

  canvas.addEventListener('wheel', (evt) => {
    const p = pos(evt);
    if (!view || p.x < NAME_W) return; // over the names the page scrolls
    evt.preventDefault();
    zoom(evt.deltaY > 0 ? 1.25 : 0.8, nsAt(p.x));
  }, { passive: false });

  canvas.addEventListener('mousedown', (evt) => {
    const p = pos(evt);
    if (!view || p.x < NAME_W || evt.button !== 0) return;
    drag = { x: p.x, from: view.from, to: view.to, moved: false };
    evt.preventDefault();
  });

  window.addEventListener('mousemove', (evt) => {
    const p = pos(evt);
    if (drag) {
      if (Math.abs(p.x - drag.x) > 3) drag.moved = true;
      if (drag.moved) {
        const dt = (p.x - drag.x) * (drag.to - drag.from) / plotWidth();
        setView(drag.from - dt, drag.to - dt);
      }
      return;
    }
    if (evt.target !== canvas) return;
    const h = hit(p.x, p.y);
    if ((h && h.span) !== (hovered && hovered.span)) {
      hovered = h;
      canvas.title = h ? describe(h) : '';
      redraw();
    }
  });

  window.addEventListener('mouseup', (evt) => {
    if (!drag) return;
    const moved = drag.moved;
    drag = null;
    if (moved) return;
    const p = pos(evt);
    select(hit(p.x, p.y));
  });

  canvas.addEventListener('mouseleave', () => {
    if (hovered) {
      hovered = null;
      redraw();
    }
  });

  // Selects a span: outlined, its interactions drawn, its stack shown in the stack panel.
  function select(sel) {
    selected = sel;
    draw();
    if (!sel) return;
    const text = describe(sel);
    $('tl-selection').textContent = text;
    const stacks = sel.span[4] ? [{ id: sel.span[4], label: data.rows[sel.row].name + ' (blocked here)' }] : [];
    const o = ownerOf(sel.span);
    if (o && o.stack) stacks.push({ id: o.stack, label: 'owner ' + o.owner + ', ' + o.state });
    convoy().showStacks(text, stacks);
    if (!sel.span[4]) {
      $('stack-body').textContent = sel.span[3] > 1 ? 'several spans: zoom in and click one'
        : 'no stack: only blocked, waiting, sleeping and joining spans have one';
    }
  }

  $('tl-zoom-in').addEventListener('click', () => zoom(0.5));
  $('tl-zoom-out').addEventListener('click', () => zoom(2));
  $('tl-reset').addEventListener('click', () => view && setView(0, duration));
  window.addEventListener('resize', () => { if (view) { redraw(); schedule(); } });

  // Nothing analysed (the history too large for the heap, no window picked yet): nothing drawn.
  document.addEventListener('convoy:cleared', () => {
    selected = null;
    hovered = null;
    view = null;
    data = null;
    latest++; // an answer still on its way is not drawn
    sized(canvas, NAME_W + plotWidth(), 20);
    $('tl-window').textContent = 'pick a window on the history above';
  });

  // A new snapshot or window: all of it again.
  document.addEventListener('convoy:snapshot', () => {
    selected = null;
    hovered = null;
    view = null;
    data = null;
    load();
  });
})();
