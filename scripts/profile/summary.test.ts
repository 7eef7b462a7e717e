import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { type CpuProfile, summarise } from './summary.js';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });

describe("a CPU profile's summary", () => {
  it('charges each sample to the layer its function lives in, per request, and lists the costliest functions', () => {
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', '') },
        { id: 2, callFrame: frame('(idle)', '') },
        { id: 3, callFrame: frame('run', `file://${PROJECT_ROOT}/node_modules/better-sqlite3/lib/methods/wrappers.js`) },
        { id: 4, callFrame: frame('validate', `file://${PROJECT_ROOT}/node_modules/express-openapi-validator/dist/index.js`) },
        { id: 5, callFrame: frame('record', `file://${PROJECT_ROOT}/server/dist/server/store/audit-repository.js`) },
      ],
      startTime: 0,
      endTime: 10_000,
      // Samples of 1 ms: 4 idle, 3 SQLite, 2 validation, 1 the trail.
      samples: [2, 2, 2, 2, 3, 3, 3, 4, 4, 5],
      timeDeltas: Array.from({ length: 10 }, () => 1000),
    };
    const lines = summarise(profile, 10);
    assert.match(lines[0]!, /^10 requests; the main thread busy 6 ms of 10 ms \(idle 40 %\)$/);
    const row = (layer: RegExp) => lines.find((line) => layer.test(line));
    assert.match(row(/SQLite/)!, /^\s+300\.0\s+50\.0 %/);
    assert.match(row(/request validation/)!, /^\s+200\.0\s+33\.3 %/);
    assert.match(row(/store and audit trail/)!, /^\s+100\.0\s+16\.7 %/);
    assert.ok(lines.some((line) => /300\.0 .* run node_modules\/better-sqlite3\/lib\/methods\/wrappers\.js:10$/.test(line)));
    assert.ok(!lines.some((line) => line.includes('(idle)')), 'idle time is no layer');
  });

  it('charges native code, which has no source, to the layer of the function that called it', () => {
    const driver = `file://${PROJECT_ROOT}/node_modules/kysely/dist/esm/dialect/sqlite/sqlite-driver.js`;
    const profile: CpuProfile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 4] },
        { id: 2, callFrame: frame('executeQuery', driver), children: [3] },
        // A statement inside better-sqlite3, as the inspector's profiler records it.
        { id: 3, callFrame: frame('', '') },
        { id: 4, callFrame: frame('writeGeneric', 'node:internal/stream_base_commons'), children: [5] },
        { id: 5, callFrame: frame('writeUtf8String', '') },
      ],
      startTime: 0,
      endTime: 5_000,
      samples: [3, 3, 3, 5, 2],
      timeDeltas: Array.from({ length: 5 }, () => 1000),
    };
    const lines = summarise(profile, 1);
    const row = (layer: RegExp) => lines.find((line) => layer.test(line));
    assert.match(row(/SQLite/)!, /^\s+4000\.0\s+80\.0 %/);
    assert.match(row(/^\s+[\d.]+\s+[\d.]+ %\s+Node/)!, /^\s+1000\.0\s+20\.0 %/);
    assert.ok(!lines.some((line) => /V8 and native/.test(line)), 'no time left to V8 and native');
  });
});
