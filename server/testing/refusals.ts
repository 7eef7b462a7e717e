/** An assertion on the directory's refusals: which one, and what it carries. */
import assert from 'node:assert/strict';
import { DirectoryError, type Refusal } from '../directory/index.js';

export async function assertRefuses(write: Promise<unknown>, expected: Partial<Refusal> & Pick<Refusal, 'kind'>, message?: string) {
  await assert.rejects(write, (error: unknown) => {
    assert.ok(error instanceof DirectoryError, `a DirectoryError, not ${String(error)}`);
    assert.deepEqual({ ...error.refusal, ...expected }, error.refusal, message ?? error.message);
    return true;
  });
}
