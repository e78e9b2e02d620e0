/**
 * The words of composition (composition.ts): every way content reaches other content, and
 * what a piece of content may name. A leaf module: what it holds is only named here.
 */
import type { ResourceKindName } from '../../db/schema';
import type { Perm } from '../perms';

/**
 * Every way content reaches other content, by name. Each is resolved through composedReads
 * (or, for what a run lends its code, `lendsOwnerSecrets`) with the principals it names.
 */
export const COMPOSITION_PATHS = {
  'doc.content':
    "a document's content as its page, PDF and PPTX show it (and a mail's attachment): variables of other documents and author blocks, with the rights of the document's owner and the content's writer",
  'mail.content':
    "an e-mail's content in its web view and its sends: variables, attachment and author blocks, with the rights of the e-mail's owner and the content's writer (and, for a send, of whoever wrote its recipient lists)",
  'mail.template':
    "an e-mail's config/template: the template document, read with the rights of the e-mail's owner and the entry's writer",
  'mail.template-content':
    "the template's content: its variables, attachment and author blocks, with the rights of the e-mail's owner, the config/template writer, the template's owner and its content's writer",
  'mail.recipients':
    "recipient lists naming groups: their members receive a send only while the e-mail's owner and the list's writer are active members",
  'grid.plots':
    "a grid's mapping: the plot each box draws, with the rights of the grid's owner and of whoever wrote the mapping (a box whose plot either may not read shows the same placeholder as a missing one)",
  'job.chain':
    "a chain step naming a job: it runs only if everyone the run acts for (who triggered it, every owner on the way, the chain's writer) may execute it",
  'job.code':
    "a job's code: it runs with the owner's env values and network only when the owner wrote (or approved) every code file",
  'job.inbound':
    'mail to an organisation group: the run acts for the member the receiver authenticated, else for nobody',
  'job.schedule':
    "a schedule: the run acts for the job's owner alone (only the owner writes config/schedule), and its code and chain lend no more than job.code and job.chain allow",
} as const;
export type CompositionPath = keyof typeof COMPOSITION_PATHS;

/**
 * One thing a text entry's value names that is resolved when the content is used
 * (composition.ts); `as` is how the 400 names it (and what makes two references the same).
 */
export type Reference =
  /**
   * A resource of another (or the same) owner, named by username (`owner`) or, where only the
   * id is at hand, by `ownerId`, or by its unique `shortname` alone (`owner` and `name` then
   * empty); readable when the writer has `need` (default r) on it.
   */
  | {
      kind: 'resource';
      resource: ResourceKindName;
      owner: string;
      ownerId?: number;
      shortname?: string;
      name: string;
      need?: Perm;
      as: string;
    }
  /** A user's profile (name, bio); readable when public or the writer's own. */
  | { kind: 'profile'; user: string; as: string }
  /** A group (its members' addresses); readable when the writer is an active member. */
  | { kind: 'group'; ref: string; as: string };
