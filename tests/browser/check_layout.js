// Opens a proofpack HTML report in headless Chromium at a given width and
// prints, as JSON, what the layout test asserts on: the page's horizontal
// overflow, every table cell narrower than its column header's text, and
// where the first failed check's detail is relative to the first screen.
// Usage: node check_layout.js REPORT.html SCREENSHOT.png WIDTH HEIGHT
const { chromium } = require('playwright-core');
const path = require('path');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const shot = path.resolve(process.argv[3]);
  const width = parseInt(process.argv[4], 10);
  const height = parseInt(process.argv[5], 10);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: { width, height } });
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const layout = await page.evaluate(() => {
    const doc = document.documentElement;
    // The width of a header's text as laid out (not the cell's box).
    const textWidth = (el) => {
      const r = document.createRange();
      r.selectNodeContents(el);
      return r.getBoundingClientRect().width;
    };
    const narrow = [];
    let cells = 0;
    for (const table of document.querySelectorAll('table')) {
      if (table.getClientRects().length === 0) continue; // in a closed <details>
      const heads = [...table.querySelectorAll('thead th')];
      for (const row of table.querySelectorAll('tbody tr')) {
        [...row.children].forEach((td, i) => {
          const th = heads[i];
          if (!th) return;
          cells += 1;
          const need = textWidth(th);
          const have = td.getBoundingClientRect().width;
          if (have + 0.5 < need) {
            narrow.push({ table: table.closest('section') ? table.closest('section').id : '?',
                          column: th.textContent, cell: have, header: need });
          }
        });
      }
    }
    const overflowing = [...document.querySelectorAll('body *')]
      .filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 0.5)
      .slice(0, 5)
      .map((e) => e.tagName + '.' + e.className);
    const first = document.querySelector('#failures tr.check td.detail');
    let detail = null;
    if (first) {
      const r = first.getBoundingClientRect();
      const d = first.querySelector('.d') || first;
      detail = { top: r.top, bottom: r.bottom, width: r.width, text_top: d.getBoundingClientRect().top,
                 text: d.textContent.slice(0, 80), viewport: window.innerHeight };
    }
    const widths = (sel) => [...document.querySelectorAll(sel)].map((e) => e.getBoundingClientRect().width);
    return {
      scroll_width: doc.scrollWidth, client_width: doc.clientWidth,
      overflowing, narrow: narrow.slice(0, 20), narrow_count: narrow.length, cells,
      first_failure_detail: detail,
      failure_detail_widths: widths('#failures td.detail'),
    };
  });
  await page.screenshot({ path: shot, fullPage: false });
  await browser.close();
  process.stdout.write(JSON.stringify(layout));
})().catch((e) => { console.error(e); process.exit(2); });
