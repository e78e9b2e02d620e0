/**
 * The content of a mail with every block kind and every markdown element, and the picture it
 * embeds: plain data, for the Worker tests, the Node lint, the e2e screenshots and the bench.
 */
/** A 2x2 red PNG. */
export const MAIL_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR4nGP4z8AARAwMDAwMAAAN/wH/ntFf5QAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

export const EVERY_BLOCK = [
  '# Weekly',
  '{{ preview }}\nThe preview line\n{{ /preview }}',
  'Intro with **bold**, *emphasis*, `code` and a [link](https://example.com/a).',
  '## Figures',
  '| Region | Sales |\n|:---|---:|\n| North | 12 |\n| South | 7 |',
  '- one\n- two\n\n1. first\n2. second',
  '> A quote worth quoting.',
  '```\nconst x = 1;\n```',
  '---',
  '### Smaller heading',
  '![a red square](assets/pic.png)',
  '[Read the report](https://example.com/report "button")',
  '{{ callout\n  type: warning\n  desc: Mind the gap\n  b: l2 #cf222e\n}}\nCallout *body* text\n{{ /callout }}',
  '{{ callout\n  type: info\n}}\nAn info callout\n{{ /callout }}',
  '{{ paragraph\n  font size: l\n  font style: b\n  bg: #eeeeee\n}}\nLarge paragraph\n{{ /paragraph }}',
  '{{ author\n  ann\n  include bio: true\n}}\n{{ /author }}',
  '{{ author\n  bob\n  override bio: A guest writer\n}}\n{{ /author }}',
  '{{ attachment\n  ref: /u/ann/d/report\n  name: The report\n}}\n{{ /attachment }}',
  '{{ html }}\n<b>raw html</b>\n{{ /html }}',
  '{{ vis\n  ref: /u/ann/p/sales\n  include title: true\n}}\n{{ /vis }}',
].join('\n\n');
