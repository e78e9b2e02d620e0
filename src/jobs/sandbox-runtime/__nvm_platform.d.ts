/** The platform's constants the runtime (runtime.js) needs, as src/jobs/sandbox.ts generates them beside it. */

/** Marks the outbound guard's own refusals (src/jobs/egress-guard.ts). */
export declare const EGRESS_REFUSED_HEADER: string;
