import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/repositories.js';
import { type IssuedApiKey, issueApiKey } from './api-keys.js';
import { SERVICE } from '../store/records.js';

/**
 * On a database with no API key at all, creates one with every permission so
 * that `npm start` alone gives a usable service. Returns it (with its secret,
 * to be shown once) only when it was created.
 */
export async function createFirstApiKey(store: Store): Promise<IssuedApiKey | undefined> {
  const issued = issueApiKey('first key', PERMISSIONS, null);
  return (await store.apiKeys.insertFirst(issued.record, SERVICE)) ? issued : undefined;
}

export interface FirstKeyDelivery {
  /** Where a person may be reading: the service's standard output, when it is a terminal. */
  terminal: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where the key goes otherwise (FIRST_KEY_FILE). */
  file: string;
  logger: Logger;
}

/**
 * Hands the first key's secret to the operator, and never to the log stream.
 * On a terminal it is printed there. Without one (a service manager, a
 * container, output piped to a log collector), standard output is the log
 * stream, so the key goes to a file only the service's user can read, and the
 * log says where. Returns where it went.
 */
export function deliverFirstKey(issued: IssuedApiKey, { terminal, file, logger }: FirstKeyDelivery): 'terminal' | string {
  const credentials = JSON.stringify({ api_key: issued.record.api_key, api_key_secret: issued.secret });
  const next = 'Create more keys with: npm run admin -- create-key --name NAME --permissions users_view,users_modify';
  if (terminal.isTTY) {
    terminal.write(
      [
        '',
        'No API key existed, so one with every permission was created. Its secret is shown only now; keep it safe:',
        '',
        `  ${credentials}`,
        '',
        next,
        '',
        '',
      ].join('\n'),
    );
    return 'terminal';
  }
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // Removed first, so that the file is created anew with its mode, whatever an old one had.
  rmSync(path, { force: true });
  writeFileSync(path, `${credentials}\n`, { mode: 0o600, flag: 'wx' });
  logger.warn(
    { file: path, api_key: issued.record.api_key },
    `no API key existed, so one with every permission was created; its secret is in this file, readable only by this user: keep it safe, then delete the file. ${next}`,
  );
  return path;
}
