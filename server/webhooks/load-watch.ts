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
 *
 * Nor can it tell a loop that keeps up from one that is overloaded: a commit's fsync holds the
 * loop, and at a steady 500 writes/s, in small commit groups, the loop was 96–98 % busy while
 * every request was answered within milliseconds; yielding there held each delivery back 200 ms
 * for nothing (BENCHMARKS.md). What overload does that a busy loop keeping up does not is make
 * requests wait, in the sockets, for the loop's next turn: each turn then finds many. So the
 * requests of a window, per turn of the loop that received any, must be at least
 * REQUESTS_PER_TURN_TO_YIELD too.
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
/**
 * Requests a turn of the loop finds waiting, on average over a window, at least, for its busy loop
 * to be overloaded: more than a loop keeping up finds (500 writes/s from the bench's 10
 * connections, which come in bursts: 4–9 a turn), fewer than an overloaded one (50 connections:
 * 27–45 a turn). Bench scenarios (o) and (p), BENCHMARKS.md.
 */
export const REQUESTS_PER_TURN_TO_YIELD = 16;

/**
 * What the watch reads: a clock, the event loop's active time so far (both in ms), the requests
 * received so far, and the turns of the loop that received them.
 */
export interface LoadSources {
  now: () => number;
  loopActiveMs: () => number;
  requestsReceived: () => number;
  turnsWithRequests: () => number;
}

interface Load {
  utilization: number;
  requests: number;
  perTurn: number;
}

/** Whether a window's load is requests keeping the loop busy, and waiting for it. */
const requestsKeepBusy = ({ utilization, requests, perTurn }: Load) =>
  utilization > BUSY_UTILIZATION && requests >= YIELD_TO_REQUESTS && perTurn >= REQUESTS_PER_TURN_TO_YIELD;

export function loadWatch({ now, loopActiveMs, requestsReceived, turnsWithRequests }: LoadSources): { yields: () => boolean } {
  const mark = () => ({ at: now(), active: loopActiveMs(), requests: requestsReceived(), turns: turnsWithRequests() });
  let window = mark();
  let yielding = false;
  /** The last window's loop was busy with the deliveries alone. */
  let deliveriesAlone = false;
  return {
    /** Asked at each of the engine's turns: whether it yields now. */
    yields: () => {
      const elapsed = now() - window.at;
      const requests = requestsReceived() - window.requests;
      const turns = turnsWithRequests() - window.turns;
      const load = {
        utilization: elapsed > 0 ? (loopActiveMs() - window.active) / elapsed : 0,
        requests,
        perTurn: turns > 0 ? requests / turns : 0,
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
