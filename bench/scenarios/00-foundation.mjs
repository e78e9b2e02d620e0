// Foundation: a constant route of the platform, and authenticated D1-backed reads.
// Target: the authenticated read reaches >= 50% of the constant Worker's throughput,
// p99 <= 10 ms. whoami resolves the bearer token against D1; a token's row is kept per
// isolate for 10 s (src/core/auth.ts), as a deployed Worker would, so this is the
// steady-state cost of an authenticated request. GET /v1/token reads D1 on every request:
// compare it with the D1 floor (a bare Worker doing one D1 query), not only the baseline.
export default async function foundation(b) {
  const u = await b.makeUser();
  const auth = { Authorization: `Bearer ${u.token}` };
  await b.measure('platform: GET /v1/openapi.json (no auth, cached)', '/v1/openapi.json');
  await b.measure('platform: GET /v1/whoami (token -> D1, isolate cache)', '/v1/whoami', {
    headers: auth,
    target: 'target: ratio >= 0.5, p99 <= 10 ms',
  });
  await b.measure('platform: GET /v1/admin/profile (token -> D1)', '/v1/admin/profile', { headers: auth });
  const uncached = await b.measure('platform: GET /v1/token (D1 query every request)', '/v1/token', { headers: auth });
  if (b.d1Floor) {
    const ofFloor = (uncached.rps / b.d1Floor.rps).toFixed(2);
    console.log(`${''.padEnd(48)} = ${ofFloor} of the D1 floor's throughput (${b.d1Floor.rps} req/s)`);
    uncached.target = `${ofFloor} of the D1 floor`;
  }
}
