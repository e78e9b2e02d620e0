/**
 * Sender authentication of inbound mail, as the platform's own receiver reported it.
 * Cloudflare Email Routing checks SPF and DKIM on arrival and prepends its results as
 * `Authentication-Results: mx.cloudflare.net; dkim=pass header.d=... ; spf=pass smtp.mailfrom=...`.
 *
 * - Only an `Authentication-Results` header whose authserv-id is the receiver's own
 *   (`MAIL_AUTHSERV_ID`, default `mx.cloudflare.net`) counts, and of those only the topmost
 *   (the receiver prepends its header; anything a sender wrote sits below it). Headers with
 *   another authserv-id, and `Received-SPF` (it names no receiver), are ignored.
 * - The identity checked is the address of the message's single From header (`from`): a
 *   message with no From, several From headers or several addresses in it has none.
 * - DKIM passes when a `dkim=pass` result's signing domain (`header.d`) aligns with the From
 *   domain; SPF passes when `spf=pass` and its `smtp.mailfrom` domain aligns with it
 *   (`aligned`, DMARC's relaxed alignment without a public-suffix list).
 *
 * Pure and linear in the size of the headers: every value is read in one left-to-right scan.
 */

export const DEFAULT_AUTHSERV_ID = 'mx.cloudflare.net';

export interface MailAuth {
  /** The From header's address, lowercase; '' when the message has no single usable one. */
  from: string;
  /** Aligned DKIM passed. */
  dkim: boolean;
  /** Aligned SPF passed. */
  spf: boolean;
  /** What was read, for the rejection reason (`fail`, `pass for evil.example (not aligned with example.com)`, ...). */
  dkimResult: string;
  spfResult: string;
}

/** Header fields in message order, as postal-mime lists them (keys lowercase). */
export type HeaderList = { key: string; value: string }[];

/**
 * One structured header value split into `;`-separated parts, each a list of tokens:
 * comments (nested, with quoted pairs) are dropped, quoted strings kept whole without their
 * quotes (a `;` inside them separates nothing), and `a = b` read as `a=b`. One pass.
 */
export function tokenize(value: string): string[][] {
  const parts: string[][] = [];
  let tokens: string[] = [];
  // Characters of the current token, joined once at its end (no string grows per character).
  let token: string[] = [];
  let depth = 0; // comment nesting
  let quoted = false;
  let gap = false; // whitespace (or a comment) since the token's last character
  const endToken = () => {
    if (token.length) tokens.push(token.join(''));
    token = [];
    gap = false;
  };
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      if (c === '\\' && i + 1 < value.length) token.push(value[++i]!);
      else if (c === '"') quoted = false;
      else token.push(c);
      continue;
    }
    if (depth > 0) {
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
      continue;
    }
    if (c === '(') {
      depth = 1;
      gap = true;
    } else if (c === ' ' || c === '\t' || c === '\r' || c === '\n') gap = true;
    else if (c === ';') {
      endToken();
      parts.push(tokens);
      tokens = [];
    } else {
      // `method = result`: whitespace around `=` does not split the token.
      if (gap && token.length && token[token.length - 1] !== '=' && c !== '=') endToken();
      gap = false;
      if (c === '"') quoted = true;
      else token.push(c);
    }
  }
  endToken();
  parts.push(tokens);
  return parts;
}

/** One result of an Authentication-Results header: `dkim=pass header.d=example.com ...`. */
export interface AuthResult {
  method: string;
  result: string;
  /** Properties by lowercase name (`header.d`, `smtp.mailfrom`), values as written. */
  props: Map<string, string>;
}

/** The authserv-id (lowercase) and results of one Authentication-Results value. */
export function parseAuthResults(value: string): { authservId: string; results: AuthResult[] } {
  const [head = [], ...rest] = tokenize(value);
  const results: AuthResult[] = [];
  for (const tokens of rest) {
    const [first, ...props] = tokens;
    const eq = first?.indexOf('=') ?? -1;
    if (!first || eq <= 0) continue;
    const map = new Map<string, string>();
    for (const p of props) {
      const at = p.indexOf('=');
      if (at > 0) map.set(p.slice(0, at).toLowerCase(), p.slice(at + 1));
    }
    results.push({ method: first.slice(0, eq).toLowerCase(), result: first.slice(eq + 1).toLowerCase(), props: map });
  }
  return { authservId: (head[0] ?? '').toLowerCase(), results };
}

const DOMAIN = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/**
 * The domain of an address or a bare domain (`a@b.example`, `b.example`, `@b.example`), lowercase; '' when malformed.
 */
