/**
 * The service's settings, read once from the environment through one zod
 * schema per server. Every setting has a default that works on a developer's
 * machine; the README's configuration table documents each one. A bad value
 * stops the start with one line naming the variable, the value given and what
 * is allowed (ConfigError), never a stack trace.
 */
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { type ConnectionLimits, DEFAULT_CONNECTION_LIMITS } from './http/lifecycle.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './store/timeouts.js';
import { DEFAULT_POOL_SIZE } from './store/postgres/pool-size.js';
import { DEFAULT_PASSWORD_HISTORY } from './directory/users.js';
import { DEFAULT_IDEMPOTENCY_KEY_HOURS } from './http/idempotency.js';
import { DEFAULT_SESSION_TIMEOUTS, type SessionTimeouts } from './keys/console-sessions.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './webhooks/retry-schedule.js';
import { present } from '../lib/present.js';

export interface Config {
  host: string;
  port: number;
  /** Open connections allowed, in all and per client address. */
  connections: ConnectionLimits;
  databaseUrl: string;
  logLevel: LogLevel;
  /** Validate every response against the contract too (VALIDATE_RESPONSES; the tests turn it on). */
  validateResponses: boolean;
  /** Express's `trust proxy` setting: which proxies may set X-Forwarded-For. */
  trustProxy: boolean | number | string;
  /** The web origins whose pages may call the service (CORS); none by default. */
  corsOrigins: string[];
  authThrottle: AuthThrottleConfig;
  /** The most users get_users lists in one answer when no page is asked for. */
  getUsersMax: number;
  /** How long the service goes on serving, not ready, after SIGTERM before it closes. */
  shutdownDrainMs: number;
  /** How long audit events are kept. */
  auditRetentionDays: number;
  /** How far back the change feed reaches: the audit events of the last so many days (at most auditRetentionDays). */
  eventRetentionDays: number;
  /** How many of a user's latest passwords a new one may not repeat (PASSWORD_HISTORY; 0: none). */
  passwordHistory: number;
  /** How long an Idempotency-Key and its answer are kept (IDEMPOTENCY_KEY_HOURS), in milliseconds. */
  idempotencyKeyMs: number;
  /** When the web console's sessions end (CONSOLE_SESSION_IDLE_MINUTES, CONSOLE_SESSION_HOURS). */
  sessionTimeouts: SessionTimeouts;
  webhooks: {
    /** The waits after each failed delivery, in milliseconds (webhooks/retry-schedule.ts). */
    retrySchedule: number[];
    /** Deliver to loopback and private addresses too: for development and tests only. */
    allowPrivate: boolean;
    /** How long a webhook may fail every delivery before the service disables it, in milliseconds. */
    disableAfterMs: number;
  };
  /** Where the metrics listener listens; undefined when METRICS_PORT is unset (no metrics). */
  metrics: { host: string; port: number } | undefined;
  /** How long to wait on the database before answering 503 (store/timeouts.ts). */
  databaseTimeouts: DatabaseTimeouts;
  /** PostgreSQL: connections in this instance's pool. */
  databasePoolSize: number;
  /** Where the first key goes when standard output is not a terminal (keys/first-key.ts). */
  firstKeyFile: string;
}

export interface AuthThrottleConfig {
  /** Failed credential checks one client address may make within the window. */
  maxFailures: number;
  windowSeconds: number;
  /** Client addresses (IPv6: /64 networks) remembered at once; past it the least recently failed is forgotten. */
  capacity?: number;
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/workspace.db';
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Unset and empty are the same: the default applies (a shell's `VAR=` must not mean "zero"). */
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

const wholeNumber = (min: number, max: number, fallback: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\d+$/, `a whole number from ${min} to ${max}`)
      .transform(Number)
      .pipe(z.number().min(min, `a whole number from ${min} to ${max}`).max(max, `a whole number from ${min} to ${max}`))
      .default(fallback),
  );

const TRUE_WORDS = ['1', 'true', 'yes', 'on', 'y', 't'];
const FALSE_WORDS = ['0', 'false', 'no', 'off', 'n', 'f'];
const BOOLEAN_WORDS = `true or false (also ${[...TRUE_WORDS.slice(0, 4), ...FALSE_WORDS.slice(0, 4)].join(', ')})`;

const flag = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((raw) => raw.trim().toLowerCase())
    .refine((word) => TRUE_WORDS.includes(word) || FALSE_WORDS.includes(word), BOOLEAN_WORDS)
    .transform((word) => TRUE_WORDS.includes(word))
    .default(false),
);

const TRUST_PROXY_ALLOWED =
  'false, true, a number of proxies, or a comma-separated list of addresses, subnets (10.0.0.0/8) or loopback, linklocal, uniquelocal';

/**
 * `trust proxy` as express takes it: a yes/no word, a hop count, or the
 * addresses of the proxies. proxy-addr (which express uses) compiles the list,
 * so a value it would refuse at the first request is refused here at start.
 */
