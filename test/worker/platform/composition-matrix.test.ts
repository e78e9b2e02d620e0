/**
 * The authorization matrix over composition. Single-resource permissions have their own
 * suites; this one checks that no right is borrowed through another resource, a group, a
 * mail or a schedule. Axes: every WAY a run, a page or a mail acts (API trigger, inbound
 * mail to an org group address, a schedule, a chain step by bare name and by @user/job, a
 * fan-out child, a variable reference, an attachment block, a share into a user group and
 * into an organisation group) × every ACTOR (the owner, grantees with r, rw and x, a
 * member of the group a resource is shared into, a member of another group of the same
 * organisation, a stranger, an anonymous caller or sender). Each cell asserts that
 * nothing is read, run or sent beyond the actor's own rights: a target's secret never
 * reaches the actor (response, run output, rendered page, outbox), and the target job
 * never runs on their behalf. The owner's cells are the positive controls (the same
 * mechanism does deliver within one's rights), so no cell can pass because nothing ran.
 *
 * One world of users and groups is built once for the file, with each describe's
 * resources (its `prepare`); each describe's beforeAll then does what acts (runs, mails,
 * the schedule's tick).
 */
import { unzipSync } from 'fflate';
import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handleInboundEmail } from '../../../src/jobs/inbound';
import { now, setClockOffset } from '../../../src/core/clock';
import { fireDue } from '../../../src/jobs/schedule';
import { once } from '../groups/fixtures';
import { call, makeUser, OPS, unique, withoutRequestId, type TestUser } from '../helpers';

// Runs, mail deliveries and a PDF render wait on a loaded machine: slow, never wrong.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 180_000 });

// ---------------------------------------------------------------------------------------
// Actors and their expected answers on the owner's resources
// ---------------------------------------------------------------------------------------

const ACTORS = ['owner', 'r', 'rw', 'x', 'member', 'other', 'stranger', 'anon'] as const;
type Actor = (typeof ACTORS)[number];
const USERS = ACTORS.filter((a) => a !== 'anon');

const LABEL: Record<Actor, string> = {
  owner: 'owner',
  r: 'grantee r',
  rw: 'grantee rw',
  x: 'grantee x',
  member: 'group member',
  other: 'member of another group of the same org',
  stranger: 'stranger',
  anon: 'anonymous',
};

/** POST data on the owner's shared job: execute comes with the owner, ~rw and the superusers' role. */
const TRIGGER: Record<Actor, number> = {
  owner: 200,
  r: 403,
  rw: 200,
  x: 200,
  member: 403,
  other: 404,
  stranger: 404,
  anon: 401,
};
const EXECUTES = (a: Actor) => TRIGGER[a] === 200;
/** A plain entry write on the owner's shared resource. */
const WRITE: Record<Actor, number> = {
  owner: 204,
  r: 403,
  rw: 204,
  x: 403,
  member: 403,
  other: 404,
  stranger: 404,
  anon: 401,
};
/** A write naming something only the owner may use: the grantee with write gets a 400 naming it. */
const WRITE_FOREIGN: Record<Actor, number> = { ...WRITE, rw: 400 };
/** Reading the owner's shared resource (and the runs of a shared job). */
const READS = (a: Actor) => ['owner', 'r', 'rw', 'x', 'member'].includes(a);
/** Holders of an active role in the owner's user group @owner~team and in the org groups sales/inbox/secure/drop. */
const IN_GROUP = (a: Actor) => a === 'owner' || a === 'member';

// ---------------------------------------------------------------------------------------
// The world: users, the owner's user groups, an organisation with its groups
// ---------------------------------------------------------------------------------------

interface Person extends TestUser {
  email: string;
}

interface World {
  who: Record<Actor, Person | null>;
  owner: Person;
  /** A user outside every group, who shares things with the owner only. */
  third: Person;
  /** Joins @owner~team and +org~drop, shares into them, then leaves. */
  former: Person;
  org: string;
  /** Entries the owner's targets are shared with: readers (r), writers (~rw), runners (superusers: x), +org~sales. */
  shareAll: string[];
  team: string;
  /** third's group in which the owner is a superuser (read and execute of what third shares). */
  partners: string;
  address: (group: string) => string;
}

