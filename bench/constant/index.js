// The baseline: a Worker that answers a constant, on the same workerd as the platform.
// `/d1` answers after one D1 query: the local ceiling of any read that goes to D1 per request.
// `/post?n=&url=` sends `n` POSTs in turn to `url`, each shaped like a webhook delivery (a
// JSON event and its three headers) and its answer read: the cost of one POST per event alone.
const event = JSON.stringify({
  type: 'document.updated',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { id: 'bench_hook', name: 'bench_hook', type: 'doc', url: 'http://127.0.0.1:8787/u/bench/d/bench_hook' },
});

export default {
  async fetch(req, env) {
    const url = new URL(req.url);
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
