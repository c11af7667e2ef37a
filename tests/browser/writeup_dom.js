// Opens a proofpack HTML report in headless Chromium and prints, as JSON,
// the write-up section as the browser lays it out: each block in order (a
// table as the rendered text of its cells, row by row; any other block as
// its rendered text, innerText: what a reader sees, nothing hidden by CSS),
// and every marked statement (its id, class, whether it is visible, its
// row link).
// Usage: node writeup_dom.js REPORT.html
const { chromium } = require('playwright-core');
const path = require('path');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width: 1300, height: 900 } });
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const found = await page.evaluate(() => {
    const section = document.querySelector('#writeup .writeup');
    if (!section) return { error: 'no write-up section' };
    const blocks = [...section.querySelectorAll('[data-block]')].map((el) => {
      if (el.tagName === 'TABLE') {
        return [...el.querySelectorAll('tr')].map((tr) =>
          [...tr.children].map((cell) => cell.innerText));
      }
      return el.innerText;
    });
    const statements = [...document.querySelectorAll('[data-statement]')].map((el) => ({
      id: el.getAttribute('data-statement'),
      cls: el.className,
      row: el.getAttribute('data-row'),
      visible: el.getClientRects().length > 0,
      in_writeup: section.contains(el),
    }));
    const rows = [...document.querySelectorAll('[id^="check-"]')].map((el) => el.id);
    return { blocks, statements, rows };
  });
  await browser.close();
  process.stdout.write(JSON.stringify(found));
})().catch((e) => { console.error(e); process.exit(1); });
