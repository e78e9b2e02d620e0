// The environment every local `wrangler` process of this repo runs with (npm start, the e2e
// server, the bench's baseline Workers, the test runner).

/**
 * - No network here or in CI: keep wrangler from phoning home.
 * - `serve: true` (a `wrangler dev` that serves): wrangler's DevTools inspector proxy stays
 *   off unless INSPECT=1. That proxy subscribes to the runtime's Runtime and Network events
 *   (one per subrequest: every D1 query, R2 call and Durable Object call) and buffers each
 *   one until a DevTools window attaches, which under `npm start` never happens: the proxy's
 *   memory grew without bound and every event cost a round trip to wrangler.
 *   wrangler 4.85 has no flag for it; it leaves the proxy off inside a VS Code JavaScript
 *   Debug Terminal (`VSCODE_INSPECTOR_OPTIONS` set), which is the switch used here.
 *   Console output of the Worker is printed either way.
 */
export function wranglerEnv({ serve = false } = {}) {
  const env = { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' };
  if (serve && process.env.INSPECT !== '1') env.VSCODE_INSPECTOR_OPTIONS ??= '{}';
  return env;
}
