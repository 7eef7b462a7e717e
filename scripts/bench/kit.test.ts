/**
 * The bench's figures of a load: each connection's first answer apart from the others, and the
 * rate once every connection is open (kit.ts, Latencies).
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type autocannon from 'autocannon';
import { comparableRate, Latencies, type Measured, roundOrder, untilQuiet } from './kit.js';

/** A load that answers, on each of `connections`, the latencies given in turn, through autocannon's `response` event. */
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

describe('the bench’s figures of a load', () => {
  it('leave out of the latencies each connection’s first answer, which waited for the connection to be accepted', () => {
    // Two connections, the second accepted late: its first answer took 400 ms.
    const latencies = answered([
      [30, 1, 2, 3, 4, 5],
      [400, 6, 7, 8, 9, 10],
    ]);
    assert.equal(latencies.quantile(0.99), 10);
    assert.equal(latencies.quantile(0.5), 5);
    assert.equal(latencies.quantile(0.1), 1);
  });

  it('take quantiles to a tenth of a millisecond, the answer at the rank', () => {
    const answers = Array.from({ length: 100 }, (_, index) => index + 0.04);
    const latencies = answered([[1000, ...answers]]);
    // The 99th of 100 answers, and the 50th.
    assert.equal(latencies.quantile(0.99), 98);
    assert.equal(latencies.quantile(0.5), 49);
    assert.equal(latencies.quantile(1), 99);
  });

  it('count the rate from when the last connection had its first answer', () => {
    const latencies = new Latencies();
    const [early, late] = [{}, {}];
    // The early connection answers every 10 ms from 10 ms on; the late one's first answer comes at 500 ms.
    for (let at = 10; at <= 1_000; at += 10) {
      latencies.answered(early, 5, at);
      if (at === 500) latencies.answered(late, 490, at);
      if (at > 500) latencies.answered(late, 5, at);
    }
    assert.equal(latencies.firstAnswers, 500);
    // After 500 ms: 50 answers on each connection in 500 ms.
    assert.equal(latencies.steadyRate, 200);
  });

  it('give no rate where fewer than half the answers came once every connection was open, and 0 ms with no answer on an open one', () => {
    const latencies = new Latencies();
    const [early, late] = [{}, {}];
    for (let at = 10; at <= 900; at += 10) latencies.answered(early, 5, at);
    latencies.answered(late, 900, 950);
    latencies.answered(early, 5, 1_000);
    assert.equal(latencies.steadyRate, undefined);
    const unanswered = answered([[5], [6]]);
    assert.equal(unanswered.quantile(0.99), 0);
    assert.equal(unanswered.steadyRate, undefined);
  });

  it('compare a round’s rates like with like: once every connection was open only where every contender’s were', () => {
    const round = (overallRps: number, steadyRps?: number): Measured => ({
      name: 'x',
      rps: steadyRps ?? overallRps,
      overallRps,
      steadyRps,
      p50: 1,
      p99: 2,
      firstAnswers: 10,
      errors: 0,
    });
    // Round 0: both contenders' connections opened early; round 1: the second's too late.
    const rounds = [
      [round(900, 1000), round(1800, 2000)],
      [round(450, 500), round(700)],
    ];
    const rate = comparableRate(rounds);
    assert.deepEqual([rate(rounds[0]![0]!, 0), rate(rounds[1]![0]!, 0)], [1000, 500]);
    assert.deepEqual([rate(rounds[0]![1]!, 1), rate(rounds[1]![1]!, 1)], [1800, 700]);
  });
});

describe('the order of a comparison’s rounds', () => {
  it('runs every other contender right beside the first, and reverses the order every other round', () => {
    assert.deepEqual(
      [0, 1, 2, 3].map((round) => roundOrder(2, round)),
      [
        [0, 1],
        [1, 0],
        [0, 1],
        [1, 0],
      ],
    );
    assert.deepEqual(
      [0, 1].map((round) => roundOrder(3, round)),
      [
        [1, 0, 2],
        [2, 0, 1],
      ],
    );
    for (const round of [0, 1]) {
      const order = roundOrder(3, round);
      for (const other of [1, 2]) assert.equal(Math.abs(order.indexOf(other) - order.indexOf(0)), 1);
    }
  });

  it('runs each contender once a round', () => {
    for (const contenders of [1, 2, 3, 4, 5])
      for (const round of [0, 1])
        assert.deepEqual(
          [...roundOrder(contenders, round)].sort((a, b) => a - b),
          Array.from({ length: contenders }, (_, i) => i),
        );
  });
});

describe('the wait between contenders', () => {
  /** A clock that moves only when paused, and the CPU readings given in turn (the last one kept). */
  function readings(sequence: number[][]) {
    let time = 0;
    let read = 0;
    const clock = { now: () => time, pause: async (ms: number) => void (time += ms) };
    const cpuOf = () => sequence[Math.min(read++, sequence.length - 1)]!;
    return { clock, cpuOf, reads: () => read, elapsed: () => time };
  }
  const settings = { pollMs: 25, quietPolls: 3, withinMs: 1000 };

  it('ends once every server’s CPU time stood still over three reads in a row', async () => {
    const { clock, cpuOf, reads, elapsed } = readings([
      [0, 0],
      [10, 0],
      [20, 0],
      [20, 0],
      [20, 10],
      [20, 10],
      [20, 10],
      [20, 10],
    ]);
    await untilQuiet(cpuOf, settings, clock);
    // Still at 20 twice, then the second server moved: counted again from there.
    assert.equal(reads(), 8);
    assert.equal(elapsed(), 175);
  });

  it('ends after its time at the latest, on a server that never stops', async () => {
    let cpu = 0;
    const { clock } = readings([]);
    await untilQuiet(() => [(cpu += 10)], settings, clock);
    assert.equal(clock.now(), 1000);
  });
});
