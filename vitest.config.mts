// Tests inside workerd: the Worker, its D1, R2 and Durable Objects are real local ones.
import { cloudflareTest, readD1Migrations } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

export default defineConfig(async () => {
  const migrations = await readD1Migrations('./migrations');
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: './wrangler.toml' },
        miniflare: {
          bindings: { OPS_TOKEN: 'test-ops-token', ALLOW_CLOCK_OVERRIDE: 'true', TEST_MIGRATIONS: migrations },
        },
      }),
    ],
    test: {
      include: ['test/worker/**/*.test.ts'],
      setupFiles: ['./test/worker/setup.ts'],
      testTimeout: 30_000,
      hookTimeout: 30_000,
    },
  };
});
