import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUSY_WINDOW_MS, EARLY_YIELD_MS, loadWatch } from './load-watch.js';

/** A loop and its requests as the test makes them: `run(ms, busyShare, requests)` passes time. */
function simulated() {
  const state = { now: 0, active: 0, requests: 0 };
  const watch = loadWatch({ now: () => state.now, loopActiveMs: () => state.active, requestsReceived: () => state.requests });
  return {
    watch,
    run: (ms: number, busyShare: number, requests = 0) => {
      state.now += ms;
      state.active += ms * busyShare;
      state.requests += requests;
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
