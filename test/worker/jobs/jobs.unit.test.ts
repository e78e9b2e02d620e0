import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { parseChains, chainProblem, parseRef } from '../../../src/jobs/chains';
import { nextFire, parseSchedule, scheduleProblem } from '../../../src/jobs/cron';
import { jsonProblem, textFile, uniqueNames, filesFromResponse } from '../../../src/jobs/files';
import { durationOf, isExpired, statsText, RETENTION_MS } from '../../../src/jobs/run/reads';
import { historyLine } from '../../../src/jobs/run/history';
import { runName, RUN_NAME } from '../../../src/jobs/run/name';
import { booleanProblem } from '../../../src/jobs/config';
import { yesNo as isTruthy } from '../../../src/core/yes-no';
import { inboundMessage, mailInput } from '../../../src/jobs/inbound';
import { moduleSyntaxProblem } from '../../../src/jobs/code-syntax';
import { rawMail } from './raw-mail';

describe('chain grammar', () => {
  it('a chain of one bare ref is allowed', () => {
    expect(parseChains('other')).toEqual([
      { label: 'other', ref: { kind: 'job', owner: null, job: 'other' }, fanOut: false },
    ]);
  });
  it('empty or comment-only chains mean the job runs its own code', () => {
    expect(parseChains('')).toEqual([]);
    expect(parseChains('# nothing\n\n   ')).toEqual([]);
  });
  it('bindings label <- ref and edges a -> b -> .c, with a dot fanning out', () => {
    const steps = parseChains(
      'fetch <- @alice/dl\nclean <- https://example.com/x#frag\nfetch -> clean -> .render # comment',
    );
    expect(steps.map((s) => [s.label, s.fanOut])).toEqual([
      ['fetch', false],
      ['clean', false],
      ['render', true],
    ]);
    expect(steps[0]!.ref).toEqual({ kind: 'job', owner: 'alice', job: 'dl' });
    expect(steps[1]!.ref).toEqual({ kind: 'url', url: 'https://example.com/x#frag' });
    expect(steps[2]!.ref).toEqual({ kind: 'job', owner: null, job: 'render' });
  });
  it('several edge lines join into one path', () => {
    expect(parseChains('b -> c\na -> b').map((s) => s.label)).toEqual(['a', 'b', 'c']);
  });
  it('one binding without edges is a one-step chain', () => {
    expect(parseChains('x <- @bob/job')[0]!.ref).toEqual({ kind: 'job', owner: 'bob', job: 'job' });
  });
  it.each([
    ['a -> b\na -> c', 'already leads'],
    ['a -> b\nc -> b', 'already follows'],
    ['a -> b\nb -> a', 'cycle'],
    ['a -> a', 'follow itself'],
    ['x <- Bad', 'invalid ref'],
    ['x <- http://plain.example', 'invalid ref'],
    ['X <- job', 'invalid label'],
    ['x <- a\nx <- b\nx', 'bound twice'],
    ['a ->', 'expected'],
    ['a -> B', 'neither a bound label'],
    ['x <- a\ny <- b', 'no edges'],
    ['x <- a\nb -> c', 'bound but not used'],
    ['a -> b\nc -> d', 'starts'],
  ])('rejects %j (%s)', (text, msg) => {
    expect(chainProblem(text)).toContain(msg);
  });
  it('at most 32 steps', () => {
    const names = Array.from({ length: 33 }, (_, i) => `s${i}`);
    expect(chainProblem(names.join(' -> '))).toContain('at most 32');
  });
  it('refs: job names, @user/job, https URLs only', () => {
    expect(parseRef('job_1')).toEqual({ kind: 'job', owner: null, job: 'job_1' });
    expect(parseRef('@u/j')).toEqual({ kind: 'job', owner: 'u', job: 'j' });
    expect(parseRef('https://x.example/a')).toMatchObject({ kind: 'url' });
    expect(parseRef('ftp://x')).toBeNull();
    expect(parseRef('@U/j')).toBeNull();
  });
});

describe('schedules', () => {
  it('five fields, optional TZ= prefix and # comment', () => {
    expect(parseSchedule('*/5 * * * *')).toEqual({ expr: '*/5 * * * *', timezone: 'UTC' });
    expect(parseSchedule('TZ=Europe/Paris 0 9 * * 1-5 # weekday mornings')).toEqual({
      expr: '0 9 * * 1-5',
      timezone: 'Europe/Paris',
    });
    expect(parseSchedule('# off')).toBeNull();
    expect(parseSchedule('')).toBeNull();
  });
  it.each([['* * * *'], ['* * * * * *'], ['TZ=Nowhere/Land * * * * *'], ['61 * * * *'], ['TZ=UTC']])(
    'rejects %j',
    (s) => {
      expect(scheduleProblem(s)).toBeTruthy();
    },
  );
  it('next fire time honours the time zone', () => {
    const at = Date.parse('2026-01-15T07:30:00Z');
    // 09:00 in Paris (UTC+1 in winter) is 08:00 UTC
    expect(new Date(nextFire(parseSchedule('TZ=Europe/Paris 0 9 * * *')!, at)!).toISOString()).toBe(
      '2026-01-15T08:00:00.000Z',
    );
    expect(new Date(nextFire(parseSchedule('0 9 * * *')!, at)!).toISOString()).toBe('2026-01-15T09:00:00.000Z');
  });
});

