/**
 * Error answers as tests compare them. Every error body names its request
 * (`instance`, `request_id`), which differs between any two answers; the rest
 * of two answers to the same failure must be the same, byte for byte.
 */

/** The members Kasm's clients read: `error_message`, `code` and, for an invalid request, `errors`. */
export function kasmMembers(body: { error_message?: unknown; code?: unknown; errors?: unknown }) {
  const { error_message, code, errors } = body;
  return { error_message, code, ...(errors === undefined ? {} : { errors }) };
}

/** An error body less what names the request it answers. */
export function withoutOccurrence<Body extends Record<string, unknown>>(body: Body): Omit<Body, 'instance' | 'request_id'> {
  const { instance: _instance, request_id: _requestId, ...rest } = body;
  return rest;
}

/** An answer's text with its request id (the X-Request-Id it carries) put aside, the length kept. */
export function textAsideRequest(text: string, requestId: string | null): string {
  return requestId ? text.replaceAll(requestId, 'x'.repeat(requestId.length)) : text;
}
