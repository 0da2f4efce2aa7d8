// Screenshots of driving and the timeline (issue 7), at 1280x800 and 400 px wide, so a person can
// look at them. Usage: node scripts/screenshot-drive.mjs URL OUTDIR (run through
// `SHOTS=drive scripts/screenshot.sh`).
import { chromium } from 'playwright-core';

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const errors = [];
for (const [tag, viewport] of [['1280', { width: 1280, height: 800 }], ['400', { width: 400, height: 800 }]]) {
  const page = await browser.newPage({ viewport });
  page.on('pageerror', e => errors.push(String(e)));
  page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('#step');
  const shot = async (name, full = false) => {
    const path = `${out}/drive-${tag}-${name}.png`;
    // Off-screen sections skip rendering (content-visibility: auto): render them for the shot.
    const all = await page.addStyleTag({ content: '* { content-visibility: visible !important; }' });
    await page.screenshot({ path, fullPage: full });
    await all.evaluate(e => e.remove());
    console.log(path);
    const tl = await page.$('#timeline');
    if (tl) { await tl.screenshot({ path: path.replace('.png', '-timeline.png') }); }
  };
  // seed 001: three steps, one back: the recorded future, fork, the keys help
  for (let i = 0; i < 3; i++) await page.click('#step');
  await page.click('#step-back');
  await shot('01-seed-001-back');
  await page.keyboard.press('?');
  await shot('02-keys');
  await page.keyboard.press('Escape');
  // seed 004 (a 2-second run, LATEST_BY_TIME, a global outer key) at its end
  await page.selectOption('#preset-select', 'seed-004-device-status');
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await shot('03-seed-004-end', true);
  // the harness: skipped input, then a drag of the last input
  await page.selectOption('#preset-select', 'cleanup-harness-min5-max10');
  for (let i = 0; i < 5; i++) await page.click('#step');
  await page.click('button.skip[aria-label="skip step 2 and replay"]');
  await shot('04-harness-skipped');
  await page.click('#undo-skip');
  // seed 002 (days, state TTL, a global key) at its end
  await page.selectOption('#preset-select', 'seed-002-dau-new-users-global-ttl');
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await shot('05-seed-002-end', true);
  // the 100 k workload, 20 k steps in: many keys, following now
  await page.selectOption('#preset-select', 'what-if-100k-logins');
  for (let i = 0; i < 20; i++) await page.click('#run-many');
  await shot('06-what-if-20k');
  await page.close();
}
await browser.close();
if (errors.length) { console.error('page errors:\n' + errors.join('\n')); process.exit(1); }
