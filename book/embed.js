// Loads the simulator on the pages that embed one: scripts/book.sh puts the page built by scripts/build-page.sh
// into sim/ beside the book; its module defines <flink-state-sim> when it starts, and each element
// mounts its scenario (src/ui/mount.rs).
(function () {
  if (!document.querySelector('flink-state-sim')) return;
  const root = typeof path_to_root === 'string' ? path_to_root : '';
  const base = new URL(root + 'sim/', document.baseURI);
  import(new URL('flink-state-sim.js', base).href)
    .then((m) => m.default({ module_or_path: new URL('flink-state-sim_bg.wasm', base) }))
    .catch((e) => {
      for (const el of document.querySelectorAll('flink-state-sim')) {
        const p = document.createElement('p');
        p.className = 'flink-state-sim-error';
        p.textContent = 'The simulator did not load (' + e + '). Build the book with scripts/book.sh and serve target/book.';
        el.append(p);
      }
    });
})();
