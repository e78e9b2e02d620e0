// Secrets and optional settings that wrangler.toml does not declare, and the types of the text modules its [[rules]]
// import.
declare namespace Cloudflare {
  interface Env {
    /** Operator token; the /v1/ops interface is disabled (404) without it. */
    OPS_TOKEN?: string;
    /** "true" lets the operator move the platform clock (tests only). */
    ALLOW_CLOCK_OVERRIDE?: string;
    /** HMAC key of unsubscribe links; a random key kept in D1 when unset. */
    MAIL_UNSUBSCRIBE_KEY?: string;
    /** Shared secret (Standard Webhooks `whsec_<base64>`) signing bounce and complaint reports; unset: none accepted. */
    MAIL_EVENTS_SECRET?: string;
    /** Milliseconds an idle Browser Rendering session is kept for reuse (0: close after each render). */
    BROWSER_KEEP_ALIVE_MS?: string;
    /** "off" switches the request rate limits (RATE_LIMIT and RATE_LIMIT_ADDRESS bindings) off. */
    RATE_LIMITING?: string;
    /**
     * Retention (src/accounts/retention-plan.ts): "off" stops the sweep; the others are whole numbers that replace the
     * defaults (README → Configuration).
     */
    RETENTION?: string;
    RETENTION_OUTBOX_DAYS?: string;
    RETENTION_RUNS_DAYS?: string;
    RETENTION_RUNS_KEEP?: string;
    RETENTION_LOG_DAYS?: string;
    RETENTION_LOG_KEEP?: string;
    RETENTION_WEBHOOKS_DAYS?: string;
    RETENTION_BATCH?: string;
    RETENTION_TICK_ROWS?: string;
    RETENTION_TICK_MS?: string;
    /** "true" (npm start only, never wrangler.toml): webhook endpoints may be http(s)://127.0.0.1 (local development). */
    WEBHOOKS_ALLOW_LOOPBACK?: string;
    /**
     * Tests only (vitest.config.mts, never wrangler.toml): "<cpuMs>,<wallMs>", shorter step limits
     * (src/jobs/sandbox.ts).
     */
    JOBS_TEST_LIMITS?: string;
    /**
     * Tests only (vitest.config.mts, never wrangler.toml): a longer cancel teardown grace in ms
     * (src/jobs/run/steps.ts).
     */
    JOBS_TEST_GRACE_MS?: string;
  }
}

// Files wrangler.toml's [[rules]] (type "Text") import as their text: the GraphQL schema, the
// explorer page and scripts that run in a browser page, not in the Worker.
declare module '*.graphql' {
  const text: string;
  export default text;
}
declare module '*.html' {
  const text: string;
  export default text;
}
declare module '*.browser.js' {
  const text: string;
  export default text;
}
// The code of an isolate the Worker Loader runs (scripts/isolates.mjs builds it into build/).
declare module '*.isolate.js' {
  const text: string;
  export default text;
}
