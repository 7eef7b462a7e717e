/**
 * When `npm start`, `npm run cli`, `admin` and `sample` may skip the build
 * (build-freshness.mjs): only when every output is there and no source is
 * newer than the last build.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { whyBuild, writeStamp } from './build-freshness.mjs';

describe('whether the build is current', () => {
  const root = mkdtempSync(join(tmpdir(), 'workspace-freshness-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const built = ['server/dist/server/main.js'];
  const write = (path: string, at: Date) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), '');
    utimesSync(join(root, path), at, at);
  };
  const past = new Date(Date.now() - 60_000);
  const future = new Date(Date.now() + 60_000);

  it('asks for a build until one has run, and not after, until a source changes', () => {
    write('server/app.ts', past);
    write('lib/present.ts', past);
    write('package.json', past);
    assert.equal(whyBuild(root, built), 'server/dist/server/main.js missing');
    write('server/dist/server/main.js', past);
    assert.equal(whyBuild(root, built), 'never built here');
    writeStamp(root);
    assert.equal(whyBuild(root, built), undefined);

    write('server/app.test.ts', future);
    write('server/testing/service.ts', future);
    write('server/dist/server/app.js', future);
    assert.equal(whyBuild(root, built), undefined, 'tests, test support and outputs are not sources of the build');

    write('lib/present.ts', future);
    assert.equal(whyBuild(root, built), `${join(root, 'lib', 'present.ts')} changed`);
    writeStamp(root);
    utimesSync(join(root, 'server', 'dist', '.build-stamp'), future, future);
    write('package.json', new Date(future.getTime() + 1_000));
    assert.equal(whyBuild(root, built), `${join(root, 'package.json')} changed`);
  });
});
