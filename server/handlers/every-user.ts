/**
 * get_users with no page asked for: every user, as Kasm's get_users answers.
 *
 * Read from the database a batch at a time in the order asked for (keyset on
 * the sort index, as cursors page), and written out as each batch arrives
 * (StreamedJson), so memory does not grow with the directory. The size is
 * checked before the first byte: past GET_USERS_MAX the caller is told to
 * page (400 listing_too_large), never given a shortened list. Users added
 * meanwhile past that limit break the answer off rather than end it early.
 */
import { ApiError } from '../errors.js';
import { StreamedJson } from '../http/streamed-json.js';
import type { SortableField, Store, UserListing, UserQuery } from '../store/store.js';

export const DEFAULT_GET_USERS_MAX = 100_000;
/** Users read per query: large enough that the round trips do not count, small enough to hold lightly. */
export const LISTING_BATCH = 1_000;

export interface EveryUserQuery {
  sortBy: SortableField;
  sortDirection: 'asc' | 'desc';
  max: number;
}

const tooLarge = (total: number, max: number) =>
  new ApiError(
    400,
    'listing_too_large',
    `The directory holds ${total} users, more than the ${max} one answer may list; ask for pages with page_size and follow next_cursor`,
    [{ path: '/body', message: `lists more than ${max} users; send page_size (and cursor) to page` }],
  );

export async function everyUser(store: Store, { sortBy, sortDirection, max }: EveryUserQuery): Promise<StreamedJson> {
  const batch = (start: UserQuery['start'], countTotal: boolean) => store.listUsers({ pageSize: LISTING_BATCH, sortBy, sortDirection, start, countTotal });
  const first = await batch({ skip: 0 }, true);
  if (first.total > max) throw tooLarge(first.total, max);

  async function* chunks(): AsyncGenerator<string> {
    yield '{"users":[';
    let listed = 0;
    for (let listing: UserListing = first; ; ) {
      if (listing.users.length > 0) yield `${listed > 0 ? ',' : ''}${listing.users.map((user) => JSON.stringify(user)).join(',')}`;
      listed += listing.users.length;
      if (listed > max) throw new Error(`more than GET_USERS_MAX (${max}) users while listing them: users were added meanwhile`);
      if (!listing.more) break;
      const last = listing.users.at(-1)!;
      listing = await batch({ after: { value: String(last[sortBy]), userId: last.user_id } }, false);
    }
    yield `],"total":${listed},"next_cursor":null}`;
  }
  return new StreamedJson(chunks());
}
