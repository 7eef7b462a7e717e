import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { projectFile } from '../lib/project-root.js';
import { FULL_SUITE_NODE_LINE, NODE_MATRIX } from './node-matrix.js';

describe('the Node versions', () => {
  const engines = (JSON.parse(readFileSync(projectFile('package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
  const majors = [FULL_SUITE_NODE_LINE, ...NODE_MATRIX.map((version) => version.split('.')[0])];

  it('are the lines package.json accepts, one range per line tested', () => {
    const ranges = engines.split('||').map((range) => range.trim());
    assert.deepEqual(
      ranges.map((range) => /^\^(\d+)\./.exec(range)?.[1]),
      [...new Set(majors)].sort((a, b) => Number(a) - Number(b)),
      `engines "${engines}" must name exactly the tested lines`,
    );
  });

  it('are the versions the README and the development guide state', () => {
    for (const file of ['README.md', 'docs/development.md']) {
      const text = readFileSync(projectFile(file), 'utf8');
      for (const version of NODE_MATRIX) assert.ok(text.includes(version), `${file} does not name Node ${version}`);
    }
    const guide = readFileSync(projectFile('docs/development.md'), 'utf8').replace(/\s+/g, ' ');
    assert.ok(guide.includes(`\`engines\`: \`${engines}\``), 'docs/development.md does not quote engines as package.json has it');
  });
});
