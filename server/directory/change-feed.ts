/**
 * The change feed (docs/events.md): every committed change, in the order of
 * commit, from a cursor. The store hands out each event's place in that order
 * (audit-repository.ts says how it stays in commit order with several
 * instances); here are the feed's own rules: what a cursor holds, how far back
 * the feed reaches, filters by type, and waiting for the next event.
 *
 * A cursor holds a place in the order and the time up to which its follower
 * has read everything: the time of the last event of a full page, or the time
 * of reading when the page took everything there was. A cursor whose time is
 * older than the feed reaches (EVENT_RETENTION_DAYS) is refused, since the
 * events after it may be gone; a follower idle for long keeps a fresh cursor as
 * long as it keeps asking. So is a cursor that names events the database no
 * longer holds: read before `admin restore` put a backup in place, or past the
 * last event the database has had (store/event-order.ts).
 */
import type { ChangeEvent, ChangeEventType, EventTypeFilter, FeedPage } from '../store/records.js';

export type { EventTypeFilter };
import type { Store } from '../store/repositories.js';
import { EVENT_TYPES } from '../store/event-types.js';
import { refuse } from './errors.js';

export interface FeedRequest {
  /** A `next_cursor` the feed handed out; from the oldest event it reaches when absent. */
  after?: string;
  types?: readonly EventTypeFilter[];
  /** Only events naming this user, group or key. */
  resourceId?: string;
  /** At most this many events (default 100). */
  limit?: number;
  /** How long to wait for an event when none follows the cursor (default 0). */
  waitSeconds?: number;
}

export interface FeedAnswer {
  events: ChangeEvent[];
  /** Always present: where the follower goes on from. */
  nextCursor: string;
}

export interface ChangeFeedOptions {
  /** How far back the feed reaches (EVENT_RETENTION_DAYS). */
  retentionDays: number;
  /** The clock, in milliseconds since the epoch. */
  now?: () => number;
  /** How often a waiting follower's instance looks for a new event (the head of the log). */
  pollMs?: number;
}

export const DEFAULT_EVENT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;

/** What a cursor holds (exported for the tests that make and read cursors as a follower's would be). */
export interface Cursor {
  position: number;
  /** Up to when the follower has read everything, in milliseconds since the epoch. */
  readTo: number;
}

export const encodeCursor = ({ position, readTo }: Cursor) => Buffer.from(`${position}.${readTo}`).toString('base64url');

export function decodeCursor(cursor: string): Cursor {
  const match = /^(\d{1,15})\.(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  if (!match) return refuse({ kind: 'invalid_cursor', reason: 'is not a cursor this service handed out' });
  return { position: Number(match[1]), readTo: Number(match[2]) };
}

/** The types a filter names: a type, or every type of a resource for `user.*`. */
export function typesOf(filters: readonly EventTypeFilter[]): ChangeEventType[] {
  return [
    ...new Set(
      filters.flatMap((filter) =>
        filter.endsWith('.*') ? EVENT_TYPES.filter((type) => type.startsWith(filter.slice(0, -1))) : [filter as ChangeEventType],
      ),
    ),
  ];
}

export function changeFeed(store: Store, { retentionDays, now = Date.now, pollMs = 50 }: ChangeFeedOptions) {
  const head = headWatcher(store, pollMs);

  const readPage = async (request: FeedRequest, after: Cursor | undefined): Promise<{ page: FeedPage; readAt: number }> => {
    const readAt = now();
    const page = await store.audit.feed({
      ...(after ? { after: after.position } : {}),
      since: new Date(readAt - retentionDays * DAY_MS).toISOString(),
      ...(request.types ? { types: typesOf(request.types) } : {}),
      ...(request.resourceId === undefined ? {} : { resourceId: request.resourceId }),
      limit: request.limit ?? 100,
    });
    return { page, readAt };
  };

  return {
    async follow(request: FeedRequest): Promise<FeedAnswer> {
      const after = request.after === undefined ? undefined : decodeCursor(request.after);
      if (after && after.readTo < now() - retentionDays * DAY_MS) {
        refuse({ kind: 'cursor_expired', retentionDays });
      }
      if (after) {
        // A cursor read before a restore, or past every event this database has had (a backup
        // taken before events its follower saw): what it describes is no more (store/event-order.ts).
        const order = await store.audit.order();
        if (after.position > order.reached || (order.restoredAt !== undefined && after.readTo < Date.parse(order.restoredAt)))
          refuse({ kind: 'cursor_expired', restored: true });
      }
      const limit = request.limit ?? 100;
      const deadline = now() + (request.waitSeconds ?? 0) * 1000;
      let { page, readAt } = await readPage(request, after);
      // Nothing yet: wait for the head to move (an event committed, here or on another instance), then read again.
      while (page.events.length === 0 && now() < deadline) {
        await head.movedPast(page.head, deadline - now());
        ({ page, readAt } = await readPage(request, after));
      }
      const last = page.events.at(-1);
      const full = page.events.length === limit && last !== undefined;
      const nextCursor = full
        ? encodeCursor({ position: last.position, readTo: Date.parse(last.event.timestamp) })
        : // Everything up to the head was read, as of the time of reading.
          encodeCursor({ position: Math.max(page.head, after?.position ?? 0), readTo: readAt });
      return { events: page.events.map((placed) => placed.event), nextCursor };
    },
    /** Stops looking for new events (the service is stopping). */
    close: () => head.close(),
  };
}

export type ChangeFeed = ReturnType<typeof changeFeed>;

/**
 * One look at the head of the log per `pollMs` for every follower waiting on this instance,
 * and only while one waits: a commit here or on another instance wakes them all within it.
 */
function headWatcher(store: Store, pollMs: number) {
  const waiting = new Set<{ past: number; wake: () => void }>();
  let timer: NodeJS.Timeout | undefined;

  const look = async () => {
    timer = undefined;
    try {
      const head = await store.audit.head();
      for (const waiter of waiting) if (head > waiter.past) waiter.wake();
    } catch {
      // A database fault: the waiters read again at their deadline, and meet it there.
    }
    if (waiting.size > 0) timer = setTimeout(() => void look(), pollMs);
  };

  return {
    /** Resolves once the head is past `position`, or after `withinMs`. */
    movedPast(position: number, withinMs: number): Promise<void> {
      return new Promise((resolve) => {
        const waiter = {
          past: position,
          wake: () => {
            clearTimeout(deadline);
            waiting.delete(waiter);
            resolve();
          },
        };
        const deadline = setTimeout(waiter.wake, Math.max(0, withinMs));
        waiting.add(waiter);
        timer ??= setTimeout(() => void look(), pollMs);
      });
    },
    close() {
      clearTimeout(timer);
      for (const waiter of waiting) waiter.wake();
    },
  };
}
