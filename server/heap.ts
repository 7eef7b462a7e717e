/**
 * The V8 heap the service runs with. V8 sizes its heap by the machine's memory:
 * on a machine with 24 GiB, its young generation grows to 128 MB (two semi-spaces of
 * 64 MB), and its old generation is collected only once it has grown by V8's
 * default factor. Under a long update_user load the service's RSS went from 190 to
 * 420 MB, though what a full collection left was 35 MB before and after: no leak,
 * only garbage V8 had not yet been asked to collect (BENCHMARKS.md, "Memory").
 *
 * Two settings keep it near what it holds, measured at 50 connections of update_user:
 * RSS at most 217 MB, throughput within the run's noise (−3 %).
 * - The young generation's semi-spaces at most 16 MB. V8 reads this only as the
 *   process starts, so it is a flag of the command that starts the service
 *   (`npm start`, docs/operations.md's systemd unit); NODE_OPTIONS takes it too.
 * - The old generation allowed to grow by half of what survived its last full
 *   collection before the next (V8's default grows it more, the more memory the
 *   machine has). V8 reads this at every collection, so the service sets it itself.
 *
 * And one that keeps a request's objects young: no allocation-site pretenuring. Under
 * many concurrent requests (50 connections of update_user), V8 would at times find that
 * objects of some allocation site outlive a young collection (the requests in flight)
 * and allocate that site's objects in the old generation from then on; each of those
 * old objects then held the young objects of its request through every young
 * collection, and the service promoted everything a request made, 8 KB of it, for the
 * rest of its life: eight starts of sixteen fell into that, at 15–30 % fewer requests
 * a second, with three to four times the collectors' pauses and full collections every half
 * second. Without pretenuring, no start did (BENCHMARKS.md, "Pretenuring"; decision 75).
 * V8 reads it as it collects, so the service sets it itself too.
 *
 * A flag the operator gives (on node's command line or in NODE_OPTIONS) is left as given,
 * in either form (`--allocation-site-pretenuring` keeps V8's default).
 */
import { setFlagsFromString } from 'node:v8';

/** The flag of the command that starts the service: `node --max-semi-space-size=16 server/dist/server/main.js`. */
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=16';

const OLD_GENERATION_GROWTH = '--heap-growing-percent=50';

const NO_PRETENURING = '--no-allocation-site-pretenuring';

/** A V8 flag's name, however it is written: `--heap_growing_percent=20` and `--no-foo` are `heap-growing-percent` and `foo`. */
const nameOf = (flag: string) => (flag.split('=')[0] ?? flag).replaceAll('_', '-').replace(/^--(no-)?/, '');

/** The flags the service sets itself, unless the operator already gave one of the same name. */
export function heapFlagsToSet(execArgv: readonly string[], nodeOptions: string | undefined): string[] {
  const given = new Set([...execArgv, ...(nodeOptions ?? '').split(/\s+/)].map(nameOf));
  return [OLD_GENERATION_GROWTH, NO_PRETENURING].filter((flag) => !given.has(nameOf(flag)));
}

/** Sets the heap's flags that V8 reads while running; returns them, for the log. */
export function applyHeapSettings(): string[] {
  const flags = heapFlagsToSet(process.execArgv, process.env.NODE_OPTIONS);
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
