/** getAuditEvents: the audit trail, newest first, a page at a time by cursor. */
import { ServiceError } from '../service-errors.js';
import { invalidCursor } from './user-cursor.js';
import type { Handlers, Services } from './types.js';
import { present } from '../../lib/present.js';

/** Events per page when the request names no page_size. */
export const AUDIT_PAGE_SIZE = 100;

/** A cursor is the id of the last event of the page before, base64url-encoded. */
const EVENT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function auditCursor(eventId: string): string {
  return Buffer.from(eventId, 'utf8').toString('base64url');
}

function eventAfter(cursor: string): string {
  const eventId = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!EVENT_ID.test(eventId)) throw invalidCursor('/body/cursor', 'is not a cursor this service handed out; pass a next_cursor unchanged');
  return eventId;
}

/**
 * A time as stored (UTC, milliseconds), so that text comparison is time
 * comparison. The contract has refused what is not a calendar date and time;
 * what is left that JavaScript cannot place is a leap second (`23:59:60Z`).
 */
function asStored(time: string, field: 'since' | 'until'): string {
  const parsed = new Date(time);
  if (Number.isNaN(parsed.getTime())) {
    const message = 'is a leap second (:60), which this service does not record events at; use :59';
    throw new ServiceError(400, 'invalid_request', `Invalid request: /body/${field}: ${message}`, [{ path: `/body/${field}`, message }]);
  }
  return parsed.toISOString();
}

export function auditHandlers({ directory }: Services): Pick<Handlers, 'getAuditEvents'> {
  return {
    async getAuditEvents({ target_user_id, actor, operation, since, until, page_size, cursor }) {
      const { events, more } = await directory.auditEvents({
        pageSize: page_size ?? AUDIT_PAGE_SIZE,
        ...(cursor === undefined ? {} : { after: eventAfter(cursor) }),
        ...(target_user_id === undefined ? {} : { targetUserId: target_user_id }),
        ...(actor === undefined ? {} : { actor }),
        ...(operation === undefined ? {} : { operation }),
        ...(since === undefined ? {} : { since: asStored(since, 'since') }),
        ...(until === undefined ? {} : { until: asStored(until, 'until') }),
      });
      return { events, next_cursor: more ? auditCursor(present(events.at(-1), 'the last event of a page').event_id) : null };
    },
  };
}
