/** (h) Memory over a long update_user load: the service's RSS sampled every second. */
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  CONNECTIONS,
  MEMORY_DURATION_S,
  measured,
  posting,
  ready,
  rssMegabytes,
  SAMPLE_MS,
  SERVICE,
  type ScenarioOutcome,
  startServer,
} from '../kit.js';
import type { BenchRun } from './run.js';
import { updateBody } from './writes.js';

export async function memory({ directory, small }: BenchRun): Promise<ScenarioOutcome> {
  const steady = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}` }, ready);
  const samples: number[] = [rssMegabytes(steady.child)];
  const sampler = setInterval(() => samples.push(rssMegabytes(steady.child)), 1_000);
  const long = await autocannon({
    url: steady.url,
    connections: CONNECTIONS,
    duration: MEMORY_DURATION_S,
    sampleInt: SAMPLE_MS,
    requests: posting('/api/public/update_user', updateBody(small.userIds, small.credentials)),
  });
  clearInterval(sampler);
  samples.push(rssMegabytes(steady.child));
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
  };
  return {
    results: [measured(`(h) update_user for ${MEMORY_DURATION_S} s`, long)],
    comparisons: {},
    figures,
    lines: [
      `(h) service RSS ${figures.memory_rss_start_mb} → ${figures.memory_rss_end_mb} MB over ${MEMORY_DURATION_S} s (peak ${figures.memory_rss_peak_mb}; lowest point, second half against first: ${figures.memory_rss_floor_growth_mb >= 0 ? '+' : ''}${figures.memory_rss_floor_growth_mb} MB)`,
    ],
  };
}
