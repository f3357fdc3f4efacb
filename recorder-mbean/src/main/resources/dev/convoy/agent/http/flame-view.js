// Convoy web view: the "Flame graph" section. Draws the blocked and waited time by stack of what
// the view shows (the frozen snapshot, or the window of it picked on the overview; /api/flame)
// with flame.js each time app.js sends the event 'convoy:snapshot' on document. Loads nothing
// from the internet.
'use strict';
(function () {
  const token = new URLSearchParams(location.search).get('token');
  const root = document.getElementById('flame');
  const note = document.getElementById('flame-message');

  async function load() {
    note.textContent = 'loading the flame graph...';
    try {
      const resp = await fetch('/api/flame', { headers: token ? { 'X-Convoy-Token': token } : {}, cache: 'no-store' });
      if (!resp.ok) {
        let msg = resp.status + ' ' + resp.statusText;
        try { msg = (await resp.json()).error || msg; } catch (e) { /* not JSON */ }
        throw new Error(msg);
      }
      ConvoyFlame.mount(root, await resp.json());
      note.textContent = '';
    } catch (e) {
      note.textContent = 'flame graph: ' + e.message;
    }
  }

  document.addEventListener('convoy:snapshot', load);
  document.addEventListener('convoy:cleared', () => {
    root.textContent = '';
    note.textContent = 'flame graph: pick a window on the history above';
  });
})();
