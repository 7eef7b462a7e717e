/**
 * get_users with credentials only lists every user, as Kasm's get_users does
 * and as Kasm clients rely on (one call, then a search by username).
 */
import { kasmMembers } from '../testing/error-bodies.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../store/repositories.js';
import { type Answer, startTestService, type TestService } from '../testing/service.js';
import { withOverrides } from '../testing/store-overrides.js';
import { LISTING_BATCH, LISTINGS_AT_ONCE } from './every-user.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { newUserRecord } from '../store/testing/open-test-store.js';

/** `count` users straight into the store, faster than through the API. */
async function addUsers(service: TestService, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await service.store.users.create(
      newUserRecord({ user_id: i.toString(16).padStart(32, '0'), username: `bulk${i}@example.com` }),
      TEST_SETUP,
    );
  }
}

const ORDERS = [
  { sort_by: 'username', sort_direction: 'asc' },
  { sort_by: 'username', sort_direction: 'desc' },
  { sort_by: 'created', sort_direction: 'asc' },
  { sort_by: 'created', sort_direction: 'desc' },
  { sort_by: 'first_name', sort_direction: 'asc' },
  { sort_by: 'last_name', sort_direction: 'desc' },
] as const;

describe('get_users with credentials only', () => {
  /** A service holding `count` users of few distinct names, so that ties are broken by user_id as the cursor does. */
  async function serviceWithUsers(count: number): Promise<{ service: TestService; created: string[] }> {
    const service = await startTestService();
    const created: string[] = [];
    for (let i = 0; i < count; i++) {
      const user = newUserRecord({ first_name: `F${i % 7}`, last_name: `L${i % 5}` });
      await service.store.users.create(user, TEST_SETUP);
      created.push(user.user_id);
    }
    return { service, created };
  }

  /** Every user in this order, page by page by cursor: what one listing must equal. */
  async function byCursor(service: TestService, order: Record<string, string>): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await service.callAsAdmin('get_users', cursor ? { cursor, page_size: 37 } : { ...order, page_size: 37 });
      ids.push(...answer.body.users.map((user: { user_id: string }) => user.user_id));
      cursor = answer.body.next_cursor;
    } while (cursor);
    return ids;
  }

  for (const count of [105, 250]) {
    it(`lists all ${count} users, in each order, with total the number listed and no next_cursor`, async () => {
      const { service, created } = await serviceWithUsers(count);
      try {
        for (const order of ORDERS) {
          const answer = await service.callAsAdmin('get_users', order);
          assert.equal(answer.status, 200, answer.text);
          assert.deepEqual(Object.keys(answer.body), ['users', 'total', 'next_cursor']);
          assert.equal(answer.body.total, count);
          assert.equal(answer.body.next_cursor, null);
          assert.deepEqual(
            answer.body.users.map((user: { user_id: string }) => user.user_id),
            await byCursor(service, order),
            JSON.stringify(order),
          );
        }
        const everyone = await service.callAsAdmin('get_users');
        assert.deepEqual(new Set(everyone.body.users.map((user: { user_id: string }) => user.user_id)), new Set(created));
        assert.deepEqual(
          everyone.body.users[0].groups,
          [{ group_id: everyone.body.users[0].groups[0].group_id, name: 'All Users' }],
          'with their groups',
        );
      } finally {
        await service.close();
      }
    });
  }

  it('pages exactly as before when page, page_size or cursor is sent', async () => {
    const { service, created } = await serviceWithUsers(250);
    try {
      const first = await service.callAsAdmin('get_users', { page_size: 100 });
      assert.deepEqual([first.body.users.length, first.body.page, first.body.page_size, first.body.total], [100, 0, 100, created.length]);
      // Pages count from 0, as Kasm's do: page 1 is the second.
      const second = await service.callAsAdmin('get_users', { page: 1 });
      assert.deepEqual([second.body.users.length, second.body.page, second.body.page_size], [100, 1, 100]);
      const next = await service.callAsAdmin('get_users', { cursor: first.body.next_cursor });
      assert.deepEqual(next.body.users, second.body.users);
      assert.equal(next.body.page_size, 100);
    } finally {
      await service.close();
    }
  });
});

describe('get_users past GET_USERS_MAX, and a listing that breaks off', () => {
  it('refuses to list more users than GET_USERS_MAX with 400 listing_too_large, and no partial body', async () => {
    const service = await startTestService({ getUsersMax: 3 });
    try {
      for (let i = 0; i < 3; i++) await service.createUser();
      assert.equal((await service.callAsAdmin('get_users')).body.total, 3, 'at the limit, every user');
      await service.createUser();
      const answer = await service.callAsAdmin('get_users');
      assert.equal(answer.status, 400);
      assert.deepEqual(Object.keys(kasmMembers(answer.body)).sort(), ['code', 'error_message', 'errors']);
      assert.equal(answer.body.status, 400, 'and the problem details');
      assert.equal(answer.body.code, 'listing_too_large');
      assert.match(answer.body.error_message, /4 users, more than the 3 one answer may list; ask for pages with page_size/);
      assert.equal((await service.callAsAdmin('get_users', { page_size: 2 })).body.total, 4, 'paging still works');
    } finally {
      await service.close();
    }
  });

  it('ends an answer whose database read fails midway as a broken response, never as a shorter list', async () => {
    let reads = 0;
    const service = await startTestService({
      wrapStore: (store: Store) =>
        withOverrides(store, {
          users: {
            async list(query) {
              if (++reads === 2) throw new Error('disk I/O error while listing');
              return store.users.list(query);
            },
          },
        }),
    });
    try {
      await addUsers(service, LISTING_BATCH + 1);
      const response = await fetch(`${service.baseUrl}/api/public/get_users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(service.admin),
      });
      assert.equal(response.status, 200, 'the status went out with the first batch');
      await assert.rejects(response.text(), 'reading the body fails: the client can tell the list is not whole');
      assert.equal(reads, 2);
      assert.match(service.logs(), /disk I\/O error while listing.*streamed answer broke off/);
      assert.equal((await service.request('/healthz')).status, 200, 'the service goes on');
    } finally {
      await service.close();
    }
  });

  it("gives a listing's turn back when its client leaves midway, so later listings are not starved", { timeout: 30_000 }, async () => {
    const service = await startTestService();
    try {
      await addUsers(service, LISTING_BATCH * 3);
      const request = (signal?: AbortSignal) =>
        fetch(`${service.baseUrl}/api/public/get_users`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(service.admin),
          signal,
        });
      // More clients that leave after the first bytes than there are turns.
      for (let left = 0; left < LISTINGS_AT_ONCE + 1; left++) {
        const abort = new AbortController();
        const response = await request(abort.signal);
        await response.body!.getReader().read();
        abort.abort();
      }
      const whole = await request(AbortSignal.timeout(10_000));
      assert.equal(((await whole.json()) as { total: number }).total, LISTING_BATCH * 3);
    } finally {
      await service.close();
    }
  });
});
