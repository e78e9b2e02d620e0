/**
 * The chain grammar of config/chains (pure; unit-tested on its own).
 *
 *   # comments and blank lines are ignored
 *   fetch <- @alice/downloader        binding: label <- ref
 *   clean <- https://example.com/x    a ref is a job name, @user/job or an https:// URL
 *   fetch -> clean -> .render         edges; a dot fans the step out over the previous
 *                                     step's output files (one run per file, in parallel)
 *   myjob                             a chain of one bare ref
 *
 * Several edge lines join into one path (`a -> b` and `b -> c`); anything that is not a
 * single path (a branch, a cycle, two starts) is rejected with the line at fault.
 */
import { egressRefusal } from '../core/egress';
import { RESOURCE_NAME, USERNAME } from '../core/names';

export type StepRef = { kind: 'job'; owner: string | null; job: string } | { kind: 'url'; url: string };

export interface ChainStep {
  /** The step's label (a binding label, or the ref as written). */
  label: string;
  ref: StepRef;
  /** Run once per file of the previous step's output (or of the run's input for the first step). */
  fanOut: boolean;
}

const MAX_STEPS = 32;
const LABEL = /^[a-z][a-z0-9_]{0,63}$/;

class ChainError extends Error {}

/** A ref as written: `name`, `@user/job` or `https://...`; null when it is none of them. */
export function parseRef(text: string): StepRef | null {
  if (text.startsWith('https://')) {
    try {
      const url = new URL(text);
      return url.protocol === 'https:' && url.hostname ? { kind: 'url', url: url.toString() } : null;
    } catch {
      return null;
    }
  }
  const m = /^@([^/]+)\/(.+)$/.exec(text);
  if (m) return USERNAME.test(m[1]!) && RESOURCE_NAME.test(m[2]!) ? { kind: 'job', owner: m[1]!, job: m[2]! } : null;
  return RESOURCE_NAME.test(text) ? { kind: 'job', owner: null, job: text } : null;
}

/** Strips a `#` comment (at the start of a line or after whitespace, so URLs keep their fragments). */
function stripComment(line: string): string {
  const m = /(^|\s)#/.exec(line);
  return (m ? line.slice(0, m.index) : line).trim();
}

/**
 * `label <- ref` of a trimmed binding line (spaces around the arrow optional), or null;
 * what `/^(\S+)\s*<-\s*(\S+)$/` matches (with one word, the last arrow that leaves a
 * ref splits it), by words: that regex retries every arrow of a long word, quadratic.
 */
function splitBinding(line: string): [label: string, ref: string] | null {
  const words = line.split(/\s+/);
  const [a, b, c] = words as [string, string | undefined, string | undefined];
  if (words.length === 1) {
    const k = a.lastIndexOf('<-', a.length - 3);
    return k >= 1 ? [a.slice(0, k), a.slice(k + 2)] : null;
  }
  if (words.length === 2) {
    if (b!.startsWith('<-') && b!.length > 2) return [a, b!.slice(2)];
    return a.endsWith('<-') && a.length > 2 ? [a.slice(0, -2), b!] : null;
  }
  return words.length === 3 && b === '<-' ? [a, c!] : null;
}

