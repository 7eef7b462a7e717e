/**
 * get_users' `cursor`: where the next page starts, as an opaque URL-safe token.
 *
 * It holds the order asked for and the last user of the page it came from (that
 * user's value of the sort field, and its user_id for ties). Nothing in it is
 * secret or trusted: a forged cursor only starts a listing somewhere else, among
 * users the key may list anyway, so it is encoded, not signed.
 */
import { ServiceError } from '../service-errors.js';
import { SORTABLE_FIELDS, type SortableField } from '../../lib/contract/operations.js';
import type { SortPosition, User } from '../directory/index.js';

export interface UserCursor {
  sortBy: SortableField;
  sortDirection: 'asc' | 'desc';
  after: SortPosition;
}

/** The first element names the layout, so that a later one can still read cursors handed out before it. */
const LAYOUT = 1;

export function cursorAfter(user: User, sortBy: SortableField, sortDirection: 'asc' | 'desc'): string {
  return Buffer.from(JSON.stringify([LAYOUT, sortBy, sortDirection, user[sortBy], user.user_id])).toString('base64url');
}

/** The contract accepts any URL-safe text as a cursor; only the service knows which are its own. */
export const invalidCursor = (path: string, message: string) =>
  new ServiceError(400, 'invalid_cursor', `Invalid cursor: ${path}: ${message}`, [{ path, message }]);

const notACursor = () => invalidCursor('/body/cursor', 'is not a cursor this service handed out; pass a next_cursor unchanged');

export function parseCursor(cursor: string): UserCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notACursor();
  }
  if (!Array.isArray(decoded) || decoded.length !== 5) throw notACursor();
  const [layout, sortBy, sortDirection, value, userId] = decoded as unknown[];
  if (
    layout !== LAYOUT ||
    typeof sortBy !== 'string' ||
    !(SORTABLE_FIELDS as readonly string[]).includes(sortBy) ||
    (sortDirection !== 'asc' && sortDirection !== 'desc') ||
    typeof value !== 'string' ||
    typeof userId !== 'string'
  ) {
    throw notACursor();
  }
  return { sortBy: sortBy as SortableField, sortDirection, after: { value, userId } };
}
