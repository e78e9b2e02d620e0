/**
 * The outbound address check (pure). The only place private and link-local addresses
 * appear in the tests: nothing here sends traffic anywhere.
 */
import { describe, expect, it } from 'vitest';
import {
  egressRefusal,
  isAddressHost,
  parseIPv4,
  parseIPv6,
  platformHosts,
  resolvedRefusal,
} from '../../../src/core/egress';

const refused = (url: string, own: string[] = []) => egressRefusal(url, own) !== null;

describe('egress: loopback, private, link-local, CGNAT and unspecified targets are refused', () => {
  it.each([
    'http://127.0.0.1/',
    'http://127.0.0.1:8787/cdn-cgi/handler/email',
    'https://127.255.255.254/x',
    'http://localhost/',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://api.localhost/',
    'http://a.b.localhost./',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]:8080/',
    'http://10.0.0.1/',
    'http://10.255.255.255/',
    'http://172.16.0.1/',
    'http://172.31.255.255/',
    'http://192.168.1.1/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://[febf::1]/',
    'http://100.64.0.1/',
    'http://100.127.255.255/',
    'http://0.0.0.0/',
    'http://0.1.2.3/',
    'http://[::]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[ff02::1]/',
  ])('%s', (url) => {
    expect(refused(url)).toBe(true);
  });

  it('public addresses and names pass', () => {
    for (const url of [
      'https://example.com/x',
      'http://1.1.1.1/',
      'https://8.8.8.8:443/',
      'http://172.15.255.255/',
      'http://172.32.0.1/',
      'http://100.63.255.255/',
      'http://100.128.0.1/',
      'http://169.253.1.1/',
      'http://192.169.0.1/',
      'http://11.0.0.1/',
      'http://[2606:4700:4700::1111]/',
      'http://[2001:db8::1]/',
      'https://localhost.example.com/',
      'https://mylocalhost/',
    ]) {
      expect(egressRefusal(url), url).toBeNull();
    }
  });

  it('the reason names the address and what it is', () => {
    expect(egressRefusal('http://127.0.0.1:9/')).toBe('127.0.0.1 is a loopback address');
    expect(egressRefusal('http://169.254.169.254/')).toBe('169.254.169.254 is a link-local address');
    expect(egressRefusal('http://[::1]/')).toBe('[::1] is the loopback address');
    expect(egressRefusal('http://localhost/')).toBe('localhost is a loopback host');
  });
});

describe('egress: IPv4 inside IPv6 is checked as IPv4', () => {
  it.each([
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:10.1.2.3]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:192.168.0.1]/',
    'http://[::ffff:0:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::127.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
    'http://[2002:c0a8:101::1]/',
  ])('%s', (url) => {
    expect(refused(url)).toBe(true);
  });
  it('a mapped public address passes', () => {
    expect(egressRefusal('http://[::ffff:1.1.1.1]/')).toBeNull();
    expect(egressRefusal('http://[64:ff9b::808:808]/')).toBeNull();
  });
});

describe('egress: every IPv6 form that carries an IPv4 address is refused when that address is', () => {
  // Teredo 2001::/32: the server in bits 32-63, the client in the last 32 bits XOR 0xffffffff.
  const teredo = (server: string, client: string) => {
    const hex = (a: string, flip = 0) => {
      const n = (parseIPv4(a)! ^ flip) >>> 0;
      return `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
    };
    return `2001:0:${hex(server)}:0:0:${hex(client, 0xffffffff)}`;
  };
  it.each([
    // Teredo: a refused client or a refused server.
    [`[${teredo('1.1.1.1', '127.0.0.1')}]`, '127.0.0.1 is a loopback address'],
    [`[${teredo('1.1.1.1', '10.0.0.1')}]`, '10.0.0.1 is a private address'],
    [`[${teredo('1.1.1.1', '169.254.169.254')}]`, '169.254.169.254 is a link-local address'],
    [`[${teredo('192.168.0.1', '8.8.8.8')}]`, '192.168.0.1 is a private address'],
    [`[${teredo('127.0.0.1', '8.8.8.8')}]`, '127.0.0.1 is a loopback address'],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', '127.0.0.1 is a loopback address'],
    ['[2001::80ff:fffe]', '127.0.0.1 is a loopback address'],
    ['[2001::]', '255.255.255.255 is a reserved or broadcast address'],
    // 6to4 2002::/16: bits 16-47.
    ['[2002:a9fe:a9fe::1]', '169.254.169.254 is a link-local address'],
    ['[2002:ac10:1:ffff::]', '172.16.0.1 is a private address'],
    // NAT64, the well-known prefix 64:ff9b::/96 and the local-use 64:ff9b:1::/48: the last 32 bits.
    ['[64:ff9b::7f00:1]', '127.0.0.1 is a loopback address'],
    ['[64:ff9b:1::a00:1]', '10.0.0.1 is a private address'],
    ['[64:ff9b:1:ffff:ffff:ffff:a9fe:a9fe]', '169.254.169.254 is a link-local address'],
    // IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, IPv4-translated ::ffff:0:0:0/96: the last 32 bits.
    ['[::ffff:a00:1]', '10.0.0.1 is a private address'],
    ['[::a9fe:a9fe]', '169.254.169.254 is a link-local address'],
    ['[::ffff:0:c0a8:1]', '192.168.0.1 is a private address'],
  ])('%s embeds %s', (host, why) => {
    expect(egressRefusal(`https://${host}/hook`)).toBe(`${new URL(`https://${host}/`).hostname} embeds ${why}`);
    // The same answer from a resolver (an AAAA record) refuses the name.
    expect(resolvedRefusal('h', [host.slice(1, -1)])).toBe(`h resolves to ${host} embeds ${why}`);
  });

  it('the same forms around a public IPv4 address pass', () => {
    for (const host of [
      teredo('65.54.227.120', '8.8.8.8'),
      '2002:808:808::1',
      '64:ff9b::808:808',
      '64:ff9b:1::808:808',
      '::ffff:808:808',
      '::808:808',
      '::ffff:0:808:808',
      '2001:4860:4860::8888', // not Teredo: 2001:4860::/32
    ]) {
      expect(egressRefusal(`https://[${host}]/`), host).toBeNull();
      expect(resolvedRefusal('h', [host]), host).toBeNull();
    }
  });
});

