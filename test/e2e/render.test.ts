/**
 * Rendering end to end against the server `npm start` runs: PDFs checked with poppler
 * (pdfinfo, pdftotext, pdfimages), PPTX converted by LibreOffice, and the canonical page
 * screenshotted by headless Chromium to see the theme's colours through the real CSP.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { base, http, makeUser, type E2EUser } from './harness';
import { decodePng } from './png';

const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'render-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const PNG_1x1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

async function makeDoc(
  u: E2EUser,
  name: string,
  content: string,
  config: Record<string, string> = {},
): Promise<string> {
  const path = `/v1/vis/docs/${name}`;
  expect((await http('PUT', path, { token: u.token })).status).toBe(201);
  expect((await http('POST', `${path}/content`, { token: u.token, text: content })).status).toBe(204);
  for (const [k, v] of Object.entries(config))
    expect((await http('POST', `${path}/${k}`, { token: u.token, text: v })).status).toBe(204);
  return path;
}

async function download(u: E2EUser | null, path: string, file: string): Promise<string> {
  const res = await http('GET', path, { token: u?.token });
  expect(res.status).toBe(200);
  const out = join(work, file);
  writeFileSync(out, Buffer.from(await res.arrayBuffer()));
  return out;
}

async function pdfInfo(file: string): Promise<{ pages: number; size: string }> {
  const { stdout } = await run('pdfinfo', [file]);
  return { pages: Number(/^Pages:\s+(\d+)/m.exec(stdout)![1]), size: /^Page size:\s+(.*)$/m.exec(stdout)![1]!.trim() };
}

async function pdfText(file: string): Promise<string> {
  return (await run('pdftotext', ['-layout', file, '-'])).stdout;
}

const pages = (n: number, word: string) =>
  Array.from({ length: n }, (_, i) => `# ${word} ${i + 1}\n\nBody text ${word.toLowerCase()} number ${i + 1}.`).join(
    '\n\n{{ page }}\n\n',
  );

describe('PDF (pdfinfo, pdftotext)', () => {
  it('doc: A4 portrait, one page per page, the content text and variable values inside', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'report', '');
    await http('PUT', `${path}/vars/total`, { token: u.token });
    await http('POST', `${path}/vars/total/value`, { token: u.token, text: '1234567.891' });
    await http('POST', `${path}/vars/total/format`, { token: u.token, text: ',.2f' });
    await http('POST', `${path}/content`, {
      token: u.token,
      text: `${pages(3, 'Chapter')}\n\nTotal: {/u/${u.username}/d/report/v/total}`,
    });
    const file = await download(u, `${path}/files/doc.pdf`, 'report.pdf');
    expect(readFileSync(file).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const info = await pdfInfo(file);
    expect(info.pages).toBe(3);
    expect(info.size).toMatch(/ pts \(A4\)$/); // portrait: width x height
    const text = await pdfText(file);
    for (const w of ['Chapter 1', 'Chapter 2', 'Chapter 3', 'Body text chapter number 2', 'Total: 1,234,567.89'])
      expect(text).toContain(w);
  });

  it('docs renders like doc; pres: 16:9 pages (10 x 5.625 in); blog and web: one continuous page', async () => {
    const u = await makeUser();
    const docs = await makeDoc(u, 'manual', pages(2, 'Part'), { 'config/type': 'docs' });
    const docsInfo = await pdfInfo(await download(u, `${docs}/files/doc.pdf`, 'manual.pdf'));
    expect(docsInfo).toMatchObject({ pages: 2 });
    expect(docsInfo.size).toMatch(/\(A4\)/);

    const pres = await makeDoc(u, 'deck', pages(4, 'Slide'), { 'config/type': 'pres' });
    const presFile = await download(
      u,
      `${pres.replace('/v1/vis', `/v1/users/${u.username}/vis`)}/files/doc.pdf`,
      'deck.pdf',
    );
    const presInfo = await pdfInfo(presFile);
    expect(presInfo.pages).toBe(4);
    const [pw, ph] = /^([\d.]+) x ([\d.]+) pts/.exec(presInfo.size)!.slice(1).map(Number) as [number, number];
    expect(pw).toBeCloseTo(720, 0);
    expect(ph).toBeCloseTo(405, 0);
    expect(await pdfText(presFile)).toContain('Slide 4');
    const alias = await download(u, `/v1/u/${u.username}/d/deck/pdf`, 'deck-alias.pdf');
    expect(readFileSync(alias)).toEqual(readFileSync(presFile));

    for (const type of ['blog', 'web']) {
      const flow = await makeDoc(u, `flow_${type}`, pages(6, 'Section'), { 'config/type': type });
      const file = await download(u, `${flow}/files/doc.pdf`, `${type}.pdf`);
      const info = await pdfInfo(file);
      expect(info.pages).toBe(1);
      const [w, h] = /^([\d.]+) x ([\d.]+)/.exec(info.size)!.slice(1).map(Number) as [number, number];
      expect(h).toBeGreaterThan(w);
      expect(await pdfText(file)).toContain('Section 6');
    }
  });

  it("a private document's assets are embedded in its PDF", async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'pictured', '# Picture\n\n![logo](assets/logo.png)');
    expect(
      (await http('POST', `${path}/assets/logo.png`, { token: u.token, body: PNG_1x1, type: 'image/png' })).status,
    ).toBe(201);
    const file = await download(u, `${path}/files/doc.pdf`, 'pictured.pdf');
    const { stdout } = await run('pdfimages', ['-list', file]);
    expect(stdout.trim().split('\n').length).toBeGreaterThanOrEqual(3); // header, rule, >= 1 image
  });
});

describe('PPTX (LibreOffice)', () => {
  it('a valid zip with one slide per page that LibreOffice converts to a PDF of as many pages', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'slides', pages(3, 'Topic'), { 'config/type': 'pres', 'config/theme': 'ocean' });
    const file = await download(u, `${path}/files/doc.pptx`, 'slides.pptx');
    const zip = unzipSync(readFileSync(file));
    expect(zip['[Content_Types].xml']).toBeDefined();
    const slides = Object.keys(zip).filter((k) => /^ppt\/slides\/slide\d+\.xml$/.test(k));
    expect(slides).toHaveLength(3);
    const outDir = mkdtempSync(join(work, 'lo-'));
    await run(
      'libreoffice',
      [`-env:UserInstallation=file://${outDir}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', outDir, file],
      { timeout: 180_000 },
    );
    const pdf = readdirSync(outDir).find((f) => f.endsWith('.pdf'));
    expect(pdf).toBeDefined();
    expect((await pdfInfo(join(outDir, pdf!))).pages).toBe(3);
  }, 240_000);

  it('a doc becomes an A4 portrait deck with the page text in the notes', async () => {
    const u = await makeUser();
    const path = await makeDoc(u, 'a4deck', pages(2, 'Leaf'));
    const zip = unzipSync(
      new Uint8Array(await (await http('GET', `${path}/files/doc.pptx`, { token: u.token })).arrayBuffer()),
    );
    const pres = Buffer.from(zip['ppt/presentation.xml']!).toString();
    const [cx, cy] = /<p:sldSz cx="(\d+)" cy="(\d+)"/.exec(pres)!.slice(1).map(Number) as [number, number];
    expect(cy / cx).toBeCloseTo(11.69 / 8.27, 2);
    const notes = Object.keys(zip)
      .filter((k) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(k))
      .map((k) => Buffer.from(zip[k]!).toString());
    expect(notes.join(' ')).toContain('Body text leaf number 2');
  });
});

describe('section blocks (pdftotext, PPTX notes)', () => {
  it('PDF and PPTX show the rendered blocks (callout title, paragraph, author, attachment link, vis placeholder) and no block syntax', async () => {
    const u = await makeUser();
    const content = [
      '# Blocks',
      '{{ preview }}\nHidden preview words\n{{ /preview }}',
      '{{ callout\n  type: success\n  desc: Quarter closed\n  p: a2\n}}\nCallout body words.\n{{ /callout }}',
      '{{ paragraph\n  font size: xl\n  font style: i\n}}\nParagraph words.\n{{ /paragraph }}',
      `{{ author\n  username: ${u.username}\n  override bio: Bio words\n}}\n{{ /author }}`,
      `{{ attachment\n  ref: /u/${u.username}/d/other\n  name: Other report\n}}\n{{ /attachment }}`,
      `{{ vis\n  ref: /u/${u.username}/p/chart\n}}\n{{ /vis }}`,
      '{{ page\n  title: next\n}}',
      '{{ mystery }}\nSecond page words.\n{{ /mystery }}',
    ].join('\n\n');
    const path = await makeDoc(u, 'blocks', content);
    const text = await pdfText(await download(u, `${path}/files/doc.pdf`, 'blocks.pdf'));
    for (const w of [
      'Quarter closed',
      'Callout body words.',
      'Paragraph words.',
      u.username,
      'Bio words',
      'Other report',
      `/u/${u.username}/p/chart`,
      'Second page words.',
    ])
      expect(text).toContain(w);
    expect(text).not.toContain('Hidden preview words');
    expect(text).not.toMatch(/\{\{|\}\}/);
    const zip = unzipSync(
      new Uint8Array(await (await http('GET', `${path}/files/doc.pptx`, { token: u.token })).arrayBuffer()),
    );
    const notes = Object.keys(zip)
      .filter((k) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(k))
      .map((k) => Buffer.from(zip[k]!).toString())
      .join(' ');
    expect(notes).toContain('Quarter closed');
    expect(notes).toContain('Second page words.');
    expect(notes).not.toMatch(/\{\{|\}\}/);
  });
});

describe('pages and slides agree (pdfinfo, pdftotext, LibreOffice)', () => {
  it('a long doc without page markers: PDF pages = PPTX slides > 1, each slide notes the text of its PDF page, LibreOffice converts it', async () => {
    const u = await makeUser();
    const long = Array.from(
      { length: 60 },
      (_, i) => `Paragraph ${i + 1}: ${'text that fills the sheet '.repeat(6)}end ${i + 1}.`,
    ).join('\n\n');
    const code = Array.from({ length: 110 }, (_, i) => `code line ${i + 1}`).join('\n');
    const path = await makeDoc(u, 'longread', `${long}\n\n\`\`\`\n${code}\n\`\`\`\n`);
    const pdf = await download(u, `${path}/files/doc.pdf`, 'longread.pdf');
    const { pages } = await pdfInfo(pdf);
    expect(pages).toBeGreaterThan(2);
    const deck = await download(u, `${path}/files/doc.pptx`, 'longread.pptx');
    const zip = unzipSync(readFileSync(deck));
    const num = (k: string) => Number(/(\d+)\.xml$/.exec(k)![1]);
    const slides = Object.keys(zip).filter((k) => /^ppt\/slides\/slide\d+\.xml$/.test(k));
    expect(slides).toHaveLength(pages);
    const notes = Object.keys(zip)
      .filter((k) => /^ppt\/notesSlides\/notesSlide\d+\.xml$/.test(k))
      .sort((a, b) => num(a) - num(b))
      .map((k) =>
        Buffer.from(zip[k]!)
          .toString()
          .replace(/<[^>]+>/g, ' '),
      );
    for (let page = 1; page <= pages; page++) {
      const text = (await run('pdftotext', ['-f', String(page), '-l', String(page), pdf, '-'])).stdout;
      const paragraphs = [...text.matchAll(/Paragraph (\d+):/g)].map((m) => m[0]);
      for (const p of paragraphs) expect(notes[page - 1]).toContain(p);
    }
    // The code block taller than a sheet is shrunk onto one page, not cut.
    expect((await pdfText(pdf)).match(/code line 110\b/g)).toHaveLength(1);
    const bbox = (await run('pdftotext', ['-bbox', pdf, '-'])).stdout;
    const last = /<word xMin="[\d.]+" yMin="[\d.]+" xMax="[\d.]+" yMax="([\d.]+)">110<\/word>/.exec(bbox);
    expect(Number(last![1])).toBeLessThan(841.89 - 40); // inside the sheet, above its bottom margin
    const outDir = mkdtempSync(join(work, 'lo-long-'));
    await run(
      'libreoffice',
      [`-env:UserInstallation=file://${outDir}/profile`, '--headless', '--convert-to', 'pdf', '--outdir', outDir, deck],
      { timeout: 180_000 },
    );
    expect(
      (
        await pdfInfo(
          join(
            outDir,
            readdirSync(outDir).find((f) => f.endsWith('.pdf'))!,
          ),
        )
      ).pages,
    ).toBe(pages);
  }, 240_000);
});

const hex = (h: string): [number, number, number] =>
  [1, 3, 5].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];

describe('canonical page in a browser', () => {
  it('a screenshot in headless Chromium shows the theme colours (the CSP lets the page style through)', async () => {
    const u = await makeUser({ profile_public: true });
    const path = await makeDoc(u, 'darkdeck', '# Dark slide\n\nSome text', {
      'config/type': 'pres',
      'config/theme': 'dark',
    });
    expect((await http('PUT', `${path}/shared/public`, { token: u.token })).status).toBe(201);
    const shot = join(work, 'shot.png');
    const profile = mkdtempSync(join(work, 'chrome-'));
    await run(
      '/usr/bin/chromium',
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        '--force-color-profile=srgb',
        `--screenshot=${shot}`,
        '--window-size=1100,640',
        `${base()}/u/${u.username}/d/darkdeck`,
      ],
      { timeout: 60_000 },
    );
    const img = decodePng(readFileSync(shot));
    const counts = new Map<string, number>();
    for (let y = 0; y < img.height; y += 2)
      for (let x = 0; x < img.width; x += 2) {
        const k = img.rgb(x, y).join(',');
        counts.set(k, (counts.get(k) ?? 0) + 1);
      }
    const near = (rgb: [number, number, number]) =>
      [...counts]
        .filter(([k]) => k.split(',').every((v, i) => Math.abs(Number(v) - rgb[i]!) <= 3))
        .reduce((s, [, n]) => s + n, 0);
    const total = [...counts.values()].reduce((s, n) => s + n, 0);
    // The slide's background, the desk around it, and the accent bar on top of the slide.
    expect(near(hex('#0d1117')) / total).toBeGreaterThan(0.3);
    expect(near(hex('#010409')) / total).toBeGreaterThan(0.05);
    expect(near(hex('#4493f8'))).toBeGreaterThan(500);
    expect(near(hex('#ffffff')) / total).toBeLessThan(0.01);
  }, 90_000);
});
