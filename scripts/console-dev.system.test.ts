/**
 * `npm run console:dev` as a frontend team runs it, with no database and no
 * service: the console against the Prism mock, in Chromium, through the same
 * flow as against the service (sign in, the users, a user), the mock checking
 * each of its requests against the contract. And the page listens for the
 * reloads the development server sends when a source changes.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const chromiumTool = TOOLS.chromium();

describe('npm run console:dev against the Prism mock', needs(chromiumTool, 'the console:dev test'), () => {
  let dev: ChildProcess;
  let url: string;
  let browser: Browser;
  before(async () => {
    assertPresent(chromiumTool);
    dev = spawn('npm', ['run', 'console:dev', '--silent', '--', '--port', '0'], {
      cwd: PROJECT_ROOT,
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let printed = '';
    url = await new Promise<string>((resolve, reject) => {
      dev.stdout!.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /^Console: (\S+)/m.exec(printed);
        if (found) resolve(found[1]!);
      });
      dev.once('exit', (code) => reject(new Error(`console:dev exited (${code}) before it listened: ${printed}`)));
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });
  after(async () => {
    await browser?.close();
    // npm starts the script under a shell: the whole group goes.
    if (dev?.pid) process.kill(-dev.pid, 'SIGTERM');
  });

  it('signs in, lists the users and opens one, with every request the contract’s, listening for reloads', async () => {
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/console$/);
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    const refused: string[] = [];
    page.on('response', (answer) => {
      // Prism names every way a request breaks the contract in this header.
      const violations = answer.headers()['sl-violations'];
      if (violations && answer.status() !== 401) refused.push(`${answer.url()}: ${violations}`);
    });
    await page.goto(url);
    await page.getByLabel('API key').fill('Qm3kV9xZ2pLr7tYw');
    await page.getByLabel('Secret').fill('any secret: the mock keeps none');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('row').getByRole('link', { name: 'alice@example.com' }).click();
    await page.getByRole('button', { name: 'Save' }).waitFor();
    assert.deepEqual(refused, [], 'the console sends only what the contract accepts');

    // Live reload: the development bundle listens on the reload stream, which the server keeps open.
    // (Changing a source here would race the other tests, which build from the same checkout.)
    const bundle = await (await fetch(new URL('/console/assets/console.js', url))).text();
    assert.match(bundle, /new EventSource\("\/console\/dev\/reload"\)/);
    const stream = await fetch(new URL('/console/dev/reload', url), { signal: AbortSignal.timeout(5_000) });
    assert.deepEqual([stream.status, stream.headers.get('content-type')], [200, 'text/event-stream']);
    await stream.body?.cancel();
    await page.close();
  });
});