const trustProxySetting = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((raw, context): boolean | number | string => {
      const word = raw.trim().toLowerCase();
      if (TRUE_WORDS.includes(word)) return true;
      if (FALSE_WORDS.includes(word)) return false;
      if (/^\d+$/.test(word)) return Number(word);
      try {
        proxyAddr.compile(raw.split(',').map((entry) => entry.trim()));
        return raw;
      } catch {
        context.addIssue({ code: 'custom', message: TRUST_PROXY_ALLOWED });
        return z.NEVER;
      }
    })
    .default(false),
);

const ORIGINS_ALLOWED =
  'a comma-separated list of exact origins such as https://app.example.com (scheme, host and port only; never * or null)';

/**
 * CORS_ORIGINS: the web origins whose pages may call the service. Each is
 * exact, as a browser sends it in `Origin` (no path, no trailing slash): a
 * wildcard or `null` would let any page, or a sandboxed one, act with the
 * credentials the service accepts.
 */
const originList = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((raw, context): string[] => {
      const origins = raw
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean);
      for (const origin of origins) {
        let parsed: URL | undefined;
        try {
          parsed = new URL(origin);
        } catch {
          parsed = undefined;
        }
        if (!parsed || !['http:', 'https:'].includes(parsed.protocol) || parsed.origin !== origin || parsed.hostname.includes('*')) {
          context.addIssue({ code: 'custom', message: `${ORIGINS_ALLOWED}; ${JSON.stringify(origin)} is not one` });
          return z.NEVER;
        }
      }
      return [...new Set(origins)];
    })
    .default([]),
);

/** Waits after each failed webhook delivery (`5s,5m,30m,2h`): Standard Webhooks' schedule when unset. */
const retrySchedule = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .default(DEFAULT_RETRY_SCHEDULE)
    .transform((raw, context): number[] => {
      try {
        return parseRetrySchedule(raw);
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: `a comma-separated list of durations such as 5s,5m,30m,2h (${(error as Error).message})`,
        });
        return z.NEVER;
      }
    }),
);

/** A whole number, or nothing at all when unset or empty (a listener that is off). */
const optionalWholeNumber = (min: number, max: number) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^\d+$/, `a whole number from ${min} to ${max}, or unset`)
      .transform(Number)
      .pipe(
        z.number().min(min, `a whole number from ${min} to ${max}, or unset`).max(max, `a whole number from ${min} to ${max}, or unset`),
      )
      .optional(),
  );

const text = (fallback: string) => z.preprocess(unsetIfEmpty, z.string().default(fallback));
const logLevel = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((raw) => raw.trim().toLowerCase())
    .pipe(z.enum(LOG_LEVELS, `one of ${LOG_LEVELS.join(', ')}`))
    .default('info'),
);

const sampleSchema = z.object({
  HOST: text('127.0.0.1'),
  PORT: wholeNumber(0, 65535, 5001),
  MAX_CONNECTIONS: wholeNumber(1, 1_000_000, DEFAULT_CONNECTION_LIMITS.total),
  MAX_CONNECTIONS_PER_CLIENT: wholeNumber(1, 1_000_000, DEFAULT_CONNECTION_LIMITS.perClient),
  LOG_LEVEL: logLevel,
  VALIDATE_RESPONSES: flag,
});

const serviceSchema = sampleSchema.extend({
  PORT: wholeNumber(0, 65535, 8080),
  DATABASE_URL: text(DEFAULT_DATABASE_URL),
  TRUST_PROXY: trustProxySetting,
  CORS_ORIGINS: originList,
  AUTH_FAILURE_LIMIT: wholeNumber(1, 1_000_000, 10),
  AUTH_FAILURE_WINDOW_SECONDS: wholeNumber(1, 86_400, 300),
  AUTH_THROTTLE_CAPACITY: wholeNumber(100, 10_000_000, 100_000),
  GET_USERS_MAX: wholeNumber(1, 10_000_000, 100_000),
  SHUTDOWN_DRAIN_SECONDS: wholeNumber(0, 3600, 0),
  AUDIT_RETENTION_DAYS: wholeNumber(1, 36_500, 365),
  EVENT_RETENTION_DAYS: wholeNumber(1, 36_500, 30),
  PASSWORD_HISTORY: wholeNumber(0, 24, DEFAULT_PASSWORD_HISTORY),
  IDEMPOTENCY_KEY_HOURS: wholeNumber(1, 720, DEFAULT_IDEMPOTENCY_KEY_HOURS),
  CONSOLE_SESSION_IDLE_MINUTES: wholeNumber(1, 1440, DEFAULT_SESSION_TIMEOUTS.idleMs / 60_000),
  CONSOLE_SESSION_HOURS: wholeNumber(1, 720, DEFAULT_SESSION_TIMEOUTS.absoluteMs / 3_600_000),
  WEBHOOK_RETRY_SCHEDULE: retrySchedule,
  WEBHOOK_ALLOW_PRIVATE: flag,
  WEBHOOK_DISABLE_AFTER_DAYS: wholeNumber(1, 365, 5),
  METRICS_PORT: optionalWholeNumber(1, 65535),
  METRICS_HOST: text('127.0.0.1'),
  DATABASE_CONNECT_TIMEOUT_MS: wholeNumber(100, 600_000, DEFAULT_DATABASE_TIMEOUTS.connectMs),
  DATABASE_STATEMENT_TIMEOUT_MS: wholeNumber(100, 3_600_000, DEFAULT_DATABASE_TIMEOUTS.statementMs),
  DATABASE_LOCK_TIMEOUT_MS: wholeNumber(0, 600_000, DEFAULT_DATABASE_TIMEOUTS.lockMs),
  DATABASE_POOL_SIZE: wholeNumber(1, 1000, DEFAULT_POOL_SIZE),
  FIRST_KEY_FILE: text('data/first-api-key.json'),
});

