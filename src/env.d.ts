// Secrets and optional settings that wrangler.toml does not declare.
declare namespace Cloudflare {
  interface Env {
    /** Operator token; the /v1/ops interface is disabled (404) without it. */
    OPS_TOKEN?: string;
    /** "true" lets the operator move the platform clock (tests only). */
    ALLOW_CLOCK_OVERRIDE?: string;
  }
}
