/**
 * Which group PATCHes are written as changes (group-amendment.ts) and which
 * are applied to the whole group: the forms providers send, and the forms
 * left to patch.ts, whose answers for them the amendment must not guess.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { groupAmendment } from './group-amendment.js';
import { patchOperations } from './patch.js';

const ADA = '0b8f4e2a4c1d4f6e9a3b5c7d9e1f2a3b';
const BOB = '1c9f5f3b5d2e5f7fab4c6d8e0f2a3b4c';
const dashed = (id: string) => `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase();

const amendmentOf = (...Operations: object[]) => groupAmendment(patchOperations({ Operations }, 'Group'));

describe('group PATCHes written as changes', () => {
  it("takes Entra ID's batches: Add members, Remove members by value, ids in either form", () => {
    assert.deepEqual(amendmentOf({ op: 'Add', path: 'members', value: [{ value: ADA }, { value: dashed(BOB), display: 'Bob' }] }), {
      addMembers: [ADA, BOB],
      removeMembers: [],
    });
    assert.deepEqual(amendmentOf({ op: 'Remove', path: 'members', value: [{ value: ADA }, { value: BOB }] }), {
      addMembers: [],
      removeMembers: [ADA, BOB],
    });
  });

  it("takes Okta's remove by value filter, in any case and with the schema's URN, and its rename without a path", () => {
    assert.deepEqual(
      amendmentOf({ op: 'remove', path: `urn:ietf:params:scim:schemas:core:2.0:Group:Members[Value EQ "${dashed(ADA)}"]` }),
      {
        addMembers: [],
        removeMembers: [ADA],
      },
    );
    assert.deepEqual(amendmentOf({ op: 'replace', value: { id: ADA, displayName: ' Engineering ' } }), {
      name: 'Engineering',
      addMembers: [],
      removeMembers: [],
    });
  });

  it('applies operations in order: the last on a member decides', () => {
    assert.deepEqual(
      amendmentOf(
        { op: 'add', path: 'members', value: [{ value: ADA }, { value: BOB }] },
        { op: 'remove', path: `members[value eq "${ADA}"]` },
        { op: 'remove', path: 'members', value: [{ value: BOB }] },
        { op: 'add', path: 'members', value: [{ value: BOB }] },
      ),
      { addMembers: [BOB], removeMembers: [ADA] },
    );
  });

  it('takes the name and externalId, set and cleared', () => {
    assert.deepEqual(
      amendmentOf(
        { op: 'replace', path: 'displayName', value: 'Ops' },
        { op: 'add', path: 'externalId', value: 'ext-1' },
        { op: 'replace', value: { externalId: null } },
      ),
      { name: 'Ops', external_id: null, addMembers: [], removeMembers: [] },
    );
    assert.deepEqual(amendmentOf({ op: 'remove', path: 'externalId' }), { external_id: null, addMembers: [], removeMembers: [] });
  });

  it('reads a quoted value as one id, whatever it holds, and never widens a removal', () => {
    assert.deepEqual(amendmentOf({ op: 'remove', path: 'members[value eq "x\\" or value pr or value eq \\"y"]' }), {
      addMembers: [],
      removeMembers: ['x" or value pr or value eq "y'],
    });
  });

  it('never reads every member for a filter: one that does not name members by value is refused before anything is read', () => {
    for (const path of [
      'members[value pr]',
      `members[value eq "${ADA}" or value pr]`,
      `members[value eq "${ADA}"] or members[value pr]`,
      'members[display eq "Ada"]',
      `members[value ne "${ADA}"]`,
      `members[value eq "${ADA}"].display`,
    ]) {
      assert.throws(() => amendmentOf({ op: 'remove', path }), { scimType: 'invalidFilter' }, path);
    }
  });

  it('leaves every other form to be applied to the whole group', () => {
    const wholeGroup: object[][] = [
      [{ op: 'replace', path: 'members', value: [{ value: ADA }] }],
      [{ op: 'remove', path: 'members' }],
      [{ op: 'add', path: 'members', value: { value: ADA } }],
      [{ op: 'add', path: 'members', value: [{ value: '' }] }],
      [{ op: 'add', path: 'members', value: [{ display: 'Ada' }] }],
      [{ op: 'replace', path: `members[value eq "${ADA}"]`, value: { value: BOB } }],
      [{ op: 'replace', path: 'displayName', value: '   ' }],
      [{ op: 'replace', path: 'displayName', value: 7 }],
      [{ op: 'remove', path: 'displayName' }],
      [{ op: 'remove', path: 'externalId', value: 'ext-1' }],
      [{ op: 'replace', value: { displayName: 'Ops', members: [] } }],
      [{ op: 'remove' }],
      [{ op: 'add', path: 'description', value: 'nobody keeps it' }],
      [
        { op: 'add', path: 'members', value: [{ value: ADA }] },
        { op: 'replace', path: 'members', value: [] },
      ],
    ];
    for (const operations of wholeGroup) assert.equal(amendmentOf(...operations), undefined, JSON.stringify(operations));
  });
});
