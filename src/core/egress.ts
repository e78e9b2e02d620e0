/**
 * Which outbound targets the platform refuses (pure): every request a job's sandbox makes
 * and every https:// chain step is checked here, on each redirect hop.
 *
 * Refused: non-http(s) URLs; loopback (127.0.0.0/8, ::1, `localhost`, `*.localhost`);
 * private (10/8, 172.16/12, 192.168/16, fc00::/7); link-local (169.254/16, fe80::/10);
 * CGNAT (100.64/10); unspecified and "this network" (0.0.0.0/8, ::); multicast, reserved
 * and broadcast; every IPv6 form that carries one of those IPv4 addresses (IPv4-mapped,
 * IPv4-compatible, IPv4-translated, NAT64, 6to4, Teredo: ipv6Refusal); numeric spellings of IPv4 (`2130706433`, `0x7f.1`, `0177.0.0.1`) read the way a
 * URL parser reads them; and the platform's own hosts (PUBLIC_ORIGIN's host, the host
 * of the request being served). A host name is checked by what it resolves to where a
 * resolver is configured (core/resolve.ts: resolvedRefusal on its A and AAAA answers).
 */

/** The refusal's reason, or null when the target may be reached. */
export function egressRefusal(target: string | URL, ownHosts: readonly string[] = []): string | null {
  let url: URL;
  try {
    url = typeof target === 'string' ? new URL(target) : target;
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return `${url.protocol} URLs are not allowed (http and https only)`;
  const host = normalHost(url.hostname);
  if (!host) return 'the URL has no host';
  const why = addressRefusal(host);
  if (why) return why;
  return ownHosts.some((h) => normalHost(h) === host) ? `${host} is the platform itself` : null;
}

/**
 * The refusal's reason when `host` resolved to `addresses` (its A and AAAA answers, as
 * text): any refused one refuses the host (a rebinding name may answer either), and so
 * does a name without an address.
 */
export function resolvedRefusal(host: string, addresses: readonly string[]): string | null {
  if (addresses.length === 0) return `${host} does not resolve to an address`;
  for (const address of addresses) {
    const literal = address.includes(':') ? `[${address}]` : address;
    const why =
      looksNumeric(literal) || literal.startsWith('[') ? addressRefusal(literal) : `${address} is not an address`;
    if (why) return `${host} resolves to ${why}`;
  }
  return null;
}

/** Whether the URL's host is an address literal (IPv4 in any spelling, or [IPv6]): nothing to resolve. */
export function isAddressHost(hostname: string): boolean {
  const host = normalHost(hostname);
  return host.startsWith('[') || looksNumeric(host);
}

/** What is wrong with a (normalised) host as a target, whoever the platform is. */
function addressRefusal(host: string): string | null {
  if (host.startsWith('[')) return ipv6Refusal(host.slice(1, -1));
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback host`;
  if (!looksNumeric(host)) return null;
  const v4 = parseIPv4(host);
  return v4 === null ? `${host} is a malformed numeric address` : ipv4Refusal(v4);
}

/** The platform's own host names: PUBLIC_ORIGIN's, plus any given (the served request's host). */
export function platformHosts(env: { PUBLIC_ORIGIN?: string }, ...extra: (string | null | undefined)[]): string[] {
  const hosts: string[] = [];
  for (const origin of [env.PUBLIC_ORIGIN, ...extra]) {
    if (!origin) continue;
    try {
      hosts.push(new URL(origin.includes('://') ? origin : `http://${origin}`).hostname);
    } catch {
      // Not a URL or host: nothing to add.
    }
  }
  return hosts;
}

/** Lowercase, without the trailing dot of an absolute name (`localhost.` is `localhost`). */
function normalHost(host: string): string {
  const h = host.toLowerCase();
  return h.endsWith('.') && !h.startsWith('[') ? h.slice(0, -1) : h;
}

/** A host whose last label is a number is an IPv4 address to a URL parser (WHATWG "ends in a number"). */
function looksNumeric(host: string): boolean {
  const last = host.split('.').pop()!;
  return /^\d+$/.test(last) || /^0x[0-9a-f]*$/.test(last);
}

/** One part of a numeric IPv4 host: decimal, 0x hex or 0-prefixed octal; null when invalid. */
function ipv4Part(part: string): number | null {
  if (/^0x[0-9a-f]*$/.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part.slice(1), 8);
  if (/^(0|[1-9]\d*)$/.test(part)) return Number(part);
  return null;
}

/**
 * An IPv4 host in any form a URL parser accepts (1 to 4 parts, the last filling the
 * remaining bytes), as a 32-bit number; null when it is not one.
 */
