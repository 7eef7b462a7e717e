/**
 * The contract's text as a reader of /docs, the SDKs and the mock gets it:
 * nothing cut off by YAML, nothing pointing at a document they cannot open,
 * and the examples of the password policy's answer in the policy's own words.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { isScalar, parseDocument, visit } from 'yaml';
import { passwordPolicyViolation } from '../../server/password/policy.js';
import { PROJECT_ROOT } from '../project-root.js';
import { readContract } from './document.js';
import { WORKSPACE_DOCUMENT } from './operations.js';

const CONTRACT_FILES = readdirSync(join(PROJECT_ROOT, 'openapi'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.yaml'))
  .map((file) => join(PROJECT_ROOT, 'openapi', file));

/** Every string in a JSON document, with its path. */
function* stringsOf(value: unknown, path = ''): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* stringsOf(item, `${path}/${index}`);
  else if (value !== null && typeof value === 'object')
    for (const [key, item] of Object.entries(value)) yield* stringsOf(item, `${path}/${key}`);
}

describe("the contract's text", () => {
  it('has no comment after a value on its line, where an unquoted " #" would silently cut the value', () => {
    const cut: string[] = [];
    for (const file of CONTRACT_FILES) {
      const document = parseDocument(readFileSync(file, 'utf8'));
      visit(document, {
        Scalar(_key, node) {
          if (node.comment) cut.push(`${relative(PROJECT_ROOT, file)}: "${String(node.value)}" then #${node.comment}`);
        },
        Pair(_key, pair) {
          if (isScalar(pair.value) && pair.value.comment) return;
          const comment = (pair.value as { comment?: string | null } | null)?.comment;
          if (comment) cut.push(`${relative(PROJECT_ROOT, file)}: ${String(pair.key)} then #${comment}`);
        },
      });
    }
    assert.deepEqual(cut, [], 'quote the value');
  });

  it('cites no document a reader of the API cannot open', () => {
    const citations = [...stringsOf(WORKSPACE_DOCUMENT), ...stringsOf(readContract('sample'))]
      .filter(([, text]) => /docs\/spec|§/.test(text))
      .map(([path]) => path);
    assert.deepEqual(citations, []);
  });

  it("shows the password policy's answer to each example password in the policy's own words, one rule at a time and several", () => {
    const examples = Object.entries(
      (WORKSPACE_DOCUMENT as any).components.responses.InvalidUserRequest.content['application/json'].examples as Record<string, any>,
    ).filter(([name]) => name.startsWith('weak_password'));
    assert.ok(examples.length >= 6, 'the five rules a password can break alone, and several at once');
    const broken = new Set<string>();
    for (const [name, example] of examples) {
      const violation = passwordPolicyViolation(example['x-password']);
      assert.ok(violation, `${name}: its password breaks the policy`);
      assert.equal(example.value.errors[0].message, violation, name);
      assert.equal(example.value.error_message, `Password ${violation}`, name);
      broken.add(violation);
    }
    assert.equal(broken.size, examples.length, 'each example shows a different answer');
  });
});
