// Local Browser Rendering: miniflare launches the Chrome build it pins from its cache
// (~/.cache/.wrangler/chrome/linux-<version>/chrome-linux64/chrome) and would download it
// when missing, which needs the internet. Where Debian's chromium is installed we put a
// small launcher at that path instead, so the BROWSER binding runs on the local Chromium.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** The browser versions pinned by every installed miniflare (wrangler's and the test pool's). */
function pinnedVersions() {
  const versions = new Set();
  const dirs = [join(root, 'node_modules', 'miniflare')];
  for (const nested of ['wrangler', '@cloudflare/vitest-pool-workers'])
    dirs.push(join(root, 'node_modules', nested, 'node_modules', 'miniflare'));
  for (const dir of dirs) {
    const file = join(dir, 'dist', 'src', 'index.js');
    if (!existsSync(file)) continue;
    for (const m of readFileSync(file, 'utf8').matchAll(/browserVersion\s*[:=]\s*["'](\d+\.\d+\.\d+\.\d+)["']/g))
      versions.add(m[1]);
  }
  return [...versions];
}

export function localBrowserSetup() {
  const chromium = CHROMIUM.find((p) => existsSync(p));
  if (!chromium) {
    console.warn('No local Chromium (apt-get install chromium): PDF and PPTX rendering will fail locally.');
    return false;
  }
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  for (const version of pinnedVersions()) {
    const exe = join(cache, '.wrangler', 'chrome', `linux-${version}`, 'chrome-linux64', 'chrome');
    if (existsSync(exe)) continue;
    mkdirSync(dirname(exe), { recursive: true });
    writeFileSync(
      exe,
      `#!/bin/sh\nexec ${chromium} --no-sandbox --disable-gpu --disable-dev-shm-usage --disable-background-networking --disable-component-update --disable-sync --no-first-run "$@"\n`,
    );
    chmodSync(exe, 0o755);
  }
  return true;
}

if (import.meta.url === `file://${process.argv[1]}`) localBrowserSetup();
