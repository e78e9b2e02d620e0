/**
 * The shell of every HTML page the platform renders (documents, grid dashboards, e-mails, jobs):
 * no script, one <style> element, under a Content-Security-Policy that allows that style
 * by its hash and nothing else but the sources a page names. Pure.
 */
import { escapeHtml } from './escape';

/**
 * The policy of a page whose only style is the one hashed. `allow` adds directives
 * (img-src, font-src, ...); `forMeta` leaves out what a meta element may not carry.
 */
export function strictPolicy(styleHash: string, allow: readonly string[], forMeta = false): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${styleHash}'`,
    ...allow,
    "base-uri 'none'",
    "form-action 'none'",
    ...(forMeta ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
}

/**
 * The headers of every page the platform serves at /u/ (documents, grids, e-mails, jobs): its policy, no sniffing, no
 * referrer, revalidated.
 */
export function pageHeaders(policy: string): Record<string, string> {
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': policy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'private, no-cache',
  };
}

export interface ShellInput {
  title: string;
  /** The text of the one <style> element (what the policy's hash is of). */
  style: string;
  /** The body's HTML, already escaped or sanitized. */
  body: string;
  bodyClass?: string;
  /** The policy to repeat in a meta element (a saved page keeps it). */
  policy?: string;
}

export function strictPage(input: ShellInput): string {
  return (
    '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">' +
    (input.policy ? `<meta http-equiv="Content-Security-Policy" content="${input.policy}">` : '') +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<meta name="referrer" content="no-referrer">' +
    `<title>${escapeHtml(input.title)}</title>` +
    `<style>${input.style}</style></head>\n` +
    `<body${input.bodyClass ? ` class="${input.bodyClass}"` : ''}>${input.body}</body></html>\n`
  );
}
