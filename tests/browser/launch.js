// Launches Debian's headless Chromium the way every browser test does
// (CHROMIUM overrides the executable): no sandbox, GPU or network chatter.
const { chromium } = require('playwright-core');

module.exports = () => chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
