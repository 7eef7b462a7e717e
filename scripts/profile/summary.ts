/**
 * A V8 CPU profile (`node --cpu-prof`, or the inspector's Profiler) read as the write path's
 * costs: self time per request of each layer, by where the functions sampled live, and of the
 * costliest functions (scripts/profile.ts runs it on update_user).
 */
import { relative } from 'node:path';
import { PROJECT_ROOT } from '../../lib/project-root.js';

/** A node of V8's `.cpuprofile` (the Chrome DevTools Protocol's Profiler.ProfileNode). */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/**
 * The layers of the write path, by where a sampled function lives: the first whose test
 * matches names it. Node's own (HTTP, streams, timers) and V8's are what is left.
 */
export const LAYERS: [name: string, test: (url: string) => boolean][] = [
  // better-sqlite3 runs each statement and commit synchronously, inside Kysely's SQLite driver's executeQuery:
  // that function's self time is SQLite's work, better-sqlite3's (the values bound, each row built as
  // an object) and their waits: V8 samples the thread's wall time, so a commit's wait for the disk's
  // fsync is in it, as is any wait for a core (scripts/profile.ts prints the time on a core beside it).
  [
    'SQLite (better-sqlite3: statements, commits, their waits)',
    (url) => url.includes('better-sqlite3') || url.includes('/dialect/sqlite/sqlite-driver.'),
  ],
  ['Kysely (building and running queries)', (url) => url.includes('/kysely/')],
  ['request validation (express-openapi-validator, ajv)', (url) => /express-openapi-validator|\/ajv/.test(url)],
  ['express and its parsers', (url) => /\/(express|body-parser|router|raw-body|qs|type-is|content-type|finalhandler|send)\//.test(url)],
  ['logging (pino)', (url) => /\/pino|sonic-boom|thread-stream/.test(url)],
  ['compression, CORS', (url) => /\/(compression|cors)\//.test(url)],
  ['the service: HTTP layer (server/http)', (url) => url.includes('/server/http/')],
  ['the service: handlers and directory', (url) => /\/server\/(handlers|directory|scim)\//.test(url)],
  ['the service: store and audit trail', (url) => url.includes('/server/store/')],
  ['the service: the rest', (url) => url.includes('/dist/server/') || url.includes('/dist/lib/')],
  ['other packages', (url) => url.includes('node_modules')],
  ['Node (HTTP, streams, timers)', (url) => url.startsWith('node:')],
];

const OWN_LAYERS = new Set(['(idle)', '(program)', '(garbage collector)']);

/**
 * The layer of every node of a profile, by id. A function without a source (native code: a
 * statement run inside better-sqlite3, a socket's write) is charged to the layer of the function
 * that called it, where its time belongs; V8's profiler records such frames on their own when
 * it is started over the inspector.
 */
export function layersOf(profile: CpuProfile): Map<number, string> {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const layers = new Map<number, string>();
  const visit = (id: number, callers: string) => {
    const { url, functionName } = nodes.get(id)!.callFrame;
    const layer = OWN_LAYERS.has(functionName)
      ? functionName
      : url === ''
        ? callers
        : (LAYERS.find(([, test]) => test(url))?.[0] ?? 'V8 and native');
    layers.set(id, layer);
    for (const child of nodes.get(id)!.children ?? []) visit(child, layer);
  };
  // From the root down; a node no other lists as its child (a profile cut short) counts as called by V8.
  for (const node of profile.nodes) if (!layers.has(node.id)) visit(node.id, 'V8 and native');
  return layers;
}

/** Self time per node id, in µs, from the samples and the time between them. */
export function selfTimes(profile: CpuProfile): Map<number, number> {
  const times = new Map<number, number>();
  profile.samples.forEach((id, index) => times.set(id, (times.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  return times;
}

/** A function as the summary names it: its name, and where it lives, from the project's root. */
export function labelOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url ? ` ${relative(PROJECT_ROOT, url.replace(/^file:\/\//, ''))}:${lineNumber + 1}` : '';
  return `${functionName || '(anonymous)'}${where}`;
}

export function summarise(profile: CpuProfile, requests: number): string[] {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const times = selfTimes(profile);
  const layers = layersOf(profile);
  const callers = new Map<number, ProfileNode>();
  for (const node of profile.nodes) for (const child of node.children ?? []) callers.set(child, node);
  const byLayer = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, time] of times) {
    const node = nodes.get(id)!;
    const layer = layers.get(id)!;
    byLayer.set(layer, (byLayer.get(layer) ?? 0) + time);
    if (layer === '(idle)' || layer === '(program)') continue;
    const caller = callers.get(id);
    // Native code without a name is told apart by its caller (better-sqlite3's statements: Kysely's executeQuery).
    const name =
      !node.callFrame.functionName && !node.callFrame.url && caller ? `(native code) called by ${labelOf(caller)}` : labelOf(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
  }
  const busy = [...byLayer].filter(([layer]) => layer !== '(idle)').reduce((sum, [, time]) => sum + time, 0);
  const perRequest = (time: number) => (time / requests).toFixed(1).padStart(7);
  const share = (time: number) => `${((100 * time) / busy).toFixed(1).padStart(5)} %`;
  const lines = [
    `${requests} requests; the main thread busy ${(busy / 1000).toFixed(0)} ms of ${((profile.endTime - profile.startTime) / 1000).toFixed(0)} ms (idle ${(((byLayer.get('(idle)') ?? 0) / (profile.endTime - profile.startTime)) * 100).toFixed(0)} %)`,
    '',
    'µs/request   share  layer (self time of the functions sampled there)',
  ];
  for (const [layer, time] of [...byLayer].filter(([name]) => name !== '(idle)').sort((a, b) => b[1] - a[1])) {
    lines.push(`${perRequest(time)}  ${share(time)}  ${layer}`);
  }
  lines.push('', 'µs/request   share  function (the 25 with the most self time)');
  for (const [name, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    lines.push(`${perRequest(time)}  ${share(time)}  ${name}`);
  }
  return lines;
}
