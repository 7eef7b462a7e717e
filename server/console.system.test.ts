/**
 * The web console in Debian's Chromium, driven as a person does: by role and
 * accessible name (the names docs/console.md fixes), with the keyboard where
 * it matters, and checked with axe on every screen. Against the real service
 * and the console `npm run build` made (console/dist).
 */
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Credentials } from '../lib/contract/credentials.js';
import { WORKSPACE_DOCUMENT } from '../lib/contract/operations.js';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { startTestService, type TestService } from './testing/service.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const chromiumTool = TOOLS.chromium();
/** Where each screen's picture goes: test-artifacts/, or docs/console/ for `npm run console:screenshots`. */
const SCREENSHOTS = join(PROJECT_ROOT, process.env.CONSOLE_SCREENSHOTS_DIR ?? join('test-artifacts', 'console'));

/** The serious and critical violations axe finds on the page as it is now (WCAG 2.2 A and AA). */
async function accessibilityViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']).analyze();
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join('; ')})`);
}

describe('the web console in a real browser', needs(chromiumTool, 'the console tests'), () => {
  let browser: Browser;
  let service: TestService;
  /** Content-Security-Policy violations and script errors, from every page: there must be none. */
  const pageErrors: string[] = [];

  before(async () => {
    assertPresent(chromiumTool);
    await mkdir(SCREENSHOTS, { recursive: true });
    service = await startTestService();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  });
  after(async () => {
    await browser?.close();
    await service?.close();
    assert.deepEqual(pageErrors, [], 'no script error and no Content-Security-Policy violation on any page');
  });

  /** A fresh browser profile at the sign-in page. */
  async function openConsole(path = '/console'): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      // The API's 4xx answers are the console's to show (a 412, a 403), and Chromium logs each one.
      if (message.type() === 'error' && !/^Failed to load resource: the server responded with a status of 4\d\d /.test(message.text()))
        pageErrors.push(`${page.url()}: ${message.text()}`);
    });
    await page.goto(`${service.baseUrl}${path}`);
    return { context, page };
  }

  async function signIn(page: Page, credentials: Credentials): Promise<void> {
    await page.getByLabel('API key').fill(credentials.api_key);
    await page.getByLabel('Secret').fill(credentials.api_key_secret);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /**
   * The names docs/console.md fixes each find one control, however a check outside matches
   * them (Playwright's default: any part of the name, in any case).
   */
  async function assertFixedNamesFindOne(page: Page, where: string): Promise<void> {
    for (const name of ['Users', 'Groups', 'API keys', 'Audit log']) {
      assert.equal(await page.getByRole('link', { name }).count(), 1, `the link "${name}" on ${where}`);
    }
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1, `"Sign out" on ${where}`);
  }

  const screen = (page: Page, name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  it('signs in and out, keeping the secret in none of the browser’s storages', async () => {
    const { context, page } = await openConsole();
    assert.deepEqual(await accessibilityViolations(page), [], 'the sign-in page');
    await screen(page, 'sign-in');
    await signIn(page, service.admin);
    await page.getByRole('heading', { name: 'Users' }).waitFor();

    // Every storage a page has, as the page reads it.
    const stored = await page.evaluate<string>(`(async () => JSON.stringify({
      local: { ...localStorage },
      session: { ...sessionStorage },
      cookie: document.cookie,
      indexedDB: (await indexedDB.databases()).map((database) => database.name),
    }))()`);
    assert.ok(!stored.includes(service.admin.api_key_secret), `no storage holds the secret: ${stored}`);
    assert.equal(JSON.parse(stored).cookie, '', 'the session cookie is HttpOnly: no script reads it');
    const [cookie] = await context.cookies();
    assert.deepEqual([cookie?.name, cookie?.httpOnly, cookie?.sameSite, cookie?.path], ['workspace_session', true, 'Strict', '/']);

    await page.reload();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    assert.match((await page.getByRole('status').textContent()) ?? '', /Signed out/);
    assert.deepEqual(await context.cookies(), [], 'the cookie is gone');
    await context.close();
  });

  it('creates a user by keyboard alone, finds, edits, locks, regroups, sets attributes and deletes it', async () => {
    const group = await service.createGroup({ name: 'Console testers' });
    const { context, page } = await openConsole('/console/users');
    await signIn(page, service.admin);
    assert.deepEqual(await accessibilityViolations(page), [], 'the users page');
    await screen(page, 'users');

    await page.getByRole('link', { name: 'New user' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'New user' }).waitFor();
    assert.deepEqual(await accessibilityViolations(page), [], 'the new-user page');
    await page.getByLabel('Username').focus();
    await page.keyboard.type('ada.console@example.com');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Ada');
    await page.keyboard.press('Tab');
    await page.keyboard.type('Lovelace');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'ada.console@example.com' }).waitFor();
    assert.match((await page.getByRole('status').textContent()) ?? '', /created/);

    await page.getByRole('link', { name: 'Users', exact: true }).click();
    await page.getByRole('searchbox', { name: 'Search users' }).fill('lovelace');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL(/search=lovelace/);
    await page.getByRole('row').getByRole('link', { name: 'ada.console@example.com' }).click();
    await page.getByRole('heading', { name: 'ada.console@example.com' }).waitFor();
    assert.deepEqual(await accessibilityViolations(page), [], 'the user page');
    await assertFixedNamesFindOne(page, 'the user page');
    for (const label of ['Username', 'First name', 'Last name', 'Organization', 'Phone', 'New password']) {
      assert.equal(await page.getByLabel(label).count(), 1, `the field "${label}"`);
    }
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 1);
    assert.equal(await page.getByRole('button', { name: 'Delete user' }).count(), 1);
    await screen(page, 'user');

    await page.getByLabel('Organization').fill('Analytical Engines');
    await page.getByRole('checkbox', { name: 'Locked' }).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').getByText('Saved ada.console@example.com.').waitFor();
    const { user } = (await service.callAsAdmin('get_user', { target_user: { username: 'ada.console@example.com' } })).body;
    assert.deepEqual([user.organization, user.locked, user.first_name], ['Analytical Engines', true, 'Ada']);

    await page.getByLabel('Add to group').selectOption({ label: 'Console testers' });
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByRole('button', { name: 'Remove from Console testers' }).waitFor();
    assert.ok(
      (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.groups.some(
        (member: { group_id: string }) => member.group_id === group.group_id,
      ),
    );

    await page.getByLabel('Theme').selectOption('Dark');
    await page.getByRole('checkbox', { name: 'Chat sounds' }).uncheck();
    await page.getByRole('button', { name: 'Update attributes' }).click();
    await page.getByRole('status').getByText('Attributes saved.').waitFor();
    const attributes = (await service.callAsAdmin('get_attributes', { target_user: { user_id: user.user_id } })).body.user_attributes;
    assert.deepEqual([attributes.theme, attributes.chat_sfx], ['Dark', false]);

    await page.getByRole('button', { name: 'Delete user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete ada.console@example.com?' });
    await dialog.waitFor();
    assert.equal(await dialog.getByRole('button', { name: 'Delete', exact: true }).isDisabled(), true, 'not before the name is typed');
    await dialog.getByLabel('Confirm by typing the name').fill('ada.console@example.com');
    await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).status, 404);
    await context.close();
  });

  it('holds the fields to the contract’s lengths, and shows each rule of the password policy met or not as one types', async () => {
    const { context, page } = await openConsole('/console/users/new');
    await signIn(page, service.admin);
    // The contract's lengths, checked as one types.
    const schemas = WORKSPACE_DOCUMENT.components.schemas as Record<string, { maxLength?: number }>;
    for (const [label, schema] of [
      ['Username', 'Username'],
      ['First name', 'ProfileText'],
      ['Phone', 'Phone'],
      ['New password', 'Password'],
    ] as const) {
      assert.equal(await page.getByLabel(label).getAttribute('maxlength'), String(schemas[schema]!.maxLength), label);
    }
    await page.getByLabel('Username').fill('ada.lovelace@example.com');
    await page.getByLabel('New password').fill('lovelace');
    const rules = page.locator('#password-rules li');
    const unmet = async () =>
      await rules.evaluateAll((items) => items.filter((item) => item.className === 'unmet').map((item) => item.textContent));
    assert.deepEqual(await unmet(), [
      '✗ Not met: at least one uppercase letter',
      '✗ Not met: at least one digit',
      '✗ Not met: at least one special character (such as ! @ # $)',
      '✗ Not met: not contain the username',
    ]);
    await page.getByLabel('New password').fill('Correct-Horse-42');
    assert.deepEqual(await unmet(), []);
    await screen(page, 'new-user');
    assert.deepEqual(await accessibilityViolations(page), [], 'the new-user page with its rules');
    await context.close();
  });

  it('imports users from a CSV file with a progress bar and what became of each row, twice without making any twice', async () => {
    const { context, page } = await openConsole('/console/users');
    await signIn(page, service.admin);
    await page.getByRole('link', { name: 'Import from CSV' }).click();
    await page.getByRole('heading', { name: 'Import users' }).waitFor();
    const csv = {
      name: 'class-of-2027.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'username,first_name,locked\nturing@example.com,Alan,false\nhopper@example.com,Grace,maybe\nlamarr@example.com,Hedy,\n',
      ),
    };
    await page.getByLabel('CSV file').setInputFiles(csv);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').getByText('Created 2 of 3 users; 1 failed.').waitFor();
    assert.equal(await page.getByRole('progressbar', { name: 'Import progress' }).getAttribute('value'), '3');
    assert.deepEqual(await page.locator('tbody tr').allInnerTexts(), [
      '2\tturing@example.com\tCreated',
      '3\thopper@example.com\tlocked must be true or false, not "maybe"',
      '4\tlamarr@example.com\tCreated',
    ]);
    assert.deepEqual(await accessibilityViolations(page), [], 'the import page');
    await screen(page, 'import-users');

    await page.getByLabel('CSV file').setInputFiles(csv);
    await page.getByRole('button', { name: 'Import' }).click();
    await page.getByRole('status').getByText('Created 0 of 3 users, 2 by an earlier import; 1 failed.').waitFor();
    const found = await service.callAsAdmin('get_users', { search: 'turing', page_size: 10 });
    assert.equal(found.body.total, 1, 'the second run made no user twice');
    await context.close();
  });

  it('answers an edit made elsewhere since the page loaded with the conflict and a way to reload, never overwriting', async () => {
    const user = await service.createUser({ first_name: 'Grace' });
    const { context, page } = await openConsole(`/console/users/${user.user_id}`);
    await signIn(page, service.admin);
    await page.getByLabel('First name').waitFor();
    await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, first_name: 'Elsewhere' } });
    await page.getByLabel('First name').fill('Mine');
    await page.getByRole('button', { name: 'Save' }).click();
    await page
      .getByRole('alert')
      .getByText(/changed this user since you opened it/)
      .waitFor();
    assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.first_name, 'Elsewhere');
    await page.getByRole('button', { name: 'Reload the user' }).click();
    await page.waitForFunction(`document.querySelector('input[name=first_name]')?.value === 'Elsewhere'`);
    await context.close();
  });

  it('shows a users_view key no Save button, and its forged writes are refused', async () => {
    const viewer = await service.createKey({ permissions: ['users_view'] });
    const user = await service.createUser();
    const { context, page } = await openConsole(`/console/users/${user.user_id}`);
    await signIn(page, viewer);
    await page.getByLabel('Username').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
    assert.equal(await page.getByRole('link', { name: 'New user' }).count(), 0);
    // A script in the page (an injected one, say) writing past the console: refused either way.
    const forged = await page.evaluate<unknown[]>(`(async () => {
      const post = (path, headers = {}) => fetch(path, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body: JSON.stringify({ target_user: { username: 'forged@example.com' } }),
      });
      const session = await (await post('/api/public/get_session')).json();
      const withoutToken = await post('/api/public/create_user');
      const withToken = await post('/api/public/create_user', { 'X-CSRF-Token': session.csrf_token });
      return [withoutToken.status, (await withoutToken.json()).code, withToken.status, (await withToken.json()).code];
    })()`);
    assert.deepEqual(forged, [403, 'invalid_csrf_token', 403, 'permission_denied']);
    await context.close();
  });

  it('makes a key with chosen permissions, shows its secret once, and revokes it after asking', async () => {
    const { context, page } = await openConsole('/console/keys');
    await signIn(page, service.admin);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    assert.deepEqual(await accessibilityViolations(page), [], 'the API keys page');
    await page.getByLabel('Key name').fill('reporting');
    await page.getByRole('checkbox', { name: 'users_view' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.getByRole('region', { name: "New key's secret" }).locator('code').textContent()) ?? '';
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy secret' }).waitFor();
    await screen(page, 'api-keys');
    const made = (await service.callAsAdmin('get_api_keys', {})).body.api_keys.find((key: { name: string }) => key.name === 'reporting');
    assert.deepEqual(made.permissions, ['users_view']);

    let asked = '';
    page.once('dialog', (dialog) => {
      asked = dialog.message();
      void dialog.accept();
    });
    await page.getByRole('button', { name: 'Revoke reporting' }).click();
    await page.getByRole('status').getByText('Key reporting revoked.').waitFor();
    assert.match(asked, /^Revoke reporting\?/);
    const after = (await service.callAsAdmin('get_api_keys', { include_revoked: true })).body.api_keys;
    assert.notEqual(after.find((key: { api_key: string }) => key.api_key === made.api_key).revoked, null);
    await context.close();
  });

  it('lists, makes and renames groups, keeping the system group, shows a group’s members, and reads the audit log by kind of change', async () => {
    const { context, page } = await openConsole('/console/groups');
    await signIn(page, service.admin);
    await page.getByRole('cell', { name: 'All Users', exact: true }).waitFor();
    assert.deepEqual(await accessibilityViolations(page), [], 'the groups page');
    await assertFixedNamesFindOne(page, 'the groups page, where a group is named "All Users"');
    assert.equal(await page.getByRole('button', { name: 'Delete All Users' }).count(), 0, 'the system group cannot be deleted');
    await page.getByLabel('Group name').fill('Night shift');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('cell', { name: 'Night shift', exact: true }).waitFor();
    page.once('dialog', (dialog) => void dialog.accept('Night shift crew'));
    await page.getByRole('button', { name: 'Rename Night shift' }).click();
    await page.getByRole('cell', { name: 'Night shift crew', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Rename All Users' }).count(), 0, 'the system group keeps its name');
    await screen(page, 'groups');

    // A group's members: the users listing, of that group alone.
    const member = await service.createUser({ first_name: 'Crew' });
    const crew = (await service.callAsAdmin('get_groups', {})).body.groups.find(
      (found: { name: string }) => found.name === 'Night shift crew',
    );
    await service.callAsAdmin('add_user_group', { target_user: { user_id: member.user_id }, target_group: { group_id: crew.group_id } });
    await page
      .getByRole('row', { name: /Night shift crew/ })
      .getByRole('link', { name: 'Members' })
      .click();
    await page.getByRole('heading', { name: 'Members of Night shift crew' }).waitFor();
    await page.getByText('1 users.').waitFor();
    await page.getByRole('row').getByRole('link', { name: member.username }).waitFor();

    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    await page.getByRole('cell', { name: 'createGroup' }).first().waitFor();
    await page.getByLabel('Change').selectOption('createGroup');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/operation=createGroup/);
    await page.getByRole('cell', { name: 'createGroup' }).first().waitFor();
    const kinds = await page.locator('tbody tr td:nth-child(2)').allTextContents();
    assert.ok(kinds.length > 0 && kinds.every((kind) => kind === 'createGroup'), kinds.join());
    assert.deepEqual(await accessibilityViolations(page), [], 'the audit log');
    await screen(page, 'audit-log');
    await context.close();
  });

  it('adds a webhook (its secret shown once), disables it, rotates its secret, reads its deliveries and deletes it', async () => {
    const url = 'https://93.184.216.34/console-test';
    const { context, page } = await openConsole('/console/webhooks');
    await signIn(page, service.admin);
    await page.getByRole('heading', { name: 'Webhooks' }).waitFor();
    await page.getByLabel('Receiver URL').fill(url);
    await page.getByRole('checkbox', { name: 'Users' }).check();
    await page.getByRole('button', { name: 'Add webhook' }).click();
    const secret = page.getByRole('region', { name: "Webhook's signing secret" }).locator('code');
    const first = (await secret.textContent()) ?? '';
    assert.match(first, /^whsec_/);
    assert.deepEqual(await accessibilityViolations(page), [], 'the webhooks page');
    await screen(page, 'webhooks');
    const [made] = (await service.callAsAdmin('get_webhooks', {})).body.webhooks.filter((hook: { url: string }) => hook.url === url);
    assert.deepEqual([made.event_types, made.enabled], [['user.*'], true]);

    await page.getByRole('button', { name: `Disable ${url}` }).click();
    await page.getByRole('cell', { name: 'Disabled' }).waitFor();
    await page.getByRole('button', { name: `Rotate the secret of ${url}` }).click();
    await page
      .getByRole('status')
      .getByText(/New signing secret made/)
      .waitFor();
    assert.notEqual(await secret.textContent(), first);
    await page.getByRole('button', { name: `Deliveries to ${url}` }).click();
    await page.getByText('No delivery attempted yet.').waitFor();

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: `Delete ${url}` }).click();
    await page.getByRole('status').getByText(`Webhook to ${url} deleted.`).waitFor();
    assert.deepEqual(
      (await service.callAsAdmin('get_webhooks', {})).body.webhooks.filter((hook: { url: string }) => hook.url === url),
      [],
    );
    await context.close();
  });

  it('goes back to sign-in when its key is revoked', async () => {
    const key = await service.createKey({ permissions: ['users_view'] });
    const { context, page } = await openConsole('/console/users');
    await signIn(page, key);
    await page.getByText(/^\d+ users\.$/).waitFor();
    await service.callAsAdmin('revoke_api_key', { target_api_key: { api_key: key.api_key } });
    await page.getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});
