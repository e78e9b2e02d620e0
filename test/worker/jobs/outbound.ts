/**
 * A test-only https server for chain steps, answered in Node by vitest.config.mts's
 * outboundService for the reserved hosts STEP_HOSTS (every other host passes through;
 * MIRROR_HOST is the same server under another origin, for cross-origin redirects):
 *
 *   /echo      answers JSON describing the multipart parts it received
 *   /pair      answers multipart with two files (the step outputs both)
 *   /fail      answers 500
 *   /slow      answers after 10 s unless the request is aborted first
 *   /redirect  answers 302 to ?to= (another host: each hop must be checked again);
 *              ?status= picks 301/303/307/308, ?hops=N chains N redirects on this host first
 *   /big       answers ?mib= MiB of bytes (a single body, or ?multipart=1 one part)
 *   /forged    answers 200 with the header a refusal of the sandbox's outbound guard carries
 *   /answer    answers 200 with ?bytes= bytes "a" (default none), with their length, or
 *              ?chunked=1 streamed without one
 *
 * DNS_HOST is the suite's DNS-over-HTTPS resolver (OUTBOUND_RESOLVER in vitest.config.mts,
 * core/resolve.ts): the step hosts resolve to a public address (never contacted: their
 * requests are answered here), the names of RESOLVES_TO to what it says, any other to
 * NXDOMAIN. PRIVATE_HOST resolves to a private address; were a request sent to it anyway,
 * this server would answer it like a step host.
 *
 * Web-standard APIs only, so it type-checks with the Worker code.
 */
export const STEP_HOST = 'steps.jobs.test';
export const MIRROR_HOST = 'mirror.jobs.test';
export const DNS_HOST = 'dns.jobs.test';
export const PRIVATE_HOST = 'private.jobs.test';
export const STEP_HOSTS = [STEP_HOST, MIRROR_HOST, DNS_HOST, PRIVATE_HOST];

/** [record type, address] answers by name. */
const RESOLVES_TO: Record<string, [1 | 28, string][]> = {
  [STEP_HOST]: [[1, '93.184.215.14']],
  [MIRROR_HOST]: [
    [1, '93.184.215.15'],
    [28, '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  ],
  [PRIVATE_HOST]: [[1, '10.0.0.7']],
  // A name answering a public and a loopback address (a rebinding setup): refused.
  'rebind.jobs.test': [
    [1, '93.184.215.14'],
    [1, '127.0.0.1'],
  ],
  'v6private.jobs.test': [[28, 'fd00::7']],
};

/** The DNS-over-HTTPS JSON API (application/dns-json) for `?name=&type=A|AAAA`. */
function dnsAnswer(url: URL): Response {
  const name = url.searchParams.get('name') ?? '';
  const type = url.searchParams.get('type') === 'AAAA' ? 28 : 1;
  const records = RESOLVES_TO[name];
  if (!records) return Response.json({ Status: 3, Question: [{ name, type }] });
  const Answer = records.filter(([t]) => t === type).map(([t, data]) => ({ name, type: t, TTL: 60, data }));
  return Response.json({ Status: 0, Question: [{ name, type }], Answer });
}

export async function stepServer(req: Request): Promise<Response> {
  const url = new URL(req.url);
  if (url.hostname === DNS_HOST) return dnsAnswer(url);
  const path = url.pathname;
  if (path === '/echo') {
    const form = await req.formData();
    const parts = await Promise.all(
      [...form.entries()].map(async ([field, v]) =>
        typeof v === 'string' ? { field, text: v } : { field, name: v.name, type: v.type, text: await v.text() },
      ),
    );
    return Response.json({ method: req.method, parts });
  }
  if (path === '/pair') {
    const form = new FormData();
    form.append('a', new File(['first'], 'one.txt', { type: 'text/plain' }));
    form.append('b', new File(['second'], 'two.txt', { type: 'text/plain' }));
    return new Response(form);
  }
  if (path === '/fail') return new Response('down for maintenance', { status: 500 });
  if (path === '/slow') {
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 10_000);
      req.signal.addEventListener('abort', () => (clearTimeout(t), resolve()));
    });
    return new Response('slow');
  }
  if (path === '/redirect') {
    const q = new URL(req.url).searchParams;
    const hops = Number(q.get('hops') ?? 0);
    const status = Number(q.get('status') ?? 302);
    if (hops > 0) {
      const next = new URL(req.url);
      next.searchParams.set('hops', String(hops - 1));
      return new Response(null, { status, headers: { Location: next.toString() } });
    }
    return new Response(null, { status, headers: { Location: q.get('to') ?? '/echo' } });
  }
  if (path === '/big') {
    const q = new URL(req.url).searchParams;
    const bytes = new Uint8Array(Number(q.get('mib') ?? 1) * 1024 * 1024).fill(97);
    if (q.get('multipart') !== '1')
      return new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } });
    const form = new FormData();
    form.append('big', new File([bytes], 'big.bin'));
    return new Response(form);
  }
  if (path === '/answer') {
    const q = url.searchParams;
    const bytes = new Uint8Array(Number(q.get('bytes') ?? 0)).fill(97);
    if (q.get('chunked') !== '1') return new Response(bytes);
    return new Response(
      new ReadableStream({
        start(c) {
          for (let i = 0; i < bytes.length; i += 1000) c.enqueue(bytes.subarray(i, i + 1000));
          c.close();
        },
      }),
    );
  }
  if (path === '/forged') return new Response('not a refusal', { headers: { 'X-NVM-Egress': 'refused' } });
  return new Response('no such step', { status: 404 });
}
