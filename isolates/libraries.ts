/**
 * The libraries isolate (src/core/libraries.ts loads it with the Worker Loader): thin RPC
 * methods over libraries the Worker does not carry in its own upload. Bundled with them by
 * scripts/isolates.mjs into build/libraries.isolate.js, which the Worker imports as text.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { zipSync } from 'fflate';
import PostalMime from 'postal-mime';
import { bytesOf, streamOf } from '../src/core/isolates';
import type { Libraries } from '../src/core/libraries';
import { buildMime } from '../src/core/mime-message';
import type { OutboundMail } from '../src/core/outbound';
import { moduleSyntaxProblem } from '../src/jobs/code-syntax';

export default class LibrariesIsolate extends WorkerEntrypoint implements Libraries {
  moduleSyntaxProblem(source: string) {
    return moduleSyntaxProblem(source);
  }
  parseMail(raw: ArrayBuffer) {
    return PostalMime.parse(raw, { attachmentEncoding: 'arraybuffer' });
  }
  buildMime(mail: OutboundMail & { from: string }) {
    return buildMime(mail);
  }
  async zip(files: Record<string, ReadableStream<Uint8Array>>) {
    const entries: Record<string, Uint8Array> = {};
    for (const [name, stream] of Object.entries(files)) entries[name] = await bytesOf(stream);
    return streamOf(zipSync(entries, { level: 6 }));
  }
}
