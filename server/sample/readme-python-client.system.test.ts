/**
 * The README's Python client of the sample data server, run as it is printed
 * there, with python3 and nothing but its standard library, against the
 * sample server: it prints every record, then the status of an unknown path.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { projectFile } from '../../lib/project-root.js';
import { assertPresent, needs, TOOLS } from '../../lib/testing/external-tools.js';
import { startSampleServer, type TestSampleServer } from '../testing/sample-server.js';
import { buildRecords } from './records.js';

const python3 = TOOLS.python3();
const HEADING = '## The sample data server from Python';

/** The first python block after the heading, as the README prints it. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(projectFile('README.md'), 'utf8');
  const section = readme.slice(readme.indexOf(HEADING));
  const block = /```python\n([\s\S]*?)```/.exec(section);
  assert.ok(readme.includes(HEADING) && block, `README.md has no python block under "${HEADING}"`);
  return block[1]!;
}

describe("the README's Python client of the sample server", needs(python3, 'the README Python example'), () => {
  let sample: TestSampleServer;
  let baseUrl: string;
  before(async () => {
    assertPresent(python3);
    sample = await startSampleServer();
    baseUrl = sample.baseUrl;
  });
  after(() => sample.close());

  it('prints every record of /api/data, then the status of an unknown path, with the standard library only', async () => {
    // -I: isolated, so no site-packages (nor PYTHONPATH) could be what makes it work.
    const { stdout } = await promisify(execFile)('python3', ['-I', '-c', await readmeExample()], {
      env: { ...process.env, SAMPLE_URL: baseUrl },
    });
    const expected = buildRecords().map(
      (record) => `${record.FirstName} ${record.LastName} ${record.Email} ${record.Owns_Cars.join(', ')}`,
    );
    assert.deepEqual(stdout.trimEnd().split('\n'), [...expected, 'status 404']);
  });
});
