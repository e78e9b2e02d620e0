/**
 * A job's code files in R2 (`code/<file>`), each carrying who last wrote it
 * (`written_by` in its custom metadata). A run lists them once: that listing names the code
 * version the sandbox loads (each file pinned by its etag) and decides whether the code may
 * have the owner's env values and network (composition path `job.code`): only when the owner
 * wrote, or approved, every file. Code a grantee wrote runs without them, as CI systems run
 * code from a fork, until the owner approves that version (`POST <job>/code/approve`).
 */
import { sha256Hex } from '../core/crypto';
import { blobPrefix } from '../core/entries';
import { lendsOwnerSecrets } from '../core/resource';

export const codePrefix = (jobId: number) => `${blobPrefix(jobId)}code/`;
export const CODE_FILE = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,63}$/;
export const MAX_CODE_FILES = 32;

/** The custom metadata naming a code file's writer. */
export const writtenBy = (userId: number) => ({ written_by: String(userId) });

interface CodeFile {
  key: string;
  name: string;
  etag: string;
  /** Who last wrote it (files stored before writers were recorded: the owner). */
  writer: number;
}

export interface CodeListing {
  files: CodeFile[];
  /** A hash of the files' names and etags: names the sandbox isolate; what `approve` confirms. */
  version: string;
  /** Whether the owner wrote or approved every file: only then does the code get the owner's env and network. */
  trusted: boolean;
  /** Who wrote the files the owner did not. */
  foreign: number[];
}

/** The code version of files (pure but for hashing): the same names and etags, the same version. */
async function codeVersion(files: readonly Pick<CodeFile, 'name' | 'etag'>[]): Promise<string> {
  const lines = files.map((f) => `${f.name}\t${f.etag}`).sort();
  return (await sha256Hex(lines.join('\n'))).slice(0, 20);
}

/** Lists the job's code as a run loads it (one R2 list). */
export async function listCode(env: Env, jobId: number, ownerId: number): Promise<CodeListing> {
  const prefix = codePrefix(jobId);
  const listed = await env.BLOBS.list({ prefix, limit: MAX_CODE_FILES + 1, include: ['customMetadata'] });
  const files = listed.objects.map((o): CodeFile => {
    const w = Number(o.customMetadata?.written_by);
    return { key: o.key, name: o.key.slice(prefix.length), etag: o.etag, writer: Number.isInteger(w) ? w : ownerId };
  });
  const writers = files.map((f) => f.writer);
  return {
    files,
    version: await codeVersion(files),
    trusted: lendsOwnerSecrets(ownerId, writers),
    foreign: [...new Set(writers.filter((w) => w !== ownerId))],
  };
}
