import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderErrorsPage } from '../../scripts/build-errors-page.mjs';
import { projectFile } from '../../lib/project-root.js';
import { WORKSPACE_DOCUMENT } from '../../lib/contract/operations.js';
import { PROBLEM_TYPES, problemMembers } from './problem-details.js';

const ERRORS_PAGE = readFileSync(projectFile('docs', 'errors.md'), 'utf8');
const CODES = (WORKSPACE_DOCUMENT as any).components.schemas.Error.properties.code.enum as string[];

describe('the error reference (docs/errors.md)', () => {
  it('lists every code of the contract once, under a heading of its own, with the status and title the answers carry', () => {
    const sections = [...ERRORS_PAGE.matchAll(/^### (\S+)\n\n\*\*(\d{3})\*\* · (.+)$/gm)].map(([, code, status, title]) => ({
      code,
      status,
      title,
    }));
    assert.deepEqual(
      sections.map((section) => section.code).sort(),
      [...CODES].sort(),
      'a section per code, and none for a code the contract does not name',
    );
    for (const { code, status, title } of sections) {
      assert.deepEqual({ status: Number(status), title }, PROBLEM_TYPES[code as keyof typeof PROBLEM_TYPES], code);
    }
  });

  it("renders each code's section with the code as its id, so that an error's type opens it", () => {
    const page = renderErrorsPage(ERRORS_PAGE);
    for (const code of CODES) {
      const type = problemMembers(code as keyof typeof PROBLEM_TYPES, 'x', { status: 400, origin: 'https://host' }).type;
      const anchor = new URL(type).hash.slice(1);
      assert.equal(anchor, code);
      assert.match(page, new RegExp(`<h3 id="${anchor}">`), code);
    }
    assert.doesNotMatch(page, /<script/i, 'a page that runs nothing');
  });

  it('names the occurrence by the request id, as a URN when the service made the id', () => {
    const id = '0b9e6f0e-8f5a-4a5e-9d0c-3f1f8a2d7c11';
    assert.deepEqual(problemMembers('user_not_found', 'User not found', { status: 404, origin: 'https://host', requestId: id }), {
      type: 'https://host/docs/errors#user_not_found',
      title: 'User not found',
      status: 404,
      detail: 'User not found',
      instance: `urn:uuid:${id}`,
      request_id: id,
    });
    assert.equal(problemMembers('not_found', 'x', { status: 404, requestId: 'lb-1234.abc' }).instance, undefined);
  });
});
