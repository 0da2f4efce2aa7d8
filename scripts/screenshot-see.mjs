// Screenshots of the "See" views after driving the page: seed 004 with an input and a result row
// selected, a stale row's loss, the charts, the inspector; at 1280x800 and at 400 px wide.
// Usage: node scripts/screenshot-see.mjs URL OUTDIR   (run through scripts/screenshot-see.sh)
import { chromium } from 'playwright-core';

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const errors = [];
for (const [width, height, tag] of [[1280, 800, 'wide'], [400, 800, 'narrow']]) {
  const page = await browser.newPage({ viewport: { width, height } });
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('#step');
  const shot = async (name, selector) => {
    const path = `${out}/see-${tag}-${name}.png`;
    if (selector) await (await page.$(selector)).screenshot({ path });
    else await page.screenshot({ path, fullPage: false });
    console.log(path);
  };
  await page.selectOption('#preset-select', 'seed-004-device-status');
  await page.click('#step');
  await page.click('#step');
  await page.locator('#flow').scrollIntoViewIfNeeded();
  await shot('flow-last', '#flow');
  await page.click('#flow-inputs button >> nth=1');
  await shot('flow-input2', '#flow');
  await page.click('#flow-rows button >> nth=0');
  await shot('flow-row', '#flow');
  await page.selectOption('#preset-select', 'seed-001-one-day-two-days');
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await shot('flow-stale', '#flow');
  await shot('charts-seed-001', '#charts');
  await page.selectOption('#preset-select', 'seed-002-dau-new-users-global-ttl');
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await page.click('#inspector summary');
  await shot('inspector-seed-002', '#inspector');
  await shot('charts-seed-002', '#charts');
  await page.locator('#flow').scrollIntoViewIfNeeded();
  await shot('viewport-flow');
  if (tag === 'wide') {
    // What the See views cost per Step on the 100 k-event preset (the page keeps the last 400 actions).
    const timed = async (selector) => page.evaluate(async (sel) => {
      const before = document.querySelector('#progress').textContent;
      const t0 = performance.now();
      document.querySelector(sel).click();
      while (document.querySelector('#progress').textContent === before) await new Promise(r => setTimeout(r, 0));
      return performance.now() - t0;
    }, selector);
    await page.selectOption('#preset-select', 'what-if-100k-logins');
    for (let i = 0; i < 10; i++) await timed('#run-many');
    const t = [];
    for (let i = 0; i < 11; i++) t.push(await timed('#step'));
    t.sort((a, b) => a - b);
    await page.locator('#flow').scrollIntoViewIfNeeded();
    await shot('what-if-100k-10k-flow', '#flow');
    await shot('what-if-100k-10k-charts', '#charts');
    console.log(`what-if-100k-logins at 10 k steps, with the See views: Step median ${t[5].toFixed(1)} ms, max ${t[10].toFixed(1)} ms`);
  }
  await page.close();
}
await browser.close();
if (errors.length) { console.error('page errors:\n' + errors.join('\n')); process.exit(1); }
