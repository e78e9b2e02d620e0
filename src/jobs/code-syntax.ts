/**
 * A job's code file is checked when it is written: a JavaScript module that does not parse
 * is refused (400 naming the line and column), not accepted to fail at its first run. Parsed
 * by acorn (the ECMAScript parser esbuild's and webpack's tools build on; linear in the
 * text), as a module of the newest syntax; nothing of the code runs. It runs in the libraries
 * isolate (core/libraries.ts), never in the Worker.
 */
import { parse } from 'acorn';
import type { SyntaxProblem } from '../core/libraries';

/** Why `source` is not a JavaScript module (1-based line and column), or null when it parses. */
export function moduleSyntaxProblem(source: string): SyntaxProblem | null {
  try {
    parse(source, { ecmaVersion: 'latest', sourceType: 'module', allowHashBang: true });
    return null;
  } catch (err) {
    const loc = (err as { loc?: { line: number; column: number } }).loc;
    if (!(err instanceof SyntaxError) || !loc) throw err;
    // acorn appends " (line:column)" to its message; the fields carry them.
    return { message: err.message.replace(/\s*\(\d+:\d+\)$/, ''), line: loc.line, column: loc.column + 1 };
  }
}
