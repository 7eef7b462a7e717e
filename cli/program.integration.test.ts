import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { verifyPassword } from '../server/testing/passwords.js';
import { startTestService, type TestService } from '../server/testing/service.js';
import { TEST_SETUP } from '../server/testing/test-setup.js';
import { runCli } from './program.js';
import { testIo, type TestIoOptions } from './testing/cli-io.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('the workspace-users CLI, in process against the service', () => {
  let service: TestService;
  let directory: string;
  let engineering: string;
  const environment = () => ({
    WORKSPACE_URL: service.baseUrl,
    WORKSPACE_API_KEY: service.admin.api_key,
    WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
  });
  const run = async (args: string[], options: TestIoOptions = {}): Promise<Run> => {
    const test = testIo({ env: environment(), ...options });
    const code = await runCli(args, test.io);
    return { code, stdout: test.stdout(), stderr: test.stderr() };
  };
  const cli = (args: string[], stdin?: string) => run(args, stdin === undefined ? {} : { stdin });

  before(async () => {
    service = await startTestService();
    engineering = (await service.createGroup({ name: 'Engineering' })).group_id;
    directory = await mkdtemp(join(tmpdir(), 'workspace-cli-'));
  });
  after(async () => {
    await service.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('create → update → group add by name → get → list → delete', async () => {
    const created = await cli(
      ['create', '--username', 'Grace@Example.com', '--first-name', 'Grace', '--password-stdin', '--json'],
      'Correct-Horse-42\n',
    );
    assert.equal(created.code, 0, created.stderr);
    const { user_id } = JSON.parse(created.stdout);
    assert.ok(
      await verifyPassword((await service.inspection.passwordHash(user_id))!, 'Correct-Horse-42'),
      'the password came from stdin, newline dropped',
    );

    const updated = await cli(['update', user_id, '--last-name', 'Hopper', '--lock', '--json']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(JSON.parse(updated.stdout).last_name, 'Hopper');
    assert.equal(JSON.parse(updated.stdout).locked, true);

    const grouped = await cli(['group', 'add', user_id, 'engineering']);
    assert.equal(grouped.code, 0, grouped.stderr);

    const got = await cli(['get', 'grace@example.com', '--json']);
    assert.equal(got.code, 0, got.stderr);
    const user = JSON.parse(got.stdout);
    assert.equal(user.user_id, user_id);
    assert.equal(user.first_name, 'Grace');
    assert.deepEqual(
      user.groups.map((group: { name: string }) => group.name),
      ['All Users', 'Engineering'],
    );

    // The listing shows the user as changed (the page holds what other tests made too).
    const listed = await cli(['list', '--json', '--page', '0', '--page-size', '100']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(JSON.parse(listed.stdout).users.find((entry: { user_id: string }) => entry.user_id === user_id)?.last_name, 'Hopper');
    const table = await cli(['list']);
    assert.match(table.stdout, /grace@example.com .*Grace Hopper .*locked/);

    const removed = await cli(['group', 'remove', user_id, engineering]);
    assert.equal(removed.code, 0, removed.stderr);

    const deleted = await cli(['delete', user_id, '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(await service.store.users.findById(user_id), undefined);

    const audit = await cli(['audit', '--user', user_id, '--json']);
    assert.equal(audit.code, 0, audit.stderr);
    assert.deepEqual(
      JSON.parse(audit.stdout).events.map((event: { operation: string; actor: string }) => [event.operation, event.actor]),
      ['deleteUser', 'removeUserGroup', 'addUserGroup', 'updateUser', 'createUser'].map((operation) => [operation, service.admin.api_key]),
    );
    const auditTable = await cli(['audit', '--user', user_id]);
    assert.match(auditTable.stdout, /updateUser .*last_name, locked/);
  });

  it('shows the version with get, and changes or deletes a user only at the version given with --if-match', async () => {
    const user = await service.createUser({ first_name: 'Versioned' });
    const shown = await cli(['get', user.user_id]);
    const version = /^version +(W\/"[0-9]+")$/m.exec(shown.stdout)?.[1];
    assert.ok(version, shown.stdout);
    const updated = await cli(['update', user.user_id, '--last-name', 'First', '--if-match', version]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.doesNotMatch(updated.stdout, new RegExp(`version +${version.replace(/[/"]/g, '\\$&')}`), 'a new version');
    const stale = await cli(['update', user.user_id, '--last-name', 'Lost', '--if-match', version]);
    assert.equal(stale.code, 1);
    assert.match(stale.stderr, /not at the version If-Match names; it is now at W\/"[0-9]+"/);
    assert.equal((await cli(['delete', user.user_id, '--yes', '--if-match', version])).code, 1);
    assert.equal((await service.store.users.findById(user.user_id))?.record.last_name, 'First', 'neither stale change happened');
  });

  it('lists a page, the page after it by cursor, and every user with --all', async () => {
    for (const name of ['ann', 'bob', 'cy', 'dee', 'eve'])
      await service.createUser({ username: `${name}@list.example`, last_name: name.toUpperCase() });
    const everyone = await service.callAsAdmin('get_users', { sort_by: 'last_name', sort_direction: 'desc', page_size: 500 });
    const inOrder: string[] = everyone.body.users.map((user: { username: string }) => user.username);
    assert.ok(inOrder.length >= 5);

    const first = await cli(['list', '--page-size', '2', '--sort-by', 'last_name', '--desc']);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`page 0 of 0–${Math.ceil(inOrder.length / 2) - 1}, ${inOrder.length} users in all`));
    const cursor = /next page: --cursor (\S+)/.exec(first.stdout)?.[1];
    assert.ok(cursor, first.stdout);
    const second = await cli(['list', '--cursor', cursor, '--page-size', '2', '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(
      JSON.parse(second.stdout).users.map((user: { username: string }) => user.username),
      inOrder.slice(2, 4),
    );

    const all = await cli(['list', '--all', '--page-size', '2', '--sort-by', 'last_name', '--desc', '--json']);
    assert.equal(all.code, 0, all.stderr);
    assert.deepEqual(
      JSON.parse(all.stdout).users.map((user: { username: string }) => user.username),
      inOrder,
      'one JSON shape for every listing: { users, total }',
    );
    assert.equal(JSON.parse(all.stdout).total, inOrder.length);

    const searched = await cli(['list', '--search', '@LIST.example', '--all', '--page-size', '2', '--json']);
    assert.equal(searched.code, 0, searched.stderr);
    assert.deepEqual(
      JSON.parse(searched.stdout)
        .users.map((user: { username: string }) => user.username)
        .sort(),
      ['ann', 'bob', 'cy', 'dee', 'eve'].map((name) => `${name}@list.example`),
      'the search followed page after page by its cursor',
    );
    const onePage = await cli(['list', '--search', 'EVE@list']);
    assert.equal(onePage.code, 0, onePage.stderr);
    assert.match(onePage.stdout, /eve@list\.example/);
    assert.match(onePage.stdout, /1 users in all/);

    const both = await cli(['list', '--page', '2', '--cursor', cursor]);
    assert.equal(both.code, 2, 'a usage error');
    assert.match(both.stderr, /cannot be used with/);
    const forged = await cli(['list', '--cursor', 'bm90LWEtY3Vyc29y']);
    assert.equal(forged.code, 1);
    assert.match(forged.stderr, /cursor: is not a cursor this service handed out.*\(invalid_cursor\)/);
  });

  it("fails with the service's error_message on stderr and exit 1", async () => {
    const missing = await cli(['get', '0'.repeat(32)]);
    assert.equal(missing.code, 1);
    assert.equal(missing.stderr, `error: no user has the user_id or username "${'0'.repeat(32)}"\n`);
    assert.equal(missing.stdout, '');

    const user = await service.createUser();
    const weak = await cli(['update', user.user_id, '--password-stdin'], 'weak\n');
    assert.equal(weak.code, 1);
    assert.match(weak.stderr, /^error: Password must be at least 8 characters long/);

    const noGroup = await cli(['group', 'add', user.user_id, 'Nonexistent']);
    assert.equal(noGroup.code, 1);
    assert.match(noGroup.stderr, /no group "Nonexistent"; the groups are: All Users, Engineering/);

    const wrongKey = await run(['auth'], {
      env: { WORKSPACE_URL: service.baseUrl, WORKSPACE_API_KEY: 'nope', WORKSPACE_API_KEY_SECRET: 'nope' },
    });
    assert.equal(wrongKey.code, 1);
    assert.match(wrongKey.stderr, /Invalid API key or secret/);
  });

  it('takes no password as an argument, and refuses to delete unasked without a terminal', async () => {
    const user = await service.createUser();
    const asArgument = await cli(['update', user.user_id, '--password', 'Correct-Horse-42']);
    assert.equal(asArgument.code, 2, 'a usage error');
    assert.match(asArgument.stderr, /unknown option '--password'/);

    const unasked = await cli(['delete', user.user_id]);
    assert.equal(unasked.code, 2);
    assert.match(unasked.stderr, /not deleting without --yes/);
    assert.ok(await service.store.users.findById(user.user_id), 'the user is still there');
  });

  it('imports a CSV, reporting a bad row without stopping at it', async () => {
    const file = join(directory, 'users.csv');
    await writeFile(
      file,
      [
        'username,first_name,last_name,password,locked',
        'ann@x.io,Ann,Lee,Correct-Horse-42,',
        'bad user,Bad,Row,,',
        'bob@x.io,Bob,Ray,weak,',
        'cid@x.io,Cid,Moe,,yes',
        '',
      ].join('\n'),
    );
    const run = await cli(['import', file, '--json']);
    assert.equal(run.code, 1, 'a failed row makes the exit non-zero');
    const summary = JSON.parse(run.stdout);
    assert.equal(summary.rows, 4);
    assert.equal(summary.created, 2);
    assert.deepEqual(
      summary.failed.map((failure: { line: number; username: string }) => [failure.line, failure.username]),
      [
        [3, 'bad user'],
        [4, 'bob@x.io'],
      ],
    );
    assert.match(summary.failed[1].error, /weak_password/);
    assert.equal((await service.store.users.findByUsername('cid@x.io'))?.record.locked, true, 'rows after a bad one are created');

    // Run again, as after an interruption: the rows made before are not made twice, nor reported as taken.
    const again = JSON.parse((await cli(['import', file, '--json'])).stdout);
    assert.deepEqual([again.created, again.alreadyCreated, again.failed.length], [0, 2, 2]);
    const ann = (await service.inspection.rows('users')).filter((row) => row.username === 'ann@x.io');
    assert.equal(ann.length, 1);
    const keyRows = await service.inspection.rows('idempotency_keys');
    assert.ok(
      keyRows.every((row) => !JSON.stringify(row).includes('Correct-Horse-42')),
      'no password in what the service keeps of a key',
    );

    const unknownColumn = join(directory, 'odd.csv');
    await writeFile(unknownColumn, 'username,role\nx@x.io,admin\n');
    const refused = await cli(['import', unknownColumn]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /unknown column role/);
  });

  it('prints what the service stores without letting it act on the terminal: escapes, C1 controls and bidi overrides are shown escaped', async () => {
    // Profile fields take any text; a username cannot hold these, nor can a group's name now, but one stored before could.
    const hostile = {
      first_name: '\x1b[2J\x1b]0;owned\x07Eve',
      last_name: 'Smith\u202Egnp.exe',
      organization: '\u009b31mRed\nForged line',
    };
    const user = await service.createUser(hostile);
    const ops = { group_id: randomBytes(16).toString('hex') };
    await service.store.groups.create({ ...ops, name: 'Ops\x1b[5m' }, TEST_SETUP);
    await service.callAsAdmin('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: ops.group_id } });
    for (const args of [
      ['list'],
      ['list', '--json'],
      ['get', user.user_id],
      ['get', user.user_id, '--json'],
      ['group', 'add', user.user_id, 'no such group'],
    ]) {
      const run = await cli(args);
      const output = run.stdout + run.stderr;
      for (const raw of ['\x1b', '\x07', '\u009b', '\u202e'])
        assert.ok(!output.includes(raw), `${args.join(' ')} printed ${JSON.stringify(raw)} raw`);
      if (!args.includes('--json') && args[0] !== 'group') assert.match(output, /\\u\{1B\}\[2J/, args.join(' '));
    }
    const json = JSON.parse((await cli(['get', user.user_id, '--json'])).stdout);
    assert.deepEqual(
      [json.first_name, json.last_name, json.organization],
      [hostile.first_name, hostile.last_name, hostile.organization],
      '--json keeps the values exact',
    );
    assert.equal(
      (await cli(['get', user.user_id])).stdout.split('\n').filter((line) => line.startsWith('Forged')).length,
      0,
      'a newline cannot forge a line',
    );
  });

  it("logs a user out, shows and changes a user's attributes, and creates, renames and deletes a group", async () => {
    const user = await service.createUser();
    const logout = await cli(['logout', user.user_id]);
    assert.equal(logout.code, 0, logout.stderr);
    assert.notEqual((await service.store.users.findById(user.user_id))!.record.sessions_valid_from, null);

    const keyFile = join(directory, 'id_ed25519.pub');
    await writeFile(keyFile, 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@example.com\n');
    const changed = await cli([
      'attributes',
      user.user_id,
      '--theme',
      'Dark',
      '--timezone',
      'europe/paris',
      '--ssh-key-file',
      keyFile,
      '--json',
    ]);
    assert.equal(changed.code, 0, changed.stderr);
    assert.deepEqual(
      [
        JSON.parse(changed.stdout).theme,
        JSON.parse(changed.stdout).preferred_timezone,
        JSON.parse(changed.stdout).ssh_public_key.split(' ')[0],
      ],
      ['Dark', 'Europe/Paris', 'ssh-ed25519'],
    );
    const shown = await cli(['attributes', user.user_id]);
    assert.match(shown.stdout, /preferred_timezone +│ Europe\/Paris/);

    const created = await cli(['group', 'create', 'Design', '--priority', '7', '--json']);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).priority, 7);
    assert.equal((await cli(['group', 'rename', 'design', 'Product Design'])).code, 0);
    const deleted = await cli(['group', 'delete', 'Product Design', '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(
      (await service.store.groups.list()).some((group) => group.name.includes('Design')),
      false,
    );
  });

  it('shows the change feed a page at a time, and follows it with --follow (one line, or one JSON line, per event) until stopped', async () => {
    const page = await cli(['events', '--limit', '1000', '--json']);
    assert.equal(page.code, 0, page.stderr);
    let cursor = JSON.parse(page.stdout).next_cursor as string;
    while (JSON.parse((await cli(['events', '--after', cursor, '--limit', '1000', '--json'])).stdout).events.length === 1000)
      cursor = JSON.parse((await cli(['events', '--after', cursor, '--limit', '1000', '--json'])).stdout).next_cursor;
    for (const json of [false, true]) {
      const stop = new AbortController();
      const test = testIo({ env: environment(), stop: stop.signal });
      const following = runCli(['events', '--follow', '--type', 'user.*', '--after', cursor, ...(json ? ['--json'] : [])], test.io);
      const user = await service.createUser({ username: `followed-${json}@example.com` });
      while (!test.stdout().includes(user.user_id)) await new Promise((resolve) => setTimeout(resolve, 20));
      stop.abort();
      assert.equal(await following, 0, test.stderr());
      const lines = test.stdout().trimEnd().split('\n');
      assert.equal(lines.length, 1, test.stdout());
      if (json) assert.deepEqual([JSON.parse(lines[0]!).type, JSON.parse(lines[0]!).data.resource.id], ['user.created', user.user_id]);
      else
        assert.match(lines[0]!, new RegExp(`user\\.created +user ${user.user_id} v1 \\[username\\]  by api_key ${service.admin.api_key}`));
      assert.match(test.stderr(), /stopped; to go on from here: --after \S+/);
      cursor = /--after (\S+)/.exec(test.stderr())![1]!;
    }
  });

  it('makes, lists, disables, rotates, pings, redelivers and deletes a webhook', async () => {
    const added = await cli(['webhooks', 'add', 'https://93.184.216.34/cli', '--type', 'user.*', '--description', 'CLI', '--json']);
    assert.equal(added.code, 0, added.stderr);
    const { webhook, secret } = JSON.parse(added.stdout);
    assert.match(secret, /^whsec_/);
    const listed = await cli(['webhooks', 'list']);
    assert.match(listed.stdout, new RegExp(`${webhook.webhook_id} +│ https://93\\.184\\.216\\.34/cli +│ user\\.\\* +│ enabled`));
    assert.ok(!listed.stdout.includes(secret));
    assert.equal((await cli(['webhooks', 'disable', webhook.webhook_id])).code, 0);
    assert.match((await cli(['webhooks', 'list'])).stdout, /disabled/);
    const rotated = await cli(['webhooks', 'rotate', webhook.webhook_id]);
    assert.match(rotated.stdout, /^secret: whsec_/);
    assert.doesNotMatch(rotated.stdout, new RegExp(secret.replace(/[+/]/g, '\\$&')));
    assert.match((await cli(['webhooks', 'ping', webhook.webhook_id])).stderr, /queued a ping/);
    assert.equal(JSON.parse((await cli(['webhooks', 'deliveries', webhook.webhook_id, '--json'])).stdout).length, 0);
    assert.match((await cli(['webhooks', 'redeliver', webhook.webhook_id, '--since', '2000-01-01'])).stderr, /queued \d+ deliveries/);
    assert.equal((await cli(['webhooks', 'rm', webhook.webhook_id])).code, 0);
    const refused = await cli(['webhooks', 'add', 'http://169.254.169.254/']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /Invalid webhook URL: the host 169\.254\.169\.254 is a link-local address/);
  });

  it('has --help on every command', async () => {
    for (const command of [
      [],
      ['auth'],
      ['list'],
      ['get'],
      ['create'],
      ['update'],
      ['delete'],
      ['group', 'add'],
      ['group', 'remove'],
      ['group', 'create'],
      ['group', 'rename'],
      ['group', 'delete'],
      ['logout'],
      ['attributes'],
      ['import'],
      ['audit'],
    ]) {
      const help = await cli([...command, '--help']);
      assert.equal(help.code, 0, command.join(' '));
      assert.match(help.stdout, /^Usage: workspace-users/);
    }
  });

  it('names a user by username or user_id wherever it takes one, with one clear error for none and for two', async () => {
    const alice = await service.createUser({ username: 'alice@example.com', first_name: 'Alice' });
    const updated = await cli(['update', 'Alice@Example.com', '--first-name', 'A', '--json']);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(JSON.parse(updated.stdout).first_name, 'A');
    assert.equal((await service.store.users.findById(alice.user_id))?.record.first_name, 'A');

    // The dashed form some Kasm clients send names the same user.
    const dashed = alice.user_id.replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    for (const named of [alice.user_id, dashed, 'alice@example.com']) {
      const grouped = await cli(['group', 'add', named, 'engineering']);
      assert.equal(grouped.code, 0, `${named}: ${grouped.stderr}`);
      assert.match(grouped.stderr, /^added alice@example\.com to Engineering\n$/);
      assert.equal((await cli(['group', 'remove', named, 'Engineering'])).code, 0);
      assert.equal((await cli(['attributes', named, '--json'])).code, 0);
    }
    const audit = await cli(['audit', '--user', 'alice@example.com', '--json']);
    assert.ok(JSON.parse(audit.stdout).events.every((event: { target_user_id: string }) => event.target_user_id === alice.user_id));

    const unknown = await cli(['update', 'nobody@example.com', '--first-name', 'X']);
    assert.equal(unknown.code, 1);
    assert.equal(unknown.stderr, 'error: no user has the user_id or username "nobody@example.com"\n');
    const notAName = await cli(['delete', 'not a name!', '--yes']);
    assert.equal(notAName.code, 1);
    assert.match(notAName.stderr, /no user has the user_id or username "not a name!"/);
    assert.doesNotMatch(unknown.stderr + notAName.stderr, /pattern|\^\[/, 'no regular expression in the message');

    // A username that is another user's id: the CLI will not guess which is meant.
    const lookalike = await service.createUser({ username: alice.user_id });
    const ambiguous = await cli(['delete', alice.user_id, '--yes']);
    assert.equal(ambiguous.code, 1);
    assert.match(ambiguous.stderr, new RegExp(`is the user_id of alice@example.com and the username of the user ${lookalike.user_id}`));
    assert.ok(await service.store.users.findById(alice.user_id), 'nothing deleted');
    assert.ok(await service.store.users.findById(lookalike.user_id), 'nothing deleted');

    const deleted = await cli(['delete', 'alice@example.com', '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.equal(await service.store.users.findById(alice.user_id), undefined);
  });

  it('ends with 2 on a usage error and says what was wrong', async () => {
    for (const [args, message] of [
      [['list', '--no-such-flag'], /unknown option '--no-such-flag'/],
      [['get'], /missing required argument 'user'/],
      [['list', '--page-size', '0'], /expected a whole number of at least 1/],
      [['update', 'someone@example.com'], /nothing to change/],
      [['no-such-command'], /unknown command 'no-such-command'/],
      [[], /Usage: workspace-users/],
    ] as const) {
      const refused = await cli([...args]);
      assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, message);
    }
  });

  it('prints its version', async () => {
    const printed = await cli(['--version']);
    assert.equal(printed.code, 0);
    const manifest = JSON.parse(await readFile(join(PROJECT_ROOT, 'cli', 'package.json'), 'utf8')) as { version: string };
    assert.equal(printed.stdout, `${manifest.version}\n`);
  });

  it('fits its tables to an 80-column terminal, and keeps every value whole in --json', async () => {
    const long = 'x'.repeat(60);
    const user = await service.createUser({ username: `${'long'.repeat(12)}@example.com`, first_name: long, organization: long });
    await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, last_name: long, phone: '+1 555 0100' } });
    for (const args of [['list'], ['audit'], ['audit', '--user', user.user_id], ['attributes', user.user_id]]) {
      const shown = await run(args, { columns: 80 });
      assert.equal(shown.code, 0, shown.stderr);
      const lines = shown.stdout.split('\n');
      const over = lines.filter((line) => line.length > 80);
      assert.deepEqual(over, [], `${args.join(' ')} at 80 columns`);
      if (args[0] === 'list') assert.ok(shown.stdout.includes(user.user_id), 'the user_id is never shortened');
    }
    const piped = await run(['list']);
    assert.ok(
      piped.stdout.split('\n').some((line) => line.length > 80),
      'no terminal, no width: nothing shortened',
    );
    const json = JSON.parse((await run(['list', '--json'], { columns: 80 })).stdout);
    assert.ok(json.users.some((entry: { first_name: string }) => entry.first_name === long));
  });

  it('auth asks for the key on a terminal, and without one refuses naming its own options and variables', async () => {
    const prompted = await run(['auth'], {
      env: { WORKSPACE_URL: service.baseUrl },
      interactive: true,
      answers: [service.admin.api_key, service.admin.api_key_secret],
    });
    assert.equal(prompted.code, 0, prompted.stderr);
    assert.match(prompted.stdout, new RegExp(`^Valid key ${service.admin.api_key} `));
    assert.match(prompted.stderr, new RegExp(`export WORKSPACE_API_KEY=${service.admin.api_key} WORKSPACE_API_KEY_SECRET=<the secret>`));
    assert.ok(!(prompted.stdout + prompted.stderr).includes(service.admin.api_key_secret), 'the secret is never printed');

    const unattended = await run(['auth'], { env: { WORKSPACE_URL: service.baseUrl } });
    assert.equal(unattended.code, 2);
    assert.match(unattended.stderr, /--api-key and --api-key-secret, or set WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET/);
    assert.doesNotMatch(unattended.stderr, /api_key_secret|pass api_key/, "the SDK's parameter names are not the CLI's");
    const listing = await run(['list'], { env: { WORKSPACE_URL: service.baseUrl }, interactive: true });
    assert.equal(listing.code, 2, 'other commands never prompt');
    assert.match(listing.stderr, /workspace-users auth/);
  });

  it('asks before deleting on a terminal, and deletes only on yes', async () => {
    const user = await service.createUser();
    const declined = await run(['delete', user.username], { interactive: true, answers: ['n'] });
    assert.equal(declined.code, 1);
    assert.ok(await service.store.users.findById(user.user_id));
    const accepted = await run(['delete', user.username], { interactive: true, answers: ['yes'] });
    assert.equal(accepted.code, 0, accepted.stderr);
    assert.equal(await service.store.users.findById(user.user_id), undefined);
  });
});
