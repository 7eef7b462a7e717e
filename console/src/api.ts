/**
 * The console's one client: the typed SDK, on the service's own origin, under
 * the console session (no key or secret kept in the page: the browser holds the
 * session's HttpOnly cookie, and the CSRF token lives in this module's memory).
 */
import { createWorkspaceClient, type ApiError, type ClientFailure } from 'workspace-user-api/client';

let csrfToken: string | undefined;

/** Keeps the session's CSRF token in memory only: a reload asks get_session for it again. */
export function holdCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export const api = createWorkspaceClient({
  baseUrl: globalThis.location.origin,
  credentialsIn: 'session',
  csrfToken: () => csrfToken,
});

/** Tells the app that the session ended, so that it shows the sign-in again. */
let onSessionEnded: () => void = () => {};
export function whenSessionEnds(listener: () => void): void {
  onSessionEnded = listener;
}

/** A failed call as one sentence a person can act on; a session that ended sends the console back to sign-in. */
export function sentenceOf(error: ApiError | ClientFailure): string {
  if (error.code === 'session_ended' || error.code === 'invalid_credentials') {
    onSessionEnded();
    return 'Your session has ended. Sign in again.';
  }
  if (error.code === 'permission_denied') return `Your key cannot do this. ${error.error_message}.`;
  if (error.code === 'network_error' || error.code === 'timeout') return 'The service does not answer. Try again in a moment.';
  return error.error_message;
}
