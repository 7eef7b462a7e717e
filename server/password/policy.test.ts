import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readContract } from '../../lib/contract/document.js';
import { COMPOSITION, contextRules, ruleStates } from '../../lib/password-rules.js';
import { compositionViolation, passwordPolicyViolation } from './policy.js';

describe('password policy (docs/spec §8)', () => {
  it('accepts a password that meets every rule', () => {
    assert.equal(passwordPolicyViolation('Correct-Horse-42'), undefined);
  });

  it('names each rule on its own', () => {
    assert.equal(passwordPolicyViolation('Ab1!xyz'), 'must be at least 8 characters long');
    assert.equal(passwordPolicyViolation('trqmvz1!'), 'must contain at least one uppercase letter');
    assert.equal(passwordPolicyViolation('TRQMVZ1!'), 'must contain at least one lowercase letter');
    assert.equal(passwordPolicyViolation('Trqmvzx!'), 'must contain at least one digit');
    assert.equal(passwordPolicyViolation('Trqmvzx1'), 'must contain at least one special character (such as ! @ # $)');
    assert.equal(passwordPolicyViolation(`Ab1!${'x'.repeat(125)}`), 'must be at most 128 characters long');
  });

  it('names every broken rule at once', () => {
    assert.equal(
      passwordPolicyViolation('abcdefgh'),
      'must contain at least one uppercase letter, at least one digit and at least one special character (such as ! @ # $)',
    );
    assert.equal(
      passwordPolicyViolation('abc'),
      'must be at least 8 characters long and contain at least one uppercase letter, at least one digit and at least one special character (such as ! @ # $)',
    );
    assert.equal(
      passwordPolicyViolation(''),
      'must be at least 8 characters long and contain at least one uppercase letter, at least one lowercase letter, at least one digit and at least one special character (such as ! @ # $)',
    );
  });

  it('draws the line between 7 and 8 characters', () => {
    assert.equal(passwordPolicyViolation('Ab1!xyz'), 'must be at least 8 characters long');
    assert.equal(passwordPolicyViolation('Ab1!xyzw'), undefined);
  });

  it('accepts 64 and 128 characters and refuses 129, never truncating', () => {
    assert.equal(passwordPolicyViolation(`Ab1!${'x'.repeat(60)}`), undefined);
    assert.equal(passwordPolicyViolation(`Ab1!${'x'.repeat(124)}`), undefined);
    assert.match(passwordPolicyViolation(`Ab1!${'x'.repeat(125)}`) ?? '', /at most 128/);
  });

  it('counts the minimum in characters as a person sees them: a letter and its combining accents are one', () => {
    assert.match(passwordPolicyViolation('aA1!\u0301\u0301\u0301\u0301') ?? '', /at least 8 characters/);
    assert.match(passwordPolicyViolation('aA1!é\u0301xy') ?? '', /at least 8 characters/);
    assert.equal(passwordPolicyViolation('aA1!éxyz'), undefined);
  });

  it("refuses the user's own name, whatever its case", () => {
    const alice = { username: 'alice@example1.com' };
    assert.equal(passwordPolicyViolation('Alice@Example1.com', alice), 'must not contain the username');
    assert.equal(
      passwordPolicyViolation('alice@example1.com', alice),
      'must contain at least one uppercase letter and not contain the username',
    );
    assert.equal(passwordPolicyViolation('Alice@Example1.com', { username: 'bob@example1.com' }), undefined);
    assert.equal(passwordPolicyViolation('Alice@Example1.com'), undefined, 'no username known: nothing to compare');
  });

  it('counts characters, not UTF-16 units, as JSON Schema does', () => {
    // Four emoji are eight UTF-16 units but four characters.
    assert.match(passwordPolicyViolation('Aa1😀😀😀') ?? '', /at least 8 characters/);
    assert.equal(passwordPolicyViolation('Aa1😀😀😀😀😀'), undefined);
  });
});