describe('runs', () => {
  it('run ids are <YYYYMMDD>-<HHMMSS>-<request id> in UTC', () => {
    const name = runName(Date.parse('2026-03-04T05:06:07Z'), 'abc123');
    expect(name).toBe('20260304-050607-abc123');
    expect(RUN_NAME.test(name)).toBe(true);
  });
  it('duration is seconds with two decimals', () => {
    expect(durationOf('2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.237Z')).toBe(1.24);
  });
  it('log and output expire after 30 days', () => {
    const started = '2026-01-01T00:00:00.000Z';
    expect(isExpired({ started_on: started }, Date.parse(started) + RETENTION_MS - 1)).toBe(false);
    expect(isExpired({ started_on: started }, Date.parse(started) + RETENTION_MS + 1)).toBe(true);
  });
  it('stats text is key: value with every field', () => {
    const text = statsText({
      name: 'n',
      shortname: 's',
      status: 'success',
      origin: 'j',
      origin_shortname: 'js',
      started_on: 'a',
      completed_on: null,
      duration: 1.5,
      trigger: 'api',
      source: 'cli',
      has_output: true,
      created_by: 'u',
      children: [],
    });
    expect(text.split('\n')).toEqual([
      'name: n',
      'shortname: s',
      'status: success',
      'origin: j',
      'origin_shortname: js',
      'started_on: a',
      'completed_on: null',
      'duration: 1.50',
      'trigger: api',
      'source: cli',
      'has_output: true',
      'created_by: u',
      'children: []',
    ]);
  });
  it('history rows carry time, trigger, duration, status', () => {
    expect(historyLine({ name: 'r', started_on: 't', trigger: 'api', duration: null, status: 'processing' })).toMatch(
      /^r\s+t\s+api\s+-\s+processing\n$/,
    );
  });
});

describe('outputs', () => {
  it('duplicate names are made unique', () => {
    expect(uniqueNames([textFile('x', ''), textFile('x', ''), textFile('x', '')]).map((f) => f.name)).toEqual([
      'x',
      'x-2',
      'x-3',
    ]);
  });
  it('an https step answer becomes files: multipart parts or one named file', async () => {
    const form = new FormData();
    form.append('a', new File(['1'], 'one.txt', { type: 'text/plain' }));
    form.append('b', new File(['2'], 'two.txt', { type: 'text/plain' }));
    expect((await filesFromResponse(new Response(form))).map((f) => f.name)).toEqual(['one.txt', 'two.txt']);
    expect(
      (await filesFromResponse(new Response('{}', { headers: { 'Content-Type': 'application/json' } })))[0]!.name,
    ).toBe('output.json');
    expect(
      (
        await filesFromResponse(
          new Response('x', { headers: { 'Content-Disposition': 'attachment; filename="r.csv"' } }),
        )
      )[0]!.name,
    ).toBe('r.csv');
    expect(await filesFromResponse(new Response(null, { status: 204 }))).toEqual([]);
  });
});

describe('options', () => {
  it('falsy words read false, anything else true; unset is the default', () => {
    for (const v of ['no', 'n', 'nope', 'false', 'f', 'off', '0', 'FALSE']) expect(isTruthy(v, true)).toBe(false);
    for (const v of ['yes', 'true', 'on', '1']) expect(isTruthy(v, false)).toBe(true);
    expect(isTruthy(undefined, true)).toBe(true);
    expect(booleanProblem('maybe')).toBeTruthy();
    expect(booleanProblem('true')).toBeUndefined();
  });
});

describe('inbound mail input', () => {
  it('input.json carries from, to, subject, text, html; attachments are files', async () => {
    const raw = rawMail('ann@example.com', 'sales@acme.mail.localhost', 'Report', []);
    const email = await PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
    const msg = inboundMessage(email, 'ann@example.com', 'sales@acme.mail.localhost');
    const files = mailInput(msg);
    expect(files.map((f) => f.name)).toEqual(['input.json', 'rows.csv']);
    const json = JSON.parse(new TextDecoder().decode(files[0]!.data));
    expect(json).toMatchObject({ from: 'ann@example.com', to: 'sales@acme.mail.localhost', subject: 'Report' });
    expect(json.text.trim()).toBe('please process');
    expect(Object.keys(json).sort()).toEqual(['from', 'html', 'subject', 'text', 'to']);
  });
});

describe('jsonProblem: a data body must be a JSON document (else 400)', () => {
  const enc = (t: string) => new TextEncoder().encode(t);
  it('names what is wrong, or nothing for a JSON document', () => {
    expect(jsonProblem(enc('{"a":1}'))).toBeUndefined();
    expect(jsonProblem(enc(' 3 '))).toBeUndefined();
    expect(jsonProblem(enc(''))).toBe('the body is empty');
    expect(jsonProblem(enc(' \n'))).toBe('the body is empty');
    expect(jsonProblem(enc('a=b'))).toBe('the body is not a JSON document');
    expect(jsonProblem(new Uint8Array([0xff, 0xfe]))).toBe('the body is not UTF-8 text, so not a JSON document');
  });
});

describe('job code is a JavaScript module that parses', () => {
  it('a syntax error names its 1-based line and column; a module of the newest syntax parses', () => {
    expect(moduleSyntaxProblem('export default {\n  run() { return 1 +; }\n}')).toEqual({
      message: 'Unexpected token',
      line: 2,
      column: 21,
    });
    expect(
      moduleSyntaxProblem(
        "#!/usr/bin/env node\nimport x from './x.js';\nconst a = await x?.y ?? 1n;\nclass C { #p = 1; static { } }\nexport default { run: async () => a }",
      ),
    ).toBeNull();
    expect(moduleSyntaxProblem('return 1')).toMatchObject({ line: 1, column: 1 });
  });
});
