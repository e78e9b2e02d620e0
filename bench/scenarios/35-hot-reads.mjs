// Hot authenticated reads: each costs at most one D1 round trip once the token
// is cached, and reaches >= 0.8 of the D1 floor's throughput (a bare Worker doing one D1
// query, measured right before and after each of them). The `d1` column is the round trips
// the platform reports (Server-Timing).
export default async function hotReads(b) {
  const owner = await b.makeUser({ profile_public: true });
  const reader = await b.makeUser();
  const auth = (u) => ({ Authorization: `Bearer ${u.token}` });
  const ok = async (res, what) => {
    if (res.status >= 300) throw new Error(`${what}: ${res.status} ${await res.text()}`);
    return res;
  };
  await ok(await b.http('PUT', '/v1/vis/docs/hot', { token: owner.token }), 'create doc');
  await ok(
    await b.http('POST', '/v1/vis/docs/hot/content', {
      token: owner.token,
      text: 'Revenue grew in every region. '.repeat(100),
    }),
    'write',
  );
  await ok(await b.http('PUT', '/v1/vis/docs/hot/shared/public', { token: owner.token }), 'share');
  const target = 'target: d1 <= 1, floor >= 0.8';
  const opts = (u) => ({ headers: auth(u), target, nearFloor: true });
  // Warm the isolate and the token cache: the first route measured would pay for it.
  for (let i = 0; i < 300; i++) await b.request('GET', '/v1/vis/docs/hot/content', { headers: auth(owner) });

  await b.measure('hot: GET content of an own document', '/v1/vis/docs/hot/content', opts(owner));
  await b.measure('hot: GET folder of an own document', '/v1/vis/docs/hot', opts(owner));
  await b.measure(
    'hot: GET content of a shared document (reader)',
    `/v1/users/${owner.username}/vis/docs/hot/content`,
    opts(reader),
  );
  await b.measure("hot: GET a user's shared documents (reader)", `/v1/users/${owner.username}/vis/docs`, opts(reader));

  await ok(await b.http('PUT', '/v1/code/jobs/hot', { token: owner.token }), 'create job');
  await ok(
    await b.http('POST', '/v1/code/jobs/hot/code/index.js', {
      token: owner.token,
      text: "export default { async run() { return 'ok'; } }",
      type: 'text/javascript',
    }),
    'code',
  );
  const run = await b.http('POST', '/v1/code/jobs/hot/data', { token: owner.token, json: {} });
  const name = run.headers.get('X-Run-Id');
  if (!name) throw new Error(`trigger: ${run.status} ${await run.text()}`);
  await b.measure("hot: GET a run's status", `/v1/code/jobs/hot/runs/${name}/status`, opts(owner));
}
