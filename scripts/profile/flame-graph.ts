/**
 * A V8 CPU profile (`node --cpu-prof`, or the inspector's Profiler) drawn as a flame graph, in
 * SVG: each function a box as wide as the time spent in it and in what it called, on top of its
 * caller, callers' children in alphabetical order; coloured by the layer summary.ts charges it
 * to, with a legend. Idle time is left out, so the full width is the main thread's busy time. Any
 * browser opens it; hovering a box shows the function, where it lives and its time.
 */
import { type CpuProfile, labelOf, LAYERS, layersOf, selfTimes } from './summary.js';

const WIDTH = 1200;
const ROW = 16;
/** Narrower boxes are not drawn: a pixel's width is below what an eye can read, and they would fill the file. */
const MIN_BOX_PX = 1;
const CHARACTER_PX = 6.5;

/** A colour per layer, in the order summary.ts lists them, then V8's own. */
const PALETTE = [
  '#e15759',
  '#f28e2b',
  '#edc948',
  '#b07aa1',
  '#76b7b2',
  '#59a14f',
  '#4e79a7',
  '#9c755f',
  '#ff9da7',
  '#bab0ac',
  '#86bcb6',
  '#d4a6c8',
  '#8cd17d',
  '#a0cbe8',
  '#79706e',
];
const LEGEND = [...LAYERS.map(([name]) => name), 'V8 and native', '(garbage collector)', '(program)'];
const colourOf = (layer: string) => PALETTE[LEGEND.indexOf(layer)] ?? '#cccccc';

const escaped = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

export function flameGraph(profile: CpuProfile, title: string): string {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = selfTimes(profile);
  const layers = layersOf(profile);
  const totals = new Map<number, number>();
  const totalOf = (id: number): number => {
    const node = nodes.get(id)!;
    if (node.callFrame.functionName === '(idle)') return 0;
    const total = (self.get(id) ?? 0) + (node.children ?? []).reduce((sum, child) => sum + totalOf(child), 0);
    totals.set(id, total);
    return total;
  };
  const root = profile.nodes[0]!;
  const busy = totalOf(root.id);
  const boxes: string[] = [];
  let depth = 0;
  const draw = (id: number, x: number, level: number) => {
    const node = nodes.get(id)!;
    const width = ((totals.get(id) ?? 0) / busy) * WIDTH;
    if (width < MIN_BOX_PX) return;
    depth = Math.max(depth, level);
    const name = level === 0 ? `${title}: all of the main thread's busy time` : labelOf(node);
    const ms = ((totals.get(id) ?? 0) / 1000).toFixed(1);
    const fits = Math.floor((width - 4) / CHARACTER_PX);
    const shown = fits > 2 ? name.slice(0, fits) : '';
    boxes.push(
      `<g><title>${escaped(`${name}: ${ms} ms, ${((100 * (totals.get(id) ?? 0)) / busy).toFixed(1)} %`)}</title>` +
        `<rect x="${x.toFixed(1)}" y="${level}" width="${width.toFixed(1)}" height="${ROW - 1}" fill="${level === 0 ? '#dddddd' : colourOf(layers.get(id)!)}"/>` +
        (shown ? `<text x="${(x + 2).toFixed(1)}" y="${level}" dy="12">${escaped(shown)}</text>` : '') +
        '</g>',
    );
    let childX = x;
    const children = [...(node.children ?? [])].sort((a, b) => labelOf(nodes.get(a)!).localeCompare(labelOf(nodes.get(b)!)));
    for (const child of children) {
      draw(child, childX, level + 1);
      childX += ((totals.get(child) ?? 0) / busy) * WIDTH;
    }
  };
  draw(root.id, 0, 0);
  // Flames rise: the root at the bottom. Each box's y above is its level; flipped here.
  const height = (depth + 1) * ROW;
  const flipped = boxes.map((box) => box.replace(/ y="(\d+)"/g, (_, level: string) => ` y="${height - (Number(level) + 1) * ROW}"`));
  const legend = LEGEND.map(
    (layer, index) =>
      `<rect x="${(index % 3) * 400}" y="${height + 10 + Math.floor(index / 3) * ROW}" width="12" height="12" fill="${colourOf(layer)}"/>` +
      `<text x="${(index % 3) * 400 + 16}" y="${height + 10 + Math.floor(index / 3) * ROW}" dy="10">${escaped(layer)}</text>`,
  );
  const totalHeight = height + 20 + Math.ceil(LEGEND.length / 3) * ROW;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${totalHeight}" viewBox="0 0 ${WIDTH} ${totalHeight}" font-family="monospace" font-size="11">`,
    `<title>${escaped(title)}</title>`,
    ...flipped,
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
