/**
 * SCIM Groups over HTTP: the workspace API's groups, with members as its
 * memberships; Entra ID's member PATCHes in batches; the system group kept.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';
import { type ScimClient, scimClient } from '../testing/scim-client.js';

const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
let groupNames = 0;
const freshGroupName = () => `SCIM group ${process.pid}-${Date.now()}-${++groupNames}`;

describe('SCIM Groups', () => {
  let service: TestService;
  let scim: ScimClient;
  before(async () => {
    service = await startTestService();
    scim = scimClient(service);
  });
  after(() => service.close());

  const memberIds = (group: { members: { value: string }[] }) => group.members.map((member) => member.value).sort();
  const groupsOf = async (userId: string) =>
    (await service.callAsAdmin('get_user', { target_user: { user_id: userId } })).body.user.groups.map(
      (group: { name: string }) => group.name,
    );

  it('creates a group with members, which the workspace API shows as memberships', async () => {
    const [ada, bob] = [await service.createUser(), await service.createUser()];
    const displayName = freshGroupName();
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName,
      externalId: 'entra-8c1b',
      members: [{ value: ada.user_id }, { value: bob.user_id, display: 'ignored' }],
    });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('Location'), created.body.meta.location);
    assert.equal(created.headers.get('ETag'), created.body.meta.version);
    assert.deepEqual(memberIds(created.body), [ada.user_id, bob.user_id].sort());
    assert.ok((await groupsOf(ada.user_id)).includes(displayName));
    const listed = await service.callAsAdmin('get_groups');
    assert.ok(listed.body.groups.some((group: { group_id: string }) => group.group_id === created.body.id));
  });

  it("adds and removes members with Entra ID's PATCHes, in batches, and audits each membership naming SCIM", async () => {
    const users = [await service.createUser(), await service.createUser(), await service.createUser()];
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName() })).body;
    const added = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Add', path: 'members', value: users.map((user) => ({ value: user.user_id })) }],
    });
    // 204 (RFC 7644, 3.5.2), with the new version.
    assert.equal(added.status, 204, added.text);
    assert.equal(added.text, '');
    const afterAdding = await scim('GET', `/Groups/${group.id}`);
    assert.deepEqual(memberIds(afterAdding.body), users.map((user) => user.user_id).sort());
    assert.equal(added.headers.get('ETag'), afterAdding.headers.get('ETag'));
    assert.notEqual(added.headers.get('ETag'), group.meta.version);
    const removed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Remove', path: `members[value eq "${users[0]!.user_id}"]` },
        { op: 'Remove', path: 'members', value: [{ value: users[1]!.user_id }] },
      ],
    });
    assert.equal(removed.status, 204, removed.text);
    assert.deepEqual(memberIds((await scim('GET', `/Groups/${group.id}`)).body), [users[2]!.user_id]);
    assert.ok(!(await groupsOf(users[0]!.user_id)).includes(group.displayName));
    const events = await service.callAsAdmin('get_audit_events', { target_user_id: users[1]!.user_id });
    const operations = events.body.events
      .filter((event: { target_group_id: string }) => event.target_group_id === group.id)
      .map((event: { operation: string; protocol: string }) => `${event.operation} via ${event.protocol}`);
    assert.deepEqual(operations, ['removeUserGroup via scim', 'addUserGroup via scim']);
  });

  it("renames with Okta's replace without a path and Entra ID's with one; answers the group to a client that names attributes", async () => {
    const member = await service.createUser();
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName(), members: [{ value: member.user_id }] }))
      .body;
    const oktaName = freshGroupName();
    const okta = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { id: group.id, displayName: oktaName } }],
    });
    assert.equal(okta.status, 204, okta.text);
    assert.ok((await groupsOf(member.user_id)).includes(oktaName), 'the workspace API sees the new name at once');
    const entraName = freshGroupName();
    const entra = await scim('PATCH', `/Groups/${group.id}?excludedAttributes=members`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Replace', path: 'displayName', value: ` ${entraName} ` },
        { op: 'Add', path: 'externalId', value: 'entra-object-7' },
      ],
    });
    assert.equal(entra.status, 200, entra.text);
    assert.equal(entra.body.displayName, entraName);
    assert.equal(entra.body.externalId, 'entra-object-7');
    assert.equal(entra.body.members, undefined, 'excludedAttributes=members');
    assert.equal(entra.headers.get('ETag'), entra.body.meta.version);
    const shown = await scim('PATCH', `/Groups/${group.id}?attributes=members`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'remove', path: 'externalId' }],
    });
    assert.equal(shown.status, 200, shown.text);
    assert.deepEqual(memberIds(shown.body), [member.user_id]);
    assert.equal(shown.body.displayName, undefined, 'attributes=members');
    assert.equal((await scim('GET', `/Groups/${group.id}`)).body.externalId, undefined);
  });

  it('applies member operations in order, names members as the contract accepts ids, and writes nothing for a PATCH that changes nothing', async () => {
    const [ada, bob] = [await service.createUser(), await service.createUser()];
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName(), members: [{ value: ada.user_id }] }))
      .body;
    const dashed = (id: string) =>
      `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase();
    const changed = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: dashed(bob.user_id), display: 'Bob' }] },
        { op: 'remove', path: `Members[Value eq "${dashed(ada.user_id)}"]` },
        { op: 'add', path: 'members', value: [{ value: ada.user_id }] },
        { op: 'remove', path: 'members', value: [{ value: bob.user_id }] },
      ],
    });
    assert.equal(changed.status, 204, changed.text);
    assert.deepEqual(
      memberIds((await scim('GET', `/Groups/${group.id}`)).body),
      [ada.user_id],
      'the last operation on each member decides',
    );
    const version = changed.headers.get('ETag');
    assert.equal(version, group.meta.version, 'bob in and out, ada out and in: nothing changed, and the version stayed');
    const nothing = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: ada.user_id }] },
        { op: 'remove', path: `members[value eq "${bob.user_id}"]` },
      ],
    });
    assert.equal(nothing.status, 204, nothing.text);
    assert.equal(nothing.headers.get('ETag'), version, 'a member already in, a member already out');
    const events = await service.callAsAdmin('get_audit_events', { target_user_id: bob.user_id });
    assert.equal(
      events.body.events.filter((event: { target_group_id: string }) => event.target_group_id === group.id).length,
      0,
      'no membership of bob was ever written',
    );
    // Any other operation applies to the group as a whole: a replacement of the member list.
    const replaced = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'members', value: [{ value: bob.user_id }] }],
    });
    assert.equal(replaced.status, 204, replaced.text);
    assert.deepEqual(memberIds((await scim('GET', `/Groups/${group.id}`)).body), [bob.user_id]);
  });

  it('renames with PUT, which sets exactly the members listed; a taken name is 409 uniqueness; an unknown member 400 invalidValue', async () => {
    const [kept, dropped] = [await service.createUser(), await service.createUser()];
    const group = (
      await scim('POST', '/Groups', {
        schemas: [GROUP],
        displayName: freshGroupName(),
        members: [{ value: kept.user_id }, { value: dropped.user_id }],
      })
    ).body;
    const other = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName() })).body;
    const renamed = freshGroupName();
    const replaced = await scim('PUT', `/Groups/${group.id}`, {
      schemas: [GROUP],
      displayName: renamed,
      members: [{ value: kept.user_id }],
    });
    assert.equal(replaced.status, 200, replaced.text);
    assert.equal(replaced.body.displayName, renamed);
    assert.deepEqual(memberIds(replaced.body), [kept.user_id]);
    const taken = await scim('PUT', `/Groups/${group.id}`, { schemas: [GROUP], displayName: other.displayName });
    assert.equal(taken.status, 409, taken.text);
    assert.equal(taken.body.scimType, 'uniqueness');
    const unknown = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: 'ffffffffffffffffffffffffffffffff' }] }],
    });
    assert.equal(unknown.status, 400, unknown.text);
    assert.equal(unknown.body.scimType, 'invalidValue');
    const partly = await scim('PATCH', `/Groups/${group.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'add', path: 'members', value: [{ value: dropped.user_id }] },
        { op: 'replace', path: 'displayName', value: other.displayName },
      ],
    });
    assert.equal(partly.status, 409, partly.text);
    assert.equal(partly.body.scimType, 'uniqueness');
    const stale = await scim(
      'PATCH',
      `/Groups/${group.id}`,
      { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: dropped.user_id }] }] },
      { 'If-Match': group.meta.version },
    );
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.scimType, 'versionMismatch');
    const after = await scim('GET', `/Groups/${group.id}`);
    assert.equal(after.headers.get('ETag'), replaced.headers.get('ETag'), 'the refused writes changed nothing');
    assert.deepEqual(memberIds(after.body), [kept.user_id], 'no member of a refused PATCH was added');
  });

  it('keeps the system group: no rename, no delete, no member taken out but by a key with groups_modify_system (409 mutability)', async () => {
    const found = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "All Users"')}&excludedAttributes=members`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.totalResults, 1);
    const system = found.body.Resources[0];
    assert.equal(system.members, undefined, 'excludedAttributes=members');
    const user = await service.createUser();
    const removals = [
      { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members', value: [{ value: user.user_id }] }] },
      { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${user.user_id}"]` }] },
    ];
    // A key that may change groups, but not the system group's members.
    const groupsOnly = scimClient(service, await service.createKey({ permissions: ['groups_view', 'groups_modify', 'users_view'] }));
    const attempts = [
      await scim('PATCH', `/Groups/${system.id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'displayName', value: 'Everyone' }],
      }),
      ...(await Promise.all(removals.map((removal) => groupsOnly('PATCH', `/Groups/${system.id}`, removal)))),
      await scim('DELETE', `/Groups/${system.id}`),
    ];
    for (const attempt of attempts) {
      assert.equal(attempt.status, 409, attempt.text);
      assert.equal(attempt.body.scimType, 'mutability');
    }
    assert.ok((await groupsOf(user.user_id)).includes('All Users'));

    // With groups_modify_system, as remove_user_group allows it: both forms of the removal.
    for (const removal of removals) {
      const removed = await scim('PATCH', `/Groups/${system.id}`, removal);
      assert.equal(removed.status, 204, removed.text);
      assert.equal((await groupsOf(user.user_id)).includes('All Users'), false);
      await service.callAsAdmin('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: system.id } });
    }
  });

  it('deletes a group with 204, honouring If-Match; its members lose the membership', async () => {
    const user = await service.createUser();
    const group = await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName(), members: [{ value: user.user_id }] });
    const stale = await scim('DELETE', `/Groups/${group.body.id}`, undefined, { 'If-Match': 'W/"999"' });
    assert.equal(stale.status, 412, stale.text);
    assert.equal(stale.body.scimType, 'versionMismatch');
    const deleted = await scim('DELETE', `/Groups/${group.body.id}`, undefined, { 'If-Match': group.headers.get('ETag')! });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal((await scim('GET', `/Groups/${group.body.id}`)).status, 404);
    assert.ok(!(await groupsOf(user.user_id)).includes(group.body.displayName));
  });

  it('finds the groups that hold a member (members[value eq]), as providers check a membership', async () => {
    const user = await service.createUser();
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName(), members: [{ value: user.user_id }] }))
      .body;
    const filter = encodeURIComponent(`id eq "${group.id}" and members[value eq "${user.user_id}"]`);
    const holding = await scim('GET', `/Groups?filter=${filter}&excludedAttributes=members`);
    assert.equal(holding.body.totalResults, 1, holding.text);
    const other = await service.createUser();
    const notHolding = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent(`id eq "${group.id}" and members[value eq "${other.user_id}"]`)}`,
    );
    assert.equal(notHolding.body.totalResults, 0, notHolding.text);
  });
});

describe('SCIM Groups without their members', () => {
  let service: TestService;
  let scim: ScimClient;
  /** What each group read or write was asked for: a group may hold every user, so members are read only to be shown. */
  const reads: ({ withMembers: boolean } | { amend: { withMembers: boolean } } | { rewrite: true })[] = [];
  before(async () => {
    service = await startTestService({
      wrapStore: (store) => ({
        ...store,
        // The repository, but for a record of what its reads of groups were asked for.
        groups: new Proxy(store.groups, {
          get(repository, name) {
            if (name === 'find')
              return (groupId: string, options?: { withMembers?: boolean }) => {
                reads.push({ withMembers: options?.withMembers ?? true });
                return repository.find(groupId, options);
              };
            if (name === 'search')
              return (query: Parameters<typeof repository.search>[0]) => {
                reads.push({ withMembers: query.withMembers });
                return repository.search(query);
              };
            if (name === 'amend')
              return (...args: Parameters<typeof repository.amend>) => {
                reads.push({ amend: { withMembers: args[3]?.withMembers ?? false } });
                return repository.amend(...args);
              };
            if (name === 'rewrite')
              return (...args: Parameters<typeof repository.rewrite>) => {
                reads.push({ rewrite: true });
                return repository.rewrite(...args);
              };
            const value: unknown = Reflect.get(repository, name, repository);
            return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(repository) : value;
          },
        }),
      }),
    });
    scim = scimClient(service);
  });
  after(() => service.close());

  it('reads no members where the answer leaves them out (excludedAttributes=members, attributes without them)', async () => {
    const member = await service.createUser();
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP],
      displayName: freshGroupName(),
      members: [{ value: member.user_id }],
    });
    assert.equal(created.status, 201, created.text);
    const cases: [string, boolean][] = [
      [`/Groups/${created.body.id}?excludedAttributes=members`, false],
      [`/Groups/${created.body.id}?attributes=displayName`, false],
      [`/Groups?filter=${encodeURIComponent(`id eq "${created.body.id}"`)}&excludedAttributes=members`, false],
      [`/Groups?filter=${encodeURIComponent(`id eq "${created.body.id}"`)}&attributes=displayName,externalId`, false],
      [`/Groups/${created.body.id}?excludedAttributes=members.display`, true],
      [`/Groups/${created.body.id}?attributes=members.value`, true],
      [`/Groups?filter=${encodeURIComponent(`id eq "${created.body.id}"`)}`, true],
    ];
    for (const [path, shown] of cases) {
      reads.length = 0;
      const answer = await scim('GET', path);
      assert.equal(answer.status, 200, answer.text);
      const group = path.includes('filter=') ? answer.body.Resources[0] : answer.body;
      assert.deepEqual(reads, [{ withMembers: shown }], path);
      assert.equal('members' in group, shown, `${path}: ${answer.text}`);
      if (shown)
        assert.deepEqual(
          group.members.map((entry: { value: string }) => entry.value),
          [member.user_id],
          path,
        );
    }
  });

  it("changes members and names without reading the member list, as Entra ID's and Okta's PATCHes come", async () => {
    const [ada, bob] = [await service.createUser(), await service.createUser()];
    const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName(), members: [{ value: ada.user_id }] });
    const id = created.body.id as string;
    const patch = (path: string, ...Operations: object[]) => scim('PATCH', path, { schemas: [PATCH_OP], Operations });
    const cases: [string, () => Promise<{ status: number; text: string }>, typeof reads][] = [
      [
        'Entra ID adds',
        () => patch(`/Groups/${id}`, { op: 'Add', path: 'members', value: [{ value: bob.user_id }] }),
        [{ withMembers: false }, { amend: { withMembers: false } }],
      ],
      [
        'Entra ID removes by value',
        () => patch(`/Groups/${id}`, { op: 'Remove', path: 'members', value: [{ value: bob.user_id }] }),
        [{ withMembers: false }, { amend: { withMembers: false } }],
      ],
      [
        'Okta removes by filter',
        () => patch(`/Groups/${id}`, { op: 'remove', path: `members[value eq "${ada.user_id}"]` }),
        [{ withMembers: false }, { amend: { withMembers: false } }],
      ],
      [
        'Okta renames',
        () => patch(`/Groups/${id}`, { op: 'replace', value: { id, displayName: freshGroupName() } }),
        [{ withMembers: false }, { amend: { withMembers: false } }],
      ],
      [
        'members asked for in the answer',
        () => patch(`/Groups/${id}?attributes=members`, { op: 'add', path: 'members', value: [{ value: ada.user_id }] }),
        [{ withMembers: false }, { amend: { withMembers: true } }],
      ],
      [
        'a replacement of the member list, applied to the whole group',
        () => patch(`/Groups/${id}`, { op: 'replace', path: 'members', value: [{ value: bob.user_id }] }),
        [{ withMembers: true }, { rewrite: true }],
      ],
    ];
    for (const [name, send, expected] of cases) {
      reads.length = 0;
      const answer = await send();
      assert.ok(answer.status === 204 || answer.status === 200, `${name}: ${answer.text}`);
      assert.deepEqual(reads, expected, name);
    }
  });
});

