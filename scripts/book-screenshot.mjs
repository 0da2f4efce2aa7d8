// Screenshots of the built book's chapters with their embedded simulators, at 1280×800 and
// 400 px wide, after every simulator has rendered; fails on a page error or a simulator that did
// not mount. Usage: node scripts/book-screenshot.mjs URL OUTDIR CHAPTER…   (scripts/book-screenshot.sh)
import { chromium } from 'playwright-core';

const [url, out, ...chapters] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const errors = [];
for (const [width, height] of [[1280, 800], [400, 800]]) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', e => errors.push(`${page.url()}: ${e}`));
  page.on('console', m => { if (m.type() === 'error') errors.push(`${page.url()}: ${m.text()}`); });
  for (const chapter of chapters) {
    await page.goto(`${url}/${chapter}.html`);
    const count = await page.locator('flink-state-sim').count();
    // Every element mounted (its shadow root holds the controls) or showed its error.
    await page.waitForFunction(() => [...document.querySelectorAll('flink-state-sim')].every(
      el => el.shadowRoot?.querySelector('button') || el.querySelector('.flink-state-sim-error')), null, { timeout: 20000 });
    const failed = await page.locator('.flink-state-sim-error').allTextContents();
    for (const f of failed) errors.push(`${chapter}: ${f}`);
    // Every iframe of the simulator rendered its controls too.
    for (const frame of page.frames().filter(f => f !== page.mainFrame())) {
      await frame.waitForSelector('#step', { timeout: 20000 });
    }
    let n = 0;
    for (const frame of await page.locator('iframe').all()) {
      await frame.scrollIntoViewIfNeeded();
      await frame.screenshot({ path: `${out}/${chapter}-${width}-iframe${n++}.png` });
    }
    // The first simulator in view.
    if (count > 0) await page.locator('flink-state-sim').first().scrollIntoViewIfNeeded();
    const name = `${out}/${chapter}-${width}`;
    await page.screenshot({ path: `${name}.png` });
    // Off-screen sections skip rendering (content-visibility: auto): render them for the shot.
    const all = await page.addStyleTag({ content: '* { content-visibility: visible !important; }' });
    await page.screenshot({ path: `${name}-full.png`, fullPage: true });
    await all.evaluate(e => e.remove());
    // The first simulator, clicked (it takes no input until then) and stepped to its end.
    if (count > 0) {
      const sim = page.locator('flink-state-sim').first();
      const step = sim.locator('#step');
      for (let i = 0; i < 12 && !(await step.isDisabled()); i++) await step.click();
      await sim.screenshot({ path: `${name}-stepped.png` });
    }
    // A chapter's demo buttons (the embedding chapter drives a handle): click each, print what it shows.
    for (const button of await page.locator('.demo-buttons button').all()) {
      await button.click();
      console.log(`  ${await button.textContent()} → ${await page.locator('.demo-buttons output').textContent()}`);
    }
    console.log(`${name}.png, ${name}-full.png${count ? `, ${name}-stepped.png` : ''}: ${count} simulators`);
  }
  await page.close();
}
await browser.close();
if (errors.length) { console.error('errors:\n' + errors.join('\n')); process.exit(1); }
