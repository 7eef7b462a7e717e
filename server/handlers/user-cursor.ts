/**
 * get_users' `cursor`: where the next page starts, as an opaque URL-safe token.
 *
 * It holds the order asked for, the search if one was sent, and the last user of
 * the page it came from (that user's value of the sort field, and its user_id for ties). Nothing in it is
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
  /** The search the pages are of, if any. */
  search?: string;
}

/**
 * The first element names the layout, so that a later one can still read cursors handed out
 * before it: 1 without a search, 2 with the search after the position.
 */
const LAYOUT = 1;
const LAYOUT_WITH_SEARCH = 2;

export function cursorAfter(user: User, sortBy: SortableField, sortDirection: 'asc' | 'desc', search?: string): string {
  const position = [sortBy, sortDirection, user[sortBy], user.user_id];
  const cursor = search === undefined ? [LAYOUT, ...position] : [LAYOUT_WITH_SEARCH, ...position, search];
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
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
  if (!Array.isArray(decoded)) throw notACursor();
  const [layout, sortBy, sortDirection, value, userId, search] = decoded as unknown[];
  const length = layout === LAYOUT_WITH_SEARCH ? 6 : 5;
  if (
    (layout !== LAYOUT && layout !== LAYOUT_WITH_SEARCH) ||
    decoded.length !== length ||
    typeof sortBy !== 'string' ||
    !(SORTABLE_FIELDS as readonly string[]).includes(sortBy) ||
    (sortDirection !== 'asc' && sortDirection !== 'desc') ||
    typeof value !== 'string' ||
    typeof userId !== 'string' ||
    (layout === LAYOUT_WITH_SEARCH && typeof search !== 'string')
  ) {
    throw notACursor();
  }
  return {
    sortBy: sortBy as SortableField,
    sortDirection,
    after: { value, userId },
    ...(typeof search === 'string' ? { search } : {}),
  };
}
