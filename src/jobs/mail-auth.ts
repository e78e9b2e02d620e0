/**
 * Sender authentication of inbound mail, as the receiving hop reported it. Cloudflare
 * Email Routing checks SPF, DKIM and DMARC on arrival and prepends its results to the
 * message: an `Authentication-Results: <authserv-id>; dkim=pass ...; spf=pass ...` header
 * and a `Received-SPF: pass (...)` header. We read the FIRST `Authentication-Results`
 * header (the topmost: added by the last hop, Cloudflare; the sender can only add
 * headers below it) for `dkim=` and `spf=`, and fall back to the first `Received-SPF`
 * header for SPF when that header has no `spf=`. DKIM passes when any `dkim=` result is
 * `pass` (a message may carry several signatures); SPF passes when the result is `pass`.
 * A missing header counts as not passed. Pure: no I/O.
 */

export interface MailAuth {
  dkim: boolean;
  spf: boolean;
  /** What was read, for the rejection reason (`dkim=fail`, `spf=none`, `no Authentication-Results`). */
  dkimResult: string;
  spfResult: string;
}

/** Header fields in message order, as postal-mime lists them (keys lowercase). */
export type HeaderList = { key: string; value: string }[];

const stripComments = (v: string) => {
  let out = v;
  for (let i = 0; i < 8 && /\([^()]*\)/.test(out); i++) out = out.replace(/\([^()]*\)/g, ' ');
  return out;
};

/** The results of one method (`dkim`, `spf`) in an Authentication-Results value, lowercase. */
function methodResults(value: string, method: string): string[] {
  const body = stripComments(value);
  const afterId = body.includes(';') ? body.slice(body.indexOf(';') + 1) : '';
  return [...afterId.matchAll(new RegExp(`(?:^|[;\\s])${method}\\s*=\\s*([a-z]+)`, 'gi'))].map((m) => m[1]!.toLowerCase());
}

export function mailAuth(headers: HeaderList): MailAuth {
  const first = (key: string) => headers.find((h) => h.key.toLowerCase() === key)?.value;
  const ar = first('authentication-results');
  const dkims = ar ? methodResults(ar, 'dkim') : [];
  const spfs = ar ? methodResults(ar, 'spf') : [];
  let spfResult = spfs[0];
  if (!spfResult) {
    const received = first('received-spf');
    spfResult = received ? (/^\s*([a-z]+)/i.exec(stripComments(received))?.[1]?.toLowerCase() ?? 'unreadable') : undefined;
  }
  const dkimResult = dkims.includes('pass') ? 'pass' : (dkims[0] ?? (ar ? 'none' : 'no Authentication-Results header'));
  return {
    dkim: dkimResult === 'pass',
    spf: spfResult === 'pass',
    dkimResult,
    spfResult: spfResult ?? 'no SPF result (Authentication-Results or Received-SPF)',
  };
}

/** Why a message fails the group's checks (`need`: which options are on), or null. */
export function authRefusal(auth: MailAuth, need: { dkim: boolean; spf: boolean }): string | null {
  const failed: [string, string][] = [];
  if (need.dkim && !auth.dkim) failed.push([`DKIM did not pass (${auth.dkimResult})`, 'mail_verify_dkim']);
  if (need.spf && !auth.spf) failed.push([`SPF did not pass (${auth.spfResult})`, 'mail_verify_spf']);
  if (!failed.length) return null;
  return `${failed.map(([r]) => r).join('; ')}, and the group requires it (${failed.map(([, o]) => o).join(', ')})`;
}
