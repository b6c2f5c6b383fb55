/* global module, process */
// Puppeteer (pulled in by @daisy/ace-cli, the EPUB accessibility checker) drives Debian's Chromium; it must not
// download a browser of its own at `npm install` (no such download is reachable here, and one is enough).
module.exports = {
  skipDownload: true,
  executablePath: process.env.PUPPETEER_EXECUTABLE_PATH || '/usr/bin/chromium',
}
