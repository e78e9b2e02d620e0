/**
 * The interactive explorer served at GET /gql: one self-contained HTML page (no CDN, no
 * external script or style), so it works offline and under a strict CSP. GraphiQL itself
 * would have to be inlined (~9 MB in @graphql-yoga/render-graphiql) into the one Worker
 * bundle every request of the platform loads; this page is ~6 KB. It edits a query and
 * its variables, keeps the bearer token in the browser's localStorage, POSTs to /gql and
 * shows the schema (types, fields, arguments) from an introspection query.
 */
export const EXPLORER_HTML = /* html */ `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>GraphQL explorer</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
*{box-sizing:border-box}body{margin:0;font:14px system-ui,sans-serif;display:grid;grid-template-columns:1fr 1fr 22rem;grid-template-rows:auto 1fr;height:100vh}
header{grid-column:1/4;display:flex;gap:.5rem;align-items:center;padding:.5rem;background:#222;color:#eee}
header input{flex:1;max-width:28rem;font:inherit;padding:.25rem}button{font:inherit;padding:.25rem 1rem;cursor:pointer}
section{display:flex;flex-direction:column;min-height:0;border-right:1px solid #ccc}
textarea,pre{flex:1;margin:0;padding:.5rem;font:13px ui-monospace,monospace;border:0;resize:none;overflow:auto;white-space:pre}
textarea#variables{flex:0 0 8rem;border-top:1px solid #ccc}h2{font-size:12px;margin:0;padding:.25rem .5rem;background:#eee;text-transform:uppercase}
#docs{overflow:auto;padding:.5rem;font:12px ui-monospace,monospace}#docs b{color:#0550ae}#docs i{color:#6f42c1;font-style:normal}#docs div{margin-bottom:.75rem}
</style></head><body>
<header><strong>/gql</strong><label for="token">Bearer token</label><input id="token" type="password" autocomplete="off" placeholder="token (kept in this browser)">
<button id="run" title="Ctrl+Enter">Run</button><span id="status"></span></header>
<section><h2>Query</h2><textarea id="query" spellcheck="false">{
  me { username timezone }
  docs(limit: 10) { id name type summary url updated public shared { id name type } tags { id name type } }
}</textarea><h2>Variables (JSON)</h2><textarea id="variables" spellcheck="false">{}</textarea></section>
<section><h2>Result</h2><pre id="result"></pre></section>
<section><h2>Schema</h2><div id="docs">loading…</div></section>
<script>
const $ = (id) => document.getElementById(id);
const store = window.localStorage;
$('token').value = store.getItem('gql-token') || '';
$('query').value = store.getItem('gql-query') || $('query').value;
async function gql(query, variables) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json' };
  const token = $('token').value.trim();
  if (token) headers.Authorization = 'Bearer ' + token;
  const res = await fetch(location.pathname, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  return { status: res.status, body: await res.json().catch(() => null) };
}
async function run() {
  store.setItem('gql-token', $('token').value.trim());
  store.setItem('gql-query', $('query').value);
  let variables;
  try { variables = JSON.parse($('variables').value || '{}'); } catch (e) { $('result').textContent = 'Variables are not JSON: ' + e.message; return; }
  $('status').textContent = '…';
  const t = performance.now();
  const { status, body } = await gql($('query').value, variables);
  $('status').textContent = 'HTTP ' + status + ' in ' + Math.round(performance.now() - t) + ' ms';
  $('result').textContent = JSON.stringify(body, null, 2);
}
const typeName = (t) => (t.kind === 'NON_NULL' ? typeName(t.ofType) + '!' : t.kind === 'LIST' ? '[' + typeName(t.ofType) + ']' : t.name);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
async function schema() {
  const ref = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
  const q = '{ __schema { types { name kind description fields { name description args { name type { ' + ref + ' } } type { ' + ref + ' } } enumValues { name } } } }';
  const { body } = await gql(q, {});
  const types = (body && body.data ? body.data.__schema.types : []).filter((t) => !t.name.startsWith('__') && ['OBJECT', 'INTERFACE', 'ENUM'].includes(t.kind));
  types.sort((a, b) => (a.name === 'Query' ? -1 : b.name === 'Query' ? 1 : a.name.localeCompare(b.name)));
  $('docs').innerHTML = types.map((t) => '<div><b>' + esc(t.name) + '</b>' + (t.description ? ' — ' + esc(t.description) : '') + '<br>' +
    (t.fields || []).map((f) => '&nbsp;&nbsp;' + esc(f.name) + (f.args.length ? '(' + f.args.map((a) => esc(a.name) + ': ' + esc(typeName(a.type))).join(', ') + ')' : '') + ': <i>' + esc(typeName(f.type)) + '</i>').join('<br>') +
    (t.enumValues || []).map((v) => '&nbsp;&nbsp;' + esc(v.name)).join('<br>') + '</div>').join('');
}
$('run').onclick = run;
document.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); run(); } });
schema();
</script></body></html>`;

/** The page, under a CSP that lets it run only its own inline code and talk only to this origin. */
export function explorerPage(): Response {
  return new Response(EXPLORER_HTML, {
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'",
    },
  });
}
