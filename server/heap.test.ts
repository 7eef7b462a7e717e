import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { heapFlagsToSet, YOUNG_GENERATION_FLAG } from './heap.js';

describe("the service's heap settings", () => {
  it('set the old generation growth and no pretenuring, unless the operator gave either on the command line or in NODE_OPTIONS', () => {
    const both = ['--heap-growing-percent=50', '--no-allocation-site-pretenuring'];
    assert.deepEqual(heapFlagsToSet([], undefined), both);
    assert.deepEqual(heapFlagsToSet(['--enable-source-maps'], '--max-old-space-size=512'), both);
    assert.deepEqual(heapFlagsToSet(['--heap-growing-percent=100'], undefined), ['--no-allocation-site-pretenuring']);
    assert.deepEqual(heapFlagsToSet([], '--max-semi-space-size=8 --heap_growing_percent=20'), ['--no-allocation-site-pretenuring']);
    // Either form of the flag is the operator's choice: V8's default kept, or pretenuring off.
    assert.deepEqual(heapFlagsToSet(['--allocation-site-pretenuring'], undefined), ['--heap-growing-percent=50']);
    assert.deepEqual(heapFlagsToSet([], '--no_allocation_site_pretenuring'), ['--heap-growing-percent=50']);
  });

  it('are given to the service by every command the project documents for starting it', () => {
    const read = (file: string) => readFileSync(join(PROJECT_ROOT, file), 'utf8');
    const start = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts.start;
    const commands = [
      start,
      ...read('README.md').match(/^.*node .*server\/dist\/server\/main\.js.*$/gm)!,
      ...read('docs/operations.md').match(/^ExecStart=.*$/gm)!,
    ];
    assert.ok(commands.length >= 3);
    for (const command of commands) assert.ok(command?.includes(`node ${YOUNG_GENERATION_FLAG} server/dist/server/main.js`), command);
  });
});
