// The baseline: a Worker that answers a constant, on the same workerd as the platform.
// `/d1` answers after one D1 query: the local ceiling of any read that goes to D1 per request.
export default {
  async fetch(req, env) {
    if (new URL(req.url).pathname === '/d1') {
      const row = await env.DB.prepare('select 1 as one').first();
      return new Response(String(row.one), { headers: { 'Content-Type': 'text/plain' } });
    }
    return new Response('ok', { headers: { 'Content-Type': 'text/plain' } });
  },
};
