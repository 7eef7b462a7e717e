import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { projectFile } from '../lib/project-root.js';
import { FULL_SUITE_NODE, NODE_MATRIX } from './node-matrix.js';

describe('the Node versions', () => {
  const manifest = (folder: string) =>
    (JSON.parse(readFileSync(projectFile(folder, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const engines = manifest('.');
  const tested = [FULL_SUITE_NODE, ...NODE_MATRIX];

  it('are the lines package.json accepts, one range per line tested, in every package', () => {
    const ranges = engines.split('||').map((range) => range.trim());
    assert.deepEqual(
      ranges.map((range) => /^\^(\d+)\./.exec(range)?.[1]),
      [...new Set(tested.map((version) => version.split('.')[0]))].sort((a, b) => Number(a) - Number(b)),
      `engines "${engines}" must name exactly the tested lines`,
    );
    for (const folder of ['client', 'cli', 'server', 'gate']) assert.equal(manifest(folder), engines, `${folder}/package.json's engines`);
  });

  it('are the versions the README and the development guide state', () => {
    for (const file of ['README.md', 'docs/development.md']) {
      const text = readFileSync(projectFile(file), 'utf8');
      for (const version of tested) assert.ok(text.includes(version), `${file} does not name Node ${version}`);
    }
    const guide = readFileSync(projectFile('docs/development.md'), 'utf8').replace(/\s+/g, ' ');
    assert.ok(guide.includes(`\`engines\`: \`${engines}\``), 'docs/development.md does not quote engines as package.json has it');
  });
});
