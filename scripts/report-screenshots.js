// Screenshots of a proofpack HTML report for the docs: the top of the page
// (verdict, what was verified, pinned inputs) and the measured points with
// the first point's latency plots. Headless Debian chromium through the
// pinned playwright-core that scripts/test.sh installs under target/js.
// Usage: node report-screenshots.js REPORT.html OUT_TOP.png OUT_PLOTS.png
const { chromium } = require('playwright-core');
const path = require('path');

(async () => {
  const [page_path, top, plots] = process.argv.slice(2).map((p) => path.resolve(p));
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  await page.screenshot({ path: top });
  // The measured-points table and the first point's three plots.
  const box = async (sel) => (await page.locator(sel).first().boundingBox());
  const a = await box('#measured');
  const figs = page.locator('#latency figure.plot');
  const last = await figs.nth(2).boundingBox();
  await page.screenshot({
    path: plots, fullPage: true,
    clip: { x: 0, y: a.y - 10, width: 1100, height: last.y + last.height - a.y + 20 },
  });
  await browser.close();
})().catch((e) => { console.error(e); process.exit(2); });
