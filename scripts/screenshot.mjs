// Takes headless-Chromium screenshots of the page after driving it, so a person can look at them.
// Usage: node scripts/screenshot.mjs URL OUTDIR   (run through scripts/screenshot.sh)
import { chromium } from 'playwright-core';

const [url, out] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
const errors = [];
page.on('pageerror', e => errors.push(String(e)));
page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
await page.goto(url);
await page.waitForSelector('#step');
// Off-screen sections skip rendering (content-visibility: auto, www/style.css): a full-page shot
// renders them all for the moment of the shot, so the timings below measure the page as it is.
const shot = async name => {
  const all = await page.addStyleTag({ content: '* { content-visibility: visible !important; }' });
  await page.screenshot({ path: `${out}/${name}.png`, fullPage: true });
  await all.evaluate(e => e.remove());
  console.log(`${out}/${name}.png`);
};
await shot('00-open');
// seed-001 stepped to the end
while (!(await page.isDisabled('#step'))) await page.click('#step');
await shot('01-seed-001-end');
// back one step before the end: timer moved
await page.click('#reset');
for (let i = 0; i < 3; i++) await page.click('#step');
await shot('02-seed-001-step3');
for (const preset of ['cleanup-harness-min5-max10', 'seed-004-device-status', 'seed-004-device-status-flink-2.3']) {
  await page.selectOption('#preset-select', preset);
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await shot(`03-${preset}-end`);
}
// the 100 k-event workload: how long running it takes, and whether Step stays fast at its end
const timed = async (selector) => page.evaluate(async (sel) => {
  const before = document.querySelector('#progress').textContent;
  const t0 = performance.now();
  document.querySelector(sel).click();
  while (document.querySelector('#progress').textContent === before) await new Promise(r => setTimeout(r, 0));
  return performance.now() - t0;
}, selector);
await page.selectOption('#preset-select', 'what-if-100k-logins');
const first = await timed('#step');
const thousand = await timed('#run-many');
const median10 = async () => {
  const t = [];
  for (let i = 0; i < 10; i++) t.push(await timed('#step'));
  t.sort((a, b) => a - b);
  return t;
};
let many = 0;
for (let i = 0; i < 9; i++) many += await timed('#run-many');
const at10k = await median10();
for (let i = 0; i < 89; i++) many += await timed('#run-many');
const late = await median10();
await shot('05-what-if-100k-at-99k');
const toEnd = await timed('#run-all');
await shot('06-what-if-100k-end');
console.log(`what-if-100k-logins: first Step ${first.toFixed(1)} ms; ×1000 ${thousand.toFixed(0)} ms; ` +
  `98 × ×1000 ${(many / 1000).toFixed(2)} s (${(many / 98).toFixed(0)} ms each); ` +
  `Step at 10 k: median ${at10k[5].toFixed(1)} ms, max ${at10k[9].toFixed(1)} ms; ` +
  `Step at 99 k: median ${late[5].toFixed(1)} ms, max ${late[9].toFixed(1)} ms; the last ~1000 steps to the end ${toEnd.toFixed(0)} ms`);
// seed 000: the six explicit steps, then the workload to its end, with and without retention
for (const preset of ['seed-000-topn-dedup', 'seed-000-topn-dedup-no-retention']) {
  await page.selectOption('#preset-select', preset);
  for (let i = 0; i < 6; i++) await page.click('#step');
  await shot(`07-${preset}-steps`);
  const ms = await timed('#run-all');
  await shot(`08-${preset}-end`);
  console.log(`${preset}: run to the end ${ms.toFixed(0)} ms`);
}
// seed 002: every step of both variants; the timer-churn presets run to the end
for (const preset of ['seed-002-dau-new-users-global-ttl', 'seed-002-dau-new-users-per-operator-ttl']) {
  await page.selectOption('#preset-select', preset);
  while (!(await page.isDisabled('#step'))) await page.click('#step');
  await shot(`09-${preset}-end`);
}
for (const preset of ['timer-churn-min-equals-max', 'timer-churn-wide-gap']) {
  await page.selectOption('#preset-select', preset);
  await timed('#run-all');
  await shot(`10-${preset}-end`);
}
// a broken scenario shows its error
await page.click('.editor summary');
await page.fill('#scenario-json', '{"name": "x", "flink": "2.3", "source": {"name": "s", "schema": [["a", "STRING"]]}, "pipeline": [], "steps": []}');
await page.click('#load');
await shot('04-error');
const kept = await page.inputValue('#scenario-json');
if (!kept.includes('"pipeline": []')) errors.push('the editor lost the text of a scenario that failed to load');
await browser.close();
if (errors.length) { console.error('page errors:\n' + errors.join('\n')); process.exit(1); }
