// Opens a proofpack HTML report in headless Chromium (Debian's package)
// through playwright-core and prints what the test asserts on, as JSON:
// console errors, every network request, the checks and verdict in the
// DOM, the plots, and a full-page screenshot written to argv[3].
// Usage: node check_page.js REPORT.html SCREENSHOT.png
const { chromium } = require('playwright-core');
const path = require('path');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const shot = path.resolve(process.argv[3]);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const errors = [];
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const dom = await page.evaluate(() => {
    const rows = [...document.querySelectorAll('#checks tr.check')].map((r) => [r.dataset.checkId, r.dataset.ok]);
    const failures = [...document.querySelectorAll('#failures tr.check')].map((r) => r.dataset.checkId);
    const plots = [...document.querySelectorAll('figure.plot')].map((f) => [f.dataset.point, f.dataset.plot, f.querySelectorAll('svg').length]);
    const sections = [...document.querySelectorAll('main > section')].map((s) => s.id);
    return {
      lang: document.documentElement.lang,
      verdict: document.getElementById('verdict').textContent.trim(),
      rows, failures, plots, sections,
      headings: document.querySelectorAll('h1, h2, h3').length,
      th: document.querySelectorAll('th[scope=col]').length,
      published: [...document.querySelectorAll('tr.published')].map((r) => r.dataset.row),
    };
  });
  await page.screenshot({ path: shot, fullPage: true });
  await browser.close();
  process.stdout.write(JSON.stringify({ errors, requests, dom }));
})().catch((e) => { console.error(e); process.exit(2); });
