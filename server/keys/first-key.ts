import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/repositories.js';
import { type IssuedApiKey, issueApiKey } from './api-keys.js';
import { SERVICE } from '../store/records.js';

/** Where a first key's secret went, and what to do once it is known whether the key was saved. */
export interface HandedOver {
  /** `terminal`, or the file's path. */
  where: string;
  /** The key was saved: say so where the operator looks. */
  confirm(): void;
  /** Another instance saved a first key at the same moment: this one does not work. */
  withdraw(): void;
}

/**
 * On a database with no API key at all, creates one with every permission so
 * that `npm start` alone gives a usable service. Its secret is handed over
 * before the key is saved: a saved key whose secret reached no one would lock
 * the operator out for good, while a secret that cannot be handed over stops
 * the start with nothing saved. Returns the key only when it was saved.
 */
export async function createFirstApiKey(
  store: Store,
  handOver: (issued: IssuedApiKey) => HandedOver | undefined = () => undefined,
): Promise<IssuedApiKey | undefined> {
  if ((await store.apiKeys.list()).length > 0) return undefined;
  const issued = issueApiKey('first key', PERMISSIONS, null);
  const handed = handOver(issued);
  // Several instances may start on an empty database at once; exactly one saves its key.
  if (await store.apiKeys.insertFirst(issued.record, SERVICE)) {
    handed?.confirm();
    return issued;
  }
  handed?.withdraw();
  return undefined;
}

export class FirstKeyError extends Error {
  override name = 'FirstKeyError';
}

export interface FirstKeyDelivery {
  /** Where a person may be reading: the service's standard output, when it is a terminal. */
  terminal: NodeJS.WritableStream & { isTTY?: boolean };
  /** Where the key goes otherwise (FIRST_KEY_FILE). */
  file: string;
  logger: Logger;
}

const NEXT = 'Create more keys with: npm run admin -- create-key --name NAME --permissions users_view,users_modify';

/**
 * Hands the first key's secret to the operator, and never to the log stream.
 * On a terminal it is printed there. Without one (a service manager, a
 * container, output piped to a log collector), standard output is the log
 * stream, so the key goes to a file only the service's user can read, and the
 * log says where. Throws FirstKeyError when the file cannot be written.
 */
export function handOverFirstKey(issued: IssuedApiKey, { terminal, file, logger }: FirstKeyDelivery): HandedOver {
  const credentials = JSON.stringify({ api_key: issued.record.api_key, api_key_secret: issued.secret });
  if (terminal.isTTY) {
    const lines = ['No API key existed, so one with every permission was created. Its secret is shown only now; keep it safe:'];
    terminal.write(['', ...lines, '', `  ${credentials}`, '', NEXT, '', ''].join('\n'));
    return {
      where: 'terminal',
      confirm: () => {},
      withdraw: () => void terminal.write('Another instance created the first key at the same moment: the key above was not saved.\n\n'),
    };
  }
  const path = resolve(file);
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // Removed first, so that the file is created anew with its mode, whatever an old one had.
    rmSync(path, { force: true });
    writeFileSync(path, `${credentials}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    throw new FirstKeyError(`cannot write the first API key to ${path} (FIRST_KEY_FILE); no key was created`, { cause: error });
  }
  return {
    where: path,
    confirm: () =>
      logger.warn(
        { file: path, api_key: issued.record.api_key },
        `no API key existed, so one with every permission was created; its secret is in this file, readable only by this user: keep it safe, then delete the file. ${NEXT}`,
      ),
    withdraw: () => rmSync(path, { force: true }),
  };
}
