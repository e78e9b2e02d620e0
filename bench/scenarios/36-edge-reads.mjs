// Anonymous reads of public pages served from the edge (src/core/edge-cache.ts): under npm
// start the local cache (caches.default) answers a stored page before anything else, with
// no D1 round trip. Target: >= 0.9 of the constant Worker's throughput, d1 0. Beside it, the
// same page read with a token (never stored: the full render) and a public page whose
// owner's content changes between reads (every read a miss: the render plus the store).
export default async function edgeReads(b) {
  const owner = await b.makeUser({ profile_public: true });
  const ok = async (res, what) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  await ok(await b.http('PUT', '/v1/vis/docs/edge', { token: owner.token }), 'create doc');
  await ok(
    await b.http('POST', '/v1/vis/docs/edge/content', {
      token: owner.token,
      text: '# Quarterly report\n\n' + 'Revenue grew in every region. '.repeat(100),
    }),
    'write',
  );
  await ok(await b.http('PUT', '/v1/vis/docs/edge/shared/public', { token: owner.token }), 'share');
  const page = `/u/${owner.username}/d/edge`;
  // Stored by the first anonymous read.
  for (let i = 0; i < 50; i++) await b.request('GET', page);
  await b.measure('edge: GET a public page, anonymous (stored)', page, {
    target: 'target: ratio >= 0.9 of the constant worker, d1 0',
  });
  await b.measure('edge: GET the same page with a token (rendered)', page, {
    headers: { Authorization: `Bearer ${owner.token}` },
  });
  // The cost of a change's purge and the miss after it: a write, then the read that stores anew.
  let n = 0;
  await b.time(
    'edge: a content write, then the first anonymous read',
    async () => {
      await ok(
        await b.http('POST', '/v1/vis/docs/edge/content', {
          token: owner.token,
          text: `# Report ${n++}\n\nNew words.`,
        }),
        'write',
      );
      const res = await b.request('GET', page);
      if (res.status !== 200) throw new Error(`read after write: ${res.status}`);
    },
    100,
  );
}
