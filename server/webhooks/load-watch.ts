/**
 * Whether the delivery engine yields the event loop to requests (delivery-engine.ts): while
 * requests keep the loop more than BUSY_UTILIZATION busy over a window of BUSY_WINDOW_MS, the
 * engine takes its turns at a slower pace, so that deliveries take a bounded share of an
 * overloaded instance and catch up once the load eases, instead of taking their full cost out
 * of the writes' throughput.
 *
 * The loop's own measure cannot tell whose work kept it busy, so the requests received are
 * counted beside it: deliveries that keep the loop busy by themselves (a backlog drained with no
 * requests) are never yielded to nothing, which halved a drain's pace (BENCHMARKS.md). And once
 * they have, requests that come back are yielded to as soon as EARLY_YIELD_MS of the window shows
 * them keeping the loop busy, not when the window ends.
 */

const BUSY_UTILIZATION = 0.9;
export const BUSY_WINDOW_MS = 500;
/**
 * How much of a window, at least, shows requests keeping a loop busy (after deliveries alone
 * did) for the engine to yield before the window ends: a pause of a few tens of milliseconds (a
 * collection, a checkpoint) does not fill it. Every other window is judged whole: judged on a
 * tenth of a second, a steady 500 writes/s made the engine yield, and its deliveries wait, half
 * the time on a shared machine (BENCHMARKS.md).
 */
export const EARLY_YIELD_MS = 100;
/** Requests received in a window, at least, for a busy loop to be theirs: more than probes ask. */
const YIELD_TO_REQUESTS = 10;

/** What the watch reads: a clock, the event loop's active time so far (both in ms), and the requests received so far. */
export interface LoadSources {
  now: () => number;
  loopActiveMs: () => number;
  requestsReceived: () => number;
}

interface Load {
  utilization: number;
  requests: number;
}

/** Whether a window's load is requests keeping the loop busy. */
const requestsKeepBusy = ({ utilization, requests }: Load) => utilization > BUSY_UTILIZATION && requests >= YIELD_TO_REQUESTS;

export function loadWatch({ now, loopActiveMs, requestsReceived }: LoadSources): { yields: () => boolean } {
  const mark = () => ({ at: now(), active: loopActiveMs(), requests: requestsReceived() });
  let window = mark();
  let yielding = false;
  /** The last window's loop was busy with the deliveries alone. */
  let deliveriesAlone = false;
  return {
    /** Asked at each of the engine's turns: whether it yields now. */
    yields: () => {
      const elapsed = now() - window.at;
      const load = {
        utilization: elapsed > 0 ? (loopActiveMs() - window.active) / elapsed : 0,
        requests: requestsReceived() - window.requests,
      };
      if (elapsed >= BUSY_WINDOW_MS) {
        yielding = requestsKeepBusy(load);
        deliveriesAlone = !yielding && load.utilization > BUSY_UTILIZATION;
        window = mark();
      } else if (deliveriesAlone && !yielding && elapsed >= EARLY_YIELD_MS) {
        yielding = requestsKeepBusy(load);
      }
      return yielding;
    },
  };
}
