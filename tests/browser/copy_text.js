// Opens an HTML page in headless Chromium and prints the text a reader
// copies out of it: the body's innerText (tables as tab-separated lines,
// one line a block, nothing hidden by CSS).
// Usage: node copy_text.js PAGE.html
const { chromium } = require('playwright-core');
const path = require('path');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const text = await page.evaluate(() => document.body.innerText);
  await browser.close();
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
