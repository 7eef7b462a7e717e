/**
 * The checks on a user's attributes that a schema cannot state: an SSH public
 * key whose key data parses (sshpk), a BCP 47 language tag and an IANA time
 * zone (the runtime's Intl, which knows both). Each gives the stored form of
 * a value, or why it is refused.
 */
import sshpk from 'sshpk';

export type Verdict = { ok: true; value: string } | { ok: false; reason: string; privateKey?: true };

/** The key types a session host accepts in authorized_keys (OpenSSH 9). */
const PUBLIC_KEY_TYPES =
  /^(ssh-ed25519|ssh-rsa|ecdsa-sha2-nistp(256|384|521)|sk-ssh-ed25519@openssh\.com|sk-ecdsa-sha2-nistp256@openssh\.com)$/;

/** Private keys in any of the armours OpenSSH, OpenSSL and PuTTY write. */
const PRIVATE_KEY = /PRIVATE KEY|PuTTY-User-Key-File/;

export function sshPublicKey(text: string): Verdict {
  const line = text.trim();
  if (line === '') return { ok: true, value: '' };
  if (PRIVATE_KEY.test(line)) return { ok: false, reason: 'is a private key: send its public half (the .pub file)', privateKey: true };
  if (/[\r\n]/.test(line)) return { ok: false, reason: 'must be one line: one OpenSSH public key' };
  const [type] = line.split(/\s+/, 1);
  if (!type || !PUBLIC_KEY_TYPES.test(type)) {
    return { ok: false, reason: 'must be an OpenSSH public key (ssh-ed25519, ssh-rsa, ecdsa-sha2-nistp256 …)' };
  }
  try {
    sshpk.parseKey(line, 'ssh');
  } catch {
    return { ok: false, reason: 'must be an OpenSSH public key whose key data parses' };
  }
  return { ok: true, value: line };
}

export function languageTag(text: string): Verdict {
  if (text === '') return { ok: true, value: '' };
  try {
    const [canonical] = Intl.getCanonicalLocales(text);
    // The grammar allows 5 to 8 letters for a language no registry has ("english"); ISO 639's are 2 or 3.
    if (canonical && /^[a-z]{2,3}(-|$)/.test(canonical)) return { ok: true, value: canonical };
  } catch {
    // RangeError: not a well-formed BCP 47 tag.
  }
  return { ok: false, reason: 'must be a BCP 47 language tag such as en-US' };
}

/** Zone names as the runtime's time zone database spells them, by lower case, for a case-insensitive match. */
let zones: Map<string, string> | undefined;

export function timeZone(text: string): Verdict {
  if (text === '') return { ok: true, value: '' };
  zones ??= new Map(['UTC', ...Intl.supportedValuesOf('timeZone')].map((zone) => [zone.toLowerCase(), zone]));
  const known = zones.get(text.toLowerCase());
  if (known) return { ok: true, value: known };
  // Links the list leaves out (Europe/Kiev, US/Pacific) are still names of the database.
  try {
    if (/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(text)) {
      return { ok: true, value: new Intl.DateTimeFormat('en', { timeZone: text }).resolvedOptions().timeZone };
    }
  } catch {
    // RangeError: the runtime knows no such zone.
  }
  return { ok: false, reason: 'must be an IANA time zone such as Europe/Paris' };
}
