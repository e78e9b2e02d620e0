import { describe, expect, it } from 'vitest';
import {
  aligned,
  authenticated,
  authRefusal,
  domainOf,
  fromAddress,
  mailAuth,
  parseAuthResults,
  tokenize,
  type HeaderList,
} from '../../../src/jobs/mail-auth';

const h = (...pairs: [string, string][]): HeaderList => pairs.map(([key, value]) => ({ key, value }));
const AR = 'authentication-results';
const FROM: [string, string] = ['from', 'Alice <alice@example.com>'];

describe('alignment: equal, or one a subdomain of the other, never through a single label', () => {
  it('equal domains align, case and a trailing dot aside', () => {
    expect(aligned('example.com', 'example.com')).toBe(true);
    expect(aligned(domainOf('A@Example.COM.'), domainOf('example.com'))).toBe(true);
  });
  it('a subdomain aligns with its parent, either way round', () => {
    expect(aligned('mail.example.com', 'example.com')).toBe(true);
    expect(aligned('example.com', 'a.b.example.com')).toBe(true);
  });
  it('siblings, look-alikes and unrelated domains do not align', () => {
    expect(aligned('a.example.com', 'b.example.com')).toBe(false);
    expect(aligned('evilexample.com', 'example.com')).toBe(false);
    expect(aligned('example.com.evil.net', 'example.com')).toBe(false);
    expect(aligned('evil.net', 'example.com')).toBe(false);
  });
  it('a single-label parent (a top-level domain) never aligns', () => {
    expect(aligned('example.com', 'com')).toBe(false);
    expect(aligned('com', 'evil.com')).toBe(false);
  });
  it('an empty or malformed domain never aligns', () => {
    expect(aligned('', '')).toBe(false);
    expect(domainOf('a@exa mple.com')).toBe('');
    expect(domainOf('a@-x.com')).toBe('');
    expect(aligned(domainOf('a@'), 'example.com')).toBe(false);
  });
});

describe('the From address: one From header with one plain address, else none', () => {
  it('reads Name <addr>, a bare addr, quoted names and comments', () => {
    expect(fromAddress(h(['from', 'Alice <Alice@Example.com>']))).toBe('alice@example.com');
    expect(fromAddress(h(['from', 'alice@example.com']))).toBe('alice@example.com');
    expect(fromAddress(h(['from', '"Doe, <John>" <john@example.com>']))).toBe('john@example.com');
    expect(fromAddress(h(['from', 'alice@example.com (Alice, at work)']))).toBe('alice@example.com');
  });
  it('no From, two From headers, two addresses or a group give no address', () => {
    expect(fromAddress([])).toBe('');
    expect(fromAddress(h(['from', 'a@example.com'], ['from', 'b@example.com']))).toBe('');
    expect(fromAddress(h(['from', 'a@example.com, b@example.com']))).toBe('');
    expect(fromAddress(h(['from', 'A <a@example.com>, B <b@example.com>']))).toBe('');
    expect(fromAddress(h(['from', 'undisclosed-recipients:;']))).toBe('');
    expect(fromAddress(h(['from', 'Alice <alice@example.com']))).toBe('');
  });
});

describe('Authentication-Results values: one scan, comments and quoted strings respected', () => {
  it('splits results on ; outside quotes and comments, and drops comments', () => {
    const r = parseAuthResults(
      'mx.cloudflare.net 1; dkim=pass (good; signature) header.d=example.com; spf = pass smtp.mailfrom="a;b@example.com"',
    );
    expect(r.authservId).toBe('mx.cloudflare.net');
    expect(r.results.map((x) => [x.method, x.result])).toEqual([
      ['dkim', 'pass'],
      ['spf', 'pass'],
    ]);
    expect(r.results[1]!.props.get('smtp.mailfrom')).toBe('a;b@example.com');
  });
  it('nested comments and escaped characters do not end a comment early', () => {
    expect(tokenize('a (x (y) \\) ; dkim=pass) b; c')).toEqual([['a', 'b'], ['c']]);
  });
});