describe('egress: numeric spellings of IPv4 are read as a URL parser reads them', () => {
  it.each([
    'http://2130706433/', // 127.0.0.1 as one decimal number
    'http://0x7f000001/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://0177.1/',
    'http://127.1/',
    'http://127.0.1/',
    'http://0x7F.0x0.0x0.0x1/',
    'http://017700000001/',
    'http://167772161/', // 10.0.0.1
    'http://0xa9fea9fe/', // 169.254.169.254
    'http://0/',
    'http://127.0.0.1./',
  ])('%s', (url) => {
    expect(refused(url)).toBe(true);
  });

  it('parseIPv4 reads decimal, octal and hex parts, the last one filling the rest', () => {
    expect(parseIPv4('2130706433')).toBe(0x7f000001);
    expect(parseIPv4('0x7f.1')).toBe(0x7f000001);
    expect(parseIPv4('0177.0.0.1')).toBe(0x7f000001);
    expect(parseIPv4('127.1')).toBe(0x7f000001);
    expect(parseIPv4('1.2.3.4.')).toBe(0x01020304);
    expect(parseIPv4('0x')).toBe(0);
    expect(parseIPv4('256.1.1.1')).toBeNull();
    expect(parseIPv4('1.2.3.4.5')).toBeNull();
    expect(parseIPv4('4294967296')).toBeNull();
    expect(parseIPv4('08.1.1.1')).toBeNull();
    expect(parseIPv4('example')).toBeNull();
  });

  it('a malformed numeric host is refused, not passed', () => {
    // The URL parser refuses these itself; the check must too when handed a URL object's host.
    expect(egressRefusal('http://999.1.1.1/')).not.toBeNull();
    expect(egressRefusal(new URL('http://example.com/'))).toBeNull();
  });
});

describe('egress: parseIPv6', () => {
  it('expands :: and embedded dotted IPv4', () => {
    expect(parseIPv6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('fe80::1:2')).toEqual([0xfe80, 0, 0, 0, 0, 0, 1, 2]);
    expect(parseIPv6('::ffff:127.0.0.1')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
  it('refuses what is not an IPv6 address', () => {
    for (const bad of [
      '1::2::3',
      '1:2:3',
      '12345::',
      'fe80::1%eth0',
      '::ffff:1.2.3',
      '1:2:3:4:5:6:7:8:9',
      '::1.2.3.256',
    ]) {
      expect(parseIPv6(bad), bad).toBeNull();
    }
  });
});

describe("egress: the platform's own hosts are refused", () => {
  it("PUBLIC_ORIGIN's host and the served request's host, on any port", () => {
    const own = platformHosts({ PUBLIC_ORIGIN: 'https://nvm.example.org' }, 'edge.example.net:8443');
    expect(own).toEqual(['nvm.example.org', 'edge.example.net']);
    expect(refused('https://nvm.example.org/v1/ops/outbox', own)).toBe(true);
    expect(refused('http://NVM.example.org.:8080/', own)).toBe(true);
    expect(refused('https://edge.example.net/cdn-cgi/handler/email', own)).toBe(true);
    expect(refused('https://other.example.org/', own)).toBe(false);
  });
  it('an unset or malformed origin adds nothing', () => {
    expect(platformHosts({}, null, undefined, '')).toEqual([]);
    expect(platformHosts({ PUBLIC_ORIGIN: 'http://[bad' })).toEqual([]);
  });
});

describe('egress: only http and https', () => {
  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'data:text/plain,x',
    'ws://example.com/',
    'javascript:alert(1)',
    'not a url',
  ])('%s', (url) => {
    expect(refused(url)).toBe(true);
  });
});

describe('egress: a host name is refused by what it resolves to', () => {
  it('every answer public: allowed', () => {
    expect(resolvedRefusal('hooks.example', ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'])).toBeNull();
  });
  it.each([
    [['10.0.0.7'], 'h resolves to 10.0.0.7 is a private address'],
    [['93.184.215.14', '127.0.0.1'], 'h resolves to 127.0.0.1 is a loopback address'],
    [['169.254.169.254'], 'h resolves to 169.254.169.254 is a link-local address'],
    [['fd00::7'], 'h resolves to [fd00::7] is a private (unique local) address'],
    [['::ffff:192.168.1.1'], 'h resolves to [::ffff:192.168.1.1] embeds 192.168.1.1 is a private address'],
    [[], 'h does not resolve to an address'],
    [['not-an-address'], 'h resolves to not-an-address is not an address'],
  ])('answers %j: refused', (answers, why) => {
    expect(resolvedRefusal('h', answers)).toBe(why);
  });
  it('address literals are not resolved; names are', () => {
    expect(['10.0.0.1', '2130706433', '0x7f.1', '[::1]'].map(isAddressHost)).toEqual([true, true, true, true]);
    expect(['hooks.example', 'localhost', 'a1.b2'].map(isAddressHost)).toEqual([false, false, false]);
  });
});
