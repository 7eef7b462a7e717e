import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../lib/project-root.js';
import { bytesBySite, type HeapProfileNode, summariseSurvivors } from './survivors.js';

const node = (functionName: string, url: string, selfSize: number, children: HeapProfileNode[] = []): HeapProfileNode => ({
  callFrame: { functionName, url, lineNumber: 9 },
  selfSize,
  children,
});

const headers = `file://${PROJECT_ROOT}/node_modules/express/lib/response.js`;
const query = `file://${PROJECT_ROOT}/node_modules/kysely/dist/esm/query-executor/query-executor-base.js`;

describe("a survivors' profile", () => {
  it('adds the bytes of one function wherever it was called from', () => {
    const profile = { head: node('(root)', '', 0, [node('header', headers, 100), node('json', '', 0, [node('header', headers, 50)])]) };
    assert.equal(bytesBySite(profile).get('header node_modules/express/lib/response.js:10'), 150);
  });

  it('ranks the sites by what survived a request, beside what they allocated a request', () => {
    // 10 requests in each run: the headers made 2,000 bytes and kept 1,800; the query made 8,000 and kept 100.
    const everything = {
      requests: 10,
      profile: { head: node('(root)', '', 0, [node('header', headers, 2_000), node('executeQuery', query, 8_000)]) },
    };
    const survivors = {
      requests: 10,
      profile: { head: node('(root)', '', 0, [node('executeQuery', query, 100), node('header', headers, 1_800)]) },
    };
    const lines = summariseSurvivors(everything, survivors);
    assert.equal(lines[0], '1.0 KB allocated a request (10 requests sampled); 0.19 KB of it outlived the scavenges (10 requests sampled)');
    const rows = lines.slice(3);
    assert.match(rows[0]!, /^\s+200\s+180\s+90 %\s+header node_modules\/express\/lib\/response\.js:10$/);
    assert.match(rows[1]!, /^\s+800\s+10\s+1 %\s+executeQuery node_modules\/kysely\/.*:10$/);
  });

  it('names no share for a site that only the survivors sampled', () => {
    const everything = { requests: 1, profile: { head: node('(root)', '', 0) } };
    const survivors = { requests: 1, profile: { head: node('(root)', '', 0, [node('header', headers, 64)]) } };
    assert.match(summariseSurvivors(everything, survivors).at(-1)!, /^\s+0\s+64\s+–\s+header /);
  });
});
