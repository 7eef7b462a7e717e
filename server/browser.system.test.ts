/**
 * Real-browser tests (Debian's Chromium driven by playwright-core): what the
 * sample server's CORS and the workspace service's refusal mean to a page on
 * another origin, and that the two pages people look at render.
 *
 * Without Chromium these tests fail under CI=true and are skipped, loudly,
 * elsewhere. Screenshots go to test-artifacts/browser/.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import * as esbuild from 'esbuild';
import express from 'express';
import { type Browser, chromium } from 'playwright-core';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { present } from '../lib/present.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { createLogger } from './logger.js';
import { createSampleApp } from './sample/app.js';
import { startTestService, type TestService } from './testing/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SCREENSHOTS = join(PROJECT_ROOT, 'test-artifacts', 'browser');
const chromiumTool = TOOLS.chromium();

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A page on its own origin that reads both servers the way a third-party web app would. */
interface PageResults {
  data: { reached: boolean; status?: number; body?: any; error?: string };
  workspace: { reached: boolean; status?: number; error?: string };
}

function thirdPartyPage(sampleUrl: string, workspaceUrl: string, credentials: object): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Another origin</title></head>
<body><h1>Another origin</h1><pre id="out">running…</pre>
<script>
  async function read(url, init) {
    try {
      const response = await fetch(url, init);
      return { reached: true, status: response.status, body: await response.json() };
    } catch (error) {
      return { reached: false, error: String(error) };
    }
  }
  window.results = (async () => {
    const data = await read(${JSON.stringify(`${sampleUrl}/api/data`)}, {
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
    });
    const workspace = await read(${JSON.stringify(`${workspaceUrl}/api/public/validate_credentials`)}, {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      body: ${JSON.stringify(JSON.stringify(credentials))},
    });
    document.getElementById('out').textContent = JSON.stringify({ data, workspace }, null, 2);
    return { data, workspace };
  })();
</script></body></html>`;
}

/** In the page: the text of the reference's content that the floating menu button covers, where it is now. */
const TEXT_UNDER_MENU_BUTTON = `(() => {
  const button = document.querySelector('[data-testid="floating-button"]').getBoundingClientRect();
  const walker = document.createTreeWalker(document.getElementById('api-content'), NodeFilter.SHOW_TEXT);
  const under = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.textContent.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const box of range.getClientRects()) {
      const overlaps = box.right > button.left && box.left < button.right && box.bottom > button.top && box.top < button.bottom;
      if (box.width > 0 && overlaps) under.push(node.textContent.trim().slice(0, 40));
    }
  }
  return under;
})()`;

/** The SDK as a web app ships it: bundled for the browser, one ES module. */
async function bundledSdk(): Promise<string> {
  const built = await esbuild.build({
    entryPoints: [join(PROJECT_ROOT, 'client', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
  });
  return present(built.outputFiles[0], 'the bundle').text;
}

/** What the SDK page reports of each call: the status or the SDK's error, and what the page could read of the headers. */
interface SdkCall {
  status?: number;
  code?: string;
  message?: string;
  attempts: number;
  requestId?: string;
  etag?: string;
}

interface SdkResults {
  checked: SdkCall;
  created: SdkCall;
  updated: SdkCall;
  down: SdkCall;
}

/** A web app on its own origin that calls the service through the bundled SDK, with header credentials and If-Match. */
function sdkPage(serviceUrl: string, downUrl: string, credentials: object): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A web app</title></head>
<body><h1>A web app</h1><pre id="out">running…</pre>
<script type="module">
  import { createWorkspaceClient } from '/sdk.js';
  const seen = (result) => ({
    status: result.response?.status, code: result.error?.code, message: result.error?.error_message,
    attempts: result.attempts, requestId: result.requestId, etag: result.etag,
  });
  window.results = (async () => {
    const credentials = ${JSON.stringify(credentials)};
    const basic = createWorkspaceClient({ baseUrl: ${JSON.stringify(serviceUrl)}, ...credentials, credentialsIn: 'basic' });
    const headers = createWorkspaceClient({ baseUrl: ${JSON.stringify(serviceUrl)}, ...credentials, credentialsIn: 'headers' });
    const checked = await basic.validateCredentials();
    const created = await headers.createUser({ target_user: { username: 'made-by-a-page-' + location.port + '@example.com' } });
    const updated = created.data
      ? await basic.updateUser({ target_user: { user_id: created.data.user.user_id, first_name: 'Paged' } }, { ifMatch: created.etag })
      : created;
    const down = await createWorkspaceClient({ baseUrl: ${JSON.stringify(downUrl)}, ...credentials, retry: false }).validateCredentials();
    const results = { checked: seen(checked), created: seen(created), updated: seen(updated), down: seen(down) };
    document.getElementById('out').textContent = JSON.stringify(results, null, 2);
    return results;
  })();
</script></body></html>`;
}

