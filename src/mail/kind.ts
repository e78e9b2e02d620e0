/** The e-mail resource kind: its entries (docs/areas/mail.md) and how copies and deletes treat it. */
import { freshCaller } from '../core/auth';
import { canonicalEntries } from '../core/canonical';
import { entriesQuery, entryQuery, entryValue, entryValues, readEntries } from '../core/entries';
import { HttpError, badRequest } from '../core/errors';
import { MiB, KiB } from '../core/http';
import type { EntrySpec, Reference, ResourceCtx, ResourceKind } from '../core/resource';
import { contentReferences } from '../docs/references';
import { templateProblem, templateReferences } from './template';
import { copyAssets } from './assets';
import { mailStub } from './stub';
import { checkRecipientList } from './recipients';
import { addedRecipients, isAddress, parseRecipientList, RECIPIENT_LISTS, SIZES } from './rules';

const oneLine = (max: number) => (v: string) =>
  /[\r\n]/.test(v) ? 'must be one line' : v.length > max ? `at most ${max} characters` : undefined;

/** The stored recipient lists, read with the mail (writePreload rows). */
const storedLists = async (rc: ResourceCtx): Promise<Map<string, string>> =>
  rc.preloaded?.rows
    ? entryValues(rc.env, rc.preloaded.rows as Parameters<typeof entryValues>[1])
    : readEntries(rc.env, rc.db, rc.resource.id, 'recipients/');

/** What each recipient list reads like. */
const RECIPIENT_EXAMPLES: Record<(typeof RECIPIENT_LISTS)[number], string> = {
  to: 'bob@example.com\n@carol\n+acme~analysts\n',
  cc: 'me\n',
  bcc: 'archive@example.com\n',
};

const recipientEntry = (list: (typeof RECIPIENT_LISTS)[number]): EntrySpec => ({
  path: `recipients/${list}`,
  access: 'rw',
  example: RECIPIENT_EXAMPLES[list],
  limit: 256 * KiB,
  summary: `Write the ${list} list (whitespace-separated: addresses, @user, @user~group, +org~group, me, self); atomic`,
  // The caller's row as D1 has it, the stored lists (for the plan's allowance) and the content
  // (what added recipients would receive) read with the mail.
  writePreload: {
    caller: true,
    rows: (ctx, id) => entriesQuery(ctx.db, id, 'recipients/'),
    extra: [(ctx, id) => entryQuery(ctx.db, id, 'content')],
  },
  validate: async (value, rc) => {
    const caller = rc.preloaded?.caller ?? (await freshCaller(rc));
    if (!caller.email || !caller.email_verified)
      throw new HttpError(424, 'verify your own e-mail address before writing recipient lists');
    const others = rc.preloaded?.rows
      ? await entryValues(rc.env, rc.preloaded.rows as Parameters<typeof entryValues>[1])
      : undefined;
    const rejected = await checkRecipientList(rc.env, rc.db, rc.resource.id, rc.owner, list, value, others);
    if (rejected.length) {
      throw badRequest(
        `recipients/${list} not written: ${rejected.length} item(s) rejected (${rejected.map((r) => r.line).join(', ')})`,
        { rejected },
      );
    }
  },
  // A recipient someone other than the owner adds receives what the content makes the owner's
  // rights read (variables, attached documents): the writer must be able to read them, and
  // be an active member of a group they add.
  references: {
    path: 'mail.recipients',
    of: async (value, rc) => {
      const added = addedRecipients(value, await storedLists(rc));
      if (!added.length) return [];
      const content =
        (await entryValue(rc.env, rc.preloaded?.extra?.[0]?.[0] as Parameters<typeof entryValue>[1])) ?? '';
      return [
        ...added.flatMap(({ line, item }): Reference[] =>
          item.kind === 'group' ? [{ kind: 'group', ref: item.ref, as: line }] : [],
        ),
        ...contentReferences(content, rc.owner).map((r) => ({ ...r, as: `${r.as} (in the content)` })),
      ];
    },
  },
  logLines: (rc, value) => {
    const items = value === null ? [] : parseRecipientList(value).items.map((i) => i.line);
    const what =
      value === null ? 'cleared' : `set to ${items.length} item(s)${items.length ? `: ${items.join(' ')}` : ''}`;
    return [`recipients/${list} ${what} by ${rc.caller!.username}`];
  },
});

export const mailKind: ResourceKind = {
  kind: 'mail',
  collection: 'vis/mails',
  param: 'mail',
  noun: 'e-mail',
  log: true,
  // No page of its own: the url is the e-mail's folder under its owner (readers with a token).
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/m/${name}`,
  entries: [
    {
      path: 'content',
      access: 'rw',
      limit: 2 * MiB,
      summary: 'Write the body (markdown, rendered to HTML and text)',
      example: '# October news\n\nThree things happened at Acme this month.\n',
      // Variables, attached documents and the owner's profile render with the owner's rights.
      references: { path: 'mail.content', of: (value, rc) => contentReferences(value, rc.owner) },
    },
    { path: 'name', access: 'rw', limit: 1 * KiB, example: 'October newsletter' },
    {
      path: 'description',
      access: 'rw',
      limit: 64 * KiB,
      example: 'The monthly newsletter to customers: product news and upcoming events.',
    },
    { path: 'summary', access: 'rw', limit: 4 * KiB, example: 'Product news, October' },
    {
      path: 'config/subject',
      aliases: ['subject'],
      access: 'rw',
      limit: 4 * KiB,
      validate: oneLine(998),
      summary: 'The subject line (also at subject)',
      example: 'October news from Acme',
    },
    { path: 'config/theme', access: 'rw', limit: 1 * KiB, validate: oneLine(128), example: 'ocean' },
    {
      path: 'config/template',
      access: 'rw',
      default: '',
      limit: 1 * KiB,
      validate: async (v, rc) => oneLine(128)(v) ?? templateProblem(v, rc),
      references: { path: 'mail.template', of: templateReferences },
      summary:
        'A document (/u/<user>/d/<doc>, or a document of the owner) whose content wraps the mail at {{ content }}',
      example: '/u/alice/d/newsletter_template',
    },
    ...canonicalEntries(() => mailKind),
    {
      path: 'config/reply_to',
      access: 'rw',
      limit: 1 * KiB,
      validate: (v) => (v.trim() === '' || isAddress(v.trim()) ? undefined : 'expected one e-mail address'),
      example: 'news@acme.example',
    },
    {
      path: 'config/size',
      access: 'rw',
      default: 'm',
      limit: 16,
      validate: (v) =>
        Object.hasOwn(SIZES, v)
          ? undefined
          : `expected ${Object.entries(SIZES)
              .map(([k, px]) => `${k} (${px} px)`)
              .join(', ')}`,
    },
    {
      path: 'config/enabled',
      access: 'rw',
      default: 'true',
      limit: 64,
      validate: oneLine(64),
      summary: 'Falsy (no, n, nope, false, f, off, 0) stops production sends',
    },
    ...RECIPIENT_LISTS.map(recipientEntry),
  ],
  files: [{ name: 'status', access: 'rw' }],
  folders: ['assets', 'stats', 'threads'],
  copied: (from, to) => copyAssets(from.env, from.resource.id, to.id),
  deleting: async (env, resource) => {
    await mailStub(env, resource.id).clear();
  },
};
