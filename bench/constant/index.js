// The baseline: a Worker that answers a constant, on the same workerd as the platform.
// `/d1` answers after one D1 query: the local ceiling of any read that goes to D1 per request.
// `/post?n=&url=` sends `n` POSTs in turn to `url`, each shaped like a webhook delivery (a
// JSON event and its three headers) and its answer read: the cost of one POST per event alone.
// `/rows?mode=write|event&n=` runs `n` D1 batches in turn: a row updated (a write), or the same
// update with an event row and its delivery row beside it, in tables with the platform's columns
// and indexes (migrations 0026, 0027 and 0033, without the foreign keys): what storing an event
// in the change's own batch costs at least.
const event = JSON.stringify({
  type: 'document.updated',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { id: 'bench_hook', name: 'bench_hook', type: 'doc', url: 'http://127.0.0.1:8787/u/bench/d/bench_hook' },
});

const tables = [
  'CREATE TABLE IF NOT EXISTS resources (id INTEGER PRIMARY KEY, summary TEXT NOT NULL, last_modified TEXT NOT NULL)',
  "INSERT OR IGNORE INTO resources VALUES (1, '', '')",
  'CREATE TABLE IF NOT EXISTS webhook_events (id INTEGER PRIMARY KEY AUTOINCREMENT, owner_id INTEGER NOT NULL, type TEXT NOT NULL, resource_id INTEGER, group_id INTEGER, body TEXT NOT NULL, created_on TEXT NOT NULL, webhook_id INTEGER)',
  'CREATE INDEX IF NOT EXISTS webhook_events_created ON webhook_events(created_on)',
  "CREATE TABLE IF NOT EXISTS webhook_deliveries (id INTEGER PRIMARY KEY AUTOINCREMENT, webhook_id INTEGER NOT NULL, event_id INTEGER NOT NULL, msg_id TEXT NOT NULL, type TEXT NOT NULL, body TEXT NOT NULL, attempt INTEGER NOT NULL DEFAULT 0, status TEXT NOT NULL DEFAULT 'pending', manual INTEGER NOT NULL DEFAULT 0, response_code INTEGER, response_body TEXT, duration_ms INTEGER, next_attempt_on TEXT, created_on TEXT NOT NULL, UNIQUE (webhook_id, event_id))",
  'CREATE INDEX IF NOT EXISTS webhook_deliveries_list ON webhook_deliveries(webhook_id, id)',
  'CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries(next_attempt_on) WHERE next_attempt_on IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS webhook_deliveries_created ON webhook_deliveries(created_on)',
  'CREATE INDEX IF NOT EXISTS webhook_deliveries_pending ON webhook_deliveries(webhook_id, next_attempt_on) WHERE next_attempt_on IS NOT NULL',
];

async function rows(env, mode, n) {
  await env.DB.batch(tables.map((sql) => env.DB.prepare(sql)));
  for (let i = 0; i < n; i++) {
    const at = new Date().toISOString();
    const batch = [
      env.DB.prepare('UPDATE resources SET summary = ?1, last_modified = ?2 WHERE id = 1').bind(`s ${i}`, at),
    ];
    if (mode === 'event')
      batch.push(
        env.DB.prepare(
          "INSERT INTO webhook_events (owner_id, type, resource_id, body, created_on) VALUES (1, 'document.updated', 1, ?1, ?2)",
        ).bind(event, at),
        env.DB.prepare(
          "INSERT INTO webhook_deliveries (webhook_id, event_id, msg_id, type, body, next_attempt_on, created_on) SELECT 1, e.id, 'msg_' || lower(hex(randomblob(12))), e.type, e.body, e.created_on, e.created_on FROM webhook_events e WHERE e.id = last_insert_rowid()",
        ),
      );
    await env.DB.batch(batch);
  }
}

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
    if (url.pathname === '/rows') {
      const n = Number(url.searchParams.get('n'));
      await rows(env, url.searchParams.get('mode'), n);
      return new Response(String(n), { headers: { 'Content-Type': 'text/plain' } });
    }
    if (url.pathname === '/post') {
      const n = Number(url.searchParams.get('n'));
      for (let i = 0; i < n; i++) {
        const res = await fetch(url.searchParams.get('url'), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'webhook-id': `msg_${i}`,
            'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
            'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJlIGJ1dCBhcyBsb25nIGFzIG9uZSBpcw==',
          },
          body: event,
        });
        await res.text();
      }
      return new Response(String(n), { headers: { 'Content-Type': 'text/plain' } });
    }
    if (url.pathname === '/d1') {
      const row = await env.DB.prepare('select 1 as one').first();
      return new Response(String(row.one), { headers: { 'Content-Type': 'text/plain' } });
    }
    return new Response('ok', { headers: { 'Content-Type': 'text/plain' } });
  },
};