export function domainOf(addressOrDomain: string): string {
  const d = addressOrDomain
    .slice(addressOrDomain.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase()
    .replace(/\.$/, '');
  return d.length <= 253 && DOMAIN.test(d) ? d : '';
}

/**
 * DMARC relaxed alignment, approximated without a public-suffix list: the domains are equal,
 * or one is a subdomain of the other and that other (the parent) has at least two labels.
 * So `mail.example.com` aligns with `example.com`, never through a single label such as
 * `com`; a parent that is itself a public suffix of two labels (`co.uk`) is not recognised.
 */
export function aligned(a: string, b: string): boolean {
  if (!a || !b) return false;
  if (a === b) return true;
  const [child, parent] = a.length > b.length ? [a, b] : [b, a];
  return parent.includes('.') && child.endsWith(`.${parent}`);
}

/**
 * The address of the message's single From header, lowercase; '' when there is no From,
 * more than one From header, more than one address in it, or no plain `local@domain`.
 * Reads `Name <addr>` or a bare `addr`; quoted display names and comments are skipped.
 */
export function fromAddress(headers: HeaderList): string {
  const froms = headers.filter((h) => h.key.toLowerCase() === 'from');
  if (froms.length !== 1) return '';
  const value = froms[0]!.value;
  const bare: string[] = [];
  let angle: string[] | null = null;
  let angles = 0;
  let inAngle = false;
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (depth > 0) {
      if (c === '\\') i++;
      else if (c === '(') depth++;
      else if (c === ')') depth--;
      continue;
    }
    if (inAngle) {
      if (c === '>') inAngle = false;
      else angle!.push(c);
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === '(') depth = 1;
    else if (c === '<') {
      inAngle = true;
      angle = [];
      angles++;
    } else if (c === ',' || c === ';' || c === ':')
      return ''; // several mailboxes or a group
    else bare.push(c);
  }
  if (angles > 1 || inAngle) return '';
  const address = (angle ?? bare).join('').trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0 || /[\s"<>()\\,;:@]/.test(address.slice(0, at))) return '';
  return domainOf(address.slice(at + 1)) === address.slice(at + 1) ? address : '';
}

/** DKIM and SPF of a message as its receiver `authservId` reported them, aligned with its From. */
export function mailAuth(headers: HeaderList, authservId: string = DEFAULT_AUTHSERV_ID): MailAuth {
  const from = fromAddress(headers);
  const fromDomain = from ? domainOf(from) : '';
  const id = authservId.trim().toLowerCase();
  let results: AuthResult[] | null = null;
  for (const h of headers) {
    if (h.key.toLowerCase() !== 'authentication-results') continue;
    const parsed = parseAuthResults(h.value);
    if (parsed.authservId === id) {
      results = parsed.results;
      break;
    }
  }
  if (!results) {
    const none = `no Authentication-Results header from ${id}`;
    return { from, dkim: false, spf: false, dkimResult: none, spfResult: none };
  }
  const notAligned = (d: string) =>
    `pass for ${d || 'no domain'} (not aligned with the From domain ${fromDomain || '(none)'})`;

  const dkims = results.filter((r) => r.method === 'dkim');
  const passing = dkims.filter((r) => r.result === 'pass');
  const signer = passing.find((r) => aligned(domainOf(r.props.get('header.d') ?? ''), fromDomain));
  const dkimResult = signer
    ? 'pass'
    : passing.length
      ? notAligned(domainOf(passing[0]!.props.get('header.d') ?? ''))
      : (dkims[0]?.result ?? 'none');

  const spf = results.find((r) => r.method === 'spf');
  const mailFrom = domainOf(spf?.props.get('smtp.mailfrom') ?? '');
  const spfResult = !spf
    ? 'none'
    : spf.result !== 'pass'
      ? spf.result
      : aligned(mailFrom, fromDomain)
        ? 'pass'
        : notAligned(mailFrom);

  return { from, dkim: dkimResult === 'pass', spf: spfResult === 'pass', dkimResult, spfResult };
}

/** The message passed aligned DKIM or aligned SPF: its From address may be answered. */
export const authenticated = (auth: MailAuth): boolean => !!auth.from && (auth.dkim || auth.spf);

/** Why a message fails the group's checks (`need`: which options are on), or null. */
export function authRefusal(auth: MailAuth, need: { dkim: boolean; spf: boolean }): string | null {
  const failed: [string, string][] = [];
  if (need.dkim && !auth.dkim) failed.push([`DKIM did not pass (${auth.dkimResult})`, 'mail_verify_dkim']);
  if (need.spf && !auth.spf) failed.push([`SPF did not pass (${auth.spfResult})`, 'mail_verify_spf']);
  if (!failed.length) return null;
  return `${failed.map(([r]) => r).join('; ')}, and the group requires it (${failed.map(([, o]) => o).join(', ')})`;
}