describe('the screening (NIST SP 800-63B-4, 3.1.1.2)', () => {
  it('refuses commonly used passwords, whole, less the digits and symbols around them, and with substitutions read back', () => {
    for (const password of [
      'Password1!',
      'P@ssw0rd123',
      'Qwerty123!',
      'Iloveyou!1',
      'Welcome1!',
      'Letmein#2024',
      'PassWORD1!',
      'PＡssword1!',
    ]) {
      assert.equal(passwordPolicyViolation(password), 'must not be a commonly used password', password);
    }
    assert.equal(passwordPolicyViolation('Correct-Horse-42'), undefined);
  });

  it("refuses the user's words in the password's letters: the username, its local part, the first and last names, the service's name", () => {
    const ada = { username: 'ada.quillfeather@example.com', firstName: 'Ottoline', lastName: 'Wexbury' };
    assert.equal(passwordPolicyViolation('Quillfeather#1815', ada), 'must not contain the username');
    assert.equal(passwordPolicyViolation('X9!AdaQuillfeather', ada), 'must not contain the username');
    assert.equal(passwordPolicyViolation('Ottoline-1815!', ada), 'must not contain the first name');
    assert.equal(passwordPolicyViolation('1815-WEXBURY-x!', ada), 'must not contain the last name');
    assert.equal(passwordPolicyViolation('My-Workspace-9', ada), "must not contain the service's name");
    // A short name counts only as the whole password's letters: "Al" is in many words.
    assert.equal(passwordPolicyViolation('Calendar-42!x', { firstName: 'Al' }), undefined);
    assert.equal(passwordPolicyViolation('Al-12345!', { firstName: 'Al' }), 'must not contain the first name');
    assert.equal(passwordPolicyViolation('Correct-Horse-42', ada), undefined);
  });
});

describe('the contract states the same composition rules', () => {
  const contract = readContract('workspace');
  const schema = contract.components.schemas.Password as { minLength: number; maxLength: number; pattern: string };
  const pattern = new RegExp(schema.pattern, 'u');
  const contractAccepts = (password: string) => {
    const length = [...password].length;
    return length >= schema.minLength && length <= schema.maxLength && pattern.test(password);
  };

  // Samples without combining marks, where what a person sees is what JSON Schema counts.
  it('agrees with the policy on every sample', () => {
    const alphabet = ['a', 'Z', '5', '!', ' ', 'é', '\n', '😀', '_'];
    const samples = [
      '',
      'Correct-Horse-42',
      'password',
      'PASSWORD1!',
      'Passw0rd',
      'Pass word1',
      `Ab1!${'x'.repeat(124)}`,
      `Ab1!${'x'.repeat(125)}`,
    ];
    // A fixed pseudo-random walk, so that a failure is reproducible.
    let seed = 42;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31);
    for (let i = 0; i < 2_000; i++) {
      const length = next() % 14;
      samples.push(Array.from({ length }, () => alphabet[next() % alphabet.length]).join(''));
    }
    for (const password of samples) {
      assert.equal(contractAccepts(password), compositionViolation(password) === undefined, JSON.stringify(password));
    }
  });

  it('gives the console each rule of the service but the list, met or not, in the words of its answers', () => {
    const rules = [...COMPOSITION, ...contextRules({ username: 'ada.lovelace@example.com', firstName: 'Ada' })];
    const unmet = ruleStates('lovelace', rules)
      .filter((rule) => !rule.met)
      .map((rule) => rule.wording);
    assert.deepEqual(unmet, [
      'at least one uppercase letter',
      'at least one digit',
      'at least one special character (such as ! @ # $)',
      'not contain the username',
    ]);
    // The same rules the service answers with: every unmet rule is in its refusal, and the list's rule besides.
    const refusal = passwordPolicyViolation('lovelace', { username: 'ada.lovelace@example.com', firstName: 'Ada' }) ?? '';
    for (const wording of unmet) assert.ok(refusal.includes(wording), wording);
    assert.ok(ruleStates('Correct-Horse-42', rules).every((rule) => rule.met));
  });
});
