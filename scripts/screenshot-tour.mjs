// Screenshots of the first visit (the tour's first steps) and the bookmarks, at 1280x800 and
// 400 px wide, each in a fresh browser context (an empty localStorage: a first visitor).
// Usage: node scripts/screenshot-tour.mjs URL OUTDIR (run through `SHOTS=tour scripts/screenshot.sh`).
import { chromium } from 'playwright-core';

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const errors = [];
for (const [tag, viewport] of [['1280', { width: 1280, height: 800 }], ['400', { width: 400, height: 800 }]]) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('#tour');
  const shot = async (name) => {
    const path = `${out}/tour-${tag}-${name}.png`;
    await page.screenshot({ path });
    console.log(path);
  };
  await shot('01-first-step');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#tour-count')?.textContent === 'Tour 2 / 6');
  await shot('02-timeline');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction(() => document.querySelector('#tour-count')?.textContent === 'Tour 5 / 6');
  await shot('05-result');
  await page.keyboard.press('Escape');
  await page.waitForSelector('#tour', { state: 'detached' });
  // Back to the start, then the next bookmark.
  await page.goto(url + '?preset=seed-001-one-day-two-days&step=0');
  await page.waitForSelector('#bm-next');
  await page.click('#bm-next');
  await page.waitForFunction(() => document.querySelector('#progress')?.textContent === 'step 4 / 4');
  await page.locator('#bookmarks').scrollIntoViewIfNeeded();
  await shot('10-bookmarks-seed-001');
  await page.locator('#bookmarks').screenshot({ path: `${out}/tour-${tag}-11-bookmarks-list.png` });
  await page.selectOption('#preset-select', 'seed-002-dau-new-users-global-ttl');
  await page.waitForSelector('#bookmarks .bm-jump');
  await page.locator('#bookmarks').screenshot({ path: `${out}/tour-${tag}-12-bookmarks-seed-002.png` });
  console.log('url after the jump and the preset change:', page.url());
  await context.close();
}
await browser.close();
if (errors.length) { console.error('page errors:\n' + errors.join('\n')); process.exit(1); }
