import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../../src/markup/markdown';
import { boundMarkdown, MAX_BLANK_RUN, MAX_QUOTE_DEPTH } from '../../../src/markup/markdown-bounds';

describe('markdown bounds: what marked handles superlinearly is cut before it lexes', () => {
  it('ordinary markdown passes unchanged', () => {
    const md = '# T\n\n> a\n> > b\n\n\n\ntext\n```\n> > >\n\n\n```\n';
    expect(boundMarkdown(md)).toBe(md);
  });

  it(`quote markers past ${MAX_QUOTE_DEPTH} levels are dropped, the line's text kept`, () => {
    const line = '> '.repeat(100) + 'deep';
    const out = boundMarkdown(line);
    expect(out.split('>').length - 1).toBe(MAX_QUOTE_DEPTH);
    expect(out.endsWith('deep')).toBe(true);
  });

  it(`a run of blank lines is cut to ${MAX_BLANK_RUN}`, () => {
    const out = boundMarkdown('a' + '\n'.repeat(5_000) + 'b');
    expect(out).toBe('a' + '\n'.repeat(MAX_BLANK_RUN + 1) + 'b');
  });

  it('fenced code keeps its quote markers and blank lines as written', () => {
    const body = '> '.repeat(50) + 'x\n' + '\n'.repeat(2_000);
    const md = '```\n' + body + '```\n';
    expect(boundMarkdown(md)).toBe(md);
  });

  it('a quote a thousand levels deep and a million blank lines render without an error', () => {
    expect(renderMarkdown('> '.repeat(1_000) + 'deep').html).toContain('deep');
    expect(renderMarkdown('a' + '\n'.repeat(1_000_000) + 'b').html).toContain('b');
  });
});
