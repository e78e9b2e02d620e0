/**
 * The examples of the OpenAPI document's bodies. Hand-written ones sit on the schemas they
 * illustrate (`.meta({ example })`, most of them on the named schemas: `.meta({ id })`);
 * what is built of them is derived here, never written per route: a list of `ListingItem`
 * is a list of its example, an enum reads as its first value, an object as the examples of
 * its fields.
 *
 * Which bodies have one: every body a person or a program reads as text, JSON
 * (`application/json`, `...+json`) or `text/*`. A binary body (an image, a PDF, an Office
 * file, application/octet-stream) has none: bytes written into the document would be
 * neither readable nor what a client sends; its description says what it is instead.
 */
import * as z from 'zod';
import { once } from './once';

/** Whether a body of this media type carries an example (see above). */
export function takesExample(mediaType: string): boolean {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || type.endsWith('+json') || type.startsWith('text/');
}

/** A text body (text/plain, text/html, ...) and what it reads like. */
export const text = (example: string) => z.string().meta({ example });

/** An HTML page (text/html) titled `title`, as the page routes answer one (shortened). */
export const htmlPage = (title: string) =>
  text(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
      `<body><main><h1>${title}</h1>…</main></body></html>\n`,
  );

/** The text/plain `yes` or `no` of options and invite answers (http.ts readYesNo). */
export const yesNoText = once(() =>
  z.enum(['yes', 'no']).meta({ id: 'YesNo', description: 'The text yes or no (text/plain)', example: 'yes' }),
);

/** A schema of any kind (core: what `_zod.def` tells apart). */
type Schema = z.core.$ZodType;

/** The example written on `schema` itself (its own `.meta`), if any. */
export function ownExample(schema: Schema): unknown {
  return (z.globalRegistry.get(schema) as { example?: unknown } | undefined)?.example;
}

/**
 * An example of `schema`: its own, else one derived from its parts; undefined when a part
 * that must be present has none (a bare string: only a person knows what it reads like).
 */
export function exampleOf(schema: Schema): unknown {
  const own = ownExample(schema);
  if (own !== undefined) return own;
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'readonly':
    case 'nonoptional':
      return exampleOf(def.innerType);
    case 'literal':
      return def.values[0];
    case 'enum':
      return Object.values(def.entries)[0];
    case 'array': {
      const item = exampleOf(def.element);
      return item === undefined ? undefined : [item];
    }
    case 'union':
      for (const option of def.options) {
        const example = exampleOf(option);
        if (example !== undefined) return example;
      }
      return undefined;
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(def.shape)) {
        const example = exampleOf(field);
        if (example !== undefined) out[key] = example;
        else if (!z.safeParse(field, undefined).success) return undefined; // a required field without one
      }
      return out;
    }
    default:
      return undefined;
  }
}
