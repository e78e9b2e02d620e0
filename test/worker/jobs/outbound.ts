/**
 * A test-only https server for chain steps, answered in Node by vitest.config.mts's
 * outboundService for the reserved host STEP_HOST (every other host passes through):
 *
 *   /echo      answers JSON describing the multipart parts it received
 *   /pair      answers multipart with two files (the step outputs both)
 *   /fail      answers 500
 *   /slow      answers after 10 s unless the request is aborted first
 *
 * Web-standard APIs only, so it type-checks with the Worker code.
 */
export const STEP_HOST = 'steps.jobs.test';

export async function stepServer(req: Request): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (path === '/echo') {
    const form = await req.formData();
    const parts = await Promise.all(
      [...form.entries()].map(async ([field, v]) => (typeof v === 'string' ? { field, text: v } : { field, name: v.name, type: v.type, text: await v.text() })),
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
  return new Response('no such step', { status: 404 });
}
