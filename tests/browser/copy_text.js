// Opens an HTML page in headless Chromium and prints the text a reader
// copies out of it: the body's innerText (tables as tab-separated lines,
// one line a block, nothing hidden by CSS).
// Usage: node copy_text.js PAGE.html
const path = require('path');
const launch = require('./launch.js');

(async () => {
  const page_path = path.resolve(process.argv[2]);
  const browser = await launch();
  const page = await browser.newPage();
  await page.goto('file://' + page_path, { waitUntil: 'load' });
  const text = await page.evaluate(() => document.body.innerText);
  await browser.close();
  process.stdout.write(text.endsWith('\n') ? text : text + '\n');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