/** Parses a chain; an empty (or comment-only) text is no chain (the job runs its own code). */
export function parseChains(text: string): ChainStep[] {
  const bindings = new Map<string, { ref: StepRef; line: number }>();
  const edges: { tokens: { name: string; dot: boolean }[]; line: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = stripComment(raw);
    const n = i + 1;
    if (!line) return;
    if (line.includes('<-')) {
      const m = splitBinding(line);
      if (!m) throw new ChainError(`line ${n}: a binding is 'label <- ref'`);
      const [label, refText] = m;
      if (!LABEL.test(label))
        throw new ChainError(
          `line ${n}: invalid label '${label}' (lowercase letters, digits, _; starting with a letter)`,
        );
      if (bindings.has(label)) throw new ChainError(`line ${n}: label '${label}' is bound twice`);
      const ref = parseRef(refText);
      if (!ref)
        throw new ChainError(`line ${n}: invalid ref '${refText}': expected a job name, @user/job or an https:// URL`);
      // The address check again at run time, on every redirect hop and against the platform's own host.
      const refused = ref.kind === 'url' ? egressRefusal(ref.url) : null;
      if (refused) throw new ChainError(`line ${n}: step '${label}': ${refused}`);
      bindings.set(label, { ref, line: n });
      return;
    }
    const tokens = line.split('->').map((t) => t.trim());
    const parsed = tokens.map((t) => {
      const dot = t.startsWith('.');
      const name = dot ? t.slice(1) : t;
      if (!name || /\s/.test(name)) throw new ChainError(`line ${n}: expected 'a -> b -> .c', got '${line}'`);
      return { name, dot };
    });
    edges.push({ tokens: parsed, line: n });
  });

  const resolve = (name: string, line: number): StepRef => {
    const bound = bindings.get(name);
    if (bound) return bound.ref;
    const ref = parseRef(name);
    if (!ref || ref.kind === 'url')
      throw new ChainError(`line ${line}: '${name}' is neither a bound label nor a job name or @user/job`);
    return ref;
  };

  if (!edges.length) {
    if (!bindings.size) return [];
    if (bindings.size > 1) throw new ChainError('several bindings but no edges: give their order with a -> b');
    const [[label, b]] = [...bindings.entries()] as [[string, { ref: StepRef; line: number }]];
    return [{ label, ref: b.ref, fanOut: false }];
  }

  // Join the edge lines into one path.
  const next = new Map<string, string>();
  const prev = new Map<string, string>();
  const fan = new Map<string, boolean>();
  const firstLine = new Map<string, number>();
  for (const { tokens, line } of edges) {
    tokens.forEach((t, i) => {
      if (!firstLine.has(t.name)) firstLine.set(t.name, line);
      fan.set(t.name, (fan.get(t.name) ?? false) || t.dot);
      if (i === 0) return;
      const from = tokens[i - 1]!.name;
      if (from === t.name) throw new ChainError(`line ${line}: '${t.name}' cannot follow itself`);
      if (next.has(from) && next.get(from) !== t.name)
        throw new ChainError(`line ${line}: '${from}' already leads to '${next.get(from)}' (a chain is one path)`);
      if (prev.has(t.name) && prev.get(t.name) !== from)
        throw new ChainError(`line ${line}: '${t.name}' already follows '${prev.get(t.name)}' (a chain is one path)`);
      next.set(from, t.name);
      prev.set(t.name, from);
    });
  }
  const names = [...firstLine.keys()];
  const starts = names.filter((n) => !prev.has(n));
  if (starts.length !== 1) {
    throw new ChainError(
      starts.length
        ? `the chain has ${starts.length} starts (${starts.join(', ')}): it must be one path`
        : 'the chain is a cycle',
    );
  }
  const steps: ChainStep[] = [];
  const seen = new Set<string>();
  for (let at: string | undefined = starts[0]; at !== undefined; at = next.get(at)) {
    if (seen.has(at)) throw new ChainError(`the chain loops back to '${at}'`);
    seen.add(at);
    steps.push({ label: at, ref: resolve(at, firstLine.get(at)!), fanOut: fan.get(at)! });
  }
  if (seen.size !== names.length) throw new ChainError('the chain has a cycle apart from its path');
  for (const [label, b] of bindings)
    if (!seen.has(label)) throw new ChainError(`line ${b.line}: label '${label}' is bound but not used`);
  if (steps.length > MAX_STEPS) throw new ChainError(`a chain has at most ${MAX_STEPS} steps`);
  return steps;
}

/** The validator of config/chains: a message for the 400, or nothing. */
export function chainProblem(text: string): string | void {
  try {
    parseChains(text);
  } catch (err) {
    if (err instanceof ChainError) return err.message;
    throw err;
  }
}
