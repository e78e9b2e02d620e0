/**
 * The README's typed client compiles: the types openapi-typescript generates from the
 * API's OpenAPI document (built here from the route table, as /v1/openapi.json serves
 * it), and the README example exactly as written there, type-checked against them with
 * openapi-fetch. A change to the document that breaks client generation, or an operation
 * the example calls that changes shape, fails here.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../src/app';
import { apiDocument } from '../../src/meta/reference-routes';

// Node's modules typed here: test/node shares the Worker's tsconfig (no Node types).
const load = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
const { mkdtempSync, readFileSync, rmSync, writeFileSync } = (await load('node:fs')) as {
  mkdtempSync(prefix: string): string;
  readFileSync(path: string, encoding: 'utf8'): string;
  rmSync(path: string, options: { recursive: true; force: true }): void;
  writeFileSync(path: string, text: string): void;
};
const { join } = (await load('node:path')) as { join(...paths: string[]): string };
const { tmpdir } = (await load('node:os')) as { tmpdir(): string };
const { default: openapiTS, astToString } = (await load('openapi-typescript')) as {
  default: (doc: object) => Promise<ts.Node[]>;
  astToString: (nodes: ts.Node[]) => string;
};
const root = ((await load('node:process')) as { cwd(): string }).cwd();

/** The README's TypeScript examples: the ```ts blocks of its section "A typed client", in order (one program). */
function readmeExamples(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.split(/^## A typed client$/m)[1]?.split(/^## /m)[0] ?? '';
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
  if (!blocks.length) throw new Error('README.md has no ```ts block under "## A typed client"');
  return blocks;
}

/** The type errors of `example` compiled beside `types` (./api.d.ts), with openapi-fetch from node_modules. */
function typeErrors(types: string, example: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'typed-client-'));
  try {
    writeFileSync(join(dir, 'api.d.ts'), types);
    writeFileSync(join(dir, 'client.ts'), example);
    const program = ts.createProgram([join(dir, 'client.ts')], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
      paths: { 'openapi-fetch': [join(root, 'node_modules/openapi-fetch/dist/index.d.mts')] },
    });
    return ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file ? `${d.file.fileName.slice(dir.length + 1)}: ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the README typed client', () => {
  it('openapi-typescript generates the types of the document, and the README example type-checks against them', async () => {
    const doc = apiDocument(buildApi(), { PUBLIC_ORIGIN: 'http://127.0.0.1:8787' });
    const types = astToString(await openapiTS(doc));
    expect(types).toContain('getDocContent');
    const [first, ...more] = readmeExamples();
    expect(first!.trim().split('\n').length).toBeLessThanOrEqual(11); // ten lines of code and a blank one
    expect(more, 'the paging example follows').toHaveLength(1);
    const example = [first, ...more].join('\n');
    expect(typeErrors(types, example)).toEqual([]);
    // The check can fail: a path the API does not have is a type error.
    expect(typeErrors(types, example.replace("'/v1/whoami'", "'/v1/whoareyou'")).length).toBeGreaterThan(0);
    // The named schemas are named types (README: components['schemas']['Run']).
    const named = (type: string, value: string) =>
      typeErrors(
        types,
        `import type { components } from './api';\nexport const x: components['schemas']['${type}'] = ${value};\n`,
      );
    expect(named('Run', "{ run: 'r', status: 'processing', location: '/v1/x' }")).toEqual([]);
    expect(named('RunStatus', "'success'")).toEqual([]);
    expect(named('RunStatus', "'done'").length).toBeGreaterThan(0);
  });
});
