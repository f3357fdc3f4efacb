// Convoy web view: plain JavaScript, no build step, no resource from the internet.
'use strict';
(function () {
  const token = new URLSearchParams(location.search).get('token');
  const $ = (id) => document.getElementById(id);
  let status = null;

  function withToken(url) {
    return token ? url + (url.includes('?') ? '&' : '?') + 'token=' + encodeURIComponent(token) : url;
  }

  async function api(path, method) {
    const headers = token ? { 'X-Convoy-Token': token } : {};
    const resp = await fetch(path, { method: method || 'GET', headers: headers, cache: 'no-store' });
    if (!resp.ok) {
      let msg = resp.status + ' ' + resp.statusText, tooLarge = false;
      try {
        const body = await resp.json();
        msg = body.error || msg;
        tooLarge = body.tooLarge === true;
      } catch (e) { /* not JSON */ }
      const err = new Error(msg);
      err.tooLarge = tooLarge; // an analysis that does not fit the heap: a shorter window would do
      throw err;
    }
    return resp;
  }

  function say(text) { $('message').textContent = text || ''; }

  function ms(ns) {
    if (ns === undefined || ns === null) return '';
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(2) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + ' \u00b5s';
    return ns + ' ns';
  }

  function cell(tr, text, value, cls) {
    const td = document.createElement('td');
    if (text instanceof Node) td.appendChild(text); else td.textContent = text;
    td.dataset.value = value === undefined ? (typeof text === 'string' ? text : '') : value;
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  // A number that opens the stacks behind it ([{id, count, ns}]).
  function stackLink(text, stacks, title) {
    if (!stacks || stacks.length === 0) return document.createTextNode(text);
    const a = document.createElement('a');
    a.className = 'stack-link';
    a.textContent = text;
    a.title = 'show the stacks behind this number';
    a.addEventListener('click', () => showStacks(title, stacks));
    return a;
  }

  async function showStacks(title, stacks) {
    $('stack-title').textContent = title;
    const body = $('stack-body');
    body.textContent = '';
    $('stack-panel').hidden = false;
    for (const s of stacks) {
      const h = document.createElement('div');
      h.textContent = (s.label ? s.label + ': stack ' : 'stack ') + s.id
        + (s.count !== undefined ? ': ' + s.count + ' times, ' + ms(s.ns) : '');
      const pre = document.createElement('pre');
      pre.className = 'stack';
      body.appendChild(h);
      body.appendChild(pre);
      try {
        pre.textContent = await (await api('/api/stacks/' + s.id)).text();
      } catch (e) {
        pre.textContent = e.message;
      }
    }
  }

  // Rows a long table shows before its "show all" button: a page, not 12,000 pixels.
  const TOP_ROWS = 15;

  // Fills a table; rows arrive in their order of importance; idle(row) greys a row out.
  function fill(tableId, rows, columns, idle) {
    const table = $(tableId);
    const tbody = table.tBodies[0];
    tbody.textContent = '';
    for (const row of rows) {
      const tr = document.createElement('tr');
      for (const c of columns) c(tr, row);
      if (idle && idle(row)) tr.classList.add('idle');
      tbody.appendChild(tr);
    }
    const th = table.querySelector('th.asc, th.desc');
    if (th) sortBy(th, th.classList.contains('asc')); else fold(table);
  }

  // Shows the first TOP_ROWS rows and a button for the rest, unless the user asked for all.
  function fold(table) {
    const rows = Array.from(table.tBodies[0].rows);
    const all = table.dataset.all === 'true';
    rows.forEach((r, i) => r.classList.toggle('folded', !all && i >= TOP_ROWS));
    let more = table.nextElementSibling;
    if (!more || !more.classList.contains('more-rows')) {
      more = document.createElement('button');
      more.type = 'button';
      more.className = 'more-rows';
      more.addEventListener('click', () => {
        table.dataset.all = table.dataset.all === 'true' ? 'false' : 'true';
        fold(table);
      });
      table.after(more);
    }
    more.hidden = rows.length <= TOP_ROWS;
    more.textContent = all ? 'show the first ' + TOP_ROWS + ' rows' : 'show all ' + rows.length + ' rows';
  }

  function sortBy(th, asc) {
    const table = th.closest('table');
    const idx = Array.prototype.indexOf.call(th.parentNode.children, th);
    const text = th.dataset.type === 'text';
    const rows = Array.from(table.tBodies[0].rows);
    rows.sort((a, b) => {
      const x = a.cells[idx].dataset.value, y = b.cells[idx].dataset.value;
      const d = text ? x.localeCompare(y) : (Number(x) - Number(y));
      return asc ? d : -d;
    });
    for (const h of th.parentNode.children) h.classList.remove('asc', 'desc');
    th.classList.add(asc ? 'asc' : 'desc');
    for (const r of rows) table.tBodies[0].appendChild(r);
    fold(table);
  }

  for (const th of document.querySelectorAll('table.sortable th')) {
    th.addEventListener('click', () => sortBy(th, !th.classList.contains('asc')));
  }

  function renderStatus(s) {
    status = s;
    document.body.classList.toggle('offline', s.mode !== 'live');
    $('mode').textContent = s.mode === 'live' ? 'live, pid ' + s.pid : 'offline: ' + s.file;
    $('recording-state').textContent = s.recording ? 'on' : 'off';
    $('toggle-recording').textContent = s.recording ? 'Stop recording' : 'Start recording';
    $('contanalysis-state').textContent = s.contentionAnalysis ? 'on' : 'off';
    $('toggle-contanalysis').textContent = s.contentionAnalysis ? 'Turn off' : 'Turn on';
    $('options').textContent = s.options;
    $('version').textContent = s.version;
    const tbody = $('counters').tBodies[0];
    tbody.textContent = '';
    for (const [k, v] of Object.entries(s.counters || {})) {
      const tr = document.createElement('tr');
      cell(tr, k);
      cell(tr, String(v), v, 'counter');
      tr.dataset.counter = k;
      tbody.appendChild(tr);
    }
  }

  // What the view shows: the whole history or a window of it, and how much of the history that is.
  function windowText(w) {
    if (!w || w.whole) return 'The whole history: ' + w.records + ' records.';
    return 'Window ' + ms(w.fromNs) + ' to ' + ms(w.toNs) + ' of the history (' + ms(w.toNs - w.fromNs) + ', '
      + (100 * (w.toNs - w.fromNs) / Math.max(1, w.historyNs)).toFixed(1) + ' % of its ' + ms(w.historyNs) + '; '
      + w.records + ' of its ' + w.historyRecords + ' records): everything below describes this window.';
  }

  function renderSnapshot(d) {
    view.window = d.window;
    const off = d.window ? d.window.fromNs : 0; // times shown since the history's start
    $('window-note').textContent = windowText(d.window);
    $('snapshot-time').textContent = d.startTime + ' to ' + d.endTime + ' (' + ms(d.durationNs) + ')';
    // what was recorded and lost: the time of lost records is unknown, in no state
    $('records-lost').textContent = d.records.summary + (d.records.historyFromNs >= 0
      ? ' The history holds records from ' + ms(d.records.historyFromNs) + '.' : '');
    const dl = $('deadlocks');
    dl.textContent = '';
    if (d.deadlocks.length === 0) dl.textContent = 'none at snapshot time';
    for (const x of d.deadlocks) {
      const p = document.createElement('p');
      p.className = 'deadlock';
      p.textContent = x.description + ' ';
      const stacks = x.threads.filter((t) => t.stack).map((t) => ({ id: t.stack }));
      p.appendChild(stackLink('[stacks]', stacks, 'Deadlock: ' + x.description));
      dl.appendChild(p);
    }
    renderLongBlocks(d);
    $('idle-rules').textContent = d.idleRules;
    const contention = (x) => (x.blockedNs || 0) + (x.waitedNs || 0);
    const byContention = (a, b) => contention(b) - contention(a) || (b.idleNs || 0) - (a.idleNs || 0);
    fill('monitors', d.monitors.slice().sort(byContention), [
      (tr, m) => cell(tr, m.className + '@' + m.identityHash, m.className, 'text'),
      (tr, m) => cell(tr, String(m.id), m.id),
      (tr, m) => cell(tr, stackLink(String(m.blockedCount), m.stacks, 'Monitor ' + m.className + ' #' + m.id), m.blockedCount),
      (tr, m) => cell(tr, stackLink(ms(m.blockedNs), m.stacks, 'Monitor ' + m.className + ' #' + m.id), m.blockedNs),
      (tr, m) => cell(tr, ms(m.maxBlockedNs), m.maxBlockedNs),
      (tr, m) => cell(tr, stackLink(String(m.waitedCount), m.stacks, 'Monitor ' + m.className + ' #' + m.id), m.waitedCount),
      (tr, m) => cell(tr, ms(m.waitedNs), m.waitedNs),
      (tr, m) => cell(tr, m.idleNs ? ms(m.idleNs) : '-', m.idleNs),
      (tr, m) => cell(tr, String(m.holdCount || 0), m.holdCount || 0),
      (tr, m) => cell(tr, m.holdCount ? ms(m.medianHoldNs) : '-', m.medianHoldNs || 0),
      (tr, m) => cell(tr, m.holdCount ? ms(m.maxHoldNs) : '-', m.maxHoldNs || 0),
    ], (m) => contention(m) === 0);
    const callers = [];
    for (const c of d.classes) {
      for (const r of c.blockCallers) callers.push(Object.assign({ className: c.className, kind: 'blocked' }, r));
      for (const r of c.waitCallers) callers.push(Object.assign({ className: c.className, kind: 'waited' }, r));
      for (const r of c.idleCallers || []) callers.push(Object.assign({ className: c.className, kind: 'idle' }, r));
    }
    callers.sort((a, b) => (a.kind === 'idle') - (b.kind === 'idle') || b.totalNs - a.totalNs);
    fill('callers', callers, [
      (tr, c) => cell(tr, c.className, c.className, 'text'),
      (tr, c) => cell(tr, c.kind, c.kind, 'text'),
      (tr, c) => cell(tr, c.caller, c.caller, 'text'),
      (tr, c) => cell(tr, stackLink(String(c.count), c.stacks, c.caller + ' on ' + c.className), c.count),
      (tr, c) => cell(tr, stackLink(ms(c.totalNs), c.stacks, c.caller + ' on ' + c.className), c.totalNs),
      (tr, c) => cell(tr, ms(c.avgNs), c.avgNs),
      (tr, c) => cell(tr, ms(c.maxNs), c.maxNs),
      (tr, c) => cell(tr, String(c.monitors), c.monitors),
      (tr, c) => cell(tr, String(c.threads), c.threads),
    ], (c) => c.kind === 'idle');
    fill('threads', d.threads.map((t) => Object.assign({ runningNs: (t.nsByState || {}).RUNNING || 0,
      unknownNs: (t.nsByState || {}).UNKNOWN || 0 }, t)).sort(byContention), [
      (tr, t) => cell(tr, t.name, t.name, 'text'),
      (tr, t) => cell(tr, String(t.javaThreadId), t.javaThreadId),
      (tr, t) => cell(tr, t.state, t.state, 'text'),
      (tr, t) => cell(tr, String(t.events), t.events),
      (tr, t) => cell(tr, stackLink(String(t.blockedCount), t.stacks, 'Thread ' + t.name), t.blockedCount),
      (tr, t) => cell(tr, stackLink(ms(t.blockedNs), t.stacks, 'Thread ' + t.name), t.blockedNs),
      (tr, t) => cell(tr, stackLink(String(t.waitedCount), t.stacks, 'Thread ' + t.name), t.waitedCount),
      (tr, t) => cell(tr, ms(t.waitedNs), t.waitedNs),
      (tr, t) => cell(tr, t.idleNs ? ms(t.idleNs) : '-', t.idleNs),
      (tr, t) => cell(tr, ms(t.runningNs), t.runningNs),
      (tr, t) => cell(tr, t.unknownNs ? ms(t.unknownNs) : '-', t.unknownNs),
      (tr, t) => cell(tr, String(t.lostRecords), t.lostRecords),
    ], (t) => contention(t) === 0);
    const cp = d.criticalPath;
    $('critical-summary').textContent = cp.endThread
      ? 'Ends on ' + cp.endThread + ', length ' + ms(cp.lengthNs) + '; ' + Object.entries(cp.nsByState)
        .map(([k, v]) => k.toLowerCase() + ' ' + ms(v)).join(', ')
        + (cp.segmentCount > cp.segments.length ? ' (first ' + cp.segments.length + ' of ' + cp.segmentCount + ' segments)' : '')
      : 'no critical path (nothing recorded)';
    // the longest segments first; sort by start for the path in time order
    fill('critical', cp.segments.slice().sort((a, b) => b.durationNs - a.durationNs), [
      (tr, s) => cell(tr, ms(s.startNs + off), s.startNs),
      (tr, s) => cell(tr, s.thread, s.thread, 'text'),
      (tr, s) => cell(tr, s.state, s.state, 'text'),
      (tr, s) => cell(tr, stackLink(ms(s.durationNs), s.stack ? [{ id: s.stack }] : [], s.thread + ' ' + s.state), s.durationNs),
      (tr, s) => cell(tr, s.monitor ? s.monitorClass + ' #' + s.monitor : '', s.monitorClass, 'text'),
      (tr, s) => cell(tr, s.via, s.via, 'text'),
    ]);
  }

  // The longest blocks with their owner's side: who held the lock, where, doing what; both stacks.
  function renderLongBlocks(d) {
    const blocks = d.longBlocks || [];
    $('long-blocks-section').hidden = blocks.length === 0;
    $('long-blocks-count').textContent = d.longBlockCount > blocks.length
      ? '(the longest ' + blocks.length + ' of ' + d.longBlockCount + ')' : '';
    fill('long-blocks', blocks, [
      (tr, b) => cell(tr, b.thread, b.thread, 'text'),
      (tr, b) => cell(tr, stackLink(ms(b.blockedNs) + (b.open ? ' (still)' : ''), bothStacks(b),
        b.thread + ' on ' + b.monitorClass), b.blockedNs),
      (tr, b) => cell(tr, b.monitorClass + ' #' + b.monitor, b.monitorClass, 'text'),
      (tr, b) => cell(tr, b.owner, b.owner, 'text'),
      (tr, b) => cell(tr, b.frame ? b.frame + (b.frameExact ? '' : ' (probably)') : '-', b.frame, 'text'),
      (tr, b) => cell(tr, b.ownerState + (b.ownerOnClass ? ' on ' + b.ownerOnClass
        + (b.onHeldBy ? ', held by ' + b.onHeldBy + (b.deadlock ? ': deadlock' : '') : '') : ''), b.ownerState, 'text'),
    ]);
  }

  // The blocked thread's stack and its owner's, for the stack panel.
  function bothStacks(b) {
    const s = [];
    if (b.stack) s.push({ id: b.stack, label: b.thread + ' (blocked)' });
    if (b.ownerStack) s.push({ id: b.ownerStack, label: 'owner ' + b.owner + ' (' + b.ownerState + ')' });
    return s;
  }

  async function refreshStatus() {
    renderStatus(await (await api('/api/status')).json());
  }

  // Clears what describes a window when none could be analysed (the history too large for the heap).
  function clearAnalysis(why) {
    view.window = null;
    $('window-note').textContent = why;
    for (const id of ['monitors', 'callers', 'threads', 'critical', 'long-blocks']) $(id).tBodies[0].textContent = '';
    $('deadlocks').textContent = '';
    $('critical-summary').textContent = '';
    document.dispatchEvent(new Event('convoy:cleared'));
  }

  async function refresh() {
    say('taking a snapshot...');
    try {
      await refreshStatus();
      let d = null;
      try {
        d = await (await api('/api/snapshot')).json();
      } catch (e) {
        if (!e.tooLarge) throw e;
        // the snapshot is frozen, but its whole history is too large to analyse here: ask for a window
        document.dispatchEvent(new Event('convoy:history'));
        clearAnalysis('The whole history is too large to analyse inside the application: pick a window on the '
          + 'history above (drag over it, or type from and to).');
        say(e.message);
        return;
      }
      document.dispatchEvent(new Event('convoy:history'));
      renderSnapshot(d);
      document.dispatchEvent(new Event('convoy:snapshot'));
      say('');
    } catch (e) {
      say(e.message);
    }
  }

  // Shows a window of the frozen history (from, to: ns since its start; both null: the whole
  // history). Returns its description ({whole, fromNs, toNs, ...}), or null when refused.
  async function pickWindow(from, to) {
    say('analysing the window...');
    try {
      const q = from === null ? '' : '?from=' + Math.max(0, Math.floor(from)) + '&to=' + Math.ceil(to);
      const d = await (await api('/api/window' + q, 'POST')).json();
      renderSnapshot(d);
      document.dispatchEvent(new Event('convoy:snapshot'));
      say('');
      return d.window;
    } catch (e) {
      say(e.message + (e.tooLarge ? ' Pick a shorter window.' : ''));
      return null;
    }
  }

  async function toggle(path, on) {
    try {
      renderStatus(await (await api(path + '?on=' + on, 'POST')).json());
      say('');
    } catch (e) {
      say(e.message);
    }
  }

  for (const a of document.querySelectorAll('a[data-format]')) {
    a.href = withToken('/api/download?format=' + a.dataset.format);
  }
  for (const a of document.querySelectorAll('a[data-report]')) {
    a.href = withToken('/api/report?format=' + a.dataset.report);
  }

  // Perfetto's documented postMessage protocol (perfetto.dev/docs/visualization/deep-linking-to-perfetto-ui):
  // open the UI, post 'PING' until it answers 'PONG', then post {perfetto: {buffer, title, fileName}}.
  // The URL is https://ui.perfetto.dev; the server names it in /api/status so that tests can
  // substitute a local stub. Messages go to its origin only, and only its PONG is heard.
  async function openPerfetto() {
    const url = (status && status.perfetto) || 'https://ui.perfetto.dev';
    const origin = new URL(url).origin;
    const win = window.open(url); // synchronously in the click, or the popup is blocked
    if (!win) {
      say('the browser blocked the Perfetto window: allow pop-ups for this page');
      return;
    }
    let buffer;
    try {
      buffer = await (await api('/api/download?format=chrome')).arrayBuffer();
    } catch (e) {
      say(e.message);
      return;
    }
    const title = 'Convoy ' + ($('mode').textContent || '');
    const fileName = ((status && status.dumpName) || 'convoy') + '.json';
    let tries = 0;
    const timer = setInterval(() => {
      if (++tries > 600 || win.closed) {
        clearInterval(timer);
        window.removeEventListener('message', onMessage);
        if (!win.closed) say('Perfetto did not answer: the trace was not handed over');
        return;
      }
      win.postMessage('PING', origin);
    }, 100);
    function onMessage(evt) {
      if (evt.source !== win || evt.origin !== origin || evt.data !== 'PONG') return;
      clearInterval(timer);
      window.removeEventListener('message', onMessage);
      win.postMessage({ perfetto: { buffer: buffer, title: title, fileName: fileName } }, origin);
      say('trace handed to Perfetto (' + buffer.byteLength + ' bytes)');
    }
    window.addEventListener('message', onMessage);
  }

  // for timeline.js and overview.js; window: what the view shows (the summary's window), null before
  const view = { api: api, showStacks: showStacks, ms: ms, pickWindow: pickWindow, window: null };
  window.convoyView = view;
  $('open-perfetto').addEventListener('click', openPerfetto);
  $('refresh').addEventListener('click', refresh);
  $('toggle-recording').addEventListener('click', () => toggle('/api/recording', !(status && status.recording)));
  $('toggle-contanalysis').addEventListener('click', () => toggle('/api/contanalysis', !(status && status.contentionAnalysis)));
  $('stack-close').addEventListener('click', () => { $('stack-panel').hidden = true; });
  refresh();
})();
