/**
 * The bench's latencies: each connection's first answer apart from the others (kit.ts, Latencies).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type autocannon from 'autocannon';
import { Latencies } from './kit.js';

/** A load that answers, on each of `connections`, the latencies given in turn. */
function answered(connections: number[][]): Latencies {
  const latencies = new Latencies();
  const load = new EventEmitter();
  latencies.of(load as unknown as autocannon.Instance);
  const clients = connections.map(() => ({}));
  const longest = Math.max(...connections.map((answers) => answers.length));
  for (let turn = 0; turn < longest; turn++)
    connections.forEach((answers, index) => {
      if (turn < answers.length) load.emit('response', clients[index], 200, 10, answers[turn]);
    });
  return latencies;
}

describe('the bench’s latencies', () => {
  it('leave out each connection’s first answer, which waited for the connection to be accepted', () => {
    // Two connections, the second accepted late: its first answer took 400 ms.
    const latencies = answered([
      [30, 1, 2, 3, 4, 5],
      [400, 6, 7, 8, 9, 10],
    ]);
    assert.equal(latencies.quantile(0.99), 10);
    assert.equal(latencies.quantile(0.5), 5);
    assert.equal(latencies.quantile(0.1), 1);
  });

  it('quantiles to a tenth of a millisecond, the nearest answer at or above the rank', () => {
    const answers = Array.from({ length: 100 }, (_, index) => index + 0.04);
    const latencies = answered([[1000, ...answers]]);
    // The 99th of 100 answers, and the 50th.
    assert.equal(latencies.quantile(0.99), 98);
    assert.equal(latencies.quantile(0.5), 49);
    assert.equal(latencies.quantile(1), 99);
  });

  it('say when the last connection had its first answer, and 0 for a load with no answer on an open connection', () => {
    const latencies = answered([[5], [6]]);
    assert.equal(latencies.quantile(0.99), 0);
    assert.ok(latencies.firstAnswers >= 0 && latencies.firstAnswers < 1_000);
  });
});
