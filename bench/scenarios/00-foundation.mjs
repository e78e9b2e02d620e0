// Foundation: a constant route of the platform, and an authenticated D1-backed read.
// Targets: the read reaches >= 50% of the constant Worker's throughput, p99 <= 10 ms.
export default async function foundation(b) {
  const u = await b.makeUser();
  await b.measure('platform: GET /v1/openapi.json (no auth, cached)', '/v1/openapi.json');
  await b.measure('platform: GET /v1/whoami (token -> D1)', '/v1/whoami', {
    headers: { Authorization: `Bearer ${u.token}` },
    target: 'target: ratio >= 0.5, p99 <= 10 ms',
  });
  await b.measure('platform: GET /v1/admin/profile (token -> D1)', '/v1/admin/profile', { headers: { Authorization: `Bearer ${u.token}` } });
  // Uncached: one D1 query per request on top of auth (the token row).
  await b.measure('platform: GET /v1/token (one D1 query per request)', '/v1/token', { headers: { Authorization: `Bearer ${u.token}` } });
}
