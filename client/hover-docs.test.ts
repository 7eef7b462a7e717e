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
const SOURCE = `import type { User } from './index.js';
declare const user: User;
user.first_name;
user.username;
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
  it("shows a field's description from the contract", () => {
    assert.match(hoverText(SOURCE, 'first_name'), /Empty when not set\./);
    assert.match(hoverText(SOURCE, 'username'), /Trimmed and lower-cased; unique\./);
  });
});
