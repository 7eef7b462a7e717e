/**
 * get_users with no page asked for: every user, as Kasm's get_users answers.
 *
 * Read from the database a batch at a time in the order asked for (keyset on
 * the sort index, as cursors page), and written out as each batch arrives
 * (StreamedJson), so memory does not grow with the directory. The size is
 * checked before the first byte: past GET_USERS_MAX the caller is told to
 * page (400 listing_too_large), never given a shortened list. Users added
 * meanwhile past that limit break the answer off rather than end it early.
 *
 * A listing of 100,000 users is seconds of work on the one thread that also
 * answers every other request. So listings take turns (LISTINGS_AT_ONCE run,
 * the rest wait for a turn before their first read), and each yields to the
 * event loop after every batch: other requests wait at most one batch.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import pLimit from 'p-limit';
import { ServiceError } from '../service-errors.js';
import { StreamedJson } from '../http/streamed-json.js';
import type { SortableField } from '../../lib/contract/operations.js';
import { userAsSeen, type Sight, type UserDirectory, type UserListing, type UserQuery } from '../directory/index.js';
import { present } from '../../lib/present.js';

export const DEFAULT_GET_USERS_MAX = 100_000;
/** Users read per query: enough that the round trips hardly count, few enough that a batch holds the thread only milliseconds. */
export const LISTING_BATCH = 150;
/** Listings that read at once; more wait their turn, so that they cannot crowd out other requests. */
export const LISTINGS_AT_ONCE = 2;

/** Turns for listings: `take()` resolves, once a turn is free, with the function that gives it back. */
export interface ListingTurns {
  take(): Promise<() => void>;
}

export function listingTurns(atOnce = LISTINGS_AT_ONCE): ListingTurns {
  const limit = pLimit(atOnce);
  return { take: () => new Promise((granted) => void limit(() => new Promise<void>((giveBack) => granted(giveBack)))) };
}

export interface EveryUserQuery {
  sortBy: SortableField;
  sortDirection: 'asc' | 'desc';
  max: number;
  /** What the caller's key may see of each user (directory/sight.ts). */
  sight: Sight;
}

const tooLarge = (total: number, max: number) =>
  new ServiceError(
    400,
    'listing_too_large',
    `The directory holds ${total} users, more than the ${max} one answer may list; ask for pages with page_size and follow next_cursor`,
    [{ path: '/body', message: `lists more than ${max} users; send page_size (and cursor) to page` }],
  );

export async function everyUser(
  users: Pick<UserDirectory, 'list'>,
  turns: ListingTurns,
  { sortBy, sortDirection, max, sight }: EveryUserQuery,
): Promise<StreamedJson> {
  const batch = (start: UserQuery['start'], countTotal: boolean) =>
    users.list({ pageSize: LISTING_BATCH, sortBy, sortDirection, start, countTotal });
  const giveBack = await turns.take();
  let first: UserListing;
  try {
    first = await batch({ skip: 0 }, true);
    if (first.total > max) throw tooLarge(first.total, max);
  } catch (error) {
    giveBack();
    throw error;
  }

  // The turn is given back when the listing ends, fails, or its client leaves (the writer then returns early).
  async function* chunks(): AsyncGenerator<string> {
    try {
      yield '{"users":[';
      let listed = 0;
      for (let listing = first; ;) {
        if (listing.users.length > 0)
          yield `${listed > 0 ? ',' : ''}${listing.users.map((user) => JSON.stringify(userAsSeen(user, sight))).join(',')}`;
        listed += listing.users.length;
        if (listed > max) throw new Error(`more than GET_USERS_MAX (${max}) users while listing them: users were added meanwhile`);
        if (!listing.more) break;
        await nextTurn(); // Let waiting requests in before the next batch.
        const last = present(listing.users.at(-1), 'the last user of a batch');
        listing = await batch({ after: { value: last[sortBy], userId: last.user_id } }, false);
      }
      yield `],"total":${listed},"next_cursor":null}`;
    } finally {
      giveBack();
    }
  }
  return new StreamedJson(chunks());
}
