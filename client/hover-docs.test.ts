/**
 * What an editor shows on hover over the SDK's types: the contract's
 * description of the field, carried into the generated types as doc comments.
 * Asked of TypeScript's language service, as an editor asks it.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import { PROJECT_ROOT } from '../lib/project-root.js';

const CONSUMER = join(PROJECT_ROOT, 'client', '__hover__.ts');
const SOURCE = `import type { components, User } from './index.js';
declare const user: User;
declare const change: components['schemas']['UserUpdate'];
declare const created: components['schemas']['NewUser'];
user.first_name;
user.locked;
change.password;
created.organization;
`;

function hoverText(source: string, word: string): string {
  const configFile = ts.readConfigFile(join(PROJECT_ROOT, 'tsconfig.json'), (path) => readFileSync(path, 'utf8'));
  const { options } = ts.parseJsonConfigFileContent(configFile.config, ts.sys, PROJECT_ROOT);
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [CONSUMER],
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => ts.ScriptSnapshot.fromString(file === CONSUMER ? source : (ts.sys.readFile(file) ?? '')),
    getCurrentDirectory: () => PROJECT_ROOT,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (file) => file === CONSUMER || ts.sys.fileExists(file),
    readFile: (file) => (file === CONSUMER ? source : ts.sys.readFile(file)),
  };
  const service = ts.createLanguageService(host);
  const info = service.getQuickInfoAtPosition(CONSUMER, source.lastIndexOf(word) + 1);
  const documentation = ts.displayPartsToString(info?.documentation);
  const tags = (info?.tags ?? []).map((tag) => ts.displayPartsToString(tag.text)).join('\n');
  return `${documentation}\n${tags}`.trim();
}

describe('hover documentation on the SDK types', () => {
  it("shows a field's description from the contract, on what the service answers and on what a client sends", () => {
    assert.match(hoverText(SOURCE, 'first_name'), /Empty when not set\./);
    assert.match(hoverText(SOURCE, 'locked'), /Whether the account is locked/);
    assert.match(hoverText(SOURCE, 'password'), /empty or null keeps the current one/);
    assert.match(hoverText(SOURCE, 'organization'), /The user's organisation; empty when left out\./);
  });

  it('has a description for every field of every schema', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'generated/workspace/types.ts'), 'utf8');
    const contract = JSON.parse(readFileSync(join(PROJECT_ROOT, 'generated/workspace/openapi.json'), 'utf8')) as {
      components: { schemas: Record<string, { properties?: object }> };
    };
    const withFields = Object.entries(contract.components.schemas)
      .filter(([, schema]) => schema.properties !== undefined)
      .map(([name]) => name);
    assert.ok(withFields.includes('UserUpdate') && withFields.length > 20, withFields.join());
    const undescribed = (name: string) => {
      const start = text.indexOf(`        ${name}: {`);
      const block = text.slice(start, text.indexOf('\n        };', start));
      // Each field line, and whether a doc comment ends on the line before it.
      const lines = block.split('\n');
      return lines
        .map((line, index) => ({
          field: /^ {12}(\w+)\??:/.exec(line)?.[1],
          // A field the service sets is one no client can send: it has nothing to explain.
          refused: line.includes('ReadOnlyField'),
          documented: lines[index - 1]?.trim().endsWith('*/') ?? false,
        }))
        .filter(({ field, refused, documented }) => field !== undefined && !refused && !documented && !/^api_key(_secret)?$/.test(field))
        .map(({ field }) => `${name}.${field!}`);
    };
    assert.deepEqual(withFields.flatMap(undescribed), []);
  });
});
