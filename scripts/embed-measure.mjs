// Measures the first <flink-state-sim> of a page (the book's first simulator: cleanup-timers.html),
// or the first that matches SELECTOR,
// at window widths 1280 and 400 px, in headless Chromium, as it opens and stepped to its last step:
// its height, its width, the height of each part inside it, and whether anything sticks out of it.
// Sections out of view skip rendering (content-visibility: auto) and would count as their 480 px
// placeholder: every section is rendered for the measure. With SHOTS=DIR, also screenshots of it.
// Usage: node scripts/embed-measure.mjs URL [SELECTOR]   (scripts/embed-measure.sh builds and serves the book)
import { chromium } from 'playwright-core';

const [url, selector = 'flink-state-sim'] = process.argv.slice(2);
const tag = selector === 'flink-state-sim' ? 'first-sim' : selector.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '');
const shots = process.env.SHOTS;
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const errors = [];
for (const width of [1280, 400]) {
  const page = await browser.newPage({ viewport: { width, height: 800 } });
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  const sim = page.locator(selector).first();
  // Mounted, and every scheduled render done (data-settled, src/ui/settled.rs).
  const settled = sel => document.querySelector(sel)?.shadowRoot?.querySelector('.fss.embed[data-settled]');
  await page.waitForFunction(settled, selector, { timeout: 30000 });
  await sim.evaluate(el => {
    const style = document.createElement('style');
    style.textContent = '* { content-visibility: visible !important; }';
    el.shadowRoot.append(style);
  });
  for (const when of ['open', 'end']) {
    if (when === 'end') {
      const step = sim.locator('#step');
      for (let i = 0; i < 50 && !(await step.isDisabled()); i++) await step.click();
      await page.waitForFunction(settled, selector, { timeout: 30000 });
    }
    const m = await sim.evaluate(el => {
      const fss = el.shadowRoot.querySelector('.fss.embed');
      const box = fss.getBoundingClientRect();
      const parts = [...fss.children, ...fss.querySelectorAll(':scope > .columns > *, :scope > .columns > .flow > *')]
        .map(c => [`${c.tagName.toLowerCase()}${c.id ? '#' + c.id : ''}.${c.className}`.slice(0, 48),
                   Math.round(c.getBoundingClientRect().height)])
        .filter(p => p[1] > 0);
      const out = [...fss.querySelectorAll('*')].filter(e => {
        const r = e.getBoundingClientRect();
        if (r.width === 0 || r.right <= box.right + 0.5) return false;
        for (let a = e.parentElement; a && a !== fss; a = a.parentElement) {
          if (getComputedStyle(a).overflowX !== 'visible') return false;
        }
        return true;
      }).map(e => `${e.tagName}#${e.id}.${e.className?.baseVal ?? e.className}: ${Math.round(e.getBoundingClientRect().right)}`);
      return { height: Math.round(el.getBoundingClientRect().height), width: Math.round(box.width), parts, out,
               scroll: fss.scrollWidth > fss.clientWidth ? `${fss.scrollWidth} > ${fss.clientWidth}` : 'none' };
    });
    console.log(`window ${width} px, ${when}: the simulator is ${m.width} px wide, ${m.height} px tall; `
      + `wider than it: ${m.out.length ? m.out.join(', ') : 'nothing'}; sideways scroll: ${m.scroll}`);
    for (const [what, h] of m.parts) console.log(`  ${String(h).padStart(5)} px  ${what}`);
    if (shots) {
      // mdBook's sticky menu bar would cover the top of a tall element's shot.
      await page.addStyleTag({ content: '#mdbook-menu-bar, #menu-bar, .menu-bar { display: none !important; }' });
      await sim.scrollIntoViewIfNeeded();
      await sim.screenshot({ path: `${shots}/${tag}-${width}-${when}.png` });
      console.log(`  ${shots}/${tag}-${width}-${when}.png`);
    }
  }
  await page.close();
}
await browser.close();
if (errors.length) { console.error('errors:\n' + errors.join('\n')); process.exit(1); }
