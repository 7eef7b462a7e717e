/**
 * (h) Memory over a long update_user load: the service's RSS sampled every second,
 * and its V8 heap at the start, after the load, and after a full collection
 * (heap.ts, over the inspector): a leak would show in the last, which holds only
 * what the service keeps. And the collections during the load, with what the young
 * generation's promoted a request: near nothing while a request's objects die young.
 */
import { join } from 'node:path';
import { freePort } from '../../../lib/testing/ports.js';
import { HeapInspector } from '../heap.js';
import {
  CONNECTIONS,
  Latencies,
  MEMORY_DURATION_S,
  measured,
  posting,
  recorded,
  ready,
  rssMegabytes,
  SAMPLE_MS,
  SERVICE,
  type ScenarioOutcome,
  startServer,
} from '../kit.js';
import type { BenchRun } from './run.js';
import { updateBody } from './writes.js';

/** The most the service's RSS may reach under the load (issue 43). */
const RSS_TARGET_MB = 256;

export async function memory({ directory, small }: BenchRun): Promise<ScenarioOutcome> {
  const inspectorPort = await freePort();
  const steady = await startServer(
    SERVICE,
    { DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}`, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}` },
    ready,
  );
  const heap = await HeapInspector.connect(inspectorPort);
  const heapAtStart = await heap.afterCollection();
  await heap.countCollections();
  const samples: number[] = [rssMegabytes(steady.child)];
  const sampler = setInterval(() => samples.push(rssMegabytes(steady.child)), 1_000);
  const latencies = new Latencies();
  const long = await recorded(
    {
      url: steady.url,
      connections: CONNECTIONS,
      duration: MEMORY_DURATION_S,
      sampleInt: SAMPLE_MS,
      requests: posting('/api/public/update_user', updateBody(small.userIds, small.credentials)),
    },
    latencies,
  );
  clearInterval(sampler);
  samples.push(rssMegabytes(steady.child));
  const collections = await heap.collectionsCounted();
  const heapAfterLoad = await heap.usage();
  const heapAfterCollection = await heap.afterCollection();
  heap.close();
  await steady.stop();
  // RSS saws up and down with V8's collections; what a leak raises is the floor.
  const middle = Math.floor(samples.length / 2);
  const floor = (part: number[]) => Math.min(...part);
  const figures = {
    memory_duration_s: MEMORY_DURATION_S,
    memory_rss_start_mb: samples[0]!,
    memory_rss_peak_mb: Math.max(...samples),
    memory_rss_end_mb: samples.at(-1)!,
    memory_rss_floor_growth_mb: floor(samples.slice(middle)) - floor(samples.slice(1, middle + 1)),
    memory_heap_start_mb: heapAtStart.usedMb,
    memory_heap_after_load_mb: heapAfterLoad.usedMb,
    memory_heap_after_collection_mb: heapAfterCollection.usedMb,
    memory_young_collections: collections.young,
    memory_full_collections: collections.full,
    memory_promoted_kb_per_request: Number((collections.promotedBytes / 1024 / Math.max(1, long.requests.total)).toFixed(2)),
  };
  const signed = (mb: number) => `${mb >= 0 ? '+' : ''}${mb}`;
  return {
    results: [measured(`(h) update_user for ${MEMORY_DURATION_S} s`, long, latencies)],
    comparisons: {},
    figures,
    lines: [
      `(h) service RSS ${figures.memory_rss_start_mb} → ${figures.memory_rss_end_mb} MB over ${MEMORY_DURATION_S} s (peak ${figures.memory_rss_peak_mb}, target ≤ ${RSS_TARGET_MB}; lowest point, second half against first: ${signed(figures.memory_rss_floor_growth_mb)} MB)`,
      `(h) collections over the load: ${figures.memory_young_collections} of the young generation, promoting ${figures.memory_promoted_kb_per_request} KB a request to the old (target ≤ 1: a request's objects die young), and ${figures.memory_full_collections} full`,
      `(h) V8 heap used: ${figures.memory_heap_start_mb} MB at the start after a full collection, ${figures.memory_heap_after_load_mb} MB after the load, ${figures.memory_heap_after_collection_mb} MB after a full collection (${signed(figures.memory_heap_after_collection_mb - figures.memory_heap_start_mb)} MB: what a leak would grow)`,
    ],
  };
}
