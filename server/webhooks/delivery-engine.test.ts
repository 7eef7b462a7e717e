import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { yieldsToRequests } from './delivery-engine.js';

describe('the delivery engine on a busy event loop', () => {
  it('yields to requests that keep the loop busy', () => {
    assert.equal(yieldsToRequests({ utilization: 0.97, requests: 400 }), true);
  });

  it('keeps its pace while the loop has time to spare, however many requests come', () => {
    assert.equal(yieldsToRequests({ utilization: 0.6, requests: 400 }), false);
  });

  it('keeps its pace when its own deliveries keep the loop busy: a backlog drained beside a probe or two', () => {
    assert.equal(yieldsToRequests({ utilization: 0.99, requests: 0 }), false);
    assert.equal(yieldsToRequests({ utilization: 0.99, requests: 2 }), false);
  });
});
