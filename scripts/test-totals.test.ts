import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatTotals, parseSkipLine, parseSummaryLine } from './test-totals.js';

describe('the test totals', () => {
  it("read the counts of the spec reporter's closing summary, colours or not, and nothing else", () => {
    assert.deepEqual(parseSummaryLine('ℹ pass 203'), { pass: 203 });
    assert.deepEqual(parseSummaryLine('\u001b[34mℹ fail 2\u001b[39m'), { fail: 2 });
    assert.deepEqual(parseSummaryLine('ℹ duration_ms 197574.3377'), { duration_ms: 197574.3377 });
    assert.deepEqual(parseSummaryLine('  ✔ ℹ pass 3 in a test name'), {});
    assert.deepEqual(parseSummaryLine('ℹ suites 4'), {});
  });

  it('read what the spec reporter marks skipped, suites included, with the reason', () => {
    assert.equal(
      parseSkipLine('﹣ in a real browser (0.537288ms) # no Chromium (/usr/bin/chromium)'),
      'in a real browser (no Chromium (/usr/bin/chromium))',
    );
    assert.equal(parseSkipLine('\u001b[90m  ﹣ w (0.09ms)\u001b[39m'), 'w');
    assert.equal(parseSkipLine('  ✔ z (0.32ms)'), undefined);
  });

  it('count a skipped suite as skipped, and name what was skipped in the closing line', () => {
    const text = formatTotals([
      {
        node: '24.21.0',
        tier: 'system',
        store: 'sqlite',
        pass: 30,
        fail: 0,
        skipped: 0,
        skipped_names: ['in a real browser (no Chromium)'],
      },
    ]);
    assert.deepEqual(text.trimEnd().split('\n'), [
      'Node 24.21.0: 30 passed, 0 failed, 1 skipped',
      '  system on SQLite            30 passed, 0 failed, 1 skipped',
      'tests: 30 passed, 0 failed, 1 skipped: in a real browser (no Chromium), system on SQLite, Node 24.21.0',
    ]);
  });

  it('print each Node version with its runs in tier order, and the grand total last', () => {
    const text = formatTotals([
      { node: '24.21.0', tier: 'integration', store: 'postgres', pass: 197, fail: 0 },
      { node: '24.21.0', tier: 'integration', store: 'sqlite', pass: 203, fail: 1, skipped: 2 },
      { node: '24.21.0', tier: 'unit', store: null, pass: 45, fail: 0, duration_ms: 12_400 },
      { node: '20.20.2', tier: 'unit', store: null, pass: 45, fail: 0 },
    ]);
    assert.deepEqual(text.trimEnd().split('\n'), [
      'Node 20.20.2: 45 passed, 0 failed, 0 skipped',
      '  unit                        45 passed, 0 failed, 0 skipped',
      'Node 24.21.0: 445 passed, 1 failed, 2 skipped',
      '  unit                        45 passed, 0 failed, 0 skipped, 12 s',
      '  integration on SQLite       203 passed, 1 failed, 2 skipped',
      '  integration on PostgreSQL   197 passed, 0 failed, 0 skipped',
      'tests: 490 passed, 1 failed, 2 skipped',
    ]);
  });
});
