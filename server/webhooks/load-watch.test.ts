import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUSY_WINDOW_MS, EARLY_YIELD_MS, loadWatch, REQUESTS_PER_TURN_TO_YIELD } from './load-watch.js';

/** The requests each turn of an overloaded loop finds: its 50 clients' requests, waiting in the sockets. */
const OVERLOADED = 30;

/**
 * A loop and its requests as the test makes them: `run(ms, busyShare, requests, perTurn)` passes
 * time in which `requests` come, `perTurn` at each turn of the loop that receives any.
 */
function simulated() {
  const state = { now: 0, active: 0, requests: 0, turns: 0 };
  const watch = loadWatch({
    now: () => state.now,
    loopActiveMs: () => state.active,
    requestsReceived: () => state.requests,
    turnsWithRequests: () => state.turns,
  });
  return {
    watch,
    run: (ms: number, busyShare: number, requests = 0, perTurn = OVERLOADED) => {
      state.now += ms;
      state.active += ms * busyShare;
      state.requests += requests;
      state.turns += Math.ceil(requests / perTurn);
    },
  };
}

describe('the delivery engine yielding the event loop to requests', () => {
  it('yields to requests that keep the loop busy over a window, and stops once they ease', () => {
    const { watch, run } = simulated();
    run(BUSY_WINDOW_MS, 0.97, 400);
    assert.equal(watch.yields(), true);
    run(BUSY_WINDOW_MS, 0.6, 400);
    assert.equal(watch.yields(), false, 'the loop has time to spare, however many requests come');
  });

  it('does not yield to a loop kept busy by requests it answers as they come: a steady 500 writes/s in small commits', () => {
    const { watch, run } = simulated();
    run(BUSY_WINDOW_MS, 0.97, 250, 8);
    assert.equal(watch.yields(), false, 'a burst of a few requests at a turn');
    run(BUSY_WINDOW_MS, 0.97, 20 * REQUESTS_PER_TURN_TO_YIELD, REQUESTS_PER_TURN_TO_YIELD);
    assert.equal(watch.yields(), true, 'as many at each turn as an overloaded loop finds');
  });

  it('judges a steady load on whole windows: a busy tenth of a second is not enough', () => {
    const { watch, run } = simulated();
    run(BUSY_WINDOW_MS, 0.7, 250);
    assert.equal(watch.yields(), false);
    run(EARLY_YIELD_MS, 1, 50);
    assert.equal(watch.yields(), false, 'a collection or a checkpoint under a steady load');
    run(BUSY_WINDOW_MS - EARLY_YIELD_MS, 0.5, 200);
    assert.equal(watch.yields(), false);
  });

  it('never yields to its own deliveries: a backlog drained beside a probe or two keeps its pace', () => {
    const { watch, run } = simulated();
    run(BUSY_WINDOW_MS, 0.99, 2);
    assert.equal(watch.yields(), false);
  });

  it('yields at once to requests that come while its deliveries keep the loop busy, not when the window ends', () => {
    const { watch, run } = simulated();
    run(BUSY_WINDOW_MS, 0.99);
    assert.equal(watch.yields(), false, 'deliveries alone');
    run(EARLY_YIELD_MS / 2, 1, 50);
    assert.equal(watch.yields(), false, 'too little of the window to judge');
    run(EARLY_YIELD_MS / 2, 1, 50);
    assert.equal(watch.yields(), true, 'within a tenth of a second');
  });
});
