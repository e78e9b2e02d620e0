/**
 * The libraries isolate (core/libraries.ts) in the real runtime: loaded by the Worker Loader
 * from the text scripts/isolates.mjs builds, each method answering over RPC as the library
 * answers in the Worker's hands, and nothing of it reaching the network.
 */
import { env } from 'cloudflare:workers';
import { unzipSync } from 'fflate';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { libraries } from '../../../src/core/libraries';
import { bundle, textFile } from '../../../src/jobs/files';
import { rawMail } from '../jobs/raw-mail';

describe('the libraries isolate', () => {
  it('a run of no files has no output, one file is returned as it is, several are one zip', async () => {
    expect(await bundle(env, [])).toBeNull();
    expect((await bundle(env, [textFile('a.txt', 'A')]))!.filename).toBe('a.txt');
    const zip = (await bundle(env, [textFile('a.txt', 'A'), textFile('a.txt', 'B')]))!;
    expect(zip.type).toBe('application/zip');
    const files = unzipSync(new Uint8Array(zip.data));
    expect(Object.keys(files).sort()).toEqual(['a-2.txt', 'a.txt']);
    expect(new TextDecoder().decode(files['a-2.txt'])).toBe('B');
  });

  it('a job code syntax error names its 1-based line and column; a module that parses answers null', async () => {
    const lib = libraries(env);
    expect(await lib.moduleSyntaxProblem('export default {\n  run() { return 1 +; }\n}')).toEqual({
      message: 'Unexpected token',
      line: 2,
      column: 21,
    });
    expect(await lib.moduleSyntaxProblem('export default { run: async () => 1 }')).toBeNull();
  });

  it('an inbound message parses as postal-mime parses it, attachments as bytes', async () => {
    const bytes = rawMail('ann@example.com', 'sales@acme.mail.localhost', 'Report', []);
    const parsed = await libraries(env).parseMail(bytes);
    const direct = await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer' });
    expect(parsed.subject).toBe('Report');
    expect(parsed.text).toBe(direct.text);
    expect(parsed.attachments.map((a) => [a.filename, a.mimeType])).toEqual([['rows.csv', 'text/csv']]);
    const text = (a: { content: unknown }) => new TextDecoder().decode(a.content as ArrayBuffer);
    expect(text(parsed.attachments[0]!)).toBe(text(direct.attachments[0]!));
    expect(text(parsed.attachments[0]!).trim()).toBe('a,b');
  });

  it('a raw MIME message carries its headers, text and attachment', async () => {
    const raw = await libraries(env).buildMime({
      kind: 'mail',
      from: 'platform@mail.localhost',
      to: ['ann@example.com'],
      subject: 'Hello',
      text: 'plain body',
      html: '',
      attachments: [{ filename: 'r.csv', content_type: 'text/csv', content: new TextEncoder().encode('x,y') }],
    });
    const back = await PostalMime.parse(raw);
    expect(back.subject).toBe('Hello');
    expect(back.text?.trim()).toBe('plain body');
    expect(back.attachments.map((a) => a.filename)).toEqual(['r.csv']);
  });
});

describe('bytes past the 32 MiB of one RPC message', () => {
  it('a zip of files that together come near 32 MiB, not compressible, is made', async () => {
    // Random bytes: the zip is as large as its files (plus headers), past the RPC limit.
    const part = () => {
      const b = new Uint8Array(16 * 1024 * 1024 - 512);
      for (let i = 0; i < b.length; i += 65536) crypto.getRandomValues(b.subarray(i, i + 65536));
      return b;
    };
    const files = [
      { name: 'a.bin', type: 'application/octet-stream', data: part().buffer as ArrayBuffer },
      { name: 'b.bin', type: 'application/octet-stream', data: part().buffer as ArrayBuffer },
    ];
    const zip = (await bundle(env, files))!;
    expect(zip.data.byteLength).toBeGreaterThan(32 * 1024 * 1024);
    const back = unzipSync(new Uint8Array(zip.data));
    expect(back['b.bin']!.byteLength).toBe(16 * 1024 * 1024 - 512);
  }, 60_000);
});
