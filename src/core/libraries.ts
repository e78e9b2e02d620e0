/**
 * The libraries of rare work, run in an isolate of their own (isolates.ts; the code:
 * isolates/libraries.ts): acorn (a job code write), postal-mime (an inbound mail), mimetext
 * with its type table (the send_email_mime transport) and fflate (a run of several output
 * files). In the Worker's own upload they were 0.6 MB that every start compiled and almost no
 * request used; here the upload holds them as text (scripts/isolates.mjs builds it), compiled
 * at the first use in an isolate that then stays warm. The isolate has no bindings and no
 * network: what it parses (a stranger's mail, a user's code) reaches nothing.
 */
import type { WorkerEntrypoint } from 'cloudflare:workers';
import type { Email } from 'postal-mime';
import SOURCE from '../../build/libraries.isolate.js';
import { isolateEntrypoint } from './isolates';
import type { OutboundMail } from './outbound';

/** Why a job's code is not a JavaScript module (1-based line and column). */
export interface SyntaxProblem {
  message: string;
  line: number;
  column: number;
}

/** What the isolate answers over RPC (isolates/libraries.ts implements it). */
export interface Libraries {
  /** acorn: why `source` does not parse as a module of the newest syntax, or null. */
  moduleSyntaxProblem(source: string): SyntaxProblem | null;
  /** postal-mime: a raw RFC 822 message, attachments as ArrayBuffers. */
  parseMail(raw: ArrayBuffer): Promise<Email>;
  /** mimetext: the raw RFC 5322 message of an outbound mail. */
  buildMime(mail: OutboundMail & { from: string }): string;
  /** fflate: the files as one zip (streams both ways: isolates.ts streamOf). */
  zip(files: Record<string, ReadableStream<Uint8Array>>): Promise<ReadableStream<Uint8Array>>;
}

interface LibrariesEntrypoint extends WorkerEntrypoint, Libraries {}

/** The isolate's entrypoint: every call an RPC call, answered once it is loaded (the first call loads it). */
export const libraries = (env: Env) => isolateEntrypoint<LibrariesEntrypoint>(env, 'libraries', SOURCE);
