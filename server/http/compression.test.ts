/**
 * compression as installed: patched (patches/compression+1.8.2.patch) so that the
 * functions it sets on every response are named before they are set. V8 allocates a
 * function literal written straight into a property in its old generation, and the
 * response it closes over then outlives the young generation's collections
 * (BENCHMARKS.md, "What outlives a scavenge"; the same rule holds our own code in
 * eslint.config.js). The patch changes no behaviour: compression.integration.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

const installed = readFileSync(createRequire(import.meta.url).resolve('compression'), 'utf8');

describe('compression as installed', () => {
  it('writes no function literal straight into a property of the response', () => {
    const written = installed.match(/\bres\.\w+\s*=\s*function\b/g) ?? [];
    assert.deepEqual(written, [], 'patches/compression+1.8.2.patch is not applied');
  });

  it('still sets its four functions on the response, each named first', () => {
    for (const name of ['flush', 'write', 'end', 'on']) {
      assert.match(installed, new RegExp(`var ${name} = function ${name} \\(`), `${name} is named first`);
      assert.match(installed, new RegExp(`res\\.${name} = ${name}\\n`), `${name} is set on the response`);
    }
  });
});
