// Convoy flame graphs: blocked and waited time by stack, drawn by d3-flame-graph on d3.
// Shared by the flame graph file (--format flamegraph) and the web view. Loads nothing.
// ConvoyFlame.mount(element, data) with data as FlameStacks.writeJson writes it:
// {unit: 'ns', totalNs, frames: [names], stacks: [[ns, frame, frame, ...], ...]}, each stack
// outermost first, its first frame the state (blocked, waited, idle, held), its second the monitor class.
// The first view is contention (blocked and waited); idle waits have a view of their own, and so has
// held: the owners' stacks of long blocks, weighted by the time the blocked threads lost (the same
// time as some blocked stacks, so never added to another view).
'use strict';
(function (global) {
  function fmt(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(2) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(2) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(1) + ' \u00b5s';
    return ns + ' ns';
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The tree d3-flame-graph reads ({name, value, children}, value = the time of all stacks
  // through the node) of the stacks whose state and class pass keep(state, class).
  function tree(data, keep) {
    const root = { name: 'all', value: 0, children: [], kids: new Map() };
    for (const s of data.stacks) {
      if (!keep(data.frames[s[1]], data.frames[s[2]])) continue;
      const v = s[0];
      root.value += v;
      let node = root;
      for (let i = 1; i < s.length; i++) {
        const name = data.frames[s[i]];
        let c = node.kids.get(name);
        if (!c) {
          c = { name: name, value: 0, children: [], kids: new Map() };
          node.kids.set(name, c);
          node.children.push(c);
        }
        c.value += v;
        node = c;
      }
    }
    (function strip(n) { delete n.kids; n.children.forEach(strip); })(root);
    return root;
  }

  // The whole stacks below a node: [{frames (outermost first, from the root's child), ns}],
  // the ones with the most time first.
  function stacksBelow(node, path) {
    const out = [];
    (function walk(n, p) {
      const q = p.concat([n.name]);
      let self = n.value;
      for (const c of n.children || []) { self -= c.value; walk(c, q); }
      if (self > 0) out.push({ frames: q, ns: self });
    })(node, path);
    out.sort((a, b) => b.ns - a.ns);
    return out;
  }

  function classes(data) {
    const total = new Map();
    for (const s of data.stacks) {
      if (data.frames[s[1]] === 'held') continue;
      const c = data.frames[s[2]];
      total.set(c, (total.get(c) || 0) + s[0]);
    }
    return Array.from(total.entries()).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  }

  // Lines of a Java stack trace, innermost first, of frames outermost first (state and class dropped).
  function trace(frames) {
    return frames.slice(2).reverse().map((f) => 'at ' + f).join('\n');
  }

  function mount(root, data) {
    root.classList.add('convoy-flame');
    root.textContent = '';
    const controls = el('div', 'flame-controls');
    const view = el('select', 'flame-view');
    view.title = 'which time to show';
    for (const [value, label] of [['contention', 'contention: blocked and waited'], ['blocked', 'blocked only'],
      ['waited', 'waited only'], ['idle', 'idle only (not contention)'], ['all', 'all: contention and idle'],
      ['held', 'held: where the owners held the locks of long blocks']]) {
      const o = el('option', null, label);
      o.value = value;
      view.appendChild(o);
    }
    for (const [c, ns] of classes(data)) {
      const o = el('option', null, 'class ' + c + ' (' + fmt(ns) + ')');
      o.value = 'class:' + c;
      view.appendChild(o);
    }
    const search = el('input', 'flame-search');
    search.type = 'search';
    search.placeholder = 'search frames';
    const reset = el('button', 'flame-reset', 'Reset zoom');
    reset.type = 'button';
    const total = el('span', 'flame-total');
    controls.append(view, search, reset, total);
    const details = el('div', 'flame-details');
    const chartEl = el('div', 'flame-chart');
    const panel = el('div', 'flame-stack');
    panel.hidden = true;
    root.append(controls, details, chartEl, panel);

    let chart = null;
    let shown = null;

    function showStacks(d) {
      const path = d.ancestors().reverse().slice(1).map((n) => n.data.name);
      panel.textContent = '';
      const head = el('div', 'flame-stack-head');
      const title = el('b', 'flame-stack-title', path.length === 0 ? 'all stacks'
        : path.length === 1 ? path[0] : path.length === 2 ? path[0] + ' on ' + path[1]
          : path[0] + ' on ' + path[1] + ' in ' + path[path.length - 1]);
      const close = el('button', 'flame-stack-close', 'close');
      close.type = 'button';
      close.addEventListener('click', () => { panel.hidden = true; });
      head.append(title, close);
      panel.appendChild(head);
      const pct = shown.value > 0 ? ' (' + (100 * d.data.value / shown.value).toFixed(1) + '% of the view)' : '';
      panel.appendChild(el('p', 'flame-stack-sum', fmt(d.data.value) + pct));
      const below = stacksBelow(d.data, path.slice(0, -1));
      const max = 20;
      panel.appendChild(el('div', null, below.length > max ? 'The ' + max + ' stacks with the most time of '
        + below.length + ':' : below.length === 1 ? 'Its stack:' : 'Its ' + below.length + ' stacks:'));
      for (const s of below.slice(0, max)) {
        const h = el('div', 'flame-stack-item', s.frames[0] + ' on ' + s.frames[1] + ': ' + fmt(s.ns));
        const pre = el('pre', 'flame-stack-frames', trace(s.frames));
        panel.append(h, pre);
      }
      panel.hidden = false;
    }

    function draw() {
      const v = view.value;
      const keep = v === 'all' ? (state) => state !== 'held'
        : v === 'contention' ? (state) => state !== 'idle' && state !== 'held'
        : v === 'blocked' || v === 'waited' || v === 'idle' || v === 'held' ? (state) => state === v
          : (state, cls) => state !== 'held' && cls === v.slice('class:'.length);
      shown = tree(data, keep);
      total.textContent = 'total ' + fmt(shown.value);
      if (chart) chart.destroy();
      chartEl.textContent = '';
      panel.hidden = true;
      if (shown.value === 0) {
        chartEl.appendChild(el('p', 'flame-empty', v === 'idle' ? 'No idle time recorded.'
          : v === 'held' ? 'No owner\'s side recorded (agent option ownerstacks; blocks longer than its threshold).'
          : 'No blocked or waited time recorded' + (v === 'contention' ? ' apart from idle waits.' : '.')));
        chart = null;
        return;
      }
      drawnWidth = chartEl.clientWidth;
      chart = global.flamegraph.default()
        .width(Math.max(320, chartEl.clientWidth || 960))
        .cellHeight(18)
        .minFrameSize(1)
        .transitionDuration(250)
        .setLabelHandler((d) => d.data.name + ' (' + fmt(d.data.value) + ', '
          + (100 * d.data.value / shown.value).toFixed(1) + '%)')
        .setDetailsElement(details)
        .setSearchHandler((results, sum, all) => {
          details.textContent = 'search: ' + fmt(sum) + ' of ' + fmt(all) + ' ('
            + (all > 0 ? (100 * sum / all).toFixed(1) : '0.0') + '%) in ' + results.length + ' frames';
        })
        .onClick(showStacks);
      global.d3.select(chartEl).datum(shown).call(chart);
      if (search.value) chart.search(search.value);
    }

    // A window that changes width draws the graph again at the new width (zoom and panel reset).
    let drawnWidth = 0, resizeTimer = 0;
    global.addEventListener('resize', () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => {
        if (chart && Math.abs(chartEl.clientWidth - drawnWidth) >= 2) draw();
      }, 150);
    });

    view.addEventListener('change', draw);
    search.addEventListener('input', () => {
      if (!chart) return;
      if (search.value) chart.search(search.value); else chart.clear();
    });
    reset.addEventListener('click', () => {
      if (chart) chart.resetZoom();
      panel.hidden = true;
    });
    draw();
    return { redraw: draw };
  }

  global.ConvoyFlame = { mount: mount, tree: tree, format: fmt };
})(window);
