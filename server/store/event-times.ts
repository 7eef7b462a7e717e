/**
 * Conditions on an event's time that the index of event ids serves: the trail
 * keeps no index by time (migration 0022), as an event's time is the
 * millisecond its id carries (event-ids.ts). Each condition names the ids an
 * event meeting it can have, and the time itself still decides: events recorded
 * before migration 0022 took their time from the clock apart from their id, a
 * moment later or, where the clock stepped back, earlier.
 */
import type { ExpressionBuilder } from 'kysely';
import type { Database } from './schema.js';
import { idsFrom } from './event-ids.js';

/** How far the time of an event recorded before migration 0022 may be from its id's; ids this far beyond are read. */
export const EARLIER_TIME_SKEW_MS = 60_000;

type Events = ExpressionBuilder<Database, 'audit_events'>;

/** Events at `time` (as stored: UTC, milliseconds) or later. */
export const atOrAfter = (time: string) => (eb: Events) =>
  eb.and([eb('event_id', '>=', idsFrom(Date.parse(time) - EARLIER_TIME_SKEW_MS)), eb('time', '>=', time)]);

/** Events before `time`. */
export const before = (time: string) => (eb: Events) =>
  eb.and([eb('event_id', '<', idsFrom(Date.parse(time) + EARLIER_TIME_SKEW_MS)), eb('time', '<', time)]);
