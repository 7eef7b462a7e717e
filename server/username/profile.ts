/**
 * The username profile: RFC 8265's UsernameCaseMapped (PRECIS), stricter in
 * two ways, and with the script-mixing restriction of Unicode TS #39.
 *
 * Preparation, in RFC 8265's order (section 3.3.2), after removing the
 * surrounding whitespace that Kasm clients may send:
 *   1. width mapping: full-width and half-width forms (U+3000, U+FF01–U+FFEE)
 *      become their ordinary forms, so `ａｄｍｉｎ` is `admin`;
 *   2. case mapping to lower case;
 *   3. Unicode Normalization Form C.
 * The length limit (255 characters) is checked on the prepared name, which
 * can be longer than what was sent (`İ` lower-cases to two characters).
 *
 * Enforcement then refuses, each with a message that says why:
 *   - characters outside the PRECIS IdentifierClass: controls, formatting
 *     characters (zero-width spaces and joiners, bidi overrides, soft
 *     hyphens), every Default_Ignorable_Code_Point (variation selectors,
 *     Hangul fillers: RFC 8264 disallows them), spaces, non-ASCII symbols and punctuation, unassigned and
 *     private-use code points, and compatibility characters (`ﬁ`, `²`). The
 *     RFC's contextual exceptions (ZWJ/ZWNJ, the middle dot) are refused too;
 *   - more than MAX_COMBINING_MARKS combining marks in a row;
 *   - names that break the Bidi Rule (RFC 5893), which RFC 8265 applies;
 *   - letters from a script that UAX #31 does not recommend for identifiers,
 *     and mixtures of scripts beyond UTS #39's "moderately restrictive" level:
 *     one script; or Latin with Han and Hiragana/Katakana, Bopomofo or Hangul;
 *     or Latin with one other recommended script that is not Cyrillic or
 *     Greek. So `аdmin` (a Cyrillic а) is refused, and `админ` is not.
 */
import { createRequire } from 'node:module';
import type { Bidi } from 'bidi-js';

export const USERNAME_MAX_LENGTH = 255;
/** Combining marks one character may carry: enough for any script's accents and vowel signs, not for a stack that overwrites its neighbours. */
export const MAX_COMBINING_MARKS = 4;

/** UAX #31, table 4: the scripts recommended for identifiers. */
const RECOMMENDED_SCRIPTS = [
  'Arabic',
  'Armenian',
  'Bengali',
  'Bopomofo',
  'Cyrillic',
  'Devanagari',
  'Ethiopic',
  'Georgian',
  'Greek',
  'Gujarati',
  'Gurmukhi',
  'Han',
  'Hangul',
  'Hebrew',
  'Hiragana',
  'Kannada',
  'Katakana',
  'Khmer',
  'Lao',
  'Latin',
  'Malayalam',
  'Myanmar',
  'Oriya',
  'Sinhala',
  'Tamil',
  'Telugu',
  'Thaana',
  'Thai',
  'Tibetan',
] as const;
type Script = (typeof RECOMMENDED_SCRIPTS)[number];

const SCRIPT_PATTERNS = new Map<Script, RegExp>(
  RECOMMENDED_SCRIPTS.map((script) => [script, new RegExp(`^\\p{Script_Extensions=${script}}$`, 'u')]),
);

/** UTS #39's "highly restrictive" combinations with Latin; any single script passes on its own. */
const CJK_COMBINATIONS: readonly Script[][] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
/** The scripts "moderately restrictive" never lets Latin mix with: their letters look like Latin ones. */
const LATIN_LOOKALIKES: readonly Script[] = ['Cyrillic', 'Greek'];

const WIDTH_FORMS = /[\u3000\uFF01-\uFFEE]/gu;
const ASCII_VISIBLE = /^[\x21-\x7E]$/u;
/** PRECIS LetterDigits: the categories IdentifierClass accepts beyond ASCII. */
const LETTER_DIGITS = /^[\p{Ll}\p{Lu}\p{Lo}\p{Nd}\p{Lm}\p{Mn}\p{Mc}]$/u;
const SCRIPT_NEUTRAL = /^[\p{Script=Common}\p{Script=Inherited}]$/u;

// bidi-js is CommonJS whose types declare an ES default export: required, it is the factory itself.
const bidi = (createRequire(import.meta.url)('bidi-js') as () => Bidi)();

export type UsernameVerdict = { ok: true; username: string } | { ok: false; reason: string };

/** `U+202E`: how a refused character is named, never printed itself (it may be a control or an override). */
const codePoint = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The preparation alone (trim, width, case, NFC), for looking a name up: a
 * lookup finds exactly the user whose name was stored in this form.
 */
export function prepareUsername(input: string): string {
  return input
    .trim()
    .replace(WIDTH_FORMS, (char) => char.normalize('NFKC'))
    .toLowerCase()
    .normalize('NFC');
}