/** A value as the error line shows it: quoted, and cut short so a pasted secret or blob cannot fill the terminal. */
const shown = (value: unknown) => JSON.stringify(typeof value === 'string' && value.length > 60 ? `${value.slice(0, 60)}…` : value);

function parse<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issue = present(result.error.issues[0], "the first of the failed parse's issues");
  const name = String(issue.path[0]);
  throw new ConfigError(`${name}=${shown(env[name])} is not allowed: expected ${issue.message}`);
}

const connectionsOf = (settings: z.output<typeof sampleSchema>): ConnectionLimits => ({
  total: settings.MAX_CONNECTIONS,
  perClient: settings.MAX_CONNECTIONS_PER_CLIENT,
});

/** The sample data server's settings: where to listen, and how much to log. */
export interface SampleConfig {
  host: string;
  port: number;
  /** Open connections allowed, in all and per client address. */
  connections: ConnectionLimits;
  logLevel: LogLevel;
  validateResponses: boolean;
}

export function loadSampleConfig(env: NodeJS.ProcessEnv = process.env): SampleConfig {
  const settings = parse(sampleSchema, env);
  return {
    host: settings.HOST,
    port: settings.PORT,
    connections: connectionsOf(settings),
    logLevel: settings.LOG_LEVEL,
    validateResponses: settings.VALIDATE_RESPONSES,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const settings = parse(serviceSchema, env);
  // The feed's events are the audit trail's rows: it cannot reach further back than they are kept.
  if (settings.EVENT_RETENTION_DAYS > settings.AUDIT_RETENTION_DAYS) {
    throw new ConfigError(
      `EVENT_RETENTION_DAYS=${settings.EVENT_RETENTION_DAYS} is not allowed: expected at most AUDIT_RETENTION_DAYS (${settings.AUDIT_RETENTION_DAYS}), since the change feed's events are the audit trail's`,
    );
  }
  return {
    host: settings.HOST,
    port: settings.PORT,
    connections: connectionsOf(settings),
    databaseUrl: settings.DATABASE_URL,
    logLevel: settings.LOG_LEVEL,
    validateResponses: settings.VALIDATE_RESPONSES,
    trustProxy: settings.TRUST_PROXY,
    corsOrigins: settings.CORS_ORIGINS,
    authThrottle: {
      maxFailures: settings.AUTH_FAILURE_LIMIT,
      windowSeconds: settings.AUTH_FAILURE_WINDOW_SECONDS,
      capacity: settings.AUTH_THROTTLE_CAPACITY,
    },
    getUsersMax: settings.GET_USERS_MAX,
    shutdownDrainMs: settings.SHUTDOWN_DRAIN_SECONDS * 1000,
    auditRetentionDays: settings.AUDIT_RETENTION_DAYS,
    eventRetentionDays: settings.EVENT_RETENTION_DAYS,
    passwordHistory: settings.PASSWORD_HISTORY,
    idempotencyKeyMs: settings.IDEMPOTENCY_KEY_HOURS * 3_600_000,
    sessionTimeouts: {
      idleMs: settings.CONSOLE_SESSION_IDLE_MINUTES * 60_000,
      absoluteMs: settings.CONSOLE_SESSION_HOURS * 3_600_000,
    },
    webhooks: {
      retrySchedule: settings.WEBHOOK_RETRY_SCHEDULE,
      allowPrivate: settings.WEBHOOK_ALLOW_PRIVATE,
      disableAfterMs: settings.WEBHOOK_DISABLE_AFTER_DAYS * 86_400_000,
    },
    metrics: settings.METRICS_PORT === undefined ? undefined : { host: settings.METRICS_HOST, port: settings.METRICS_PORT },
    databaseTimeouts: {
      connectMs: settings.DATABASE_CONNECT_TIMEOUT_MS,
      statementMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
      lockMs: settings.DATABASE_LOCK_TIMEOUT_MS,
    },
    databasePoolSize: settings.DATABASE_POOL_SIZE,
    firstKeyFile: settings.FIRST_KEY_FILE,
  };
}