describe("only the platform receiver's Authentication-Results header counts (authserv-id), the topmost one", () => {
  it('a header from another authserv-id is ignored, even when it is the topmost', () => {
    const a = mailAuth(
      h([AR, 'forger.example; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=alice@example.com'], FROM),
    );
    expect(a).toMatchObject({
      dkim: false,
      spf: false,
      dkimResult: 'no Authentication-Results header from mx.cloudflare.net',
    });
    const b = mailAuth(
      h(
        [AR, 'forger.example; dkim=pass header.d=example.com'],
        [AR, 'mx.cloudflare.net; dkim=fail header.d=example.com; spf=softfail smtp.mailfrom=alice@example.com'],
        FROM,
      ),
    );
    expect(b).toMatchObject({ dkim: false, spf: false, dkimResult: 'fail', spfResult: 'softfail' });
  });
  it("a forged second header with the receiver's id, below the receiver's own, is ignored", () => {
    const a = mailAuth(
      h(
        [AR, 'mx.cloudflare.net; dkim=none; spf=none smtp.mailfrom=alice@example.com'],
        [AR, 'mx.cloudflare.net; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=alice@example.com'],
        FROM,
      ),
    );
    expect(a).toMatchObject({ dkim: false, spf: false, dkimResult: 'none', spfResult: 'none' });
  });
  it('the authserv-id is configurable (second argument) and compared case-insensitively', () => {
    const headers = h([AR, 'MX.Example.NET; dkim=pass header.d=example.com'], FROM);
    expect(mailAuth(headers).dkim).toBe(false);
    expect(mailAuth(headers, 'mx.example.net').dkim).toBe(true);
  });
  it('Received-SPF names no receiver and is not read', () => {
    expect(
      mailAuth(h(['received-spf', 'pass (mx.cloudflare.net: domain of alice@example.com designates 1.2.3.4)'], FROM))
        .spf,
    ).toBe(false);
  });
  it('a comment or a quoted string holding dkim=pass is not a result', () => {
    expect(
      mailAuth(h([AR, 'mx.cloudflare.net; dkim=none (dkim=pass header.d=example.com); spf=none'], FROM)).dkim,
    ).toBe(false);
    expect(
      mailAuth(h([AR, 'mx.cloudflare.net; dkim=fail reason="x; dkim=pass header.d=example.com"'], FROM)).dkim,
    ).toBe(false);
    expect(mailAuth(h([AR, 'dkim=pass.example; spf=fail'], FROM)).dkim).toBe(false);
  });
});

describe('DKIM and SPF pass only when aligned with the From domain', () => {
  it('dkim=pass signed by the From domain (or its parent/subdomain) passes', () => {
    expect(mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass header.d=example.com header.s=s1'], FROM)).dkim).toBe(true);
    expect(mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass header.d=mail.example.com'], FROM)).dkim).toBe(true);
  });
  it('dkim=pass signed by another domain does not pass, and says why', () => {
    const a = mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass header.d=evil.example'], FROM));
    expect(a.dkim).toBe(false);
    expect(a.dkimResult).toBe('pass for evil.example (not aligned with the From domain example.com)');
    expect(mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass'], FROM)).dkim).toBe(false);
  });
  it('any aligned passing signature passes among several', () => {
    expect(
      mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass header.d=esp.example; dkim=pass header.d=example.com'], FROM)).dkim,
    ).toBe(true);
    expect(
      mailAuth(h([AR, 'mx.cloudflare.net; dkim=fail header.d=example.com; dkim=pass header.d=esp.example'], FROM)).dkim,
    ).toBe(false);
  });
  it('spf=pass counts only when smtp.mailfrom aligns with the From domain', () => {
    expect(mailAuth(h([AR, 'mx.cloudflare.net; spf=pass smtp.mailfrom=alice@example.com'], FROM)).spf).toBe(true);
    expect(mailAuth(h([AR, 'mx.cloudflare.net; spf=pass smtp.mailfrom=bounces.example.com'], FROM)).spf).toBe(true);
    const a = mailAuth(h([AR, 'mx.cloudflare.net; spf=pass smtp.mailfrom=mallory@evil.example'], FROM));
    expect(a).toMatchObject({
      spf: false,
      spfResult: 'pass for evil.example (not aligned with the From domain example.com)',
    });
  });
  it('without a usable From nothing aligns', () => {
    const a = mailAuth(
      h(
        [AR, 'mx.cloudflare.net; dkim=pass header.d=example.com; spf=pass smtp.mailfrom=a@example.com'],
        ['from', 'a@example.com, b@example.com'],
      ),
    );
    expect(a).toMatchObject({ from: '', dkim: false, spf: false });
    expect(authenticated(a)).toBe(false);
  });
});

describe('what the group options refuse, and who may be answered', () => {
  it('authRefusal names each failed check and option; nothing asked, nothing refused', () => {
    const none = mailAuth([]);
    expect(authRefusal(none, { dkim: true, spf: true })).toMatch(
      /DKIM did not pass.*SPF did not pass.*mail_verify_dkim, mail_verify_spf/,
    );
    expect(authRefusal(none, { dkim: false, spf: false })).toBeNull();
  });
  it('authenticated: aligned DKIM or aligned SPF', () => {
    expect(authenticated(mailAuth(h([AR, 'mx.cloudflare.net; dkim=pass header.d=example.com'], FROM)))).toBe(true);
    expect(authenticated(mailAuth(h([AR, 'mx.cloudflare.net; spf=pass smtp.mailfrom=alice@example.com'], FROM)))).toBe(
      true,
    );
    expect(authenticated(mailAuth(h([AR, 'mx.cloudflare.net; dkim=fail header.d=example.com; spf=fail'], FROM)))).toBe(
      false,
    );
    expect(authenticated(mailAuth(h(FROM)))).toBe(false);
  });
});
