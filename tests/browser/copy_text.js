// Opens an HTML page in headless Chromium and prints the text a reader
// copies out of it: the body's innerText (tables as tab-separated lines,
// one line a block, nothing hidden by CSS).
// With --markers, each ordered list item's number (CSS generated content,
// which innerText leaves out) is put before its text first: the text as a
// reader sees it rather than as the clipboard holds it.
// Usage: node copy_text.js PAGE.html [--markers]
const path = require('path');
const launch = require('./launch.js');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const markers = process.argv.includes('--markers');
  const text = await page.evaluate((markers) => {
    if (markers) {
      for (const ol of document.querySelectorAll('ol')) {
        let n = ol.start;
        for (const li of ol.children) {
          if (li.tagName !== 'LI') continue;
          const walker = document.createTreeWalker(li, NodeFilter.SHOW_TEXT,
            { acceptNode: (t) => (t.data.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP) });
          const first = walker.nextNode();
          if (first) first.data = n + '. ' + first.data.replace(/^\s+/, '');
          n += 1;
        }
      }
    }
    return document.body.innerText;
  }, markers);
  await browser.close();
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
