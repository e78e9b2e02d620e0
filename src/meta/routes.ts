/** The API describes itself: the OpenAPI 3.1 document and a browsable reference page. */
import { z } from 'zod';
import type { Api } from '../core/api';

const esc = (s: unknown) => String(s ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

interface Op {
  summary?: string;
  tags?: string[];
  security?: unknown[];
  requestBody?: { content?: Record<string, unknown> };
  responses?: Record<string, { description?: string; content?: Record<string, unknown> }>;
}

/** Renders the OpenAPI document as one self-contained HTML page (no CDN: works offline). */
export function referencePage(doc: { paths?: Record<string, Record<string, Op>> }): string {
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? 'other';
      const body = op.requestBody?.content ? Object.keys(op.requestBody.content).join(', ') : '';
      const responses = Object.entries(op.responses ?? {})
        .filter(([code]) => code !== 'default')
        .map(([code, r]) => `<span class="code c${code[0]}">${esc(code)}</span> ${esc(r.description)}${r.content ? ` <em>${esc(Object.keys(r.content).join(', '))}</em>` : ''}`)
        .join('<br>');
      const row = `<tr><td class="m ${method}">${method.toUpperCase()}</td><td><code>${esc(path)}</code>${op.security ? ' 🔒' : ''}</td><td>${esc(op.summary)}</td><td>${esc(body)}</td><td>${responses}</td></tr>`;
      byTag.set(tag, [...(byTag.get(tag) ?? []), row]);
    }
  }
  const sections = [...byTag.entries()]
    .map(([tag, rows]) => `<h2 id="${esc(tag)}">${esc(tag)}</h2><table><tr><th>Method</th><th>Path</th><th>What</th><th>Body</th><th>Responses</th></tr>${rows.join('')}</table>`)
    .join('');
  const nav = [...byTag.keys()].map((t) => `<a href="#${esc(t)}">${esc(t)}</a>`).join(' · ');
  return `<!doctype html><html><head><meta charset="utf-8"><title>API reference</title><style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse;width:100%;margin-bottom:2rem}
td,th{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}code{font-size:13px}
.m{font-weight:bold;font-family:monospace}.get{color:#1a7f37}.post{color:#9a6700}.put{color:#0969da}.patch{color:#8250df}.delete{color:#cf222e}
.code{font-family:monospace;padding:0 .3rem;border-radius:3px;background:#eee}.c2{background:#dafbe1}.c4{background:#ffebe9}
</style></head><body><h1>API reference</h1><p>Generated from <a href="/v1/openapi.json">/v1/openapi.json</a>. Authenticate with <code>Authorization: Bearer &lt;token&gt;</code> (🔒).</p><p>${nav}</p>${sections}</body></html>`;
}

export function metaRoutes(api: Api): void {
  let cached: object | null = null;
  let cachedJson: string | null = null;
  const doc = () => (cached ??= api.openApiDocument());
  api.get('/v1/openapi.json', {
    summary: 'The OpenAPI 3.1 document of this API',
    tag: 'meta',
    auth: 'none',
    responses: {
      200: {
        description: 'OpenAPI document',
        type: 'application/json',
        schema: z.object({ openapi: z.literal('3.1.0'), info: z.object({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }).passthrough(),
      },
    },
    // The document is large and never changes while the Worker runs: serialise it once.
    handler: () => new Response((cachedJson ??= JSON.stringify(doc())), { headers: { 'Content-Type': 'application/json' } }),
  });
  api.get('/v1/docs', {
    summary: 'Browsable API reference',
    tag: 'meta',
    auth: 'none',
    responses: { 200: { description: 'HTML page', type: 'text/html' } },
    handler: () =>
      new Response(referencePage(doc() as never), {
        headers: { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'" },
      }),
  });
}