export function parseIPv4(host: string): number | null {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const nums = parts.map(ipv4Part);
  if (nums.some((n) => n === null || !Number.isFinite(n))) return null;
  const values = nums as number[];
  const last = values.pop()!;
  if (values.some((n) => n > 255) || last >= 256 ** (4 - values.length)) return null;
  return values.reduce((acc, n, i) => acc + n * 256 ** (3 - i), 0) + last;
}

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** [network, prefix length, what it is] of every refused IPv4 range. */
const IPV4_REFUSED: [number, number, string][] = [
  [v4(0, 0, 0, 0), 8, 'an unspecified ("this network") address'],
  [v4(10, 0, 0, 0), 8, 'a private address'],
  [v4(100, 64, 0, 0), 10, 'a shared (CGNAT) address'],
  [v4(127, 0, 0, 0), 8, 'a loopback address'],
  [v4(169, 254, 0, 0), 16, 'a link-local address'],
  [v4(172, 16, 0, 0), 12, 'a private address'],
  [v4(192, 0, 0, 0), 24, 'a reserved (IETF protocol) address'],
  [v4(192, 168, 0, 0), 16, 'a private address'],
  [v4(198, 18, 0, 0), 15, 'a reserved (benchmarking) address'],
  [v4(224, 0, 0, 0), 4, 'a multicast address'],
  [v4(240, 0, 0, 0), 4, 'a reserved or broadcast address'],
];

const dotted = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

function ipv4Refusal(addr: number): string | null {
  for (const [net, bits, what] of IPV4_REFUSED) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((addr & mask) >>> 0 === net) return `${dotted(addr)} is ${what}`;
  }
  return null;
}

/** An IPv6 address (without brackets) as eight 16-bit groups; null when it is not one. */
export function parseIPv6(text: string): number[] | null {
  if (text.includes('%')) return null; // zone ids never reach a public host
  let s = text.toLowerCase();
  const lastColon = s.lastIndexOf(':');
  const quad = s.slice(lastColon + 1);
  if (quad.includes('.')) {
    // An embedded dotted IPv4 in the last 32 bits (strict: four decimal parts) becomes two groups.
    const n = quad.split('.');
    if (n.length !== 4 || n.some((p) => !/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255)) return null;
    const [a, b, c, d] = n.map(Number) as [number, number, number, number];
    s = `${s.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return null;
  const total = head.length + rest.length;
  if (halves.length === 1 ? total !== 8 : total > 7) return null;
  const fill = Array.from({ length: 8 - total }, () => 0);
  return [...head, ...fill.map(String), ...rest].map((g) => parseInt(g, 16));
}

/**
 * The IPv4 addresses an IPv6 address carries, by the form it has (each reaches, or is
 * answered from, that IPv4 address): none for any other address.
 * - IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96 and IPv4-translated ::ffff:0:0:0/96:
 *   the last 32 bits;
 * - NAT64 64:ff9b::/32 (the well-known 64:ff9b::/96, the local-use 64:ff9b:1::/48): the last
 *   32 bits;
 * - 6to4 2002::/16: bits 16-47;
 * - Teredo 2001::/32: the client in the last 32 bits with every bit inverted (XOR
 *   0xffffffff), and the Teredo server in bits 32-63.
 * (`::` and `::1` are checked before, as the unspecified and the loopback address.)
 */
function embeddedIPv4(g: readonly number[]): number[] {
  const v4 = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(5) && (g[5] === 0xffff || g[5] === 0)) return [v4(g[6]!, g[7]!)];
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return [v4(g[6]!, g[7]!)];
  if (g[0] === 0x64 && g[1] === 0xff9b) return [v4(g[6]!, g[7]!)];
  if (g[0] === 0x2002) return [v4(g[1]!, g[2]!)];
  if (g[0] === 0x2001 && g[1] === 0) return [(v4(g[6]!, g[7]!) ^ 0xffffffff) >>> 0, v4(g[2]!, g[3]!)];
  return [];
}

function ipv6Refusal(text: string): string | null {
  const g = parseIPv6(text);
  if (!g) return `[${text}] is a malformed IPv6 address`;
  const shown = `[${text}]`;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return `${shown} is the unspecified address`;
  if (zeroUpTo(7) && g[7] === 1) return `${shown} is the loopback address`;
  // A form that carries IPv4 addresses is refused when any of them is.
  for (const v4 of embeddedIPv4(g)) {
    const why = ipv4Refusal(v4);
    if (why) return `${shown} embeds ${why}`;
  }
  if ((g[0]! & 0xfe00) === 0xfc00) return `${shown} is a private (unique local) address`;
  if ((g[0]! & 0xffc0) === 0xfe80) return `${shown} is a link-local address`;
  if ((g[0]! & 0xffc0) === 0xfec0) return `${shown} is a site-local address`;
  if ((g[0]! & 0xff00) === 0xff00) return `${shown} is a multicast address`;
  return null;
}
