/**
 * The introduction of the OpenAPI document (info.description, Markdown): what a client
 * must know before its first call, shown first by the reference page /v1/docs. The
 * details live in the area docs it names.
 */
export const INTRODUCTION = `One HTTP API for documents, grids, jobs and mails, their groups and organisations, with a
GraphQL view of the same data at \`/gql\`. Every operation below is generated from the route
table that serves it, so this page is always the deployed API.

## Authentication and tokens

Sign in with \`POST /v1/token\` and a JSON body \`{"username", "password"}\`; the answer is
\`{token, token_name, scope, expires_on}\`. Send the token on every request as
\`Authorization: Bearer <token>\` (the *Authentication* box of this page does that for "try it").

- \`token_name\` (default \`default\`) names the token in \`GET /v1/tokens\`;
  \`DELETE /v1/tokens/{token_name}\` revokes every token of yours of that name and
  \`POST /v1/logout\` the token sent.
- \`scope\`: \`full\` (default) or \`read\`. A read token may only \`GET\`, \`HEAD\` and query
  \`POST /gql\`; anything else answers 403 saying the token is read-only.
- \`expires_in_days\` (1-3650) sets an expiry; without it a token lives until it is unused
  for the deployment's idle period (180 days by default). An expired token answers 401, on
  routes that take a token optionally too. An account holds at most 100 live tokens (409 past that).
- Operations marked with the bearer scheme need a token; those that list an empty
  requirement as well take one optionally (more is visible with it); \`security: []\` marks
  public ones. \`/v1/ops/*\` is the operator's interface: its token is the deployment's
  \`OPS_TOKEN\`, and without one configured every \`/v1/ops\` path is 404.

## Errors

Every error is JSON with the HTTP status in the body too:

\`\`\`json
{"status": 404, "message": "no such document: report"}
\`\`\`

Some carry more fields (the \`Error\` schema lists them): \`retry_after_seconds\` (429, 425),
\`final_status\` (409 on a run that has ended), \`run\` (a trigger's run), \`rejected\` (400 on a
recipient list: each refused line with its reason), \`row\`/\`column\` (400 on a grid layout),
\`allowed\` (405). Something you may not see answers 404, never 403: existence is not
revealed. 403 means you may see it but not do this. A path the API does not have is 404; a
path it has with another method is 405 with \`Allow\`.

## Rate limits

Two counts per request: the address (5,000 a minute by default) and the account, every token
of it together (1,000 a minute; an anonymous caller or an unknown token counts under its
address). Past either: 429 with \`Retry-After: <seconds>\` and \`retry_after_seconds\`. 10
failed sign-ins for one username within 15 minutes lock \`POST /v1/token\` for it until the
window ends (429 with \`Retry-After\`). The limits are the deployment's; the operator is exempt.

## Paths and bodies

- Tolerant paths: repeated slashes collapse and a trailing slash is ignored. \`HEAD\` is
  answered by every \`GET\` without the body. Path parameters are percent-decoded; \`+\`, \`@\`
  and \`~\` stay literal (\`@alice~team\` names a group).
- Your own resources are at \`/v1/vis/docs/{doc}\`, \`/v1/vis/grids/{grid}\`,
  \`/v1/vis/mails/{mail}\` and \`/v1/code/jobs/{job}\`; another user's, shared with you, at the
  same path below \`/v1/users/{owner}\`.
- \`PUT\` creates and never updates (409 when it exists); writes are \`POST\`; \`DELETE\` clears or
  removes.
- Text entries (\`content\`, \`name\`, \`config/theme\`, ...) are written with
  \`Content-Type: text/plain\` (UTF-8) and read back byte for byte; a form-encoded or other body
  answers 415, a larger one than the entry takes 413. Options read \`yes\` or \`no\`. Where a
  route answers either, \`Accept: application/json\` asks for JSON instead of text.

## Listings

A folder (\`GET\` of a resource, \`/v1/vis/docs\`, \`config/\`, ...) is a JSON array of
\`{name, uri, type, permissions, actions, created_on, last_modified}\`: \`type\` is \`dir\` or
\`file\`, \`actions\` the methods \`uri\` takes and \`permissions\` what they need (\`r\`, \`w\`,
\`d\`, \`x\`). \`X-NVM-Type: dir|file\` tells which a \`GET\` answered; a resource's listing carries
the caller's permissions on it in \`X-NVM-Permissions\`.

Every listing pages: \`?limit=100\` answers 100 items and, while more remain, a
\`Link: <…>; rel="next"\` header (RFC 8288) whose URL carries the \`cursor\` of the next page.
Items added while you page neither repeat nor shift the rest. Without \`limit\` a listing
answers whole, up to 1,000 items (runs: the 30 newest), with the \`Link\` past them.

## Reading your own writes (D1 bookmarks)

Reads may be served by a nearby replica a moment behind. Every answer that touched the
database carries \`x-d1-bookmark\`; send it back on the next request and that request reads at
least what the answer saw or wrote, whichever replica serves it. A malformed bookmark is 400.
\`Server-Timing: d1;desc="N round trips"\` tells how many database round trips an answer took.

## More

The repository's area docs describe each family in full: docs/areas/meta.md (rate limits,
sign-in and tokens, this reference), docs/areas/accounts.md (deleting an account),
docs/areas/groups.md, docs/areas/docs.md, docs/areas/render.md, docs/areas/grids.md,
docs/areas/jobs.md, docs/areas/mail.md and docs/areas/gql.md.
`;
