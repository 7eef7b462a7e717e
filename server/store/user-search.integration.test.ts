/**
 * SCIM filters run by the database (scim-filter.ts): every operator, the
 * logical ones and grouping, on both stores, over users of this test's own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'scim2-parse-filter';
import { TEST_SETUP } from '../testing/test-setup.js';
import type { UserSearch } from './records.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';
import { InvalidFilterError } from './scim-filter.js';

describe(`searching users with a SCIM filter (${TEST_STORE})`, () => {
  let opened: TestStore;
  const ids: Record<string, string> = {};
  before(async () => {
    // A store of its own: the filters below are checked against every user in it.
    opened = await openTestStore();
    const people = [
      {
        key: 'ada',
        username: 'ada@example.com',
        first_name: 'Ada',
        last_name: 'Lovelace',
        organization: 'Engines',
        created: '2026-01-10T00:00:00.000Z',
      },
      {
        key: 'alan',
        username: 'alan@example.org',
        first_name: 'Alan',
        last_name: 'Turing',
        phone: '555-0101',
        created: '2026-03-10T00:00:00.000Z',
      },
      {
        key: 'grace',
        username: 'grace_h@example.com',
        first_name: 'Grace',
        last_name: 'Hopper',
        disabled: true,
        created: '2026-05-10T00:00:00.000Z',
      },
      {
        key: 'edsger',
        username: 'edsger%d@example.net',
        first_name: 'Edsger',
        last_name: 'Dijkstra',
        external_id: 'EXT-7',
        created: '2026-07-10T00:00:00.000Z',
      },
    ];
    for (const { key, ...fields } of people) {
      const created = await opened.store.users.create(newUserRecord(fields), TEST_SETUP);
      ids[key] = created.record.user_id;
    }
  });
  after(() => opened.close());

  const search = (filter: string | undefined, page: Partial<UserSearch> = {}) =>
    opened.store.users.search({
      ...(filter === undefined ? {} : { filter: parse(filter) }),
      sortBy: 'username',
      sortDirection: 'asc',
      offset: 0,
      limit: 100,
      ...page,
    });
  const keysOf = async (filter: string) => {
    const byId = Object.fromEntries(Object.entries(ids).map(([key, id]) => [id, key]));
    return (await search(filter)).users.map((user) => byId[user.record.user_id]).sort();
  };

  const cases: [string, string[]][] = [
    ['userName eq "ADA@example.com"', ['ada']],
    ['userName eq "  Ａｄａ@example.com "', ['ada']],
    ['userName ne "ada@example.com"', ['alan', 'edsger', 'grace']],
    ['userName co "@EXAMPLE.com"', ['ada', 'grace']],
    ['userName sw "a"', ['ada', 'alan']],
    ['userName ew ".org"', ['alan']],
    ['userName co "_h@"', ['grace']],
    ['userName co "%"', ['edsger']],
    ['name.givenName eq "grace"', ['grace']],
    ['name.familyName sw "t"', ['alan']],
    ['phoneNumbers pr', ['alan']],
    ['phoneNumbers.value eq "555-0101"', ['alan']],
    ['externalId eq "EXT-7"', ['edsger']],
    ['externalId eq "ext-7"', []],
    ['externalId ne "EXT-7"', ['ada', 'alan', 'grace']],
    ['externalId pr', ['edsger']],
    ['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization eq "engines"', ['ada']],
    ['active eq false', ['grace']],
    ['active ne false', ['ada', 'alan', 'edsger']],
    ['meta.created gt "2026-03-10T00:00:00Z"', ['edsger', 'grace']],
    ['meta.created ge "2026-03-10T00:00:00Z"', ['alan', 'edsger', 'grace']],
    ['meta.created lt "2026-03-10T00:00:00+00:00"', ['ada']],
    ['meta.created le "2026-03-10T01:00:00+01:00"', ['ada', 'alan']],
    ['meta.lastModified pr', ['ada', 'alan', 'edsger', 'grace']],
    ['name.givenName sw "a" and active eq true', ['ada', 'alan']],
    ['userName ew ".net" or name.familyName eq "hopper"', ['edsger', 'grace']],
    ['not (userName sw "a")', ['edsger', 'grace']],
    ['(userName sw "a" or userName sw "g") and not (name.givenName eq "alan")', ['ada', 'grace']],
    ['id eq "' + '0'.repeat(32) + '"', []],
  ];
  for (const [filter, expected] of cases) {
    it(`${filter} → ${expected.join(', ') || 'nobody'}`, async () => {
      assert.deepEqual(await keysOf(filter), expected);
    });
  }

  it('finds a user by id, dashed or not', async () => {
    const id = ids.ada!;
    const dashed = `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase();
    assert.deepEqual(await keysOf(`id eq "${dashed}"`), ['ada']);
  });

  it('pages in a stable order without repeats or gaps, with the total of every match', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 4; offset += 3) {
      const page = await search(undefined, { sortBy: 'last_name', sortDirection: 'desc', offset, limit: 3 });
      assert.equal(page.total, 4);
      seen.push(...page.users.map((user) => user.record.last_name));
    }
    assert.deepEqual(seen, ['Turing', 'Lovelace', 'Hopper', 'Dijkstra']);
    // A first page with room to spare holds every match, and says so without counting again; a full one counts.
    for (const limit of [3, 4, 5, 100])
      assert.equal((await search(undefined, { sortBy: 'last_name', sortDirection: 'desc', offset: 0, limit })).total, 4);
    assert.equal((await search(undefined, { sortBy: 'last_name', sortDirection: 'desc', offset: 0, limit: 0 })).total, 4);
  });

  it('answers a lookup by key (userName eq, id eq) as the general query answers it, page by page', async () => {
    // The same filter with a term that matches everyone is no lookup: it goes through the general query.
    const id = ids.grace!;
    for (const filter of ['userName eq "Grace_H@example.com"', 'userName eq "nobody@example.com"', `id eq "${id.toUpperCase()}"`]) {
      for (const page of [
        { offset: 0, limit: 100 },
        { offset: 0, limit: 1 },
        { offset: 0, limit: 0 },
        { offset: 1, limit: 100 },
      ]) {
        const looked = await search(filter, page);
        const queried = await search(`${filter} and active pr`, page);
        assert.deepEqual(looked, queried, `${filter} at ${JSON.stringify(page)}`);
      }
    }
    assert.equal((await search('userName eq "Grace_H@example.com"')).users[0]?.record.user_id, id);
  });

  it('refuses what it cannot run with InvalidFilterError, naming why', async () => {
    for (const [filter, message] of [
      ['emails.value eq "a@b.c"', /cannot filter on "emails.value"/],
      ['nickName pr', /the filterable attributes are/],
      ['active gt true', /active takes eq, ne or pr/],
      ['active eq "yes"', /active takes eq, ne or pr/],
      ['meta.created gt "yesterday"', /needs a date and time/],
      ['userName eq 5', /needs a string/],
      ['emails[type eq "work"]', /value filters are not supported/],
    ] as const) {
      await assert.rejects(search(filter), (error) => error instanceof InvalidFilterError && message.test(error.message), filter);
    }
  });
});
