/**
 * Errors: every failure the API answers is an HttpError, rendered as the JSON body
 * `{status, message, code, request_id, ...extra}`. Handlers throw; the router renders.
 */
import { currentRequestId } from './request-id';

/**
 * The stable code of each status, what a program branches on (`extra.code` names a finer one:
 * `invalid_token`). The list the docs and the OpenAPI `Error` schema give.
 */
export const ERROR_CODES: Readonly<Record<number, string>> = {
  400: 'validation_failed',
  401: 'authentication_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  410: 'gone',
  413: 'too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  425: 'too_early',
  429: 'rate_limited',
  500: 'internal_error',
  502: 'upstream_failed',
  503: 'unavailable',
  504: 'timeout',
};
/**
 * Codes that refine a status's own: a token that was sent but does not authenticate (401); an Idempotency-Key
 * (core/idempotency.ts) whose first request is still running (409), reused with another body or route (422), or whose
 * first answer was too large to keep (409).
 */
export const FINER_CODES = [
  'invalid_token',
  'idempotency_in_progress',
  'idempotency_key_reused',
  'idempotency_answer_not_kept',
] as const;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, extra?: Record<string, unknown>) => new HttpError(400, message, extra);
export const unauthorized = (message = 'authentication required: send Authorization: Bearer <token>') =>
  new HttpError(401, message, {}, { 'WWW-Authenticate': 'Bearer' });
/** A bearer token was sent but does not authenticate (unknown, revoked or expired): not the same as none. */
export const invalidToken = (message: string) =>
  new HttpError(401, message, { code: 'invalid_token' }, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message = 'not found') => new HttpError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new HttpError(409, message, extra);
export const tooLarge = (message: string) => new HttpError(413, message);
export const unsupportedType = (message: string) => new HttpError(415, message);

/**
 * `{status, message, code, request_id, ...extra}`. An extra field may replace `status` where the
 * body carries another status (the final status of a finished run on cancel), or `code` with a finer one.
 */
function errorResponse(err: HttpError): Response {
  const requestId = currentRequestId();
  return Response.json(
    {
      status: err.status,
      message: err.message,
      code: ERROR_CODES[err.status] ?? (err.status >= 500 ? 'internal_error' : 'error'),
      ...(requestId ? { request_id: requestId } : {}),
      ...err.extra,
    },
    { status: err.status, headers: err.headers },
  );
}

/** Anything that is not an HttpError is our fault: log it, answer a generic 500. */
export function toErrorResponse(err: unknown): Response {
  if (err instanceof HttpError) return errorResponse(err);
  if (isUniqueViolation(err)) return errorResponse(conflict('already exists'));
  // A write that lost a race with a delete (a log line, an asset row for a resource gone meanwhile).
  if (isForeignKeyViolation(err)) return errorResponse(notFound('it was deleted meanwhile'));
  console.error(`request ${currentRequestId() ?? '-'}: unhandled error`, err instanceof Error ? err.stack : err);
  return errorResponse(new HttpError(500, 'internal error'));
}

/** D1 reports constraint failures as plain errors; a racing create lands here. */
export function isUniqueViolation(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? '') + String((err as { cause?: unknown })?.cause ?? '');
  return /UNIQUE constraint failed|PRIMARY KEY constraint failed/i.test(text);
}

/** D1 reports a row that references a deleted row (a write racing a DELETE) as a plain error. */
function isForeignKeyViolation(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? '') + String((err as { cause?: unknown })?.cause ?? '');
  return /FOREIGN KEY constraint failed/i.test(text);
}
