/**
 * docs/README.md's map of the operations is complete and true: every
 * operation of both contracts is in it, with its method and path, beside a
 * file that exists and defines a handler of that name (a HEAD: its GET's).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { OPERATIONS } from '../lib/contract/operations.js';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { SCIM_OPERATIONS } from '../lib/contract/scim-operations.js';

const MAP = readFileSync(join(PROJECT_ROOT, 'docs/README.md'), 'utf8');

/** The rows of the table that follows `heading` (a line of the page), as [operationId, request, file]. */
function rowsAfter(heading: string): [string, string, string][] {
  const start = MAP.indexOf(heading);
  assert.ok(start >= 0, `docs/README.md has no "${heading}"`);
  const lines = MAP.slice(start).split('\n').slice(1);
  const table = lines.slice(lines.findIndex((line) => line.startsWith('|')));
  const rows = table
    .slice(
      0,
      table.findIndex((line) => !line.startsWith('|')),
    )
    .slice(2);
  return rows.map((row) => {
    const cells = row
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim().replace(/^`|`$/g, ''));
    assert.equal(cells.length, 3, row);
    return cells as [string, string, string];
  });
}

/** Whether `file` defines a handler named `name` (a method, or a property of the handlers' object). */
function defines(file: string, name: string): boolean {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  return new RegExp(`(async\\s+${name}\\s*\\(|\\b${name}\\s*:)`).test(text);
}

function checkMap(heading: string, operations: { operationId: string; request: string }[]) {
  const rows = rowsAfter(heading);
  const mapped = new Map(rows.map(([operationId, request, file]) => [operationId, { request, file }]));
  assert.equal(mapped.size, rows.length, 'each operation once');
  assert.deepEqual(
    rows.map(([operationId]) => operationId).sort(),
    operations.map((operation) => operation.operationId).sort(),
    'the map lists exactly the operations of the contract',
  );
  for (const { operationId, request } of operations) {
    const row = mapped.get(operationId)!;
    assert.equal(row.request, request, `${operationId} is ${request}`);
    assert.ok(existsSync(join(PROJECT_ROOT, row.file)), `${row.file} (${operationId}) exists`);
    const handler = operationId.startsWith('head') ? `get${operationId.slice('head'.length)}` : operationId;
    assert.ok(defines(row.file, handler), `${row.file} defines ${handler}`);
  }
}

describe("docs/README.md's map of the operations", () => {
  it('names every operation of the workspace API, its request and the file of its handler', () => {
    checkMap(
      'The workspace API (`openapi/workspace/`):',
      OPERATIONS.map((operation) => ({
        operationId: operation.operationId,
        request: `${operation.method.toUpperCase()} ${operation.path}`,
      })),
    );
  });

  it('names every SCIM operation, its request and the file of its handler', () => {
    checkMap(
      'SCIM 2.0 (`openapi/scim/`',
      SCIM_OPERATIONS.map((operation) => ({
        operationId: operation.operationId,
        request: `${operation.method.toUpperCase()} ${operation.route}`,
      })),
    );
  });
});
