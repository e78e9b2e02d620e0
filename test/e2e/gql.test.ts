// The GraphQL API over HTTP against the server started as `npm start` does: the CLI's
// one-query listings, the explorer page (also in headless Chromium), errors.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, click, evaluate, launchChromium, openPage, waitFor, type Browser } from './chromium';
import { base, http, makeUser } from './harness';

const gql = async (
  token: string | null,
  query: string,
  variables?: Record<string, unknown>,
  accept = 'application/json',
) => {
  const res = await http('POST', '/gql', { token, json: { query, variables }, headers: { Accept: accept } });
  return {
    status: res.status,
    type: res.headers.get('Content-Type'),
    body: (await res.json()) as { data?: Record<string, unknown> | null; errors?: { message: string }[] },
  };
};

describe('GraphQL at /gql over HTTP', () => {
  it('lists documents with shares and tags in one query, as the REST listing does', async () => {
    const owner = await makeUser({ profile_public: true });
    const reader = await makeUser();
    for (const name of ['alpha', 'beta'])
      expect((await http('PUT', `/v1/vis/docs/${name}`, { token: owner.token })).status).toBe(201);
    expect((await http('PUT', '/v1/vis/docs/alpha/shared/public', { token: owner.token })).status).toBe(201);
    expect((await http('PUT', '/v1/vis/docs/alpha/tags/fav', { token: owner.token })).status).toBe(201);
    const own = await gql(owner.token, '{ me { username } docs { id url public tags { id } } }');
    expect(own.status).toBe(200);
    expect(own.body.data!.me).toEqual({ username: owner.username });
    expect(own.body.data!.docs).toEqual([
      {
        id: 'alpha',
        url: expect.stringMatching(new RegExp(`/u/${owner.username}/d/alpha$`)),
        public: true,
        tags: [{ id: 'fav' }],
      },
      { id: 'beta', url: expect.stringMatching(/\/d\/beta$/), public: false, tags: [] },
    ]);
    const theirs = await gql(reader.token, 'query($a: String) { docs(author: $a) { id } }', { a: owner.username });
    const rest = (await (
      await http('GET', `/v1/users/${owner.username}/vis/docs`, { token: reader.token })
    ).json()) as { name: string }[];
    expect((theirs.body.data!.docs as { id: string }[]).map((d) => d.id)).toEqual(rest.map((r) => r.name));
    expect(rest.map((r) => r.name)).toEqual(['alpha']);
  });

  it('malformed and unknown-field queries are GraphQL errors (400 for graphql-response+json), never 500', async () => {
    const bad = await gql(null, '{ docs { id ', undefined, 'application/graphql-response+json');
    expect(bad.status).toBe(400);
    expect(bad.body.errors![0]!.message).toMatch(/Syntax Error/);
    const unknown = await gql(null, '{ nothing }', undefined, 'application/graphql-response+json');
    expect(unknown.status).toBe(400);
    const legacy = await gql(null, '{ nothing }');
    expect(legacy.status).toBe(200);
    expect(legacy.body.errors![0]!.message).toMatch(/Cannot query field/);
  });

  it('over-limit queries (depth, aliases, tokens) answer GraphQL errors in the bundled server too', async () => {
    let sel = 'name';
    for (let i = 0; i < 20; i++) sel = `ofType { ${sel} }`;
    const cases: [string, RegExp][] = [
      [`{ __schema { types { fields { type { ${sel} } } } } }`, /depth/i],
      [`{ ${Array.from({ length: 30 }, (_, i) => `a${i}: me { username }`).join(' ')} }`, /alias/i],
      [`{ ${Array.from({ length: 3000 }, () => 'me { username }').join(' ')} }`, /tokens/i],
    ];
    for (const [q, message] of cases) {
      const res = await gql(null, q, undefined, 'application/graphql-response+json');
      expect(res.status).toBe(400);
      expect(res.body.errors![0]!.message).toMatch(message);
    }
  });

  it('an unknown token answers 401 JSON', async () => {
    const res = await http('POST', '/gql', { token: 'nope', json: { query: '{ me { username } }' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ status: 401 });
  });

  it('GET /gql serves the self-contained explorer page', async () => {
    const res = await http('GET', '/gql', { headers: { Accept: 'text/html' } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('GraphQL explorer');
    expect(html).not.toMatch(/(src|href)=["']?https?:/);
  });
});

describe.skipIf(!existsSync(CHROMIUM))(`the explorer at /gql in headless Chromium (${CHROMIUM})`, () => {
  const VIEW = { width: 1200, height: 800 };
  let chrome: Browser;
  beforeAll(async () => {
    chrome = await launchChromium(VIEW);
  }, 120_000);
  afterAll(async () => {
    chrome?.cdp.close();
    await chrome?.stop();
  });

  it('is served with nosniff and a policy that forbids framing and a base url', async () => {
    const res = await http('GET', '/gql', { headers: { Accept: 'text/html' } });
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(csp).toContain("connect-src 'self'");
  });

  it('keeps the token in memory only and POSTs it to /gql, also when opened at //gql', async () => {
    const u = await makeUser();
    const cdp = chrome.cdp;
    for (const path of ['/gql', '//gql']) {
      const session = await openPage(cdp, VIEW, `${base()}${path}`);
      const seen = cdp.events.length;
      await evaluate(
        cdp,
        session,
        `(() => { const t = document.getElementById('token'); t.value = ${JSON.stringify(u.token)}; t.dispatchEvent(new Event('input')); return true; })()`,
      );
      await evaluate(cdp, session, `document.getElementById('query').value = '{ me { username } }'`);
      await click(cdp, session, `document.getElementById('run')`, 'the Run button');
      const result = await waitFor<string>(
        cdp,
        session,
        `document.getElementById('result').textContent`,
        `the answer of the query (${path})`,
      );
      expect(JSON.parse(result), path).toEqual({ data: { me: { username: u.username } } });
      const posts = cdp.events
        .slice(seen)
        .filter((e) => e.sessionId === session && e.method === 'Network.requestWillBeSent')
        .map((e) => e.params.request as { url: string; method: string })
        .filter((r) => r.method === 'POST');
      expect([...new Set(posts.map((r) => r.url))], path).toEqual([`${base()}/gql`]);
      // Nothing the page stored holds the token (localStorage, sessionStorage, cookies).
      const stored = await evaluate<string>(
        cdp,
        session,
        'JSON.stringify([Object.entries(localStorage), Object.entries(sessionStorage), document.cookie])',
      );
      expect(stored).not.toContain(u.token);
    }
  });
});
