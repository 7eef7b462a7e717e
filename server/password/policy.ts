/**
 * The password policy of docs/spec §8, with the 128-character ceiling of
 * docs/architecture.md. The contract states the policy as minLength, maxLength and
 * one pattern (for Prism and SDK users); policy.test.ts proves both agree.
 * This module exists for what a pattern cannot do: name every rule broken,
 * count the minimum in characters as a person sees them (grapheme clusters:
 * `aA1!` with four combining accents is four, not eight), and refuse the
 * user's own name.
 */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 128;

interface Rule {
  /** How the rule reads after "Password must": a length rule, a kind of character to contain, or another rule. */
  kind: 'length' | 'contains' | 'other';
  wording: string;
  isMetBy(password: string, username: string | undefined): boolean;
}

/** The ceiling counts code points, as JSON Schema does (it bounds what is stored). */
const length = (password: string) => [...password].length;

const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** The minimum counts what a person sees: a letter with its combining accents is one character. */
const visibleLength = (password: string) => {
  let count = 0;
  for (const _ of GRAPHEMES.segment(password)) count++;
  return count;
};

/** The comparison ignores case and width, as usernames do. */
const sameAsUsername = (password: string, username: string) =>
  password.trim().normalize('NFKC').toLowerCase() === username.normalize('NFKC').toLowerCase();

const RULES: readonly Rule[] = [
  {
    kind: 'length',
    wording: `be at least ${MIN_PASSWORD_LENGTH} characters long`,
    isMetBy: (p) => visibleLength(p) >= MIN_PASSWORD_LENGTH,
  },
  { kind: 'length', wording: `be at most ${MAX_PASSWORD_LENGTH} characters long`, isMetBy: (p) => length(p) <= MAX_PASSWORD_LENGTH },
  { kind: 'contains', wording: 'at least one uppercase letter', isMetBy: (p) => /[A-Z]/.test(p) },
  { kind: 'contains', wording: 'at least one lowercase letter', isMetBy: (p) => /[a-z]/.test(p) },
  { kind: 'contains', wording: 'at least one digit', isMetBy: (p) => /[0-9]/.test(p) },
  { kind: 'contains', wording: 'at least one special character (such as ! @ # $)', isMetBy: (p) => /[^A-Za-z0-9]/.test(p) },
  { kind: 'other', wording: 'not be the username', isMetBy: (p, username) => username === undefined || !sameAsUsername(p, username) },
];

function joinWithAnd(parts: string[]): string {
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

/**
 * What the password must still do, as one phrase that names every broken rule
 * ("contain at least one digit and at least one special character …"), or
 * undefined when the password meets the policy. The username, when known
 * (the user's stored or new name), must not be the password.
 */
export function passwordPolicyViolation(password: string, username?: string): string | undefined {
  const broken = RULES.filter((rule) => !rule.isMetBy(password, username));
  if (broken.length === 0) return undefined;
  const wordings = (kind: Rule['kind']) => broken.filter((rule) => rule.kind === kind).map((rule) => rule.wording);
  const contains = wordings('contains');
  const phrases = [...wordings('length'), ...(contains.length > 0 ? [`contain ${joinWithAnd(contains)}`] : []), ...wordings('other')];
  return `must ${joinWithAnd(phrases)}`;
}
