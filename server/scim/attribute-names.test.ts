import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalPatch, canonicalPath } from './attribute-names.js';
import { ScimFailure } from './errors.js';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM attribute names, case-insensitive (RFC 7643, 2.1)', () => {
  it('spells paths as the schemas do, URNs and filters included, leaving quoted values and operators as sent', () => {
    assert.equal(canonicalPath('Name.GivenName', 'User'), 'name.givenName');
    assert.equal(canonicalPath('EMAILS[TYPE eq "Work"].VALUE', 'User'), 'emails[type eq "Work"].value');
    assert.equal(canonicalPath(`${ENTERPRISE.toUpperCase()}:ORGANIZATION`, 'User'), `${ENTERPRISE}:organization`);
    assert.equal(
      canonicalPath('URN:IETF:PARAMS:SCIM:SCHEMAS:CORE:2.0:USER:USERNAME', 'User'),
      'urn:ietf:params:scim:schemas:core:2.0:User:userName',
    );
    assert.equal(canonicalPath('Members[Value eq "ABC"]', 'Group'), 'members[value eq "ABC"]');
    assert.equal(canonicalPath('nickName', 'User'), 'nickName', 'a name the schemas do not know stays as sent');
  });

  it("spells a PATCH's names, and its values' as the attribute its path names holds them", () => {
    const patch = canonicalPatch(
      {
        SCHEMAS: [PATCH_OP],
        operations: [
          { OP: 'Add', Path: 'Emails', Value: [{ Value: 'a@example.com', Primary: true, TYPE: 'work' }] },
          { op: 'replace', VALUE: { Active: false, NAME: { GivenName: 'Ada' }, [ENTERPRISE.toLowerCase()]: { Organization: 'Lab' } } },
          { op: 'replace', path: 'name.familyName', value: { Unchanged: 1 } },
        ],
      },
      'User',
    );
    assert.deepEqual(patch, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'Add', path: 'emails', value: [{ value: 'a@example.com', primary: true, type: 'work' }] },
        { op: 'replace', value: { active: false, name: { givenName: 'Ada' }, [ENTERPRISE]: { organization: 'Lab' } } },
        { op: 'replace', path: 'name.familyName', value: { Unchanged: 1 } },
      ],
    });
  });

  it('takes names already spelled as the schemas spell them as they are, and copies where one is not', () => {
    const value = {
      active: false,
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      [ENTERPRISE]: { organization: 'Lab' },
    };
    const patch = canonicalPatch({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value }] }, 'User') as {
      Operations: { value: unknown }[];
    };
    assert.equal(patch.Operations[0]!.value, value, 'the value sent, not a copy');
    const emails = [{ value: 'ada@example.com', type: 'work' }];
    const added = canonicalPatch({ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'EMAILS', value: emails }] }, 'User') as {
      Operations: { path: string; value: unknown }[];
    };
    assert.deepEqual(added.Operations[0], { op: 'add', path: 'emails', value: emails });
    assert.equal(added.Operations[0]?.value, emails, 'the entries sent, not copies');
    // One name the schemas do not know, deep down: that level and those above it are copied, the name kept as sent.
    const unknown = { name: { givenName: 'Ada', Nickname: 'A' } };
    const copied = canonicalPatch({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: unknown }] }, 'User') as {
      Operations: { value: unknown }[];
    };
    assert.notEqual(copied.Operations[0]!.value, unknown);
    assert.deepEqual(copied.Operations[0]!.value, unknown);
    // A look-alike of a known name (a fullwidth "ａ") is no spelling of it: kept as sent, as any unknown name.
    const lookalike = canonicalPatch({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { '\uff41ctive': true } }] }, 'User') as {
      Operations: { value: object }[];
    };
    assert.deepEqual(Object.keys(lookalike.Operations[0]!.value), ['\uff41ctive']);
  });

  it('refuses one attribute sent twice under two spellings, and keeps a __proto__ key as a key', () => {
    assert.throws(
      () => canonicalPatch({ schemas: [PATCH_OP], Operations: [{ op: 'add', value: { userName: 'a', USERNAME: 'b' } }] }, 'User'),
      (error) => error instanceof ScimFailure && /"userName" and "USERNAME" name one attribute/.test(error.message),
    );
    const hostile = canonicalPatch(
      JSON.parse(`{"schemas":["${PATCH_OP}"],"Operations":[{"op":"add","value":{"__proto__":{"x":1}}}]}`),
      'User',
    ) as {
      Operations: { value: object }[];
    };
    assert.deepEqual(Object.keys(hostile.Operations[0]!.value), ['__proto__']);
    assert.equal(({} as { x?: number }).x, undefined);
  });
});
