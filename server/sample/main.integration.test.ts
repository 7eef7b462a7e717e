/** `npm run sample`, the sample data server, as a process. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SAMPLE_COMMAND } from '../../lib/testing/commands.js';
import { startServiceProcess } from '../../lib/testing/service-process.js';
import { loadSampleConfig } from '../config.js';

describe('npm run sample', () => {
  it('serves the sample data on the port asked for and stops cleanly on SIGTERM', async () => {
    const sample = await startServiceProcess({}, SAMPLE_COMMAND);
    assert.match(sample.stdout(), /sample data server listening/);
    const response = await fetch(`${sample.url}/api/data`, { headers: { Origin: 'http://example.test' } });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('access-control-allow-origin'), 'http://example.test');
    assert.ok(((await response.json()) as unknown[]).length > 0);
    assert.equal(await sample.stop('SIGTERM'), 0);
  });

  it('listens on 127.0.0.1:5001 unless told otherwise', () => {
    const defaults = loadSampleConfig({});
    assert.deepEqual({ host: defaults.host, port: defaults.port }, { host: '127.0.0.1', port: 5001 });
    assert.equal(loadSampleConfig({ PORT: '6000', HOST: '0.0.0.0' }).port, 6000);
  });
});
