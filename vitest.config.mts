// Tests inside workerd: the Worker, its D1, R2 and Durable Objects are real local ones.
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { fetch as passThrough, Response as MfResponse, type Request as MfRequest } from 'miniflare';
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { prepareAssets } from './scripts/assets.mjs';
import { prepareIsolates } from './scripts/isolates.mjs';
import { DNS_HOST, STEP_HOSTS, stepServer } from './test/worker/jobs/outbound.ts';

process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

/** The Worker's runtime dependencies (package.json) with drizzle's other entry points; the API reference page's script is served as a file, not imported. */
function prebundled(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as {
    dependencies: Record<string, string>;
  };
  const served = ['@scalar/api-reference'];
  return [
    ...Object.keys(pkg.dependencies).filter((d) => !served.includes(d)),
    'drizzle-orm/d1',
    'drizzle-orm/sqlite-core',
  ];
}

export default defineConfig(async () => {
  // public/ (wrangler.toml [assets], the ASSETS binding): the pool reads it but runs no [build].
  prepareAssets();
  await prepareIsolates(); // build/*.isolate.js, which the Worker imports as text
  const migrations = await readD1Migrations('./migrations');
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          // JOBS_TEST_LIMITS: sandbox CPU and step wall limits (ms) short enough for the jobs tests to hit, and a
          // wall limit long enough for the child-run cap's 300-run tree on a loaded 2-core machine (6 s was not).
          // JOBS_TEST_GRACE_MS: the cancel teardown grace, longer than 1 s so that a nested run
          // that stops at once finishes inside it on a loaded machine.
          bindings: {
            OPS_TOKEN: 'test-ops-token',
            ALLOW_CLOCK_OVERRIDE: 'true',
            TEST_MIGRATIONS: migrations,
            JOBS_TEST_LIMITS: '2000,12000',
            JOBS_TEST_GRACE_MS: '3000',
            // Signs the bounce and complaint reports of test/worker/mail/mail-events.test.ts.
            MAIL_EVENTS_SECRET: 'whsec_dGVzdC1tYWlsLWV2ZW50cy1zZWNyZXQtMzItYnl0ZXM=',
            // Outbound host names resolve through the stub resolver of test/worker/jobs/outbound.ts.
            OUTBOUND_RESOLVER: `https://${DNS_HOST}/dns-query`,
            // Public reads from the edge through caches.default, as npm start has them.
            EDGE_CACHE: 'local',
          },
          // The suite's own volume (thousands of requests on few tokens, one address) must not be
          // throttled: RATE_LIMIT and RATE_LIMIT_ADDRESS get limits no test reaches. The test-only
          // RATE_LIMIT_LOW and RATE_LIMIT_ADDRESS_LOW are the low limits
          // test/worker/platform/ratelimit.test.ts hands the Worker in their place.
          ratelimits: {
            RATE_LIMIT: { simple: { limit: 1_000_000, period: 60 } },
            RATE_LIMIT_ADDRESS: { simple: { limit: 1_000_000, period: 60 } },
            RATE_LIMIT_LOW: { simple: { limit: 3, period: 60 } },
            RATE_LIMIT_ADDRESS_LOW: { simple: { limit: 5, period: 60 } },
          },
          // Test-only: https:// chain steps of the jobs tests reach a stub server; every other host passes through.
          outboundService: async (req: MfRequest) => {
            if (!STEP_HOSTS.includes(new URL(req.url).hostname)) return passThrough(req);
            const res = await stepServer(req as unknown as Request);
            return new MfResponse(await res.arrayBuffer(), { status: res.status, headers: [...res.headers] });
          },
        },
      }),
    ],
    test: {
      include: ['test/worker/**/*.test.ts'],
      // Pure functions (`*.unit.test.ts`) run in Node (vitest.units.config.mts): no runtime to start per file.
      exclude: ['**/node_modules/**', 'test/worker/**/*.unit.test.ts'],
      setupFiles: ['./test/worker/setup.ts'],
      // Each test file starts its own Miniflare: both cores.
      maxWorkers: 2,
      // Each file also loads the Worker's whole module graph: its dependencies pre-bundled, one module each.
      deps: {
        optimizer: {
          ssr: {
            enabled: true,
            // puppeteer's optional dynamic imports of Node modules stay imports (Workers provide them with nodejs_compat).
            rolldownOptions: { external: [/^node:/, 'fs/promises', 'path', 'fs', 'os', 'crypto', 'stream'] },
            include: prebundled(),
          },
        },
      },
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
});
