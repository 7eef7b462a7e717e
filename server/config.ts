/**
 * The service's settings, read once from the environment. Every setting has a
 * default that works on a developer's machine; the README's configuration
 * table documents each one.
 */
export interface Config {
  host: string;
  port: number;
  databaseUrl: string;
  logLevel: string;
  /** Validate every response against the contract too (always on under NODE_ENV=test). */
  validateResponses: boolean;
  /** Express's `trust proxy` setting: which proxies may set X-Forwarded-For. */
  trustProxy: boolean | number | string;
  authThrottle: AuthThrottleConfig;
}

export interface AuthThrottleConfig {
  /** Failed credential checks one client address may make within the window. */
  maxFailures: number;
  windowSeconds: number;
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/workspace.db';

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = (env[name] ?? '').toLowerCase();
  if (['', '0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new ConfigError(`${name} must be true or false, not "${env[name]}"`);
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return /^\d+$/.test(raw) ? Number(raw) : raw;
}

/** The sample data server's settings: where to listen, and how much to log. */
export interface SampleConfig {
  host: string;
  port: number;
  logLevel: string;
  validateResponses: boolean;
}

export function loadSampleConfig(env: NodeJS.ProcessEnv = process.env): SampleConfig {
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 5001, 0, 65535),
    logLevel: env.LOG_LEVEL || 'info',
    validateResponses: flag(env, 'VALIDATE_RESPONSES') || env.NODE_ENV === 'test',
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return {
    host: env.HOST || '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    databaseUrl: env.DATABASE_URL || DEFAULT_DATABASE_URL,
    logLevel: env.LOG_LEVEL || 'info',
    // Parsed first, so that a bad value is refused whatever NODE_ENV says.
    validateResponses: flag(env, 'VALIDATE_RESPONSES') || env.NODE_ENV === 'test',
    trustProxy: trustProxy(env.TRUST_PROXY),
    authThrottle: {
      maxFailures: integer(env, 'AUTH_FAILURE_LIMIT', 10, 1, 1_000_000),
      windowSeconds: integer(env, 'AUTH_FAILURE_WINDOW_SECONDS', 300, 1, 86_400),
    },
  };
}