describe('in a real browser', needs(chromiumTool, 'the browser tests'), () => {
  let browser: Browser;
  let service: TestService;
  let sample: Server;
  let sampleUrl: string;
  let origin: Server;
  let originUrl: string;
  const preflights: string[] = [];
  /** A service that allows one web app's origin (CORS_ORIGINS), and that app; another app on an origin it does not allow. */
  let corsService: TestService;
  let allowedApp: Server;
  let allowedAppUrl: string;
  let refusedApp: Server;
  let refusedAppUrl: string;

  before(async () => {
    assertPresent(chromiumTool);
    await mkdir(SCREENSHOTS, { recursive: true });
    service = await startTestService();
    const counted = express();
    counted.use((req, _res, next) => {
      if (req.method === 'OPTIONS') preflights.push(req.path);
      next();
    });
    counted.use(createSampleApp({ logger: createLogger('silent'), validateResponses: true }));
    sample = createServer(counted);
    sampleUrl = await listen(sample);
    origin = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(thirdPartyPage(sampleUrl, service.baseUrl, service.admin));
    });
    originUrl = await listen(origin);

    const sdk = await bundledSdk();
    const down = createServer();
    const downUrl = await listen(down);
    down.close();
    const webApp = () =>
      createServer((req, res) => {
        if (req.url === '/sdk.js') {
          res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' });
          return void res.end(sdk);
        }
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        res.end(sdkPage(corsService.baseUrl, downUrl, corsService.admin));
      });
    allowedApp = webApp();
    refusedApp = webApp();
    [allowedAppUrl, refusedAppUrl] = await Promise.all([listen(allowedApp), listen(refusedApp)]);
    corsService = await startTestService({ corsOrigins: [allowedAppUrl] });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  });

  after(async () => {
    await browser?.close();
    for (const server of [sample, origin, allowedApp, refusedApp]) {
      server?.closeAllConnections();
      server?.close();
    }
    await service?.close();
    await corsService?.close();
  });

  it('lets a web app on an allowed origin call the service through the bundled SDK, and read ETag and X-Request-Id', async () => {
    const page = await browser.newPage();
    await page.goto(allowedAppUrl);
    const { checked, created, updated, down } = await page.evaluate<SdkResults>('window.results');
    await page.screenshot({ path: join(SCREENSHOTS, 'cross-origin-sdk.png'), fullPage: true });
    assert.equal(checked.status, 200, checked.message);
    assert.equal(created.status, 200, created.message);
    assert.match(created.etag ?? '', /^W\/"\d+"$/, 'the page reads the ETag');
    assert.ok(created.requestId, 'the page reads X-Request-Id');
    assert.equal(updated.status, 200, `If-Match is allowed: ${updated.message}`);
    assert.equal(down.code, 'network_error', 'a service that is down is told apart from a refused origin');
    assert.match(down.message ?? '', /^Cannot reach the workspace service/);
    await page.close();
  });

  it('tells a web app on another origin that the service refused its origin, without retrying', async () => {
    const page = await browser.newPage();
    await page.goto(refusedAppUrl);
    const { checked, created } = await page.evaluate<SdkResults>('window.results');
    for (const call of [checked, created]) {
      assert.equal(call.code, 'origin_refused');
      assert.equal(call.attempts, 1);
      assert.equal(
        call.message,
        `The workspace service at ${corsService.baseUrl} refused this page's origin (${refusedAppUrl}): add it to the service's CORS_ORIGINS, or serve the page from the service's origin`,
      );
    }
    assert.doesNotMatch(corsService.logs(), new RegExp(`made-by-a-page-${new URL(refusedAppUrl).port}`));
    await page.close();
  });

  it('lets a page on another origin read /api/data with credentials, after a preflight', async () => {
    const page = await browser.newPage();
    await page.goto(originUrl);
    const { data } = await page.evaluate<PageResults>('window.results');
    await page.screenshot({ path: join(SCREENSHOTS, 'cross-origin-page.png'), fullPage: true });
    assert.equal(data.reached, true, data.error);
    assert.equal(data.status, 200);
    assert.equal(data.body[0].FirstName, 'John');
    assert.equal(data.body[0].DOB, 'October 21');
    assert.ok(preflights.includes('/api/data'), 'the browser sent a preflight, and it was answered');
    await page.close();
  });

  it('blocks the same page from a credentialed read of the workspace service', async () => {
    const page = await browser.newPage();
    await page.goto(originUrl);
    const { workspace } = await page.evaluate<PageResults>('window.results');
    assert.equal(workspace.reached, false, 'the browser let the page read the workspace service');
    assert.match(workspace.error ?? '', /TypeError/);
    assert.ok(!/validate_credentials.*"statusCode":200/.test(service.logs()), 'the POST itself never ran');
    await page.close();
  });

  it('shows the sample home page with its title and greeting', async () => {
    const page = await browser.newPage();
    await page.goto(`${sampleUrl}/`);
    assert.equal(await page.title(), 'Sample Data Server');
    assert.equal((await page.locator('h2').textContent())?.trim(), 'Hello from the sample data server!');
    await page.screenshot({ path: join(SCREENSHOTS, 'sample-home.png') });
    await page.close();
  });

  it('renders the API reference at /docs: its logo, the updateUser operation, how it takes credentials, and the address it is served at', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // Redoc's footer asks for a logo from its CDN; the page's Content-Security-Policy must stop it,
    // and let the page's own (inline) scripts run.
    const isElsewhere = (url: string) => !url.startsWith(service.baseUrl) && !url.startsWith('blob:') && !url.startsWith('data:');
    const reachedElsewhere: string[] = [];
    const blockedElsewhere: string[] = [];
    page.on('requestfinished', (request) => {
      if (isElsewhere(request.url())) reachedElsewhere.push(request.url());
    });
    page.on('requestfailed', (request) => {
      if (isElsewhere(request.url())) blockedElsewhere.push(`${request.url()} ${request.failure()?.errorText}`);
    });
    await page.goto(`${service.baseUrl}/docs`);
    // As a reader finds it: the Users section of the side menu, then the operation.
    await page.getByText('Users', { exact: true }).first().click();
    await page.getByText('Update a user', { exact: true }).first().click();
    const operation = page.getByRole('heading', { name: /Update a user$/ });
    await operation.waitFor({ timeout: 30_000 });
    assert.ok(await page.getByText('/api/public/update_user').first().isVisible());
    // The ways to send credentials, as a reader should read them: not "None", and the body first.
    assert.ok(
      await page.getByText('API key in the body or HTTP Basic or (api-key header and api-key-secret header)').first().isVisible(),
      'the operation names its credentials',
    );
    // The service's own logo, drawn inline; and the server as the address the page is read at, port included, in plain words.
    const logo = page.getByRole('img', { name: 'Workspace User API' });
    assert.ok(await logo.isVisible(), 'the logo shows');
    assert.ok(
      await logo.evaluate(
        (image) =>
          (image as unknown as { complete: boolean; naturalWidth: number }).complete &&
          (image as unknown as { naturalWidth: number }).naturalWidth > 0,
      ),
      'the logo is drawn, not blank',
    );
    // The operation's server list (shown when its endpoint is opened) resolves the relative server against the page.
    assert.ok(
      (await page.getByText(`${service.baseUrl}/api/public/update_user`, { exact: true }).count()) > 0,
      'the address, with its port',
    );
    assert.ok((await page.getByText('This service, at the address this page is read at').count()) > 0);
    assert.ok((await page.getByText(service.baseUrl, { exact: true }).count()) > 0, 'the servers box names the address, port included');
    assert.ok(!(await page.getByText('http://127.0.0.1:8080/api/public/update_user').count()), "not the contract's own address");
    assert.ok(!(await page.content()).includes('A local `npm start`'), 'no raw Markdown in the servers box');
    await page.screenshot({ path: join(SCREENSHOTS, 'api-reference.png') });
    assert.deepEqual(reachedElsewhere, [], 'the page loaded something from outside the service');
    for (const blocked of blockedElsewhere) assert.match(blocked, / (csp|net::ERR_BLOCKED_BY_CSP)$/i);
    await page.close();
  });

  it('keeps the API reference readable on a 390 px phone: its menu button covers no text, and opens the menu', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${service.baseUrl}/docs`);
    const menu = page.getByRole('button', { name: 'Open navigation menu' });
    await menu.waitFor({ timeout: 30_000 });
    for (const top of [0, 1_500, 4_000, 8_000]) {
      await page.evaluate(`window.scrollTo(0, ${top})`);
      const covered = await page.evaluate<string[]>(TEXT_UNDER_MENU_BUTTON);
      assert.deepEqual(covered, [], `scrolled to ${top} px: text under the menu button`);
    }
    await page.screenshot({ path: join(SCREENSHOTS, 'api-reference-390px.png') });
    await menu.click();
    assert.equal(await page.locator('[data-testid="floating-button"]').getAttribute('aria-expanded'), 'true', 'the menu opens');
    await page.close();
  });
});
