// Every fetch of the suite, nudged while a GET waits on wrangler's proxy (test/e2e/nudge.ts).
import { nudging } from './nudge';

globalThis.fetch = nudging(globalThis.fetch);
