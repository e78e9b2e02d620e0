#!/usr/bin/env node
// The API's OpenAPI document without a running Worker: the route table is built in Node
// (Vite's module runner, with the Node suite's config: stubs for `cloudflare:*`, text
// modules) and the document made by the same function /v1/openapi.json serves
// (src/meta/reference-routes.ts), with PUBLIC_ORIGIN from wrangler.toml.
// `node scripts/openapi.mjs <file>` writes it; `node scripts/openapi.mjs --lint` checks it
// with `redocly lint` (redocly.yaml: the recommended rules), offline: no telemetry, no
// update check, no remote reference.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfigFromFile, runnerImport } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** PUBLIC_ORIGIN of wrangler.toml's [vars]. */
function publicOrigin() {
  const m = /^PUBLIC_ORIGIN\s*=\s*"([^"]+)"/m.exec(readFileSync(join(root, 'wrangler.toml'), 'utf8'));
  if (!m) throw new Error('wrangler.toml sets no PUBLIC_ORIGIN');
  return m[1];
}

/** The document, as an object. */
export async function openApiDocument() {
  const loaded = await loadConfigFromFile(
    { command: 'serve', mode: 'test' },
    join(root, 'vitest.node.config.mts'),
    root,
    'error',
  );
  const { test: _test, ...config } = loaded.config;
  const load = (file) => runnerImport(join(root, file), { ...config, configFile: false, root, logLevel: 'error' });
  const [{ module: app }, { module: reference }] = [
    await load('src/app.ts'),
    await load('src/meta/reference-routes.ts'),
  ];
  return reference.apiDocument(app.buildApi(), { PUBLIC_ORIGIN: publicOrigin() });
}

/**
 * Runs redocly lint on the document and prints its problems; answers 0 when there is none,
 * warnings included (redocly itself fails only on errors).
 */
export async function lintDocument() {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
  try {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(await openApiDocument(), null, 1));
    const r = spawnSync(
      join(root, 'node_modules', '.bin', 'redocly'),
      ['lint', file, '--config', join(root, 'redocly.yaml'), '--format', 'json', '--max-problems', '100000'],
      {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
      },
    );
    let report;
    try {
      report = JSON.parse(r.stdout);
    } catch {
      // Its boxed notice that Node 20 support ends is left out: the rest is the lint's.
      console.error(`${r.stdout}${r.stderr}`.replace(/\n? *╔[\s\S]*?╝\n?/g, '\n').trim());
      return r.status || 1;
    }
    const { errors, warnings } = report.totals;
    const byRule = new Map();
    for (const p of report.problems) {
      const at = p.location?.[0]?.pointer ?? '';
      byRule.set(p.ruleId, [...(byRule.get(p.ruleId) ?? []), `${p.severity} ${p.ruleId}: ${p.message} (${at})`]);
    }
    // At most five lines per rule: a rule every operation breaks would otherwise print hundreds.
    for (const [rule, lines] of byRule) {
      for (const line of lines.slice(0, 5)) console.log(line);
      if (lines.length > 5) console.log(`... and ${lines.length - 5} more of ${rule}`);
    }
    console.log(`redocly lint (recommended rules, redocly.yaml): ${errors} errors, ${warnings} warnings`);
    return errors || warnings ? 1 : 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = process.argv[2];
  if (arg === '--lint') process.exit(await lintDocument());
  if (!arg) {
    console.error('usage: node scripts/openapi.mjs <file> | --lint');
    process.exit(2);
  }
  writeFileSync(arg, JSON.stringify(await openApiDocument(), null, 2) + '\n');
}
