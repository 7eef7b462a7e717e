/**
 * Following the change feed (docs/events.md) as an async iterator: every event,
 * once, in the order of commit, by long poll. It resumes from its cursor after
 * a failure that passes (no answer, 429, 5xx), waiting a little longer each
 * time, and throws a WorkspaceCallError for one that does not (a key without
 * events_view, a cursor too old: 410 cursor_expired, which asks for a resync).
 *
 *     for await (const event of eachEvent({ types: ['user.*'] })) …
 */
import type { components } from '../generated/workspace/types.js';
import { WorkspaceCallError } from './call-error.js';
import type { CallOptions, Params, WorkspaceClient } from './index.js';
import { pause } from './pause.js';

export type ChangeEvent = components['schemas']['Event'];

export interface EachEventOptions extends CallOptions {
  /** The client to ask; default the one the named exports share. */
  client?: WorkspaceClient;
  /** Called with each cursor once its page has been yielded: keep it to resume from after a restart. */
  onCursor?: (cursor: string) => void;
}

/** The longest pause between attempts after failures that pass. */
const MAX_PAUSE_MS = 30_000;
/** How long each long poll waits for an event: below the client's default timeout of 30 s. */
export const EACH_EVENT_WAIT_SECONDS = 20;

/** Failures that pass: no answer, or the service busy or unavailable. Anything else is the caller's to fix. */
const passes = (code: string, status: number | undefined) =>
  code === 'network_error' || code === 'timeout' || status === undefined || status === 429 || status >= 500;

export async function* eachEventFrom(
  via: WorkspaceClient,
  params: Omit<Params<'getEvents'>, 'wait_seconds'>,
  { onCursor, ...callOptions }: Omit<EachEventOptions, 'client'>,
): AsyncGenerator<ChangeEvent, void, undefined> {
  let after = params.after;
  let failures = 0;
  while (!callOptions.signal?.aborted) {
    const result = await via.getEvents({ ...params, ...(after ? { after } : {}), wait_seconds: EACH_EVENT_WAIT_SECONDS }, callOptions);
    if (result.error) {
      if (callOptions.signal?.aborted) return;
      if (!passes(result.error.code, result.response?.status)) throw new WorkspaceCallError(result.error);
      failures++;
      await pause(Math.min(MAX_PAUSE_MS, 250 * 2 ** failures), callOptions.signal);
      continue;
    }
    failures = 0;
    yield* result.data.events;
    after = result.data.next_cursor;
    onCursor?.(after);
  }
}
