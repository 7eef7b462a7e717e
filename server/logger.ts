import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may hold a secret. Request bodies are never logged, so these are a
 * safety net for anything that logs an object carrying one.
 */
const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'api_key_secret',
  'password',
  'password_hash',
  'secret_digest',
  '*.api_key_secret',
  '*.password',
  '*.password_hash',
  '*.secret_digest',
  '*.*.api_key_secret',
  '*.*.password',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, destination);
}
