/**
 * Users, groups and keys for tests, made through the directory as any door
 * makes them, each with a unique name unless one is given: a test says only
 * what matters to it.
 */
import { randomBytes } from 'node:crypto';
import type { Directory, Group, NewGroup, NewUser, StoredUser } from '../directory/index.js';
import type { NewApiKey } from '../directory/index.js';
import { TEST_SETUP } from './test-setup.js';

const unique = () => randomBytes(6).toString('hex');

/** A username no other test uses. */
export const freshUsername = (label = 'user') => `${label}-${unique()}@example.com`;
/** A group name no other test uses. */
export const freshGroupName = (label = 'group') => `${label} ${unique()}`;

export const aUser = (directory: Directory, fields: Partial<NewUser> = {}): Promise<StoredUser> =>
  directory.users.create({ username: freshUsername(), ...fields }, TEST_SETUP);

export const aGroup = (directory: Directory, fields: Partial<NewGroup> = {}): Promise<Group> =>
  directory.groups.create({ name: freshGroupName(), ...fields }, TEST_SETUP);

export const aKey = (directory: Directory, fields: Partial<NewApiKey> = {}) =>
  directory.keys.create({ name: `key ${unique()}`, permissions: [], expires: null, ...fields }, TEST_SETUP, 'operator');
