import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, loadSampleConfig } from './config.js';

describe('settings from the environment', () => {
  it('has a working default for every setting', () => {
    assert.deepEqual(loadConfig({}), {
      host: '127.0.0.1',
      port: 8080,
      databaseUrl: 'sqlite:data/workspace.db',
      logLevel: 'info',
      validateResponses: false,
      trustProxy: false,
      corsOrigins: [],
      authThrottle: { maxFailures: 10, windowSeconds: 300, capacity: 100_000 },
      getUsersMax: 100_000,
      shutdownDrainMs: 0,
      auditRetentionDays: 365,
      eventRetentionDays: 30,
      passwordHistory: 5,
      idempotencyKeyMs: 86_400_000,
      sessionTimeouts: { idleMs: 1_800_000, absoluteMs: 43_200_000 },
      webhooks: {
        retrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
        allowPrivate: false,
        disableAfterMs: 432_000_000,
      },
      metrics: undefined,
      connections: { total: 1_000, perClient: 100 },
      databaseTimeouts: { connectMs: 3_000, statementMs: 5_000, lockMs: 1_000 },
      databasePoolSize: 10,
      firstKeyFile: 'data/first-api-key.json',
    });
    assert.deepEqual(loadSampleConfig({}), {
      host: '127.0.0.1',
      port: 5001,
      logLevel: 'info',
      validateResponses: false,
      connections: { total: 1_000, perClient: 100 },
    });
    assert.deepEqual(loadConfig({ MAX_CONNECTIONS: '50', MAX_CONNECTIONS_PER_CLIENT: '5' }).connections, { total: 50, perClient: 5 });
    assert.deepEqual(
      loadConfig({ DATABASE_CONNECT_TIMEOUT_MS: '200', DATABASE_STATEMENT_TIMEOUT_MS: '300', DATABASE_LOCK_TIMEOUT_MS: '0' })
        .databaseTimeouts,
      { connectMs: 200, statementMs: 300, lockMs: 0 },
    );
    assert.equal(loadConfig({ PORT: '' }).port, 8080, 'an empty value is the default');
  });

  it('takes the usual words for a yes or a no, in any case', () => {
    for (const yes of ['1', 'true', 'TRUE', 'yes', 'On', 'y'])
      assert.equal(loadConfig({ VALIDATE_RESPONSES: yes }).validateResponses, true, yes);
    for (const no of ['0', 'false', 'No', 'off', 'OFF', 'n'])
      assert.equal(loadConfig({ VALIDATE_RESPONSES: no }).validateResponses, false, no);
    assert.equal(loadConfig({ NODE_ENV: 'test' }).validateResponses, false, 'NODE_ENV switches nothing: only VALIDATE_RESPONSES does');
  });

  it('reads TRUST_PROXY as express does: a word, a hop count, or the proxies', () => {
    for (const off of ['off', 'no', 'false', 'OFF']) assert.equal(loadConfig({ TRUST_PROXY: off }).trustProxy, false, off);
    assert.equal(loadConfig({ TRUST_PROXY: 'on' }).trustProxy, true);
    assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
    assert.equal(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy, 'loopback, 10.0.0.0/8');
  });

  it('reads CORS_ORIGINS as exact web origins, none by default, and refuses a wildcard, null or a path', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://127.0.0.1:5173,https://app.example.com' }).corsOrigins, [
      'https://app.example.com',
      'http://127.0.0.1:5173',
    ]);
    for (const refused of [
      '*',
      'null',
      'https://app.example.com/',
      'https://app.example.com/console',
      'app.example.com',
      'file:///x',
      'https://*.example.com',
    ]) {
      assert.throws(
        () => loadConfig({ CORS_ORIGINS: refused }),
        /^ConfigError: CORS_ORIGINS=.* is not allowed: expected a comma-separated list of exact origins/,
        refused,
      );
    }
  });

  it('refuses a bad value with one line naming the variable, the value and what is allowed', () => {
    const cases: [NodeJS.ProcessEnv, RegExp][] = [
      [{ PORT: 'eighty' }, /^PORT="eighty" is not allowed: expected a whole number from 0 to 65535$/],
      [{ PORT: '70000' }, /^PORT="70000" is not allowed: expected a whole number from 0 to 65535$/],
      [{ VALIDATE_RESPONSES: 'maybe' }, /^VALIDATE_RESPONSES="maybe" is not allowed: expected true or false/],
      [{ TRUST_PROXY: 'proxy.example' }, /^TRUST_PROXY="proxy.example" is not allowed: expected false, true, a number of proxies/],
      [{ AUTH_FAILURE_LIMIT: '0' }, /^AUTH_FAILURE_LIMIT="0" is not allowed: expected a whole number from 1 to 1000000$/],
      [{ AUTH_THROTTLE_CAPACITY: '-5' }, /^AUTH_THROTTLE_CAPACITY="-5" is not allowed/],
      [{ LOG_LEVEL: 'verbose' }, /^LOG_LEVEL="verbose" is not allowed: expected one of fatal, error, warn, info, debug, trace, silent$/],
    ];
    for (const [env, message] of cases) {
      assert.throws(
        () => loadConfig(env),
        (error: Error) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('\n'),
      );
    }
    assert.throws(() => loadSampleConfig({ PORT: 'x' }), /^ConfigError: PORT="x"/);
  });

  it('cuts a long value short in the message', () => {
    assert.throws(
      () => loadConfig({ LOG_LEVEL: 'x'.repeat(500) }),
      (error: Error) => error.message.length < 200,
    );
  });
});
