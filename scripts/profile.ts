/**
 * `npm run profile`: where a write's time goes. Starts the compiled service
 * (as `npm start` runs it) on a database of 10,000 users, sends update_user (or,
 * with `--request scim-patch`, bench (m)'s SCIM PATCH of `active`) at
 * 50 connections for a second's warm-up, then for a while (PROFILE_SECONDS, 10
 * by default) under V8's sampling profiler, started and stopped over the
 * service's inspector so that its start and the warm-up stay out of the profile;
 * and reads the profile: the time per request of each layer (µs), by where the
 * functions sampled live, and the functions that cost most by themselves. The profile is kept
 * (`--out <file.cpuprofile>`) for Chrome DevTools or speedscope, and drawn
 * (`--flame-graph <file.svg>`) as a flame graph coloured by the same layers
 * (profile/flame-graph.ts).
 *
 * With `--survivors`, V8's sampling heap profiler in place of the CPU profiler, twice under the
 * same load: every allocation, then only what no scavenge freed; it prints, site by site, the
 * bytes a request allocated and the bytes that outlived the young generation (profile/survivors.ts).
 *
 *   npm run build && npm run profile -- --out update-user.cpuprofile --flame-graph update-user.svg
 *   npm run profile -- --request scim-patch
 *   npm run profile -- --survivors
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { freePort } from '../lib/testing/ports.js';
import { Inspector } from './bench/inspector.js';
import { posting, ready, SERVICE, startServer } from './bench/kit.js';
import { patchingActive } from './bench/scenarios/scim.js';
import { updateBody } from './bench/scenarios/writes.js';
import { type SeededDatabase, seedUsers } from './bench/seed.js';
import { flameGraph } from './profile/flame-graph.js';
import { type CpuProfile, summarise } from './profile/summary.js';
import { type SamplingHeapProfile, summariseSurvivors } from './profile/survivors.js';

/**
 * The CPU time a process's main thread has used so far, user and system, in ms (proc(5):
 * /proc/<pid>/task/<pid>/stat, fields 14 and 15, in clock ticks of 10 ms).
 */
function mainThreadCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces: count from the parenthesis that ends it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The requests `--request` names, and what the summary calls each. */
const PROFILED: Record<string, { title: string; requests: (seeded: SeededDatabase) => autocannon.Options['requests'] }> = {
  update_user: {
    title: 'update_user',
    requests: (seeded) => posting('/api/public/update_user', updateBody(seeded.userIds, seeded.credentials)),
  },
  'scim-patch': { title: 'SCIM PATCH of active', requests: (seeded) => patchingActive(seeded.credentials, seeded.userIds) },
};

async function main(): Promise<void> {
  const option = (name: string) => {
    const index = process.argv.indexOf(name);
    return index > 0 ? process.argv[index + 1] : undefined;
  };
  const out = option('--out');
  const flameGraphFile = option('--flame-graph');
  const requestName = option('--request') ?? 'update_user';
  const profiled = PROFILED[requestName];
  if (!profiled) throw new Error(`--request takes ${Object.keys(PROFILED).join(' or ')}, not "${requestName}"`);
  const seconds = Number(process.env.PROFILE_SECONDS) || 10;
  const directory = await mkdtemp(join(tmpdir(), 'workspace-profile-'));
  try {
    const database = join(directory, 'users-10k.db');
    const seeded = await seedUsers(database, 10_000);
    const inspectorPort = await freePort();
    const service = await startServer(
      SERVICE,
      { DATABASE_URL: `sqlite:${database}`, NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}` },
      ready,
    );
    // A second's warm-up, not profiled: V8 compiles the hot path during it.
    const requests = profiled.requests(seeded);
    await autocannon({ url: service.url, connections: 50, duration: 1, requests });
    const inspector = await Inspector.connect(inspectorPort);
    if (process.argv.includes('--survivors')) {
      // 8 KB between samples: a finer interval slows the service enough to change what survives.
      const sampled = async (includeObjectsCollectedByMinorGC: boolean) => {
        await inspector.call('HeapProfiler.startSampling', {
          samplingInterval: 8192,
          includeObjectsCollectedByMajorGC: true,
          includeObjectsCollectedByMinorGC,
        });
        const result = await autocannon({ url: service.url, connections: 50, duration: seconds, requests });
        const { profile } = (await inspector.call('HeapProfiler.stopSampling')) as { profile: SamplingHeapProfile };
        return { profile, requests: result.requests.total };
      };
      await inspector.call('HeapProfiler.enable');
      const everything = await sampled(true);
      const survivors = await sampled(false);
      inspector.close();
      await service.stop();
      process.stdout.write(
        [`${profiled.title} at 50 connections, ${seconds} s for each profile`, ...summariseSurvivors(everything, survivors)].join('\n') +
          '\n',
      );
      return;
    }
    await inspector.call('Profiler.enable');
    const pid = service.child.pid!;
    await inspector.call('Profiler.start');
    const cpuBefore = mainThreadCpuMs(pid);
    const result = await autocannon({ url: service.url, connections: 50, duration: seconds, requests });
    const onCore = mainThreadCpuMs(pid) - cpuBefore;
    const { profile } = (await inspector.call('Profiler.stop')) as { profile: CpuProfile };
    inspector.close();
    await service.stop();
    const answered = result.requests.total;
    process.stdout.write(
      [
        `${profiled.title} at 50 connections for ${seconds} s: ${Math.round(answered / result.duration)} req/s, p99 ${result.latency.p99} ms, ${result.non2xx + result.errors} errors`,
        ...summarise(profile, answered),
        '',
        `The main thread ran on a core ${onCore} ms of the busy time above (${Math.round((onCore * 1000) / answered)} µs a request; /proc).`,
        'The profile samples wall time: the rest (a commit waiting for the disk, the thread waiting for a core)',
        'is charged to the code that waited, SQLite above all. Native calls are charged more than they cost:',
        '`read` (the wal-index header, sqlite/commit-marks.ts) took under 1 µs a request on a core when it read 14 here,',
        'SQLite 16 when it read 45. `perf record -g -t <the service pid>` under the same load shows the time on a core',
        '(BENCHMARKS.md, 2026-12-08).',
      ].join('\n') + '\n',
    );
    if (flameGraphFile) {
      const title = `${profiled.title} at 50 connections, ${Math.round(answered / result.duration)} req/s (npm run profile)`;
      await writeFile(flameGraphFile, flameGraph(profile, title));
      process.stdout.write(`flame graph written to ${flameGraphFile}\n`);
    }
    if (out) {
      await writeFile(out, JSON.stringify(profile));
      process.stdout.write(`profile written to ${out} (open it in Chrome DevTools' Performance panel or speedscope.app)\n`);
    }
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
