/**
 * Errors: every failure the API answers is an HttpError, rendered as the JSON body
 * `{status, message, ...extra}`. Handlers throw; the router renders.
 */
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
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message = 'not found') => new HttpError(404, message);
export const conflict = (message: string, extra?: Record<string, unknown>) => new HttpError(409, message, extra);
export const tooLarge = (message: string) => new HttpError(413, message);
export const unsupportedType = (message: string) => new HttpError(415, message);

/**
 * `{status, message, ...extra}`. An extra field may replace `status` where the
 * body carries another status (the final status of a finished run on cancel).
 */
export function errorResponse(err: HttpError): Response {
  return Response.json(
    { status: err.status, message: err.message, ...err.extra },
    { status: err.status, headers: err.headers },
  );
}

/** Anything that is not an HttpError is our fault: log it, answer a generic 500. */
export function toErrorResponse(err: unknown): Response {
  if (err instanceof HttpError) return errorResponse(err);
  if (isUniqueViolation(err)) return errorResponse(conflict('already exists'));
  // A write that lost a race with a delete (a log line, an asset row for a resource gone meanwhile).
  if (isForeignKeyViolation(err)) return errorResponse(notFound('it was deleted meanwhile'));
  console.error('unhandled error', err instanceof Error ? err.stack : err);
  return errorResponse(new HttpError(500, 'internal error'));
}

/** D1 reports constraint failures as plain errors; a racing create lands here. */
export function isUniqueViolation(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? '') + String((err as { cause?: unknown })?.cause ?? '');
  return /UNIQUE constraint failed|PRIMARY KEY constraint failed/i.test(text);
}

/** D1 reports a row that references a deleted row (a write racing a DELETE) as a plain error. */
export function isForeignKeyViolation(err: unknown): boolean {
  const text = String((err as { message?: string })?.message ?? '') + String((err as { cause?: unknown })?.cause ?? '');
  return /FOREIGN KEY constraint failed/i.test(text);
}
