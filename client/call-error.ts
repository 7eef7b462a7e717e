/** The error the SDK's iterators throw: an iterator has no other way to report an error answer. */
import type { ApiError, ClientFailure } from './index.js';

/** An error answer met while going through a listing; `error` is the contract's error body or a ClientFailure. */
export class WorkspaceCallError extends Error {
  constructor(readonly error: ApiError | ClientFailure) {
    super(error.error_message);
    this.name = 'WorkspaceCallError';
  }
}