/** What is wrong with one character for a username, if anything. */
function characterProblem(char: string): string | undefined {
  if (ASCII_VISIBLE.test(char)) return undefined;
  if (/^\p{Cc}$/u.test(char)) return `must not contain control characters (${codePoint(char)})`;
  if (/^\p{Cf}$/u.test(char)) {
    return `must not contain invisible formatting characters such as zero-width spaces or direction overrides (${codePoint(char)})`;
  }
  // Variation selectors, fillers, the combining grapheme joiner: marks and letters that show as nothing (RFC 8264, 9.13).
  if (/^\p{Default_Ignorable_Code_Point}$/u.test(char)) return `must not contain invisible characters (${codePoint(char)})`;
  if (/^[\p{White_Space}]$/u.test(char)) return `must not contain spaces (${codePoint(char)})`;
  if (!LETTER_DIGITS.test(char)) {
    return `must not contain ${codePoint(char)}: a username takes letters, marks, digits and ASCII punctuation`;
  }
  if (char.normalize('NFKC') !== char) {
    return `must not contain the compatibility character ${codePoint(char)}; write its ordinary form (${codePoint(char.normalize('NFKC'))})`;
  }
  return undefined;
}

/** The recommended scripts a character belongs to; empty for a script-neutral one (digits, punctuation, combining marks). */
function scriptsOf(char: string): Script[] | undefined {
  const scripts = RECOMMENDED_SCRIPTS.filter((script) => SCRIPT_PATTERNS.get(script)?.test(char));
  if (scripts.length > 0) return scripts;
  return SCRIPT_NEUTRAL.test(char) ? [] : undefined;
}

function scriptProblem(chars: string[]): string | undefined {
  const sets: Script[][] = [];
  for (const char of chars) {
    if (ASCII_VISIBLE.test(char) && !/[a-z]/.test(char)) continue;
    const scripts = scriptsOf(char);
    if (scripts === undefined) return `must not contain ${codePoint(char)}: its script is not one used for identifiers`;
    if (scripts.length > 0) sets.push(scripts);
  }
  const fitsWithin = (allowed: readonly Script[]) => sets.every((scripts) => scripts.some((script) => allowed.includes(script)));
  if (RECOMMENDED_SCRIPTS.some((script) => fitsWithin([script]))) return undefined;
  if (CJK_COMBINATIONS.some(fitsWithin)) return undefined;
  const others = RECOMMENDED_SCRIPTS.filter((script) => script !== 'Latin' && !LATIN_LOOKALIKES.includes(script));
  if (others.some((script) => fitsWithin(['Latin', script]))) return undefined;
  const found = [...new Set(sets.flatMap((scripts) => scripts.slice(0, 1)))];
  return (
    `mixes letters of ${found.join(' and ')}: a username's letters come from one script ` +
    '(Latin may join one other, but not Cyrillic or Greek, whose letters look like Latin ones)'
  );
}

/** A run of combining marks longer than any script needs, which draws over the characters around it. */
function combiningProblem(chars: string[]): string | undefined {
  let run = 0;
  for (const char of chars) {
    run = /^\p{M}$/u.test(char) ? run + 1 : 0;
    if (run > MAX_COMBINING_MARKS) return `must not have more than ${MAX_COMBINING_MARKS} combining marks in a row on one character`;
  }
  return undefined;
}

/** RFC 5893's Bidi Rule, for names with right-to-left characters (RFC 8265 applies it). */
function bidiProblem(chars: string[]): string | undefined {
  const types = chars.map((char) => bidi.getBidiCharTypeName(char));
  if (!types.some((type) => type === 'R' || type === 'AL' || type === 'AN')) return undefined;
  const broken = 'mixes right-to-left and left-to-right text in a way that can display misleadingly (RFC 5893)';
  const first = types[0];
  const trimmed = types.slice(0, types.length - [...types].reverse().findIndex((type) => type !== 'NSM'));
  const last = trimmed.at(-1);
  if (first === 'R' || first === 'AL') {
    const allowed = ['R', 'AL', 'AN', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM'];
    if (!types.every((type) => allowed.includes(type))) return broken;
    if (!['R', 'AL', 'EN', 'AN'].includes(last ?? '')) return broken;
    if (types.includes('EN') && types.includes('AN')) return broken;
    return undefined;
  }
  if (first === 'L') {
    const allowed = ['L', 'EN', 'ES', 'CS', 'ET', 'ON', 'BN', 'NSM'];
    if (!types.every((type) => allowed.includes(type))) return broken;
    return ['L', 'EN'].includes(last ?? '') ? undefined : broken;
  }
  return broken;
}

/** Prepares a username and checks it against the profile: the stored form, or why it is refused. */
export function enforceUsername(input: string): UsernameVerdict {
  const username = prepareUsername(input);
  const chars = [...username];
  if (chars.length === 0) return { ok: false, reason: 'must not be empty' };
  if (chars.length > USERNAME_MAX_LENGTH) {
    return { ok: false, reason: `is ${chars.length} characters long once normalised; at most ${USERNAME_MAX_LENGTH} are allowed` };
  }
  for (const char of chars) {
    const problem = characterProblem(char);
    if (problem) return { ok: false, reason: problem };
  }
  const problem = combiningProblem(chars) ?? scriptProblem(chars) ?? bidiProblem(chars);
  return problem ? { ok: false, reason: problem } : { ok: true, username };
}
