/**
 * The processes themselves: (f) the sample server's /api/data; (g) from process
 * start to the first 200 on a fresh database, the median of several; (n) `npm run
 * cli -- --version` in this built checkout (the build check, npm and the CLI), the
 * median of five.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../../lib/project-root.js';
import { load, quick, ready, SAMPLE, SERVICE, type ScenarioOutcome, startServer } from '../kit.js';
import type { BenchRun } from './run.js';

const middleOf = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;

export async function processes({ directory }: BenchRun): Promise<ScenarioOutcome> {
  const sample = await startServer(SAMPLE, {}, (url) => fetch(`${url}/api/data`));
  const sampleData = await load('(f) sample /api/data', { url: `${sample.url}/api/data` });
  await sample.stop();

  const startups: number[] = [];
  for (let start = 0; start < (quick ? 1 : 5); start++) {
    const cold = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, `fresh-${start}.db`)}` }, ready);
    startups.push(Math.round(cold.readyAt - cold.startedAt));
    await cold.stop();
  }

  const cliCalls: number[] = [];
  for (let call = 0; call < 5; call++) {
    const started = performance.now();
    const npm = process.env.npm_execpath;
    const args = ['run', 'cli', '--silent', '--', '--version'];
    const child = npm ? spawn(process.execPath, [npm, ...args], { cwd: PROJECT_ROOT }) : spawn('npm', args, { cwd: PROJECT_ROOT });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`npm run cli -- --version exited ${code}`);
    cliCalls.push(Math.round(performance.now() - started));
  }
  const figures = { sample_data_rps: sampleData.rps, startup_ms: middleOf([...startups]), cli_call_ms: middleOf(cliCalls) };
  return {
    results: [sampleData],
    comparisons: {},
    figures,
    lines: [
      `(g) start to first 200: ${figures.startup_ms} ms${startups.length > 1 ? ` (median of ${startups.join(', ')})` : ''}`,
      `(n) npm run cli -- --version in the built checkout: ${figures.cli_call_ms} ms (median of 5; target < 500)`,
    ],
  };
}
