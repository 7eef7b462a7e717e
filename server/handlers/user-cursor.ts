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
  /** The group whose members the pages are of, if any. */
  groupId?: string;
}

/** What narrows a listing, which its cursor carries. */
export interface ListingFilters {
  search?: string | undefined;
  groupId?: string | undefined;
}

/**
 * The first element names the layout, so that a later one can still read cursors handed out
 * before it: 1 without a filter, 2 with the search after the position, 3 with the filters
 * (search, group) as an object after it.
 */
const LAYOUT = 1;
const LAYOUT_WITH_SEARCH = 2;
const LAYOUT_WITH_FILTERS = 3;

export function cursorAfter(
  user: User,
  sortBy: SortableField,
  sortDirection: 'asc' | 'desc',
  { search, groupId }: ListingFilters = {},
): string {
  const position = [sortBy, sortDirection, user[sortBy], user.user_id];
  const cursor =
    groupId !== undefined
      ? [LAYOUT_WITH_FILTERS, ...position, { ...(search === undefined ? {} : { search }), group_id: groupId }]
      : search === undefined
        ? [LAYOUT, ...position]
        : [LAYOUT_WITH_SEARCH, ...position, search];
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/** The contract accepts any URL-safe text as a cursor; only the service knows which are its own. */
export const invalidCursor = (path: string, message: string) =>
  new ServiceError(400, 'invalid_cursor', `Invalid cursor: ${path}: ${message}`, [{ path, message }]);

const notACursor = () => invalidCursor('/body/cursor', 'is not a cursor this service handed out; pass a next_cursor unchanged');

/** The filters a layout-3 cursor carries, or undefined when they are not what this service writes. */
function filtersOf(value: unknown): ListingFilters | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { search, group_id, ...other } = value as Record<string, unknown>;
  if (Object.keys(other).length > 0 || typeof group_id !== 'string' || (search !== undefined && typeof search !== 'string'))
    return undefined;
  return { groupId: group_id, ...(search === undefined ? {} : { search }) };
}

export function parseCursor(cursor: string): UserCursor {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw notACursor();
  }
  if (!Array.isArray(decoded)) throw notACursor();
  const [layout, sortBy, sortDirection, value, userId, extra] = decoded as unknown[];
  const length = layout === LAYOUT ? 5 : 6;
  const filters: ListingFilters | undefined =
    layout === LAYOUT_WITH_FILTERS
      ? filtersOf(extra)
      : layout === LAYOUT_WITH_SEARCH
        ? typeof extra === 'string'
          ? { search: extra }
          : undefined
        : {};
  if (
    (layout !== LAYOUT && layout !== LAYOUT_WITH_SEARCH && layout !== LAYOUT_WITH_FILTERS) ||
    decoded.length !== length ||
    typeof sortBy !== 'string' ||
    !(SORTABLE_FIELDS as readonly string[]).includes(sortBy) ||
    (sortDirection !== 'asc' && sortDirection !== 'desc') ||
    typeof value !== 'string' ||
    typeof userId !== 'string' ||
    filters === undefined
  ) {
    throw notACursor();
  }
  return {
    sortBy: sortBy as SortableField,
    sortDirection,
    after: { value, userId },
    ...(filters.search === undefined ? {} : { search: filters.search }),
    ...(filters.groupId === undefined ? {} : { groupId: filters.groupId }),
  };
}