describe('SCIM Groups under concurrent member PATCHes', () => {
  it("applies every one of Entra ID's batches sent at once, read at one version, and one of two with the same If-Match", async () => {
    const racers = 3;
    const { service: raced, meet } = await serviceWhereGroupReadsMeet();
    try {
      const scim = scimClient(raced);
      const users = await Promise.all(Array.from({ length: racers + 1 }, () => raced.createUser()));
      const created = await scim('POST', '/Groups', { schemas: [GROUP], displayName: freshGroupName() });
      const id = created.body.id as string;
      // Each batch reads the group at its first version before any writes: all but one lose
      // the race at the store (the version moved), read again and apply; without the
      // retry they would be refused. With the same If-Match, below, one alone may write.
      meet(racers);
      const answers = await Promise.all(
        users.slice(0, racers).map((user) =>
          scim('PATCH', `/Groups/${id}`, {
            schemas: [PATCH_OP],
            Operations: [{ op: 'Add', path: 'members', value: [{ value: user.user_id }] }],
          }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 204, answer.text);
      const read = await scim('GET', `/Groups/${id}`);
      assert.deepEqual(
        read.body.members.map((member: { value: string }) => member.value).sort(),
        users
          .slice(0, racers)
          .map((user) => user.user_id)
          .sort(),
        'every batch kept',
      );
      assert.equal(read.body.meta.version, `W/"${1 + racers}"`, 'one version per batch');

      const tag = read.headers.get('ETag')!;
      meet(2);
      const fenced = await Promise.all(
        [users[racers]!, users[0]!].map((user, index) =>
          scim(
            'PATCH',
            `/Groups/${id}`,
            {
              schemas: [PATCH_OP],
              Operations: [{ op: index === 0 ? 'add' : 'remove', path: 'members', value: [{ value: user.user_id }] }],
            },
            { 'If-Match': tag },
          ),
        ),
      );
      assert.deepEqual(fenced.map((answer) => answer.status).sort(), [204, 412], fenced.map((answer) => answer.text).join('\n'));
      assert.equal((await scim('GET', `/Groups/${id}`)).body.meta.version, `W/"${2 + racers}"`, 'one write, one version');
    } finally {
      await raced.close();
    }
  });
});

/**
 * A service whose group reads before a write (without members: the amendment's) can be
 * made to meet: after `meet(count)`, the next `count` such reads each wait until the last
 * of them has read, so that `count` concurrent writers read one version before any
 * writes. Other reads, and reads after the meeting (a loser's retry), pass.
 */
async function serviceWhereGroupReadsMeet(): Promise<{ service: TestService; meet: (count: number) => void }> {
  let meeting: { expected: number; arrived: number; all: Promise<void>; release: () => void } | undefined;
  const service = await startTestService({
    wrapStore: (store) => {
      const find = store.groups.find.bind(store.groups);
      store.groups.find = async (groupId, options) => {
        const found = await find(groupId, options);
        const current = meeting;
        if (options?.withMembers !== false || !current) return found;
        if (++current.arrived === current.expected) {
          meeting = undefined;
          current.release();
        }
        await current.all;
        return found;
      };
      return store;
    },
  });
  return {
    service,
    meet: (expected) => {
      let release!: () => void;
      const all = new Promise<void>((resolve) => (release = resolve));
      meeting = { expected, arrived: 0, all, release };
    },
  };
}
