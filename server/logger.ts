import { type Logger, pino } from 'pino';

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

interface LoggedError {
  type: string;
  message: string;
  code?: string;
  stack?: string;
  cause?: LoggedError;
}

/**
 * An error as a log line holds it: its type, message, code and stack, and its
 * causes. Not its other properties, which pino's own serialiser copies: a
 * body-parser error carries the raw request body, secrets and all.
 */
export function serializeError(error: unknown, depth = 0): LoggedError {
  if (!(error instanceof Error)) return { type: typeof error, message: String(error) };
  const code = (error as NodeJS.ErrnoException).code;
  return {
    type: error.name,
    message: error.message,
    ...(typeof code === 'string' ? { code } : {}),
    ...(error.stack ? { stack: error.stack } : {}),
    ...(error.cause !== undefined && depth < 5 ? { cause: serializeError(error.cause, depth + 1) } : {}),
  };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, serializers: { err: serializeError } }, destination);
}