const ok = async (res: Promise<Response>, what: string): Promise<Response> => {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${await r.text()}`);
  return r;
};

async function person(fields: Record<string, unknown> = {}): Promise<Person> {
  const email = `${unique('m')}@example.com`;
  return { ...(await makeUser({ email, email_verified: true, ...fields }, 'cm')), email };
}

/** Invites each user into a role of the group at `path` (as `by`) and accepts as them. */
async function join(path: string, ref: string, by: TestUser, roster: [TestUser, string][]): Promise<void> {
  for (const [u, role] of roster) {
    await ok(
      call('PUT', `${path}/roles/${role}/${u.username}`, { token: by.token }),
      `invite ${u.username} into ${ref}`,
    );
    await ok(call('POST', `/v1/admin/invites/${ref}/accept`, { token: u.token, text: 'yes' }), `accept ${ref}`);
  }
}

async function userGroup(founder: TestUser, roster: [TestUser, string][]): Promise<string> {
  const slug = unique('g').slice(0, 30);
  await ok(call('PUT', `/v1/admin/groups/${slug}`, { token: founder.token }), 'user group');
  const ref = `@${founder.username}~${slug}`;
  await join(`/v1/admin/groups/${slug}`, ref, founder, roster);
  return ref;
}

/**
 * Each describe's set-up (its resources, and the actors' writes), run by world() once the
 * users and groups exist, one after the other and before any describe acts. In the test
 * Worker every finished run or mail object makes each later request slower, so everything
 * that is only made, not run, is made while it is fresh.
 */
const setups: ((w: World) => Promise<void>)[] = [];
const prepare = (f: (w: World) => Promise<void>) => void setups.push(f);

const world = once(async (): Promise<World> => {
  const [owner, r, rw, x, member, other, stranger, third, former, orgAccount] = await Promise.all([
    person(),
    person(),
    person(),
    person(),
    person(),
    person(),
    person(),
    person(),
    person(),
    person({ account: 'organisation' }),
  ]);
  const org = unique('o').slice(0, 20);
  const orgPath = `/v1/admin/orgs/${org}`;
  await ok(call('PUT', orgPath, { token: orgAccount.token }), 'org');
  await ok(
    call('POST', `${orgPath}/profile/options/enable_subdomain`, { token: orgAccount.token, text: 'yes' }),
    'subdomain',
  );
  const orgGroup = async (slug: string, roster: [TestUser, string][], options: string[] = []) => {
    await ok(call('PUT', `${orgPath}/groups/${slug}`, { token: orgAccount.token }), `org group ${slug}`);
    for (const o of options)
      await ok(
        call('POST', `${orgPath}/groups/${slug}/profile/options/${o}`, { token: orgAccount.token, text: 'yes' }),
        o,
      );
    await join(`${orgPath}/groups/${slug}`, `+${org}~${slug}`, orgAccount, roster);
  };
  const [readers, writers, runners, team, partners] = await Promise.all([
    userGroup(owner, [[r, 'members']]),
    userGroup(owner, [[rw, 'members']]),
    userGroup(owner, [[x, 'superusers']]),
    userGroup(owner, [
      [member, 'members'],
      [former, 'members'],
    ]),
    userGroup(third, [[owner, 'superusers']]),
    userGroup(owner, [[other, 'members']]), // another group of the owner's, as ops is in the org
    orgGroup('sales', [
      [owner, 'members'],
      [member, 'members'],
    ]),
    orgGroup('ops', [[other, 'members']]),
  ]);
  // Mail-enabled groups: inbox (no sender checks), secure (DKIM required), drop (where outsiders try to share).
  await orgGroup(
    'inbox',
    [
      [owner, 'members'],
      [member, 'members'],
    ],
    ['allow_inbound_mail'],
  );
  await orgGroup(
    'secure',
    [
      [owner, 'members'],
      [member, 'members'],
    ],
    ['allow_inbound_mail', 'mail_verify_dkim'],
  );
  await orgGroup(
    'drop',
    [
      [owner, 'members'],
      [member, 'members'],
      [former, 'members'],
    ],
    ['allow_inbound_mail'],
  );
  const w: World = {
    who: { owner, r, rw, x, member, other, stranger, anon: null },
    owner,
    third,
    former,
    org,
    shareAll: [readers!, `${writers!}~rw`, runners!, `+${org}~sales`],
    team: team!,
    partners: partners!,
    address: (group) => `${group}@${org}.${env.ORG_MAIL_DOMAIN}`,
  };
  for (const setup of setups) await setup(w);
  return w;
});

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

const J = 'code/jobs';
const D = 'vis/docs';
const M = 'vis/mails';
const tok = (w: World, a: Actor) => w.who[a]?.token ?? null;
const at = (owner: TestUser, coll: string, name: string) => `/v1/users/${owner.username}/${coll}/${name}`;
const json = { Accept: 'application/json' };

/** Creates a resource of `owner` with entries (in order) and shares it with each entry of `shares`. */
async function resource(
  owner: TestUser,
  coll: string,
  name: string,
  entries: Record<string, string> = {},
  shares: string[] = [],
  code?: string,
): Promise<string> {
  await ok(call('PUT', `/v1/${coll}/${name}`, { token: owner.token }), `create ${name}`);
  if (code !== undefined) {
    await ok(
      call('POST', `/v1/${coll}/${name}/code/index.js`, { token: owner.token, body: code, type: 'text/javascript' }),
      'code',
    );
  }
  for (const [path, value] of Object.entries(entries))
    await ok(call('POST', `/v1/${coll}/${name}/${path}`, { token: owner.token, text: value }), `${name}/${path}`);
  for (const s of shares)
    await ok(call('PUT', `/v1/${coll}/${name}/shared/${s}`, { token: owner.token }), `share ${name} with ${s}`);
  return at(owner, coll, name);
}

/** The same code for every secret-holding job (one warm sandbox): its env value SECRET is its output. */
const LEAK = `export default { async run(input, ctx) { return 'leak:' + ctx.env.SECRET; } }`;
/** Splits into n parts (the fan-out's first step). */
const SPLIT = `export default { async run(input) { const n = JSON.parse(await input[0].text()).n; return Array.from({ length: n }, (_, i) => new File(['part' + i], 'p' + i + '.txt', { type: 'text/plain' })); } }`;
/** Answers the mail it was given (input.json holds the subject and text). */
const ECHO = `export default { async run(input) { return 'echo:' + (await input[0].text()); } }`;

const secret = (what: string) => `${what}-${unique('s')}`;

/** Runs `f` for every actor at once (set-up only: the cells themselves run one by one). */
async function each<T>(f: (a: Actor) => Promise<T>): Promise<Record<Actor, T>> {
  const values = await Promise.all(ACTORS.map(f));
  return Object.fromEntries(ACTORS.map((a, i) => [a, values[i]])) as Record<Actor, T>;
}

/** The text of an answer; a zip's files are unpacked and joined. */
async function bodyText(res: Response): Promise<string> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  if ((res.headers.get('Content-Type') ?? '').includes('zip')) {
    return Object.values(unzipSync(bytes))
      .map((f) => new TextDecoder().decode(f))
      .join('\n');
  }
  return new TextDecoder().decode(bytes);
}

const trigger = (token: string | null, base: string, body: unknown = {}) =>
  call('POST', `${base}/data`, { token, json: body });

/** Did the run start `job` as a child that succeeded? Read as the job's owner. */
async function ranChild(owner: TestUser, base: string, run: string | null, job: string): Promise<boolean> {
  if (!run) return false;
  const res = await call('GET', `${base}/runs/${run}/stats`, { token: owner.token, headers: json });
  if (res.status !== 200) return false;
  const stats = (await res.json()) as { children?: { job: string; status: string }[] };
  return (stats.children ?? []).some((c) => c.job === job && c.status === 'success');
}

/** Waits until a run is final (read as the owner). */
async function settled(owner: TestUser, base: string, run: string): Promise<string> {
  for (let i = 0; i < 1500; i++) {
    const s = await (await call('GET', `${base}/runs/${run}/status`, { token: owner.token })).text();
    if (!['pending', 'processing', 'canceling'].includes(s)) return s;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`run ${run} never ended`);
}

/** Everything `token` can read of a job's runs: the outputs joined (empty when the runs are not theirs to read). */
async function outputsAs(token: string | null, base: string): Promise<{ status: number; text: string }> {
  const res = await call('GET', `${base}/runs`, { token });
  if (res.status !== 200) return { status: res.status, text: '' };
  const runs = (await res.json()) as { name: string }[];
  const texts = await Promise.all(
    runs.map(async (r) => bodyText(await call('GET', `${base}/runs/${r.name}/output`, { token }))),
  );
  return { status: 200, text: texts.join('\n') };
}

interface Outbound {
  kind: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments: { filename: string }[];
}

/** Delivers one raw message through the email() handler (it returns once every run and reply is done). */
async function mail(from: string, to: string, subject: string, headers: string[] = []): Promise<string> {
  const bytes = new TextEncoder().encode(
    [
      ...headers,
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      'Content-Type: text/plain',
      '',
      `body of ${subject}`,
      '',
    ].join('\r\n'),
  );
  let rejected = '';
  const message = {
    from,
    to,
    raw: new Response(bytes).body!,
    rawSize: bytes.byteLength,
    headers: new Headers(),
    setReject: (reason: string) => void (rejected = reason),
  } as unknown as ForwardableEmailMessage;
  await handleInboundEmail(message, env, {} as ExecutionContext);
  return rejected;
}

/** An aligned DKIM (and SPF) pass as the platform's receiver writes it, for an address at example.com. */
const AUTHENTICATED = [
  'Authentication-Results: mx.cloudflare.net; dkim=pass header.d=example.com header.i=@example.com; spf=pass smtp.mailfrom=example.com',
];

/** A write as `a`, answering its status and message. */
async function write(w: World, a: Actor, path: string, text: string): Promise<{ status: number; message: string }> {
  const res = await call('POST', path, { token: tok(w, a), text });
  const body = res.status === 204 ? '' : await res.text();
  let message = body;
  try {
    message = (JSON.parse(body) as { message?: string }).message ?? body;
  } catch {
    // not JSON: the text is the message
  }
  return { status: res.status, message };
}

/** The answer to a write naming a foreign reference: the expected status, and a 400 names the reference. */
function expectWrite(a: Actor, got: { status: number; message: string }, names: RegExp): void {
  // soft: the cell goes on to show what the write would have let through
  expect.soft(got.status, got.message).toBe(WRITE_FOREIGN[a]);
  if (got.status === 400) expect.soft(got.message).toMatch(names);
}

// ---------------------------------------------------------------------------------------
// Variable references in documents
// ---------------------------------------------------------------------------------------

/** third's document with a variable shared with the owner only: answers the reference and the formatted value. */
async function foreignVariable(w: World): Promise<{ ref: string; value: string }> {
  const doc = unique('fin');
  await resource(w.third, D, doc, {}, [w.partners]);
  await ok(call('PUT', `/v1/${D}/${doc}/vars/revenue`, { token: w.third.token }), 'var');
  await ok(call('POST', `/v1/${D}/${doc}/vars/revenue/format`, { token: w.third.token, text: ',.4f' }), 'format');
  await ok(call('POST', `/v1/${D}/${doc}/vars/revenue/value`, { token: w.third.token, text: '31415.9265' }), 'value');
  return { ref: `/u/${w.third.username}/d/${doc}/v/revenue`, value: '31,415.9265' };
}

describe('variable reference {/u/<user>/d/<doc>/v/<var>}', () => {
  let w: World;
  let v: { ref: string; value: string };
  let showcase: string;
  let pageOf: Record<Actor, string>;
  const page = (path: string) => path.replace(/^\/v1\/users\/([^/]+)\/vis\/docs\//, '/u/$1/d/');
  let ownOf: Record<Actor, string | null>;
  prepare(async (w) => {
    v = await foreignVariable(w);
    showcase = await resource(w.owner, D, unique('show'), { content: `Revenue: {${v.ref}}` }, w.shareAll);
    pageOf = await each((a) => resource(w.owner, D, unique(`page${a}`), {}, w.shareAll));
    ownOf = await each(async (a) =>
      w.who[a] ? resource(w.who[a]!, D, unique('own'), { content: `Revenue: {${v.ref}}` }) : null,
    );
  });
  beforeAll(async () => {
    w = await world();
  });

  for (const a of ACTORS) {
    it(`variable reference: ${LABEL[a]} ${a === 'owner' ? 'puts a variable it may read into its document' : "cannot put a variable they cannot read into the owner's document"}`, async () => {
      expectWrite(a, await write(w, a, `${pageOf[a]}/content`, `Revenue: {${v.ref}}`), /\/v\/revenue/);
      const res = await call('GET', page(pageOf[a]), { token: tok(w, a) });
      expect(res.status).toBe(READS(a) ? 200 : 404);
      // the page renders alike for every reader: read it as the owner when the actor may not
      const html = READS(a)
        ? await res.text()
        : await (await call('GET', page(pageOf[a]), { token: w.owner.token })).text();
      if (a === 'owner') return expect(html).toContain(v.value);
      expect(html).not.toContain(v.value);
    });
  }

  for (const a of USERS) {
    it(`variable reference: ${LABEL[a]} ${a === 'owner' ? 'sees' : 'never sees'} the variable in a document of their own`, async () => {
      const me = w.who[a]!;
      const html = await (await call('GET', page(ownOf[a]!), { token: me.token })).text();
      if (a === 'owner') expect(html).toContain(v.value);
      else expect(html).not.toContain(v.value);
      expect((await call('GET', `/v1${v.ref}/txt`, { token: me.token })).status).toBe(a === 'owner' ? 200 : 404);
    });
  }

  for (const a of ACTORS) {
    it(`variable reference: ${LABEL[a]} ${READS(a) ? 'reads the value the owner embedded, as every reader of the page does' : 'reads nothing of the page the owner embedded it in'}`, async () => {
      const res = await call('GET', page(showcase), { token: tok(w, a) });
      const html = await res.text();
      if (READS(a)) {
        expect(res.status).toBe(200);
        expect(html).toContain(v.value);
      } else {
        expect(res.status).toBe(404);
        expect(html).not.toContain(v.value);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------
// Mails: attachment blocks and variable references
// ---------------------------------------------------------------------------------------

describe('mail attachment block and variable reference', () => {
  let w: World;
  let v: { ref: string; value: string };
  let secretDoc: string;
  type Tampered = { path: string; subject: string; recipients: number; content: { status: number; message: string } };
  let att: Record<Actor, Tampered>;
  let vref: Record<Actor, Tampered>;
  let outbox: Outbound[];

  /** The owner's mail, shared; `a` adds themselves as bcc, then writes the content. */
  async function tamper(w: World, a: Actor, content: string): Promise<Tampered> {
    const subject = unique(`sub${a}`);
    const path = await resource(w.owner, M, unique(`ml${a}`), { 'config/subject': subject }, w.shareAll);
    const recipients = (
      await call('POST', `${path}/recipients/bcc`, {
        token: tok(w, a),
        text: w.who[a]?.email ?? `${unique('anon')}@example.com`,
      })
    ).status;
    return { path, subject, recipients, content: await write(w, a, `${path}/content`, content) };
  }

  prepare(async (w) => {
    v = await foreignVariable(w);
    secretDoc = unique('secretdoc');
    await resource(w.owner, D, secretDoc, { content: '# Classified\n\nOnly the owner reads this.' });
    const block = `{{ attachment\n  /u/${w.owner.username}/d/${secretDoc}\n}}\n{{ /attachment }}`;
    [att, vref] = await Promise.all([
      each((a) => tamper(w, a, block)),
      each((a) => tamper(w, a, `Revenue: {${v.ref}}`)),
    ]);
  });
  beforeAll(async () => {
    w = await world();
    // The owner sends the mails someone wrote themselves into (the others have no recipient);
    // deliveries end before the cells read the outbox.
    const sent = await Promise.all(
      [...Object.values(att), ...Object.values(vref)]
        .filter((m) => m.recipients === 204)
        .map(async (m) => ({ m, res: await call('POST', `${m.path}/status`, { token: w.owner.token, text: 'sent' }) })),
    );
    for (const { m, res } of sent) {
      if (res.status !== 202) continue;
      for (let i = 0; i < 3000; i++) {
        if ((await (await call('GET', `${m.path}/status`, { token: w.owner.token })).text()) === 'ready') break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    outbox = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[];
  });

  for (const a of ACTORS) {
    it(`attachment block: ${LABEL[a]} ${a === 'owner' ? 'has its mail attach its own document' : "cannot have the owner's mail attach a document they cannot read"}`, async () => {
      expect(att[a].recipients).toBe(WRITE[a]);
      expectWrite(a, att[a].content, new RegExp(secretDoc));
      if (a === 'anon') return;
      const got = outbox.filter((m) => m.subject === att[a].subject);
      const attached = got.flatMap((m) => m.attachments.map((f) => f.filename));
      if (a === 'owner') {
        expect(attached).toEqual([`${secretDoc}.pdf`]);
        return;
      }
      expect(attached).toEqual([]);
      // the mail still reached them (they wrote themselves in): the attachment is what was refused
      if (a === 'rw') expect(got).toHaveLength(1);
    });
  }

  for (const a of ACTORS) {
    it(`variable reference in a mail: ${LABEL[a]} ${a === 'owner' ? 'has its mail carry a variable it may read' : "cannot have the owner's mail carry a variable they cannot read"}`, async () => {
      expect(vref[a].recipients).toBe(WRITE[a]);
      expectWrite(a, vref[a].content, /\/v\/revenue/);
      if (a === 'anon') return;
      const got = outbox.filter((m) => m.subject === vref[a].subject);
      if (a === 'owner') {
        expect(got).toHaveLength(1);
        expect(got[0]!.text).toContain(v.value);
        return;
      }
      for (const m of got) {
        expect(m.text).not.toContain(v.value);
        expect(m.html).not.toContain(v.value);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------
// Shares into a user group and into an organisation group
// ---------------------------------------------------------------------------------------

const KINDS: [string, string][] = [
  ['document', D],
  ['grid', 'vis/grids'],
  ['mail', M],
  ['job', J],
];
const TARGETS = [
  ['a user group', (x: World) => x.team],
  ['an organisation group', (x: World) => `+${x.org}~sales`],
] as const;

describe('share into a user group and into an organisation group', () => {
  let w: World;
  /** Per target group, actor and kind: a resource of the actor's own to share. */
  let own: Record<string, Record<Actor, Record<string, string>>>;
  let rlMail: string;
  prepare(async (w) => {
    own = {};
    for (const [target] of TARGETS) {
      own[target] = await each(async (a) => {
        const names: Record<string, string> = {};
        for (const [kind, coll] of KINDS) {
          names[kind] = unique('sh');
          if (w.who[a]) await ok(call('PUT', `/v1/${coll}/${names[kind]}`, { token: w.who[a]!.token }), 'create');
        }
        return names;
      });
    }
    rlMail = unique('rl');
    await ok(call('PUT', `/v1/${M}/${rlMail}`, { token: w.who.stranger!.token }), 'mail');
  });
  beforeAll(async () => {
    w = await world();
  });

  for (const [target, ref] of TARGETS) {
    for (const a of ACTORS) {
      const may = IN_GROUP(a);
      it(`share into ${target}: ${LABEL[a]} ${may ? 'may' : 'may not'} share their own document, grid, mail or job into it${may ? '' : ' (the group member never sees it)'}`, async () => {
        await Promise.all(
          KINDS.map(async ([kind, coll]) => {
            const name = own[target]![a][kind]!;
            const u = w.who[a];
            const res = await call('PUT', `/v1/${coll}/${name}/shared/${ref(w)}`, { token: u?.token ?? null });
            const body = await res.text();
            if (!u) {
              expect(res.status, kind).toBe(401);
              return;
            }
            if (may) {
              expect(res.status, `${kind}: ${body}`).toBe(201);
              return;
            }
            // soft: the cell goes on to show what the share would have let through
            expect.soft(res.status, `${kind}: ${body}`).toBeGreaterThanOrEqual(400);
            expect.soft(res.status, kind).toBeLessThan(500);
            // the group's member does not see it through the refused share
            expect((await call('GET', at(u, coll, name), { token: w.who.member!.token })).status, kind).toBe(404);
            if (a === 'stranger') {
              // a group the caller cannot see answers as one that does not exist
              const unknown = ref(w).replace(/~[^~]+$/, `~${unique('nosuch').slice(0, 20)}`);
              const none = await call('PUT', `/v1/${coll}/${name}/shared/${unknown}`, { token: u.token });
              const noneBody = withoutRequestId(await none.text());
              expect(res.status, kind).toBe(none.status);
              expect(withoutRequestId(body).replaceAll(ref(w), '<group>'), kind).toBe(
                noneBody.replaceAll(unknown, '<group>'),
              );
            }
          }),
        );
      });
    }
  }

  it('recipient list: a stranger naming an organisation group they cannot see gets the same answer as for one that does not exist', async () => {
    const s = w.who.stranger!;
    const seen = `+${w.org}~ops`;
    const unknown = `+${w.org}~${unique('nosuch').slice(0, 20)}`;
    const a = await call('POST', `/v1/${M}/${rlMail}/recipients/to`, { token: s.token, text: seen });
    const b = await call('POST', `/v1/${M}/${rlMail}/recipients/to`, { token: s.token, text: unknown });
    expect(a.status).toBe(400);
    expect(a.status).toBe(b.status);
    expect(withoutRequestId(await a.text()).replaceAll(seen, '<group>')).toBe(
      withoutRequestId(await b.text()).replaceAll(unknown, '<group>'),
    );
  });
});

// ---------------------------------------------------------------------------------------
// API trigger
// ---------------------------------------------------------------------------------------

describe('API trigger (POST data)', () => {
  const SECRET = secret('vault');
  let w: World;
  let vault: string;
  prepare(async (w) => {
    vault = await resource(w.owner, J, unique('vault'), { 'config/env/SECRET': SECRET }, w.shareAll, LEAK);
  });
  beforeAll(async () => {
    w = await world();
  });
  for (const a of ACTORS) {
    it(`API trigger: ${LABEL[a]} ${EXECUTES(a) ? 'runs' : 'cannot run'} the owner's shared job (${TRIGGER[a]})`, async () => {
      const res = await trigger(tok(w, a), vault);
      expect(res.status).toBe(TRIGGER[a]);
      const text = await bodyText(res);
      if (EXECUTES(a)) expect(text).toBe(`leak:${SECRET}`);
      else expect(text).not.toContain(SECRET);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Chain step: a bare job name
// ---------------------------------------------------------------------------------------

describe('chain step: bare name', () => {
  const SECRET = secret('priv');
  const GRANTED = secret('granted');
  const priv = unique('priv');
  const granted = unique('granted');
  let w: World;
  let relay: string;
  let relayOk: string;
  let relayOf: Record<Actor, string>;
  prepare(async (w) => {
    await resource(w.owner, J, priv, { 'config/env/SECRET': SECRET }, [], LEAK);
    // a job the writers' group may execute (its ~rw share)
    await resource(w.owner, J, granted, { 'config/env/SECRET': GRANTED }, [w.shareAll[1]!], LEAK);
    relay = await resource(w.owner, J, unique('relay'), { 'config/chains': priv }, w.shareAll);
    relayOk = await resource(w.owner, J, unique('relayok'), {}, w.shareAll);
    relayOf = await each((a) => resource(w.owner, J, unique(`relay${a}`), {}, w.shareAll));
  });
  beforeAll(async () => {
    w = await world();
  });

  for (const a of ACTORS) {
    it(`chain step name: ${LABEL[a]} triggering the owner's chain ${a === 'owner' ? 'runs' : 'never runs'} the owner's private job`, async () => {
      const res = await trigger(tok(w, a), relay);
      const run = res.headers.get('X-Run-Id');
      const text = await bodyText(res);
      if (a === 'owner') {
        expect(res.status).toBe(200);
        expect(text).toBe(`leak:${SECRET}`);
        return;
      }
      if (!EXECUTES(a)) expect(res.status).toBe(TRIGGER[a]);
      else expect(res.status, 'the step fails: the caller may not execute it').toBe(502);
      expect(text).not.toContain(SECRET);
      expect(await ranChild(w.owner, relay, run, priv)).toBe(false);
    });
  }

  for (const a of ACTORS) {
    it(`chain step name: ${LABEL[a]} ${a === 'owner' ? 'writes its private job into its chain and runs it' : "cannot write the owner's private job into the owner's chain, nor run it through it"}`, async () => {
      const got = await write(w, a, `${relayOf[a]}/config/chains`, priv);
      expectWrite(a, got, new RegExp(priv));
      if (got.status !== 204) return; // refused: the job is as it was, with nothing of theirs to run
      const res = await trigger(tok(w, a), relayOf[a]);
      const text = await bodyText(res);
      if (a === 'owner') return expect(text).toBe(`leak:${SECRET}`);
      expect(text).not.toContain(SECRET);
      expect(await ranChild(w.owner, relayOf[a], res.headers.get('X-Run-Id'), priv)).toBe(false);
    });
  }

  it('chain step name: grantee rw may write, and run, a step naming a job they can execute themselves', async () => {
    expect((await write(w, 'rw', `${relayOk}/config/chains`, granted)).status).toBe(204);
    const res = await trigger(tok(w, 'rw'), relayOk);
    expect(res.status).toBe(200);
    expect(await bodyText(res)).toBe(`leak:${GRANTED}`);
  });
});

// ---------------------------------------------------------------------------------------
// Chain step: @user/job
// ---------------------------------------------------------------------------------------

describe('chain step: @user/job', () => {
  const TOOL = secret('tool');
  const PRIV = secret('priv');
  const tool = unique('tool');
  const priv = unique('priv');
  let w: World;
  let bridge: string;
  let bridgeOf: Record<Actor, string>;
  let mine: Record<Actor, string | null>;
  const steps = (w: World) => `probe <- @${w.third.username}/${tool}\nprobe`;
  prepare(async (w) => {
    // third's tool: shared with a group where the owner (alone of the actors) may execute it
    await resource(w.third, J, tool, { 'config/env/SECRET': TOOL }, [w.partners], LEAK);
    await resource(w.owner, J, priv, { 'config/env/SECRET': PRIV }, [], LEAK);
    bridge = await resource(w.owner, J, unique('bridge'), { 'config/chains': steps(w) }, w.shareAll);
    bridgeOf = await each((a) => resource(w.owner, J, unique(`bridge${a}`), {}, w.shareAll));
    // each actor's own job naming the owner's private job
    mine = await each(async (a) =>
      w.who[a]
        ? resource(w.who[a]!, J, unique('mine'), { 'config/chains': `probe <- @${w.owner.username}/${priv}\nprobe` })
        : null,
    );
  });
  beforeAll(async () => {
    w = await world();
  });

  for (const a of ACTORS) {
    it(`chain step @user/job: ${LABEL[a]} triggering the owner's chain ${a === 'owner' ? 'runs' : 'never runs'} a job shared with the owner only`, async () => {
      const res = await trigger(tok(w, a), bridge);
      const text = await bodyText(res);
      if (a === 'owner') {
        expect(res.status).toBe(200);
        expect(text).toBe(`leak:${TOOL}`);
        return;
      }
      if (!EXECUTES(a)) expect(res.status).toBe(TRIGGER[a]);
      else expect(res.status, 'the step fails: the caller may not execute it').toBe(502);
      expect(text).not.toContain(TOOL);
      expect(await ranChild(w.owner, bridge, res.headers.get('X-Run-Id'), tool)).toBe(false);
    });
  }

  for (const a of ACTORS) {
    it(`chain step @user/job: ${LABEL[a]} ${a === 'owner' ? 'writes a job shared with them into their chain and runs it' : "cannot write a job only the owner may execute into the owner's chain"}`, async () => {
      const got = await write(w, a, `${bridgeOf[a]}/config/chains`, steps(w));
      expectWrite(a, got, new RegExp(`probe|${tool}`));
      if (got.status !== 204) return; // refused: the job is as it was, with nothing of theirs to run
      const res = await trigger(tok(w, a), bridgeOf[a]);
      const text = await bodyText(res);
      if (a === 'owner') return expect(text).toBe(`leak:${TOOL}`);
      expect(text).not.toContain(TOOL);
      expect(await ranChild(w.owner, bridgeOf[a], res.headers.get('X-Run-Id'), tool)).toBe(false);
    });
  }

  for (const a of ACTORS) {
    it(`chain step @user/job: ${LABEL[a]} ${a === 'owner' ? 'runs' : 'cannot run'} the owner's private job from a chain of their own`, async () => {
      if (a === 'anon') return expect((await call('PUT', `/v1/${J}/${unique('mine')}`)).status).toBe(401);
      const me = w.who[a]!;
      const res = await trigger(me.token, mine[a]!);
      const text = await bodyText(res);
      if (a === 'owner') return expect(text).toBe(`leak:${PRIV}`);
      expect(res.status).toBe(502);
      expect(text).not.toContain(PRIV);
      expect(await ranChild(me, mine[a]!, res.headers.get('X-Run-Id'), priv)).toBe(false);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Fan-out child
// ---------------------------------------------------------------------------------------

describe('fan-out child', () => {
  const SECRET = secret('priv');
  const priv = unique('priv');
  const split = unique('split');
  const fanSteps = `cut <- ${split}\nup <- ${priv}\ncut -> .up`;
  let w: World;
  let fan: string;
  let children: string[];
  let fanOf: Record<Actor, string>;
  prepare(async (w) => {
    await resource(w.owner, J, priv, { 'config/env/SECRET': SECRET }, [], LEAK);
    // the first step is one the grantees may execute, so the fan-out step is what is refused
    await resource(w.owner, J, split, {}, [w.shareAll[1]!, w.shareAll[2]!], SPLIT);
    fan = await resource(w.owner, J, unique('fan'), { 'config/chains': fanSteps }, w.shareAll);
    fanOf = await each((a) => resource(w.owner, J, unique(`fan${a}`), {}, w.shareAll));
  });
  beforeAll(async () => {
    w = await world();
    const own = await trigger(w.owner.token, fan, { n: 2 });
    expect(own.status).toBe(200);
    const stats = (await (
      await call('GET', `${fan}/runs/${own.headers.get('X-Run-Id')}/stats`, { token: w.owner.token, headers: json })
    ).json()) as {
      children: { name: string; job: string }[];
    };
    children = stats.children.filter((c) => c.job === priv).map((c) => c.name);
    expect(children).toHaveLength(2);
  });

  for (const a of ACTORS) {
    it(`fan-out child: ${LABEL[a]} triggering the owner's fan-out ${a === 'owner' ? 'runs' : 'never runs'} the owner's private job for each part`, async () => {
      const res = await trigger(tok(w, a), fan, { n: 2 });
      const text = await bodyText(res);
      if (a === 'owner') {
        expect(res.status).toBe(200);
        expect(text.split(`leak:${SECRET}`)).toHaveLength(3);
        return;
      }
      if (!EXECUTES(a)) expect(res.status).toBe(TRIGGER[a]);
      else expect(res.status, 'the step fails: the caller may not execute it').toBe(502);
      expect(text).not.toContain(SECRET);
      expect(await ranChild(w.owner, fan, res.headers.get('X-Run-Id'), priv)).toBe(false);
    });
  }

  for (const a of ACTORS) {
    it(`fan-out child: ${LABEL[a]} ${READS(a) ? 'reads' : 'cannot read'} the child runs of the owner's own fan-out${READS(a) ? ' as a reader of the top-level run' : ''}`, async () => {
      for (const child of children) {
        const res = await call('GET', `${at(w.owner, J, priv)}/runs/${child}/output`, { token: tok(w, a) });
        const text = await bodyText(res);
        if (READS(a)) {
          expect(res.status).toBe(200);
          expect(text).toBe(`leak:${SECRET}`);
        } else {
          expect(res.status).toBe(a === 'anon' ? 401 : 404);
          expect(text).not.toContain(SECRET);
        }
      }
    });
  }

  for (const a of ACTORS) {
    it(`fan-out child: ${LABEL[a]} ${a === 'owner' ? 'writes a fan-out over its private job and runs it' : "cannot write a fan-out over the owner's private job into the owner's chain, nor run it"}`, async () => {
      const got = await write(w, a, `${fanOf[a]}/config/chains`, fanSteps);
      expectWrite(a, got, new RegExp(`up|${priv}`));
      if (got.status !== 204) return; // refused: the job is as it was, with nothing of theirs to run
      const res = await trigger(tok(w, a), fanOf[a], { n: 2 });
      const text = await bodyText(res);
      if (a === 'owner') return expect(text.split(`leak:${SECRET}`)).toHaveLength(3);
      expect(text).not.toContain(SECRET);
      expect(await ranChild(w.owner, fanOf[a], res.headers.get('X-Run-Id'), priv)).toBe(false);
    });
  }
});

// ---------------------------------------------------------------------------------------
// Schedule
// ---------------------------------------------------------------------------------------

describe('schedule', () => {
  const PRIV = secret('priv');
  const TOOL = secret('tool');
  const priv = unique('priv');
  const tool = unique('tool');
  let w: World;
  let tick: Record<Actor, string>;
  let tock: Record<Actor, string>;
  let wrote: Record<Actor, { tick: { status: number; message: string }; tock: { status: number; message: string } }>;
  const tockSteps = (w: World) => `probe <- @${w.third.username}/${tool}\nprobe`;
  prepare(async (w) => {
    await resource(w.owner, J, priv, { 'config/env/SECRET': PRIV }, [], LEAK);
    await resource(w.third, J, tool, { 'config/env/SECRET': TOOL }, [w.partners], LEAK);
    tick = await each((a) => resource(w.owner, J, unique(`tick${a}`), {}, w.shareAll));
    tock = await each((a) => resource(w.owner, J, unique(`tock${a}`), {}, w.shareAll));
    // Each actor writes a chain into the owner's jobs; then the owner schedules them and they fire.
    wrote = await each(async (a) => ({
      tick: await write(w, a, `${tick[a]}/config/chains`, priv),
      tock: await write(w, a, `${tock[a]}/config/chains`, tockSteps(w)),
    }));
  });
  beforeAll(async () => {
    w = await world();
    // The jobs whose chain was written (the others are as they were: nothing of the actor's to run).
    const jobs = ACTORS.flatMap((a) =>
      [wrote[a].tick.status === 204 ? tick[a] : [], wrote[a].tock.status === 204 ? tock[a] : []].flat(),
    );
    // Scheduled with the clock 40 years back, these jobs are the only ones due at that time:
    // the tick below starts them and no job of another suite.
    let due: number;
    setClockOffset(-40 * 365 * 86_400_000);
    try {
      await Promise.all(
        jobs.map((base) =>
          ok(call('POST', `${base}/config/schedule`, { token: w.owner.token, text: '* * * * *' }), 'schedule'),
        ),
      );
      due = now() + 120_000;
    } finally {
      setClockOffset(0);
    }
    const waits: Promise<unknown>[] = [];
    await fireDue(env, due, (p) => waits.push(p));
    await Promise.all(waits);
    // Out of the index again, so no later tick of another suite starts them.
    await Promise.all(
      jobs.map(async (base) => {
        await ok(call('POST', `${base}/config/enabled`, { token: w.owner.token, text: 'false' }), 'disable');
        const runs = (await (await call('GET', `${base}/runs`, { token: w.owner.token })).json()) as { name: string }[];
        expect(runs.length, `${base} fired`).toBeGreaterThan(0);
        await settled(w.owner, base, runs[0]!.name);
      }),
    );
  });

  for (const a of ACTORS) {
    it(`schedule: ${LABEL[a]} ${a === 'owner' ? 'has its scheduled run execute its private job' : "cannot make the owner's scheduled run execute the owner's private job"}`, async () => {
      expectWrite(a, wrote[a].tick, new RegExp(priv));
      const seen = await outputsAs(tok(w, a), tick[a]);
      expect(seen.status).toBe(READS(a) ? 200 : a === 'anon' ? 401 : 404);
      if (a === 'owner') return expect(seen.text).toContain(`leak:${PRIV}`);
      expect(seen.text).not.toContain(PRIV);
      expect((await outputsAs(w.owner.token, tick[a])).text).not.toContain(PRIV);
    });
  }

  for (const a of ACTORS) {
    it(`schedule: ${LABEL[a]} ${a === 'owner' ? 'has its scheduled run execute @user/job shared with it' : "cannot make the owner's scheduled run execute @user/job shared with the owner only"}`, async () => {
      expectWrite(a, wrote[a].tock, new RegExp(`probe|${tool}`));
      const seen = await outputsAs(tok(w, a), tock[a]);
      expect(seen.status).toBe(READS(a) ? 200 : a === 'anon' ? 401 : 404);
      if (a === 'owner') return expect(seen.text).toContain(`leak:${TOOL}`);
      expect(seen.text).not.toContain(TOOL);
      expect((await outputsAs(w.owner.token, tock[a])).text).not.toContain(TOOL);
    });
  }
});

// ---------------------------------------------------------------------------------------
// A share into an organisation group in use: the group's inbound mail; a member who left
// ---------------------------------------------------------------------------------------

describe('share into a group, in use: inbound mail to the group, and after the sharer left', () => {
  const PRIV = secret('priv');
  const priv = unique('priv');
  const DROP = unique('dropmail');
  let w: World;
  let spy: Record<Actor, { path: string; share: number } | null>;
  let spy2: Record<Actor, { path: string; share: number } | null>;
  let formerSpy: string;
  let formerDoc: string;

  /** Creates a job of `u` (chain or code) and shares it into +org~drop; answers its path and the share's status. */
  async function dropJob(w: World, u: Person | null, entries: Record<string, string>, code?: string) {
    if (!u) return null;
    const name = unique('spy');
    await resource(u, J, name, entries, [], code);
    const res = await call('PUT', `/v1/${J}/${name}/shared/+${w.org}~drop`, { token: u.token });
    return { path: at(u, J, name), share: res.status };
  }

  prepare(async (w) => {
    await resource(w.owner, J, priv, { 'config/env/SECRET': PRIV }, [], LEAK);
    [spy, spy2, formerSpy, formerDoc] = await Promise.all([
      each((a) => dropJob(w, w.who[a], {}, ECHO)),
      each((a) => dropJob(w, w.who[a], { 'config/chains': `probe <- @${w.owner.username}/${priv}\nprobe` })),
      // The former member shares while in the groups, then leaves them both.
      dropJob(w, w.former, {}, ECHO).then((j) => j!.path),
      resource(w.former, D, unique('fdoc'), { content: 'from a former member' }, [w.team]),
    ]);
    await ok(
      call('DELETE', `/v1/admin/orgs/${w.org}/groups/drop/roles/members/${w.former.username}`, {
        token: w.former.token,
      }),
      'leave drop',
    );
    await ok(
      call('DELETE', `/v1/admin/groups/${w.team}/roles/members/${w.former.username}`, { token: w.former.token }),
      'leave team',
    );
  });
  beforeAll(async () => {
    w = await world();
    // The owner, a member of the group, mails it (authenticated: an unverified sender lends no rights).
    expect(await mail(w.owner.email, w.address('drop'), DROP, AUTHENTICATED)).toBe('');
  });

  for (const a of ACTORS) {
    const may = IN_GROUP(a);
    it(`share into an organisation group: ${LABEL[a]}'s job shared into the group ${may ? "reads a member's mail to the group, as a member may" : "never reads a member's mail to the group"}`, async () => {
      if (a === 'anon') {
        expect((await call('PUT', `/v1/${J}/${unique('spy')}/shared/+${w.org}~drop`)).status).toBe(401);
        return;
      }
      const s = spy[a]!;
      if (may) expect(s.share).toBe(201);
      else expect.soft(s.share, 'the share is refused').toBeGreaterThanOrEqual(400);
      const seen = await outputsAs(w.who[a]!.token, s.path);
      if (may) expect(seen.text).toContain(DROP);
      else expect(seen.text).not.toContain(DROP);
    });
  }

  for (const a of USERS) {
    it(`share into an organisation group: ${LABEL[a]}'s chain shared into the group ${a === 'owner' ? 'runs' : 'never runs'} the mailing member's private job with the member's rights`, async () => {
      const s = spy2[a]!;
      const seen = await outputsAs(w.who[a]!.token, s.path);
      if (a === 'owner') return expect(seen.text).toContain(`leak:${PRIV}`);
      expect(seen.text).not.toContain(PRIV);
    });
  }

  it("share into an organisation group: a former member's job no longer runs on the group's mail", async () => {
    expect((await outputsAs(w.former.token, formerSpy)).text).not.toContain(DROP);
  });

  it("share into a user group: a former member's share no longer grants the group's members", async () => {
    expect((await call('GET', formerDoc, { token: w.who.member!.token })).status).toBe(404);
    expect((await call('GET', `${formerDoc}/content`, { token: w.who.member!.token })).status).toBe(404);
  });
});

// ---------------------------------------------------------------------------------------
// Inbound mail to an org group address
// ---------------------------------------------------------------------------------------

describe('inbound mail to an org group address', () => {
  const SECRET = secret('mailjob');
  let w: World;
  let inboxJob: string;
  let secureJob: string;
  const sender = {} as Record<Actor, string>;
  const subject = {} as Record<Actor, string>;
  const secureSubject = { owner: unique('secure'), member: unique('secure') };
  const forged = { unaligned: unique('forged'), foreignServ: unique('forged'), failedBelow: unique('forged') };
  let outcome: Record<Actor, string>;
  /** Every run of the two jobs (output, who it ran as, status) and the outbox, read once the mails are handled. */
  let runs: { out: string; created_by: string; status: string }[];
  let outbox: Outbound[];

  prepare(async (w) => {
    inboxJob = await resource(
      w.owner,
      J,
      unique('inboxjob'),
      { 'config/env/SECRET': SECRET },
      [`+${w.org}~inbox`],
      ECHO,
    );
    secureJob = await resource(w.owner, J, unique('securejob'), {}, [`+${w.org}~secure`], ECHO);
  });
  beforeAll(async () => {
    w = await world();
    for (const a of ACTORS) {
      sender[a] = w.who[a]?.email ?? `${unique('anon')}@example.com`;
      subject[a] = unique(`in${a}`);
    }
    const m = w.who.member!.email;
    const [sent] = await Promise.all([
      // checks off: each actor mails the group address
      each((a) => mail(sender[a], w.address('inbox'), subject[a])),
      // DKIM required: the members with an aligned pass, and forgeries of the member's address
      mail(w.owner.email, w.address('secure'), secureSubject.owner, AUTHENTICATED),
      mail(m, w.address('secure'), secureSubject.member, AUTHENTICATED),
      mail(m, w.address('secure'), forged.unaligned, [
        'Authentication-Results: mx.cloudflare.net; dkim=pass header.d=evil.example; spf=pass smtp.mailfrom=evil.example',
      ]),
      mail(m, w.address('secure'), forged.foreignServ, [
        'Authentication-Results: relay.evil.example; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=example.com',
      ]),
      mail(m, w.address('secure'), forged.failedBelow, [
        'Authentication-Results: mx.cloudflare.net; dkim=fail header.d=example.com; spf=fail smtp.mailfrom=example.com',
        'Authentication-Results: relay.evil.example; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=example.com',
      ]),
    ]);
    outcome = sent;
    const read = async (base: string) => {
      const list = (await (await call('GET', `${base}/runs`, { token: w.owner.token })).json()) as { name: string }[];
      return Promise.all(
        list.map(async (r) => ({
          out: await bodyText(await call('GET', `${base}/runs/${r.name}/output`, { token: w.owner.token })),
          ...((await (
            await call('GET', `${base}/runs/${r.name}/stats`, { token: w.owner.token, headers: json })
          ).json()) as { created_by: string; status: string }),
        })),
      );
    };
    runs = [...(await read(inboxJob)), ...(await read(secureJob))];
    outbox = (await (await call('GET', '/v1/ops/outbox', { token: OPS })).json()) as Outbound[];
  });

  /** The runs whose output answers the mail `subj`, with who they ran as. */
  const runsFor = (subj: string) =>
    runs.filter((r) => r.out.includes(subj)).map((r) => ({ created_by: r.created_by, status: r.status }));
  /** Replies to the mail `subj`, to anyone. */
  const repliesTo = (subj: string) => outbox.filter((r) => r.subject.includes(subj));

  for (const a of ACTORS) {
    const member = IN_GROUP(a);
    it(`inbound mail: ${LABEL[a]} mailing the group address ${member ? "unauthenticated runs the group's job acting for nobody, the address recorded as unverified" : 'runs nothing and receives no output'}`, async () => {
      if (member) expect(outcome[a], 'accepted at SMTP level').toBe('');
      const ran = runsFor(subject[a]);
      const replies = repliesTo(subject[a]);
      if (member) {
        expect(ran).toEqual([{ created_by: `${sender[a].toLowerCase()} (unverified)`, status: 'success' }]);
        // a reply, if any, goes to the sender alone
        for (const r of replies) expect(r.to).toEqual([sender[a].toLowerCase()]);
        return;
      }
      expect(ran).toEqual([]);
      expect(replies.filter((r) => r.attachments.length > 0 || /succeeded/.test(r.text))).toEqual([]);
    });
  }

  for (const a of ACTORS.filter((x) => !IN_GROUP(x))) {
    it(`inbound mail: no reply goes to ${LABEL[a]}, an unauthenticated non-member (no backscatter)`, async () => {
      expect(repliesTo(subject[a])).toEqual([]);
    });
  }

  for (const a of ['owner', 'member'] as const) {
    it(`inbound mail (DKIM required): ${LABEL[a]} with an aligned DKIM pass from the platform's receiver runs the group's job and gets the output`, async () => {
      expect(runsFor(secureSubject[a])).toEqual([{ created_by: w.who[a]!.username, status: 'success' }]);
      const replies = repliesTo(secureSubject[a]);
      expect(replies.map((r) => r.to)).toEqual([[w.who[a]!.email.toLowerCase()]]);
      expect(replies[0]!.attachments.map((f) => f.filename)).toEqual(['output.txt']);
    });
  }

  const forgeries: [keyof typeof forged, string][] = [
    ['unaligned', 'a DKIM pass of a domain other than the From domain'],
    ['foreignServ', 'an Authentication-Results header of another authserv-id'],
    ['failedBelow', "a forged pass below the receiver's failing Authentication-Results"],
  ];
  for (const [key, how] of forgeries) {
    it(`inbound mail (DKIM required): anonymous forging the group member's address with ${how} runs nothing and gets no reply`, async () => {
      expect(runsFor(forged[key])).toEqual([]);
      expect(repliesTo(forged[key])).toEqual([]);
    });
  }
});
