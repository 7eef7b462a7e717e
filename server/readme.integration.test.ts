/**
 * The README's tour, run as written: its curl commands' bodies sent to the
 * service (its shell variables filled in), and its sample answers compared
 * with the service's real ones, so that what a newcomer reads first is what
 * the service says.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { projectFile } from '../lib/project-root.js';
import { present } from '../lib/present.js';
import { startTestService, type TestService } from './testing/service.js';

const README = readFileSync(projectFile('README.md'), 'utf8');

interface Curl {
  operation: string;
  /** The -d body as the shell would send it, `'"$NAME"'` filled from `variables`. */
  body(variables: Record<string, string>): unknown;
  /** The `# 400 {…}` line after it, when there is one. */
  answer?: { status: number; text: string };
}

/** Every curl of the README's tour that posts to /api/public/<operation>, in order. */
function curls(): Curl[] {
  const found: Curl[] = [];
  const pattern = /curl -s http:\/\/127\.0\.0\.1:8080\/api\/public\/(\w+)[^]*?-d '([^]*?)'\n(?:# (\d{3}) (.*)\n)?/g;
  for (const [, operation, quoted, status, text] of README.matchAll(pattern)) {
    found.push({
      operation: operation!,
      body: (variables) => JSON.parse(quoted!.replace(/'"\$(\w+)"'/g, (_, name: string) => present(variables[name], name))),
      ...(status ? { answer: { status: Number(status), text: text! } } : {}),
    });
  }
  return found;
}

describe("the README's tour", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers its curl commands as the README shows, field for field', async () => {
    const tour = curls();
    assert.deepEqual(
      tour.map((curl) => curl.operation),
      ['create_user', 'update_user', 'update_user', 'update_user', 'update_user'],
    );
    const variables: Record<string, string> = { API_KEY: service.admin.api_key, API_KEY_SECRET: service.admin.api_key_secret };
    const post = (curl: Curl) => service.call(curl.operation as 'update_user', curl.body(variables) as never);

    const created = await post(tour[0]!);
    assert.equal(created.status, 200, created.text);
    variables.USER_ID = created.body.user.user_id;
    const updated = await post(tour[1]!);
    assert.equal(updated.status, 200, updated.text);

    const shown = JSON.parse(present(/```json\n([^]*?)```/.exec(README)?.[1], "the README's sample answer"));
    assert.deepEqual(Object.keys(shown.user), Object.keys(updated.body.user), 'the same fields, in the same order');
    const made = /^(user_id|group_id|created|password_set_date)$/;
    for (const [field, value] of Object.entries(shown.user)) {
      if (made.test(field)) continue;
      if (field === 'groups') {
        assert.deepEqual(
          (value as { name: string }[]).map((group) => group.name),
          (updated.body.user.groups as { name: string }[]).map((group) => group.name),
        );
        continue;
      }
      assert.deepEqual(updated.body.user[field], value, field);
    }

    for (const curl of tour.slice(2)) {
      const answer = await post(curl);
      const expected = present(curl.answer, 'the answer the README shows');
      assert.equal(answer.status, expected.status, expected.text);
      const { error_message, code } = JSON.parse(expected.text.replace(/,…}$/, '}')) as { error_message: string; code: string };
      assert.deepEqual({ error_message: answer.body.error_message, code: answer.body.code }, { error_message, code });
    }
  });
});
