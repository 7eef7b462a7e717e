/**
 * (t) PostgreSQL beside SQLite, on 10,000 users each: update_user and get_user at 50
 * connections, on SQLite, on one instance over PostgreSQL and on two instances sharing
 * one PostgreSQL database (the connections split between them), interleaved; the
 * every-user listing's time to the last byte on each store; and, in the same rounds,
 * update_user on one instance with pools of 5 and 20 connections (DATABASE_POOL_SIZE; 10
 * by default).
 *
 * The cluster is a throwaway one (lib/testing/postgres-cluster.ts) with fsync on, as
 * PostgreSQL ships: its commits wait for the disk, as SQLite's do at synchronous=FULL.
 * It shares this machine's two cores with the service and the load, as the SQLite file
 * does not: the figures say what the stores cost here, not what a dedicated database
 * server gives.
 */
import { join } from 'node:path';
import pg from 'pg';
import { postgresTool, startPostgresCluster } from '../../../lib/testing/postgres-cluster.js';
import { compare, pick, posting, type Ratio, ready, SERVICE, type ScenarioOutcome, shown, startServer } from '../kit.js';
import { seedPostgresUsers } from '../seed.js';
import type { BenchRun } from './run.js';
import { updateBody } from './writes.js';

const LISTINGS = 5;

export async function postgres({ directory, small }: BenchRun): Promise<ScenarioOutcome> {
  const tool = postgresTool();
  if (!tool.present) {
    return { results: [], figures: {}, comparisons: {}, lines: [`(t) PostgreSQL not measured: no ${tool.name} (${tool.install})`] };
  }
  const cluster = await startPostgresCluster({ durable: true });
  const servers: { stop(): Promise<void> }[] = [];
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('create database bench');
    await admin.end();
    const databaseUrl = new URL(cluster.url);
    databaseUrl.pathname = '/bench';
    const onPostgres = await seedPostgresUsers(databaseUrl.toString(), small.userIds.length);

    const start = async (env: Record<string, string>) => {
      const server = await startServer(SERVICE, env, ready);
      servers.push(server);
      return server.url;
    };
    const postgresEnv = (poolSize: number) => ({ DATABASE_URL: databaseUrl.toString(), DATABASE_POOL_SIZE: String(poolSize) });
    // Started together (the instances on PostgreSQL take turns to check the migrations): the
    // instance on SQLite, two instances side by side, and one each with pools of 5 and 20.
    const [sqliteUrl, first, second, poolOf5Url, poolOf20Url] = await Promise.all([
      start({ DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}` }),
      start(postgresEnv(10)),
      start(postgresEnv(10)),
      start(postgresEnv(5)),
      start(postgresEnv(20)),
    ]);

    const updates = {
      sqlite: posting('/api/public/update_user', updateBody(small.userIds, small.credentials)),
      postgres: posting('/api/public/update_user', updateBody(onPostgres.userIds, onPostgres.credentials)),
    };
    const reads = {
      sqlite: posting('/api/public/get_user', () => ({ ...small.credentials, target_user: { user_id: pick(small.userIds) } })),
      postgres: posting('/api/public/get_user', () => ({ ...onPostgres.credentials, target_user: { user_id: pick(onPostgres.userIds) } })),
    };
    const writing = await compare([
      { name: '(t) update_user, SQLite', url: sqliteUrl, requests: updates.sqlite },
      { name: '    update_user, PostgreSQL', url: first, requests: updates.postgres },
      { name: '    update_user, PostgreSQL, 2 instances', url: [first, second], requests: updates.postgres },
      { name: '    update_user, PostgreSQL, pool of 5', url: poolOf5Url, requests: updates.postgres },
      { name: '    update_user, PostgreSQL, pool of 20', url: poolOf20Url, requests: updates.postgres },
    ]);
    const reading = await compare([
      { name: '(t) get_user, SQLite', url: sqliteUrl, requests: reads.sqlite },
      { name: '    get_user, PostgreSQL', url: first, requests: reads.postgres },
      { name: '    get_user, PostgreSQL, 2 instances', url: [first, second], requests: reads.postgres },
    ]);

    // Every user at once, one listing at a time: the median time to the last byte.
    const listingMs = async (url: string, credentials: object) => {
      const times: number[] = [];
      for (let listing = 0; listing < LISTINGS; listing++) {
        const started = performance.now();
        const answer = await fetch(`${url}/api/public/get_users`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(credentials),
        });
        if (answer.status !== 200) throw new Error(`get_users answered ${answer.status}`);
        await answer.arrayBuffer();
        times.push(performance.now() - started);
      }
      return Math.round(times.sort((a, b) => a - b)[Math.floor(LISTINGS / 2)]!);
    };
    const listingSqliteMs = await listingMs(sqliteUrl, small.credentials);
    const listingPostgresMs = await listingMs(first, onPostgres.credentials);

    const [oneWrite, twoWrites, poolOf5, poolOf20] = writing.ratios as [Ratio, Ratio, Ratio, Ratio];
    const [oneRead, twoReads] = reading.ratios as [Ratio, Ratio];
    return {
      results: [...writing.results, ...reading.results],
      figures: {
        postgres_update_user_rps: writing.results[1]!.rps,
        postgres_get_user_rps: reading.results[1]!.rps,
        postgres_every_user_ms: listingPostgresMs,
        sqlite_every_user_10k_ms: listingSqliteMs,
      },
      comparisons: {
        postgres_update_user_vs_sqlite: oneWrite,
        postgres_two_instances_update_user_vs_sqlite: twoWrites,
        postgres_get_user_vs_sqlite: oneRead,
        postgres_two_instances_get_user_vs_sqlite: twoReads,
        postgres_pool_5_vs_sqlite: poolOf5,
        postgres_pool_20_vs_sqlite: poolOf20,
      },
      lines: [
        `(t) update_user on PostgreSQL against SQLite: one instance ${shown(oneWrite)}; two instances ${shown(twoWrites)}`,
        `(t) get_user on PostgreSQL against SQLite: one instance ${shown(oneRead)}; two instances ${shown(twoReads)}`,
        `(t) every one of ${small.userIds.length.toLocaleString('en')} users: ${listingPostgresMs} ms on PostgreSQL, ${listingSqliteMs} ms on SQLite (median of ${LISTINGS})`,
        `(t) update_user on PostgreSQL by pool size, against SQLite: 5 connections ${shown(poolOf5)}; 10 (the default) ${shown(oneWrite)}; 20 ${shown(poolOf20)}`,
      ],
    };
  } finally {
    for (const server of servers) await server.stop();
    cluster.remove();
  }
}
