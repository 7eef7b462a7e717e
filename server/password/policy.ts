/**
 * The password policy of docs/spec §8, with the 128-character ceiling of
 * docs/architecture.md. The contract states the same policy as minLength, maxLength and
 * one pattern (for Prism and SDK users); policy.test.ts proves both agree.
 * This module exists for what a pattern cannot do: name every rule broken.
 */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

interface Rule {
  /** How the rule reads after "Password must": a length rule, or a kind of character to contain. */
  kind: 'length' | 'contains';
  wording: string;
  isMetBy(password: string): boolean;
}

/** JSON Schema counts length in code points, so the policy does too. */
const length = (password: string) => [...password].length;

const RULES: readonly Rule[] = [
  { kind: 'length', wording: `be at least ${MIN_PASSWORD_LENGTH} characters long`, isMetBy: (p) => length(p) >= MIN_PASSWORD_LENGTH },
  { kind: 'length', wording: `be at most ${MAX_PASSWORD_LENGTH} characters long`, isMetBy: (p) => length(p) <= MAX_PASSWORD_LENGTH },
  { kind: 'contains', wording: 'at least one uppercase letter', isMetBy: (p) => /[A-Z]/.test(p) },
  { kind: 'contains', wording: 'at least one lowercase letter', isMetBy: (p) => /[a-z]/.test(p) },
  { kind: 'contains', wording: 'at least one digit', isMetBy: (p) => /[0-9]/.test(p) },
  { kind: 'contains', wording: 'at least one special character (such as ! @ # $)', isMetBy: (p) => /[^A-Za-z0-9]/.test(p) },
];

function joinWithAnd(parts: string[]): string {
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * What the password must still do, as one phrase that names every broken rule
 * ("contain at least one digit and at least one special character …"), or
 * undefined when the password meets the policy.
 */
export function passwordPolicyViolation(password: string): string | undefined {
  const broken = RULES.filter((rule) => !rule.isMetBy(password));
  if (broken.length === 0) return undefined;
  const lengths = broken.filter((rule) => rule.kind === 'length').map((rule) => rule.wording);
  const contains = broken.filter((rule) => rule.kind === 'contains').map((rule) => rule.wording);
  const phrases = contains.length > 0 ? [...lengths, `contain ${joinWithAnd(contains)}`] : lengths;
  return `must ${joinWithAnd(phrases)}`;
}
