/**
 * What `admin restore` owes a follower of the change feed, on either store
 * (store/event-order.ts): its cursor from before the restore is answered 410,
 * and the next event is placed after every position it saw.
 */
import assert from 'node:assert/strict';
import { decodeCursor } from '../directory/change-feed.js';
import type { TestService } from './service.js';

export async function assertFeedGoesOnAfterRestore(restored: TestService, followed: string): Promise<void> {
  const stale = await restored.callAsAdmin('get_events', { after: followed });
  assert.equal(stale.status, 410);
  assert.match(JSON.stringify(stale.body), /restored from a backup/);
  await restored.callAsAdmin('create_user', { target_user: { username: 'after-restore@example.com' } });
  const fresh = await restored.callAsAdmin('get_events', { limit: 1000 });
  assert.ok(decodeCursor(fresh.body.next_cursor).position > decodeCursor(followed).position, 'no position taken twice');
}
