/**
 * `npm run profile`: where update_user's time goes. Starts the compiled service
 * (as `npm start` runs it) under V8's sampling profiler (`--cpu-prof`) on a
 * database of 10,000 users, sends update_user at 50 connections for a while
 * (PROFILE_SECONDS, 10 by default), stops it, and reads the profile: the CPU
 * time per request of each layer (µs), by where the functions sampled live, and
 * the functions that cost most by themselves. The profile is kept
 * (`--out <file.cpuprofile>`) for Chrome DevTools or speedscope, and drawn
 * (`--flame-graph <file.svg>`) as a flame graph coloured by the same layers
 * (profile/flame-graph.ts).
 *
 *   npm run build && npm run profile -- --out update-user.cpuprofile --flame-graph update-user.svg
 */
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { posting, ready, SERVICE, startServer } from './bench/kit.js';
import { updateBody } from './bench/scenarios/writes.js';
import { seedUsers } from './bench/seed.js';
import { flameGraph } from './profile/flame-graph.js';
import { type CpuProfile, summarise } from './profile/summary.js';

async function main(): Promise<void> {
  const option = (name: string) => {
    const index = process.argv.indexOf(name);
    return index > 0 ? process.argv[index + 1] : undefined;
  };
  const out = option('--out');
  const flameGraphFile = option('--flame-graph');
  const seconds = Number(process.env.PROFILE_SECONDS) || 10;
  const directory = await mkdtemp(join(tmpdir(), 'workspace-profile-'));
  try {
    const database = join(directory, 'users-10k.db');
    const seeded = await seedUsers(database, 10_000);
    const profiles = join(directory, 'profiles');
    const service = await startServer(
      SERVICE,
      { DATABASE_URL: `sqlite:${database}`, NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profiles}` },
      ready,
    );
    // A second's warm-up, not profiled apart: V8 compiles the hot path during it.
    const requests = posting('/api/public/update_user', updateBody(seeded.userIds, seeded.credentials));
    await autocannon({ url: service.url, connections: 50, duration: 1, requests });
    const result = await autocannon({ url: service.url, connections: 50, duration: seconds, requests });
    await service.stop();
    const [file] = (await readdir(profiles)).filter((name) => name.endsWith('.cpuprofile'));
    if (!file) throw new Error('the service wrote no profile');
    const profile = JSON.parse(await readFile(join(profiles, file), 'utf8')) as CpuProfile;
    const answered = result.requests.total;
    process.stdout.write(
      [
        `update_user at 50 connections for ${seconds} s (and 1 s before, in the profile too): ${Math.round(answered / result.duration)} req/s, p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} errors`,
        ...summarise(profile, answered + Math.round(answered / seconds)),
      ].join('\n') + '\n',
    );
    if (flameGraphFile) {
      const title = `update_user at 50 connections, ${Math.round(answered / result.duration)} req/s (npm run profile)`;
      await writeFile(flameGraphFile, flameGraph(profile, title));
      process.stdout.write(`flame graph written to ${flameGraphFile}\n`);
    }
    if (out) {
      await copyFile(join(profiles, file), out);
      process.stdout.write(`profile written to ${out} (open it in Chrome DevTools' Performance panel or speedscope.app)\n`);
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
