// GraphQL: a `docs` listing of 100 documents with their shares and tags, against the REST
// listing GET /v1/vis/docs of the same 100 documents.
// Target (issue 9): the GraphQL listing's p50 within 2x of the REST listing's p50.
export default async function gql(b) {
  const u = await b.makeUser({ profile_public: true });
  const auth = { Authorization: `Bearer ${u.token}` };
  const group = await b.http('PUT', '/v1/admin/groups/crew', { token: u.token });
  const shareWith = group.status === 201 ? `@${u.username}~crew` : null;
  const N = 100;
  const names = Array.from({ length: N }, (_, i) => `doc_${String(i).padStart(3, '0')}`);
  for (let i = 0; i < N; i += 5) {
    await Promise.all(
      names.slice(i, i + 5).map(async (n) => {
        const steps = [
          ['PUT', `/v1/vis/docs/${n}`],
          ['POST', `/v1/vis/docs/${n}/summary`, `Summary of ${n}`],
          ['PUT', `/v1/vis/docs/${n}/shared/public`],
          ...(shareWith ? [['PUT', `/v1/vis/docs/${n}/shared/${shareWith}`]] : []),
          ['PUT', `/v1/vis/docs/${n}/tags/fav`],
          ['PUT', `/v1/vis/docs/${n}/tags/+work`],
        ];
        for (const [method, path, text] of steps) {
          // The local server may shed load (503) while the machine is busy: retry setup.
          let r;
          for (let t = 0; t < 6; t++) {
            r = await b.http(method, path, { token: u.token, text }).catch(() => null);
            if (r && r.status !== 503) break;
            await new Promise((ok) => setTimeout(ok, 250 * (t + 1)));
          }
          if (!r) throw new Error(`${method} ${path}: no answer`);
          if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status}`);
        }
      }),
    );
  }
  const query = `{ docs(limit: ${N}) { id name type summary url updated public shared { id name type } tags { id name type } } }`;
  const body = JSON.stringify({ query });
  const check = await (await b.http('POST', '/gql', { token: u.token, json: { query } })).json();
  if (check.errors || check.data.docs.length !== N) throw new Error(`gql check: ${JSON.stringify(check).slice(0, 300)}`);

  const rest = await b.measure(`gql: REST GET /v1/vis/docs (${N} documents)`, '/v1/vis/docs', { headers: auth });
  const graph = await b.measure(`gql: POST /gql docs (${N}, shares + tags)`, '/gql', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body,
    target: 'target: p50 <= 2x REST listing p50',
  });
  const ratio = graph.p50_ms / rest.p50_ms;
  console.log(`gql: docs p50 / REST listing p50 = ${ratio.toFixed(2)} (target <= 2) ${ratio <= 2 ? 'OK' : 'MISSED'}`);
  await b.measure('gql: POST /gql { me { username timezone } }', '/gql', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ query: '{ me { username timezone } }' }),
  });
}
