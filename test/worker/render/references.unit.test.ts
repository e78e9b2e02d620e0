/**
 * What content names that its render reads from storage (variables, attached documents,
 * author blocks): found exactly where the renderer would show it, never less.
 */
import { describe, expect, it } from 'vitest';
import { contentRefs, renderMarkdown, varRefs } from '../../../src/markup/markdown';
import { contentReferences } from '../../../src/docs/references';

const keys = (src: string) => varRefs(src).map((r) => r.key);

describe('variable references are found as the renderer lexes the content', () => {
  it('a code fence left open in a block ends with the block: a reference after it renders, so it is found', () => {
    // The whole content lexed at once would keep the fence open to the end and hide the reference.
    const src = '{{ callout\n}}\n```\n{{ /callout }}\n{/u/carol/d/fin/v/revenue}\n';
    const html = renderMarkdown(src, {
      vars: new Map([['carol/fin/revenue', { text: '42', band: 'none' as const }]]),
    }).html;
    expect(html).toContain('>42</span>');
    expect(keys(src)).toEqual(['carol/fin/revenue']);
  });

  it('references inside a preview block, a nested block or front matter-less content are found; raw html is not markdown', () => {
    const src =
      '{{ preview }}\n{/u/a/d/b/v/c}\n{{ /preview }}\n{{ paragraph }}\n{{ callout }}\n{/u/a/d/e/v/f}\n{{ /callout }}\n{{ /paragraph }}\n{{ html }}\n{/u/a/d/g/v/h}\n{{ /html }}';
    expect(keys(src)).toEqual(['a/b/c', 'a/e/f']);
  });
});

describe('contentRefs lists variables, attachment blocks and author blocks', () => {
  it('each once, in order', () => {
    const src = [
      '{/u/carol/d/fin/v/revenue} and {/u/carol/d/fin/v/revenue}',
      '{{ attachment\n  ref: /u/alice/d/private\n}}\n{{ /attachment }}',
      '{{ attachment\n  @bob~notes\n}}\n{{ /attachment }}',
      '{{ author\n  alice\n}}\n{{ /author }}',
      '`{/u/carol/d/code/v/x}`',
    ].join('\n\n');
    const refs = contentRefs(src);
    expect(refs.vars.map((v) => v.key)).toEqual(['carol/fin/revenue']);
    expect(refs.attachments).toEqual([
      { user: 'alice', doc: 'private' },
      { user: 'bob', doc: 'notes' },
    ]);
    expect(refs.authors).toEqual(['alice']);
  });
});

describe('contentReferences: what a write by someone other than the owner must be able to read', () => {
  const owner = { username: 'alice' };
  it('documents of variables and attachment blocks, and the owner named by an author block', () => {
    const src =
      '{/u/carol/d/fin/v/revenue}\n\n{{ attachment\n  /u/alice/d/private\n}}\n{{ /attachment }}\n\n{{ author\n  alice\n}}\n{{ /author }}\n\n{{ author\n  dave\n}}\n{{ /author }}';
    expect(contentReferences(src, owner)).toEqual([
      { kind: 'resource', resource: 'doc', owner: 'carol', name: 'fin', as: '{/u/carol/d/fin/v/revenue}' },
      { kind: 'resource', resource: 'doc', owner: 'alice', name: 'private', as: 'attachment /u/alice/d/private' },
      { kind: 'profile', user: 'alice', as: 'author alice' },
    ]);
  });
  it("the plot a vis block shows is a reference (read with the writer's rights)", () => {
    expect(contentReferences('# Hello\n\n{{ vis\n  /u/carol/p/plot\n}}\n{{ /vis }}', owner)).toEqual([
      { kind: 'resource', resource: 'plot', owner: 'carol', name: 'plot', as: 'vis /u/carol/p/plot' },
    ]);
  });
  it('nothing for plain content', () => {
    expect(contentReferences('# Hello\n\nplain *text*', owner)).toEqual([]);
  });
});
