import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFileSync } from 'node:fs';
import { projectFile } from '../lib/project-root.js';
import { isWithin, unsupportedNode } from './supported-node.js';

describe('the supported Node versions', () => {
  it('reads engines as npm does for its caret ranges', () => {
    const range = '^22.12.0 || ^24.0.0';
    for (const version of ['22.12.0', '22.23.3', 'v24.0.0', '24.21.0']) assert.ok(isWithin(version, range), version);
    for (const version of ['20.20.2', '22.11.9', '21.7.3', '23.0.0', '25.0.0', '18.0.0']) assert.ok(!isWithin(version, range), version);
  });

  it('says in one line which Node this is, which are supported and how to get one', () => {
    assert.equal(unsupportedNode('24.21.0'), undefined);
    const refusal = unsupportedNode('20.20.2');
    assert.equal(
      refusal,
      `workspace-user-api runs on Node.js ^22.12.0 || ^24.0.0, and this is Node.js 20.20.2: install a supported one (${readFileSync(projectFile('.nvmrc'), 'utf8').trim()}, the version in .nvmrc: \`nvm install\` in the checkout), then run this again`,
    );
  });
});
