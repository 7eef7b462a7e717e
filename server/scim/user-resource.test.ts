import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredUser } from '../store/records.js';
import { WHOLE_SIGHT } from '../directory/sight.js';
import { ENTERPRISE_USER_SCHEMA, InvalidValueError, scimUser, USER_SCHEMA, userFieldsFrom } from './user-resource.js';

const stored: StoredUser = {
  record: {
    user_id: 'a'.repeat(32),
    username: 'ada@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone: '555-0100',
    organization: 'Engines',
    locked: false,
    disabled: true,
    realm: 'local',
    groups: [{ group_id: 'b'.repeat(32), name: 'All Users' }],
    created: '2026-01-01T00:00:00.000Z',
    password_set_date: null,
    last_session: null,
    sessions_valid_from: null,
  },
  version: 7,
  modified: '2026-02-01T00:00:00.000Z',
  directory: { external_id: 'okta-00u1', emails: [{ value: 'ada@example.com', type: 'work', primary: true }] },
};

describe('a user as a SCIM User', () => {
  it('maps each field to its SCIM attribute, with meta naming the version and where the resource is', () => {
    assert.deepEqual(scimUser(stored, 'https://host/scim/v2', WHOLE_SIGHT), {
      schemas: [USER_SCHEMA, ENTERPRISE_USER_SCHEMA],
      id: 'a'.repeat(32),
      externalId: 'okta-00u1',
      userName: 'ada@example.com',
      name: { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' },
      displayName: 'Ada Lovelace',
      active: false,
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      phoneNumbers: [{ value: '555-0100', type: 'work', primary: true }],
      groups: [{ value: 'b'.repeat(32), display: 'All Users', $ref: `https://host/scim/v2/Groups/${'b'.repeat(32)}` }],
      [ENTERPRISE_USER_SCHEMA]: { organization: 'Engines' },
      meta: {
        resourceType: 'User',
        created: '2026-01-01T00:00:00.000Z',
        lastModified: '2026-02-01T00:00:00.000Z',
        location: `https://host/scim/v2/Users/${'a'.repeat(32)}`,
        version: 'W/"7"',
      },
    });
  });

  it('reads a whole User back into the same fields, clearing what it leaves out but active and the password', () => {
    const fields = userFieldsFrom({
      userName: 'ada@example.com',
      name: { givenName: 'Ada' },
      phoneNumbers: [
        { value: '555-0199', type: 'home' },
        { value: '555-0100', type: 'work', primary: true },
      ],
      unknownAttribute: 'ignored',
    });
    assert.deepEqual(fields, {
      profile: { username: 'ada@example.com', first_name: 'Ada', last_name: '', phone: '555-0100', organization: '' },
      directory: { external_id: null, emails: [] },
    });
  });

  it('takes Entra ID\'s "True" and "False" for active, and refuses other values with InvalidValueError', () => {
    assert.equal(userFieldsFrom({ userName: 'x', active: 'False' }).profile.disabled, true);
    assert.equal(userFieldsFrom({ userName: 'x', active: 'true' }).profile.disabled, false);
    assert.equal(userFieldsFrom({ userName: 'x', active: false }).profile.disabled, true);
    for (const resource of [{ active: 'no' }, { userName: 5 }, { emails: [{ type: 'work' }] }, { phoneNumbers: 'x' }]) {
      assert.throws(() => userFieldsFrom(resource), InvalidValueError, JSON.stringify(resource));
    }
  });
});
