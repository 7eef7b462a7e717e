import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { flameGraph } from './flame-graph.js';
import type { CpuProfile } from './summary.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0 });

/** main calls validate (30 µs) and write (60 µs) and spends 10 µs itself; 100 µs idle besides. */
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 5] },
    { id: 2, callFrame: frame('main', 'file:///srv/main.js'), children: [3, 4] },
    { id: 3, callFrame: frame('validate', 'file:///srv/node_modules/ajv/dist/index.js') },
    { id: 4, callFrame: frame('write <fast>', 'file:///srv/node_modules/better-sqlite3/lib/index.js') },
    { id: 5, callFrame: frame('(idle)') },
  ],
  startTime: 0,
  endTime: 200,
  samples: [2, 3, 4, 4, 5],
  timeDeltas: [10, 30, 30, 30, 100],
};

describe('a flame graph of a CPU profile', () => {
  const svg = flameGraph(PROFILE, 'update_user');
  const box = (name: string) => {
    const match = new RegExp(`<title>${name}[^<]*</title><rect x="([\\d.]+)" y="([\\d.]+)" width="([\\d.]+)"`).exec(svg);
    assert.ok(match, `${name} is drawn`);
    return { x: Number(match[1]), y: Number(match[2]), width: Number(match[3]) };
  };

  it('draws each function as wide as its share of the busy time, on top of its caller, idle left out', () => {
    assert.equal(box('update_user: all').width, 1200);
    assert.equal(box('main').width, 1200);
    assert.equal(box('validate').width, 360);
    assert.equal(box('write &lt;fast&gt;').width, 720);
    assert.ok(box('validate').y < box('main').y && box('main').y < box('update_user: all').y, 'callees above callers');
    assert.equal(box('validate').x, 0, 'children in alphabetical order');
    assert.equal(box('write &lt;fast&gt;').x, 360);
    assert.doesNotMatch(svg, /\(idle\)/);
  });

  it('labels only the boxes a label fits in, within their width', () => {
    const narrow = flameGraph({ ...PROFILE, timeDeltas: [10, 3, 2_000, 30, 100] }, 'update_user');
    assert.doesNotMatch(narrow, /<text [^>]*>va/, 'a box of 2 px holds no label');
    for (const [, width, text] of narrow.matchAll(/width="([\d.]+)" height="15"[^>]*\/><text [^>]*>([^<]*)<\/text>/g))
      assert.ok(text!.length * 6.5 <= Number(width), `${text} within ${width} px`);
  });

  it('colours a box by its layer and names the layers in a legend', () => {
    assert.match(svg, /<text [^>]*>request validation \(express-openapi-validator, ajv\)<\/text>/);
    const fill = (name: string) => new RegExp(`<title>${name}[^<]*</title><rect [^>]*fill="([^"]+)"`).exec(svg)?.[1];
    assert.notEqual(fill('validate'), fill('write &lt;fast&gt;'));
    const legendColours = [...svg.matchAll(/<rect [^>]*width="12" height="12" fill="([^"]+)"/g)].map((match) => match[1]);
    assert.equal(new Set(legendColours).size, legendColours.length, 'a colour of its own for each layer');
  });
});
